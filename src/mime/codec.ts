/**
 * Content-Transfer-Encoding in bounded pieces (RFC 2045 §6.7 quoted-printable, §6.8 base64), as a pure core:
 * encoded bytes are cut into *segments* — physical lines of the original, each with the bytes it decodes to —
 * and rewritten bytes are encoded afresh by encoders that keep only a few bytes of state. Whatever the line
 * length (minified HTML in 76-column quoted-printable is one hard line of the whole part), no piece is larger
 * than a physical line, and a physical line is cut at `MAX_SEGMENT_BYTES`.
 *
 * Hand-written (not libqp/libbase64, which encode and wrap whole strings) because encoding must go on across
 * chunks with its column, hold back trailing whitespace and line starts until the next byte is known, write
 * soft line breaks in the original's line-end style (CRLF, LF or bare CR) and never write a line that a
 * container reads as structure (below).
 *
 * A freshly encoded quoted-printable line never begins with "From " (an mbox separator: written "=46rom ", as
 * mail producers do) nor with "--" (a MIME delimiter line: written "=2D-"), so no re-encoding can make a line
 * that an mbox reader or a MIME parser reads as structure. base64 lines cannot begin with either.
 */

export type LineEnding = '\r\n' | '\n' | '\r';

/** One physical line of the original (or a piece of a very long one) and the bytes it decodes to. */
export interface Segment {
  readonly encoded: Buffer;
  readonly decoded: Buffer;
  /** It ends a hard line (quoted-printable: a line ending that is not a soft line break). */
  readonly hardEnd: boolean;
  /** (base64) After it, the characters read so far are a whole number of 4-character quanta. */
  readonly aligned: boolean;
}

/** A physical line longer than this is cut into segments of at most about this size. */
export const MAX_SEGMENT_BYTES: number = 1 << 16;

/**
 * The first line ending of `data` (null: none yet; a CR at the very end waits for what follows, unless `whole`:
 * the data is a whole line, so that CR is a bare one).
 */
export function lineEndingOf(data: Buffer, whole = false): LineEnding | null {
  const lf = data.indexOf(0x0a);
  const cr = lf === -1 ? data.indexOf(0x0d) : data.subarray(0, lf).indexOf(0x0d);
  if (cr !== -1) {
    if (cr + 1 >= data.length) return whole ? '\r' : null;
    return data[cr + 1] === 0x0a ? '\r\n' : '\r';
  }
  return lf === -1 ? null : '\n';
}

function isWhitespace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * Splits encoded bytes into physical lines: each runs to and includes its line ending (CRLF, LF or bare CR; a
 * CR at the end of the data waits for the next byte), or is cut at `MAX_SEGMENT_BYTES` where `safeCut` allows.
 */
class PhysicalLines {
  private carry: Buffer | null = null;

  constructor(private readonly safeCut: (data: Buffer, at: number) => number) {}

  /** Whole lines (and cut pieces) of what has come; `eol` is the length of the line ending (0: a cut piece or the end). */
  push(chunk: Buffer, final: boolean, each: (line: Buffer, eol: number) => void): void {
    const data = this.carry === null ? chunk : Buffer.concat([this.carry, chunk]);
    this.carry = null;
    let start = 0;
    let nextLf = -1;
    let nextCr = -1;
    while (start < data.length) {
      if (nextLf !== -2 && nextLf < start) nextLf = data.indexOf(0x0a, start);
      if (nextLf === -1) nextLf = -2;
      if (nextCr !== -2 && nextCr < start) nextCr = data.indexOf(0x0d, start);
      if (nextCr === -1) nextCr = -2;
      let end: number;
      let eol: number;
      if (nextCr >= 0 && (nextLf < 0 || nextCr < nextLf)) {
        if (nextCr + 1 >= data.length && !final) end = -1;
        else end = data[nextCr + 1] === 0x0a ? nextCr + 2 : nextCr + 1;
        eol = end - nextCr;
      } else if (nextLf >= 0) {
        end = nextLf + 1;
        eol = 1;
      } else {
        end = -1;
        eol = 0;
      }
      if (end !== -1 && end - start <= MAX_SEGMENT_BYTES) {
        each(data.subarray(start, end), eol);
        start = end;
        continue;
      }
      if (end === -1 && data.length - start <= MAX_SEGMENT_BYTES) break;
      // A line longer than a segment: a piece of it, cut where nothing that decodes as one is split.
      const cut = this.safeCut(data, start + MAX_SEGMENT_BYTES);
      each(data.subarray(start, cut), 0);
      start = cut;
    }
    if (start < data.length) {
      if (final) each(data.subarray(start), 0);
      else this.carry = Buffer.from(data.subarray(start));
    }
  }
}

/**
 * Quoted-printable read in segments (RFC 2045 §6.7), as libqp decodes it: "=" and two hex digits (either case)
 * are a byte; "=" at the end of a line (trailing whitespace ignored, rule 3) is a soft line break, whatever the
 * line ending (CRLF, LF or bare CR: "=" CR is a soft line break too, never a literal "="); whitespace at the end
 * of a line is deleted (rule 3); any other "=" is itself; a hard line ending is kept as it is.
 */
export class QuotedPrintableDecoder {
  private readonly lines = new PhysicalLines(qpSafeCut);

  /** The segments of what has come (with `final`, of everything). */
  push(chunk: Buffer, final: boolean): Segment[] {
    const out: Segment[] = [];
    this.lines.push(chunk, final, (line, eol) => out.push(decodeQuotedPrintableLine(line, eol)));
    return out;
  }
}

/** A cut point at or before `at` that splits no "=XX" and leaves no whitespace at the end of a piece. */
function qpSafeCut(data: Buffer, at: number): number {
  let p = at;
  const floor = at - 64;
  while (p > floor && (data[p - 1] === 0x3d || data[p - 2] === 0x3d || isWhitespace(data[p - 1]))) p--;
  return p > floor ? p : at;
}

function decodeQuotedPrintableLine(line: Buffer, eol: number): Segment {
  const decoded = Buffer.allocUnsafe(line.length);
  const n = decodeQuotedPrintableInto(line, 0, line.length, eol, decoded, 0);
  const soft = n < 0;
  const length = soft ? ~n : n;
  return { encoded: line, decoded: decoded.subarray(0, length), hardEnd: eol > 0 && !soft, aligned: true };
}

/**
 * Decodes the physical line `data[start, end)` (its last `eol` bytes its line ending) into `out` from `n`; returns
 * the new length, or its bitwise complement (`~length`, negative) when the line ends in a soft line break.
 */
function decodeQuotedPrintableInto(data: Buffer, start: number, end: number, eol: number, out: Buffer, n: number): number {
  // Rule 3: whitespace at the end of a line is deleted (a cut piece never ends with any: qpSafeCut).
  let stop = end - eol;
  while (stop > start && isWhitespace(data[stop - 1])) stop--;
  // Rule 5: "=" at the end of a line is a soft line break (at the end of the body, libqp drops it too).
  const soft = stop > start && data[stop - 1] === 0x3d;
  if (soft) stop--;
  for (let i = start; i < stop; i++) {
    const c = data[i]!;
    if (c === 0x3d && i + 2 < stop) {
      const hi = hexValue(data[i + 1]!);
      const lo = hexValue(data[i + 2]!);
      if (hi !== -1 && lo !== -1) {
        out[n++] = (hi << 4) | lo;
        i += 2;
        continue;
      }
    }
    out[n++] = c;
  }
  if (soft) return ~n;
  for (let i = end - eol; i < end; i++) out[n++] = data[i]!;
  return n;
}

/**
 * The segments of a whole quoted-printable body, as `QuotedPrintableDecoder.push(body, true)` makes them, each
 * line decoded by the same `decodeQuotedPrintableInto`, but into one buffer for the whole body (a part to encode
 * again: `encodeBody`). Null when a physical line is longer than a segment (the decoder cuts it then).
 */
export function quotedPrintableSegments(body: Buffer): Segment[] | null {
  const segments: Segment[] = [];
  const decoded = Buffer.allocUnsafe(body.length);
  let n = 0;
  let start = 0;
  let nextLf = -1;
  let nextCr = -1;
  while (start < body.length) {
    if (nextLf !== -2 && nextLf < start) nextLf = body.indexOf(0x0a, start);
    if (nextLf === -1) nextLf = -2;
    if (nextCr !== -2 && nextCr < start) nextCr = body.indexOf(0x0d, start);
    if (nextCr === -1) nextCr = -2;
    let end: number;
    let eol: number;
    if (nextCr >= 0 && (nextLf < 0 || nextCr < nextLf)) {
      end = body[nextCr + 1] === 0x0a ? nextCr + 2 : nextCr + 1;
      eol = end - nextCr;
    } else if (nextLf >= 0) {
      end = nextLf + 1;
      eol = 1;
    } else {
      end = body.length;
      eol = 0;
    }
    if (end - start > MAX_SEGMENT_BYTES) return null;
    const from = n;
    n = decodeQuotedPrintableInto(body, start, end, eol, decoded, n);
    const soft = n < 0;
    if (soft) n = ~n;
    segments.push({ encoded: body.subarray(start, end), decoded: decoded.subarray(from, n), hardEnd: eol > 0 && !soft, aligned: true });
    start = end;
  }
  return segments;
}

/**
 * A whole quoted-printable body decoded (`decodeQuotedPrintableLines`), with where each of its segments — the
 * physical lines `quotedPrintableSegments` makes of it — ends, as numbers rather than a buffer and an object per
 * line: segment k ends at `lines[3k]` in the body and at `lines[3k + 1]` in `decoded`, and `lines[3k + 2]` is 1
 * when it ends a hard line. `count` segments.
 */
export interface QuotedPrintableLines {
  readonly body: Buffer;
  readonly decoded: Buffer;
  readonly lines: Int32Array;
  readonly count: number;
}

/**
 * A whole quoted-printable body decoded in one pass into one buffer: the bytes of every segment of
 * `QuotedPrintableDecoder.push(body, true)`, concatenated, without a buffer per line (a held part that turns out
 * unchanged needs no segments; `test/mime/codec.test.ts` checks the two agree). The rules of
 * `decodeQuotedPrintableLine` read from left to right: whitespace before a line ending (or the end) is deleted,
 * "=" then whitespace then a line ending (or the end) is a soft line break, "=" and two hex digits a byte. Null
 * when a physical line is longer than a segment (its pieces are cut where `qpSafeCut` says): the segments are
 * the way then.
 */
export function decodeQuotedPrintable(body: Buffer): Buffer | null {
  return decodeQuotedPrintableLines(body)?.decoded ?? null;
}

/**
 * `decodeQuotedPrintable`, and where its segments end (what `reencodeQuotedPrintable` copies by): each physical
 * line decoded by the rules of `decodeQuotedPrintableInto` (trailing whitespace deleted, a last "=" a soft line
 * break, "=" and two hex digits a byte). Line endings are found and bytes copied by loops over the line, not by
 * native searches and copies: quoted-printable lines are short (76 bytes), and a search per line ending and per
 * "=" (every soft line break is one) and a copy per run cost more in their calls than the bytes they step over
 * (`node --cpu-prof` of the mbox bench under efficiency mode, where V8 runs this loop as Maglev code: ~140 ms of
 * the main thread in the decode, its searches and copies, against ~90). A line with no line ending within
 * `LINE_SCAN_BYTES` is searched natively.
 */
export function decodeQuotedPrintableLines(body: Buffer): QuotedPrintableLines | null {
  if (!warmedUp) warmUp();
  const length = body.length;
  const out = Buffer.allocUnsafe(length);
  let lines: Int32Array = new Int32Array(3 * ((length >> 5) + 8));
  let count = 0;
  let n = 0;
  let farLf = -1;
  let farCr = -1;
  for (let start = 0; start < length; ) {
    // The physical line [start, end), its line ending from eolStart (CRLF, LF, a bare CR; none at the end).
    let eolStart = start;
    const near = Math.min(length, start + LINE_SCAN_BYTES);
    while (eolStart < near) {
      const c = body[eolStart]!;
      if (c === 0x0a || c === 0x0d) break;
      eolStart++;
    }
    if (eolStart === near && near < length) {
      // A long line: native searches, remembered until passed (-2: none to the end), so the walk stays linear.
      if (farLf !== -2 && farLf < near) {
        farLf = body.indexOf(0x0a, near);
        if (farLf === -1) farLf = -2;
      }
      if (farCr !== -2 && farCr < near) {
        farCr = body.indexOf(0x0d, near);
        if (farCr === -1) farCr = -2;
      }
      eolStart = farCr >= 0 && (farLf < 0 || farCr < farLf) ? farCr : farLf >= 0 ? farLf : length;
    }
    let end: number;
    if (eolStart >= length) end = length;
    else end = body[eolStart] === 0x0d && body[eolStart + 1] === 0x0a ? eolStart + 2 : eolStart + 1;
    if (end - start > MAX_SEGMENT_BYTES) return null;
    // Rule 3: whitespace at the end of a line is deleted; rule 5: "=" then is a soft line break.
    let stop = eolStart;
    while (stop > start && (body[stop - 1] === 0x20 || body[stop - 1] === 0x09)) stop--;
    const soft = stop > start && body[stop - 1] === 0x3d;
    if (soft) stop--;
    let p = start;
    while (p < stop) {
      const c = body[p]!;
      if (c !== 0x3d) {
        out[n++] = c;
        p++;
        continue;
      }
      // "=": a byte when two hex digits follow within the line, else itself.
      const hi = p + 2 < stop ? hexValue(body[p + 1]!) : -1;
      const lo = hi === -1 ? -1 : hexValue(body[p + 2]!);
      if (lo !== -1) {
        out[n++] = (hi << 4) | lo;
        p += 3;
      } else {
        out[n++] = 0x3d;
        p++;
      }
    }
    if (!soft) for (let k = eolStart; k < end; k++) out[n++] = body[k]!;
    if (3 * count + 3 > lines.length) lines = grown(lines);
    lines[3 * count] = end;
    lines[3 * count + 1] = n;
    lines[3 * count + 2] = end > eolStart && !soft ? 1 : 0;
    count++;
    start = end;
  }
  return { body, decoded: out.subarray(0, n), lines, count };
}

/** How far `decodeQuotedPrintableLines` looks for a line ending byte by byte before it searches natively. */
const LINE_SCAN_BYTES = 256;

/**
 * Type feedback for every branch of the quoted-printable decode and re-encode before V8 optimizes them (as the CSS
 * scan's warm-up in src/css/rewrite-css.ts): a branch first taken after V8 had optimized a function threw the code
 * away — trailing whitespace and more lines than first guessed in the decode, a run that ends in `equalRun`
 * (optimized on stack within a long equal run) — and each was compiled 3–4 times by TurboFan on the mbox bench
 * (`--trace-opt --trace-deopt`; the re-encode's Maglev code left its inner loop 24 times). Before the first body,
 * `warmUp` decodes and re-encodes a short body that takes every branch, twice (the loops of one call run enough
 * bytecode for V8 to keep feedback): ~1 ms, once, and each is compiled once by Maglev and once by TurboFan (OSR
 * aside); a process without quoted-printable parts never pays it.
 */
const WARM_UP = [
  'a line of plain text longer than sixteen bytes\r\n',
  'a=3Db=3dc=C3=A9 d=\t\r\n',
  'trailing spaces  \r\n',
  'trailing tab\t\n',
  'soft line break=\n',
  '=G1 =4 =\r',
  'x=4\r',
  '\r\n',
  '--a delimiter\n',
  'From a separator\r\n',
  '\n'.repeat(40),
  // A line longer than LINE_SCAN_BYTES.
  `${'y'.repeat(150)}=3D${'z'.repeat(150)}\r\n`,
  'no line ending at the end',
].join('');

let warmedUp = false;

function warmUp(): void {
  warmedUp = true;
  const body = Buffer.from(WARM_UP, 'latin1');
  for (let k = 0; k < 2; k++) {
    const original = decodeQuotedPrintableLines(body)!;
    const decoded = original.decoded;
    const changed = Buffer.concat([decoded.subarray(0, 10), Buffer.from('http://example.org/a=b \xe9\t\r\nFrom x\r\n--y ', 'latin1'), decoded.subarray(12, 120), Buffer.from('z'.repeat(100), 'latin1'), decoded.subarray(121)]);
    reencodeQuotedPrintable(original, decoded, '\r\n', true);
    reencodeQuotedPrintable(original, changed, '\r\n', true);
    reencodeQuotedPrintable(original, changed.subarray(0, changed.length - 3), '\n', false);
    equalRun(decoded, 0, changed, 0);
  }
}

function grown(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** How many bytes from a[ai] and b[bi] on are equal (compared natively, a block at a time). */
function equalRun(a: Buffer, ai: number, b: Buffer, bi: number): number {
  const n = Math.min(a.length - ai, b.length - bi);
  let k = 0;
  let block = 64;
  while (k < n) {
    const len = Math.min(block, n - k);
    if (a.compare(b, bi + k, bi + k + len, ai + k, ai + k + len) === 0) {
      k += len;
      if (block < 1 << 16) block *= 2;
      continue;
    }
    let j = 0;
    while (a[ai + k + j] === b[bi + k + j]) j++;
    return k + j;
  }
  return n;
}

/**
 * `new Reencoder('quoted-printable', style).writeBytes(rewritten, true, finalEol)` after the segments of the
 * whole original were added, but with the segments as `QuotedPrintableLines` gives them: a run of segments whose
 * decoded bytes are the next rewritten bytes is found by one comparison and copied as one slice of the original
 * (measured on the mbox bench: the segment objects and a comparison per line were ~7% of the main thread). The
 * same steps and the same encoder calls as `Reencoder.writeBytes`, so the same bytes (`test/mime/codec.test.ts`
 * checks it on random bodies and rewrites).
 */
export function reencodeQuotedPrintable(original: QuotedPrintableLines, rewritten: Buffer, eol: LineEnding, finalEol: boolean): Buffer {
  return Buffer.concat(reencodeQuotedPrintablePieces(original, rewritten, eol, finalEol));
}

/**
 * `reencodeQuotedPrintable`'s bytes as the pieces it writes, in order: runs of the original body (its slices)
 * and lines encoded afresh. A held part's output is written piece by piece (the writer gathers small pieces), not
 * joined into one more buffer of the whole part first.
 */
export function reencodeQuotedPrintablePieces(original: QuotedPrintableLines, rewritten: Buffer, eol: LineEnding, finalEol: boolean): Buffer[] {
  const { body, decoded, lines, count } = original;
  const qp = new QuotedPrintableEncoder(eol);
  const eolLast = eol === '\r' ? 0x0d : 0x0a;
  const out: Buffer[] = [];
  let head = 0;
  let p = 0;
  let mode: 'copy' | 'fresh' | 'skip' = 'copy';
  let inputLineDone = false;
  let lastByte = 0;
  const emit = (bytes: Buffer): void => {
    if (bytes.length > 0) lastByte = bytes[bytes.length - 1]!;
    out.push(bytes);
  };
  /** Drops segments up to the end of the current hard line; whether that end was reached. */
  const dropInputLine = (): boolean => {
    while (head < count) if (lines[3 * head++ + 2] === 1) return true;
    return false;
  };
  for (;;) {
    if (mode === 'copy') {
      if (head >= count) mode = 'fresh';
      else {
        // The segments from `head` whose decoded bytes all lie within the equal run match, and are copied.
        const q = head === 0 ? 0 : lines[3 * (head - 1) + 1]!;
        const equal = equalRun(rewritten, p, decoded, q);
        let k = head;
        while (k < count && lines[3 * k + 1]! - q <= equal) k++;
        if (k > head) {
          const from = head === 0 ? 0 : lines[3 * (head - 1)]!;
          const to = lines[3 * (k - 1)]!;
          out.push(body.subarray(from, to));
          lastByte = body[to - 1]!;
          p += lines[3 * (k - 1) + 1]! - q;
          head = k;
          continue;
        }
        mode = 'fresh';
        inputLineDone = false;
        qp.column = lastByte === 0 || lastByte === 0x0a || lastByte === 0x0d ? 0 : MAX_SEGMENT_BYTES;
        qp.verbatimStart = qp.column === 0 && head < count && startsVerbatim(body, head === 0 ? 0 : lines[3 * (head - 1)]!);
      }
    }
    if (mode === 'skip') {
      if (dropInputLine()) {
        mode = 'copy';
        continue;
      }
      mode = 'fresh';
    }
    if (!inputLineDone) inputLineDone = dropInputLine();
    const at = rewritten.indexOf(eolLast, p);
    if (at === -1) {
      emit(qp.writeBytes(rewritten.subarray(p), true));
      p = rewritten.length;
      break;
    }
    emit(qp.writeBytes(rewritten.subarray(p, at + 1), false));
    p = at + 1;
    mode = inputLineDone ? 'copy' : 'skip';
  }
  if (finalEol && lastByte !== 0x0a && lastByte !== 0x0d) out.push(Buffer.from(`=${eol}`, 'latin1'));
  return out;
}

const B64 = new Int8Array(256).fill(-1);
const PLAIN_BASE64 = /^[A-Za-z0-9+/\r\n]*$/;
/** base64 lines taken together into one segment, up to this many bytes. */
const GROUP_BYTES = 1 << 14;
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) B64[c.charCodeAt(0)] = i;

/**
 * base64 read in segments (RFC 2045 §6.8): whitespace and line endings are skipped; what follows "=" (padding)
 * ends the data, as in Python's `binascii.a2b_base64`; any other character outside the alphabet is skipped (as
 * Python skips it) and counted in `ignored`. A last quantum short of padding is decoded as if padded (`padded`);
 * a lone last character decodes to nothing (`truncated`).
 */
export class Base64Decoder {
  ignored = 0;
  padded = false;
  truncated = false;
  private readonly lines = new PhysicalLines((_d, at) => at);
  /** Characters of an unfinished quantum. */
  private quantum: number[] = [];
  private ended = false;

  push(chunk: Buffer, final: boolean): Segment[] {
    const out: Segment[] = [];
    // Whole lines are taken together, up to GROUP_BYTES: one segment each (lines are contiguous in one buffer).
    let group: Buffer | null = null;
    const flush = (): void => {
      if (group !== null) out.push(this.decodeLine(group));
      group = null;
    };
    this.lines.push(chunk, final, (line) => {
      if (group !== null && group.buffer === line.buffer && group.byteOffset + group.length === line.byteOffset && group.length + line.length <= GROUP_BYTES) {
        group = Buffer.from(group.buffer, group.byteOffset, group.length + line.length);
      } else {
        flush();
        group = line;
      }
    });
    flush();
    if (final && this.quantum.length > 0) {
      const last = out[out.length - 1];
      const tail = this.finish();
      if (last !== undefined) out[out.length - 1] = { ...last, decoded: Buffer.concat([last.decoded, tail]), aligned: true };
      else if (tail.length > 0) out.push({ encoded: Buffer.alloc(0), decoded: tail, hardEnd: false, aligned: true });
    }
    return out;
  }

  private decodeLine(line: Buffer): Segment {
    // The common case natively: whole quanta of the alphabet and line endings, nothing pending, no padding.
    if (this.quantum.length === 0 && !this.ended) {
      const text = line.toString('latin1');
      if (PLAIN_BASE64.test(text) && text.replace(/[\r\n]+/g, '').length % 4 === 0) {
        return { encoded: line, decoded: Buffer.from(text, 'base64'), hardEnd: false, aligned: true };
      }
    }
    const decoded = Buffer.allocUnsafe(Math.ceil(((line.length + 4) * 3) / 4));
    let n = 0;
    const q = this.quantum;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (this.ended) continue;
      if (c === 0x3d) {
        // Padding: the quantum ends here, and with it the data.
        n = this.flushQuantum(decoded, n);
        this.ended = true;
        continue;
      }
      const v = B64[c]!;
      if (v === -1) {
        if (c !== 0x0a && c !== 0x0d && c !== 0x20 && c !== 0x09) this.ignored++;
        continue;
      }
      q.push(v);
      if (q.length === 4) {
        decoded[n++] = (q[0]! << 2) | (q[1]! >> 4);
        decoded[n++] = ((q[1]! & 15) << 4) | (q[2]! >> 2);
        decoded[n++] = ((q[2]! & 3) << 6) | q[3]!;
        q.length = 0;
      }
    }
    return { encoded: line, decoded: decoded.subarray(0, n), hardEnd: false, aligned: q.length === 0 };
  }

  /** An unfinished quantum, decoded as if padded. */
  private flushQuantum(decoded: Buffer, n: number): number {
    const q = this.quantum;
    if (q.length === 1) this.truncated = true;
    if (q.length >= 2) decoded[n++] = (q[0]! << 2) | (q[1]! >> 4);
    if (q.length >= 3) decoded[n++] = ((q[1]! & 15) << 4) | (q[2]! >> 2);
    q.length = 0;
    return n;
  }

  private finish(): Buffer {
    const tail = Buffer.alloc(3);
    this.padded = this.quantum.length >= 2;
    const n = this.flushQuantum(tail, 0);
    return tail.subarray(0, n);
  }
}

const HEX = '0123456789ABCDEF';
const HEX_CODES = Buffer.from(HEX, 'latin1');

/** `b`'s first `n` bytes in a buffer twice its size. */
function grownBuffer(b: Buffer, n: number): Buffer {
  const next = Buffer.allocUnsafe(b.length * 2);
  b.copy(next, 0, 0, n);
  return next;
}
const FROM_SPACE = [0x46, 0x72, 0x6f, 0x6d, 0x20];

/** `b` has "From " or "--" at `at` (a quoted-printable line start that a fresh encoding escapes). */
export function startsVerbatim(b: Buffer, at: number): boolean {
  if (b[at] === 0x2d) return b[at + 1] === 0x2d;
  for (let k = 0; k < FROM_SPACE.length; k++) if (b[at + k] !== FROM_SPACE[k]) return false;
  return true;
}

/**
 * Quoted-printable written afresh (RFC 2045 §6.7), in pieces: printable ASCII but "=" as it is, other bytes as
 * "=XX"; whitespace as it is but at the end of a line; the part's own line ending (`eol`) as a hard line break,
 * any other CR or LF as "=0D"/"=0A"; lines at most `lineLength` (76) long with soft line breaks ("=" and `eol`,
 * bare CR too). A line never begins with "From " nor "--" (the module comment says why).
 */
export class QuotedPrintableEncoder {
  /** The column the next character goes to (0: a line start). */
  column = 0;
  private readonly eol: LineEnding;
  private readonly eolBytes: Buffer;
  private readonly lineLength: number;
  private held: Buffer | null = null;
  /**
   * The next line start is the start of a physical line of the original that began with "From " or "--" as
   * it is: that line start is written as it was (re-encoding makes no structure that was not there, and the
   * bytes outside the rewritten reference stay; an mbox reader splits the output as it split the input).
   * Set by the caller at a line start; ends with the first byte written.
   */
  verbatimStart = false;

  constructor(eol: LineEnding, lineLength = 76) {
    this.eol = eol;
    this.eolBytes = Buffer.from(eol, 'latin1');
    this.lineLength = Math.max(lineLength, 4);
  }

  /** Encodes `chunk`; without `final`, up to a few bytes whose encoding depends on what follows wait for it. */
  write(chunk: Buffer, final: boolean): string {
    return this.writeBytes(chunk, final).toString('latin1');
  }

  /**
   * `write`, as bytes: written into one buffer, not a string grown by a character at a time and copied into a
   * buffer after (~10 MB of strings over the rewritten parts of the mbox bench).
   */
  writeBytes(chunk: Buffer, final: boolean): Buffer {
    const data = this.held === null ? chunk : Buffer.concat([this.held, chunk]);
    this.held = null;
    const eolBytes = this.eolBytes;
    const eol0 = eolBytes[0]!;
    const eolLength = eolBytes.length;
    const max = this.lineLength - 1; // room for the "=" of a soft line break
    let out: Buffer = Buffer.allocUnsafe(data.length + (data.length >> 2) + 16);
    let n = 0;
    let i = 0;
    while (i < data.length) {
      // At most a soft line break and an escape (3 bytes each) go out for one byte.
      if (n + 6 > out.length) out = grownBuffer(out, n);
      const c = data[i]!;
      // The part's line ending: a hard line break.
      if (c === eol0) {
        if (eolLength === 2) {
          if (i + 1 >= data.length && !final) break;
          if (data[i + 1] === 0x0a) {
            out[n++] = 0x0d;
            out[n++] = 0x0a;
            this.column = 0;
            i += 2;
            continue;
          }
        } else {
          out[n++] = c;
          this.column = 0;
          i++;
          continue;
        }
      }
      // The byte as it is, or "=" and its two hex digits.
      let escaped: boolean;
      if (c === 0x20 || c === 0x09) {
        // Whitespace at the end of a line is encoded (rule 3): it waits for the next byte.
        if (i + 1 >= data.length && !final) break;
        const next = data[i + 1];
        escaped = i + 1 >= data.length || (next === eol0 && (eolLength === 1 || data[i + 2] === 0x0a || i + 2 >= data.length));
      } else escaped = !(c >= 0x21 && c <= 0x7e && c !== 0x3d);
      if (this.column + (escaped ? 3 : 1) > max) {
        out[n++] = 0x3d;
        for (let k = 0; k < eolLength; k++) out[n++] = eolBytes[k]!;
        this.column = 0;
      }
      if (this.column === 0 && !escaped) {
        // A line start: never "From " (mbox) nor "--" (a MIME delimiter line).
        const escape = this.lineStartEscape(data, i, final);
        if (escape === null) break;
        if (escape) escaped = true;
      }
      if (escaped) {
        out[n++] = 0x3d;
        out[n++] = HEX_CODES[c >> 4]!;
        out[n++] = HEX_CODES[c & 15]!;
        this.column += 3;
      } else {
        out[n++] = c;
        this.column += 1;
      }
      i++;
    }
    if (i > 0) this.verbatimStart = false;
    if (i < data.length) this.held = Buffer.from(data.subarray(i));
    return out.subarray(0, n);
  }

  /** Whether the byte at a line start must be encoded; null: the bytes after it are not here yet. */
  private lineStartEscape(data: Buffer, i: number, final: boolean): boolean | null {
    if (this.verbatimStart && i === 0) {
      // The original's physical line began so (see `verbatimStart`): what it began with is written as it was.
      if (startsVerbatim(data, 0)) return false;
      if (!final && data.length < FROM_SPACE.length) return null;
    }
    const c = data[i];
    if (c === 0x2d) {
      if (i + 1 >= data.length) return final ? false : null;
      return data[i + 1] === 0x2d;
    }
    if (c !== 0x46) return false;
    for (let k = 1; k < FROM_SPACE.length; k++) {
      if (i + k >= data.length) return final ? false : null;
      if (data[i + k] !== FROM_SPACE[k]) return false;
    }
    return true;
  }
}


/** base64 written afresh (RFC 2045 §6.8) in lines of `lineLength` characters ending with `eol`, in pieces. */
export class Base64Encoder {
  private column = 0;
  private rest: Buffer = Buffer.alloc(0);
  private readonly eol: LineEnding;
  private readonly lineLength: number;

  constructor(eol: LineEnding, lineLength: number) {
    this.eol = eol;
    this.lineLength = lineLength > 0 ? lineLength : 76;
  }

  write(chunk: Buffer, final: boolean): string {
    const data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    const whole = final ? data.length : data.length - (data.length % 3);
    this.rest = Buffer.from(data.subarray(whole));
    const text = data.subarray(0, whole).toString('base64');
    let out = '';
    let at = 0;
    while (at < text.length) {
      if (this.column === this.lineLength) {
        out += this.eol;
        this.column = 0;
      }
      const take = Math.min(this.lineLength - this.column, text.length - at);
      out += text.slice(at, at + take);
      at += take;
      this.column += take;
    }
    return out;
  }
}

/** How the original body was laid out, for what is encoded afresh in its place. */
export interface EncodedStyle {
  readonly eol: LineEnding;
  /** base64: characters per line (quoted-printable lines are at most 76). */
  readonly lineLength: number;
}

/**
 * Rewritten bytes encoded as the original was, in pieces: a segment of the original whose decoded bytes are the
 * next rewritten bytes is copied as it was (its soft line breaks, hex case and whitespace too); in place of one
 * that differs, the rewritten bytes are encoded afresh. Quoted-printable goes back to copying at the next hard
 * line (a URL rewrite changes no line structure; if one does, later lines are encoded afresh, still correctly);
 * base64, whose quanta shift with any change of length, is encoded afresh from the first change on. Whatever is
 * written decodes to exactly the rewritten bytes. Memory: the segments not yet answered for, and the rewritten
 * bytes not yet matched (at most one segment's worth).
 */
export class Reencoder {
  private readonly encoding: 'quoted-printable' | 'base64';
  private readonly style: EncodedStyle;
  private segments: Segment[] = [];
  private head = 0;
  private pending: Buffer = Buffer.alloc(0);
  private mode: 'copy' | 'fresh' | 'skip' = 'copy';
  /** In 'fresh' (quoted-printable): the original's hard line being replaced has been passed. */
  private inputLineDone = false;
  private readonly qp: QuotedPrintableEncoder | null;
  private readonly b64: Base64Encoder | null;
  /** The last byte written (0: nothing yet). */
  private lastByte = 0;
  /** Segments copied and encoded afresh, for tests and reports. */
  copied = 0;
  fresh = 0;

  constructor(encoding: 'quoted-printable' | 'base64', style: EncodedStyle) {
    this.encoding = encoding;
    this.style = style;
    this.qp = encoding === 'quoted-printable' ? new QuotedPrintableEncoder(style.eol) : null;
    this.b64 = encoding === 'base64' ? new Base64Encoder(style.eol, style.lineLength) : null;
  }

  /** Segments of the original, in order, as they are read. */
  addSegments(segments: readonly Segment[]): void {
    // base64 after its first change is encoded afresh to the end: its segments are not needed.
    if (this.b64 !== null && this.mode === 'fresh') return;
    for (const s of segments) this.segments.push(s);
  }

  /**
   * Rewritten bytes; returns what can be written now. With `final`, everything (`finalEol`: the original body
   * ended with a line ending, which the output then does too: after "=" in quoted-printable, a soft line break
   * that decodes to nothing).
   */
  write(chunk: Buffer, final: boolean, finalEol = false): string {
    return this.writeBytes(chunk, final, finalEol).toString('latin1');
  }

  /** `write`, as bytes: copied segments are handed on as the original's own bytes, not made text and back. */
  writeBytes(chunk: Buffer, final: boolean, finalEol = false): Buffer {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      if (this.mode === 'copy') {
        const unit = this.nextUnit();
        if (unit === 'more') {
          if (final) this.mode = 'fresh';
          else break;
        } else {
          const verdict = this.matches(unit.decodedLength, final);
          if (verdict === 'more') break;
          if (verdict) {
            for (let k = 0; k < unit.count; k++) {
              const s = this.segments[this.head++]!;
              out.push(s.encoded);
              if (s.encoded.length > 0) this.lastByte = s.encoded[s.encoded.length - 1]!;
              this.copied++;
            }
            this.pending = this.pending.subarray(unit.decodedLength);
            continue;
          }
          this.mode = 'fresh';
          this.inputLineDone = false;
          if (this.qp !== null) {
            this.qp.column = this.lastByte === 0 || this.lastByte === 0x0a || this.lastByte === 0x0d ? 0 : MAX_SEGMENT_BYTES;
            const s = this.segments[this.head];
            this.qp.verbatimStart = this.qp.column === 0 && s !== undefined && startsVerbatim(s.encoded, 0);
          }
        }
      }
      if (this.mode === 'skip') {
        // The rewritten line has ended: the rest of the original's line is passed over.
        if (this.dropInputLine()) {
          this.mode = 'copy';
          continue;
        }
        if (!final) break;
        this.mode = 'fresh';
      }
      // 'fresh'
      if (this.b64 !== null) {
        this.head = this.segments.length;
        out.push(this.emit(this.b64.write(this.pending, final)));
        this.pending = Buffer.alloc(0);
        break;
      }
      const qp = this.qp!;
      if (!this.inputLineDone) this.inputLineDone = this.dropInputLine();
      const eolLast = this.style.eol === '\r' ? 0x0d : 0x0a;
      const at = this.pending.indexOf(eolLast);
      if (at === -1) {
        out.push(this.emitBytes(qp.writeBytes(this.pending, final)));
        this.pending = Buffer.alloc(0);
        break;
      }
      // The rewritten hard line ends here: back to copying once the original's has been passed too.
      out.push(this.emitBytes(qp.writeBytes(this.pending.subarray(0, at + 1), false)));
      this.pending = this.pending.subarray(at + 1);
      this.fresh++;
      if (this.inputLineDone) this.mode = 'copy';
      else this.mode = 'skip';
    }
    this.compact();
    if (final) {
      if (finalEol && this.lastByte !== 0x0a && this.lastByte !== 0x0d) {
        out.push(Buffer.from(this.encoding === 'quoted-printable' ? `=${this.style.eol}` : this.style.eol, 'latin1'));
      }
    }
    // Always a copy: a copied segment is a slice of an input chunk, which the output must not keep alive.
    return Buffer.concat(out);
  }

  /** Encoded text written afresh, as bytes: remembers its last byte. */
  private emit(text: string): Buffer {
    return this.emitBytes(Buffer.from(text, 'latin1'));
  }

  /** Encoded bytes written afresh: remembers their last byte. */
  private emitBytes(bytes: Buffer): Buffer {
    if (bytes.length > 0) this.lastByte = bytes[bytes.length - 1]!;
    return bytes;
  }

  /** The next segments to copy together: up to one after which base64 is aligned on a quantum (one for quoted-printable). */
  private nextUnit(): { count: number; decodedLength: number } | 'more' {
    let length = 0;
    for (let k = this.head; k < this.segments.length; k++) {
      const s = this.segments[k]!;
      length += s.decoded.length;
      if (s.aligned) return { count: k - this.head + 1, decodedLength: length };
    }
    return 'more';
  }

  /** Whether the next `length` rewritten bytes are the unit's decoded bytes ('more': cannot tell yet). */
  private matches(length: number, final: boolean): boolean | 'more' {
    const have = Math.min(length, this.pending.length);
    let at = 0;
    for (let k = this.head; at < have; k++) {
      const d = this.segments[k]!.decoded;
      const n = Math.min(d.length, have - at);
      if (this.pending.compare(d, 0, n, at, at + n) !== 0) return false;
      at += n;
    }
    if (this.pending.length >= length) return true;
    return final ? false : 'more';
  }

  /** Drops segments of the original up to the end of its current hard line; whether that end was reached. */
  private dropInputLine(): boolean {
    while (this.head < this.segments.length) {
      const s = this.segments[this.head++]!;
      if (s.hardEnd) return true;
    }
    return false;
  }

  private compact(): void {
    if (this.head > 64 && this.head * 2 > this.segments.length) {
      this.segments = this.segments.slice(this.head);
      this.head = 0;
    }
  }
}
