/**
 * WARC and ARC records in uncompressed bytes: one parse step at a time over a buffer, pure.
 *
 * WARC 1.1 §4: `WARC/1.x CRLF`, named fields, CRLF, a block of Content-Length bytes, CRLF CRLF. Tolerated as
 * readers in practice do: LF line ends, extra blank lines between records. Malformed input is never lost: bytes
 * that are not a record become a gap, and reading resumes at the next line that starts `WARC/1.` (a wrong
 * Content-Length leaves such a gap).
 *
 * ARC (https://archive.org/web/researcher/ArcFileFormat.php): a header line `URL IP-address Archive-date
 * Content-type Archive-length` (version 1) or with result code, checksum, location, offset and filename before
 * the length (version 2), LF, the block, LF. The fields are split from the right: a URL may contain spaces.
 */

export interface WarcHeader {
  /** `WARC/1.0`, `WARC/1.1`, or `ARC` for an ARC record's header line. */
  readonly protocol: string;
  /** Named fields in their order, names as written. */
  readonly fields: ReadonlyArray<readonly [string, string]>;
}

/** The first value of a named field (names are case-insensitive, WARC 1.1 §4). */
export function field(header: WarcHeader, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [n, v] of header.fields) if (n.toLowerCase() === lower) return v;
  return undefined;
}

export interface ArcLine {
  readonly url: string;
  readonly ip: string;
  /** `YYYYMMDDhhmmss` as written. */
  readonly date: string;
  readonly contentType: string;
  readonly length: number;
}

export type WarcItem =
  | {
      readonly kind: 'record';
      readonly format: 'warc' | 'arc';
      /** The record as it is in the (uncompressed) input, with the blank lines after it. */
      readonly bytes: Buffer;
      readonly header: WarcHeader;
      /** The ARC header line, for an ARC record. */
      readonly arc: ArcLine | null;
      readonly block: Buffer;
      /** How the record's length was read when it is not as written (an ARC length that counted CRLFs): for a warning. */
      readonly lengthNote?: string;
    }
  /**
   * Bytes that are no record. `truncated`: they run to the end of the input because it ends inside a record or
   * header (the file is cut short), not because of bytes that are no record in the middle. `separator`: blank
   * lines between ARC records, which are no damage.
   */
  | { readonly kind: 'gap'; readonly bytes: Buffer; readonly reason: string; readonly truncated?: boolean; readonly separator?: boolean }
  /** A record larger than `maxWarcRecordBytes` in an uncompressed file: its bytes follow in units of their own, copied. */
  | { readonly kind: 'oversize'; readonly header: WarcHeader; readonly bytes: Buffer; readonly length: number };

/**
 * A step: the item and the bytes it took, or `need`: the least buffer length worth another try; for a record
 * whose block is not all there yet, also its header and where its block ends.
 */
export type ParseStep = { readonly item: WarcItem; readonly length: number } | { readonly need: number; readonly header?: WarcHeader; readonly blockEnd?: number };

export interface ParseState {
  /** ARC version from the `filedesc` record (1 or 2). */
  arcVersion: number;
  readonly maxHeaderBytes: number;
}

const CR = 0x0d;
const LF = 0x0a;
const WARC_MAGIC = Buffer.from('WARC/');
const RESYNC = Buffer.from('WARC/1.');
const FILEDESC = Buffer.from('filedesc://');

export function startsWithAt(buf: Buffer, at: number, prefix: Buffer): boolean {
  return buf.length - at >= prefix.length && buf.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
}

/** What the uncompressed bytes at the start hold: a WARC, an ARC, or neither. */
export function sniffRecordFormat(bytes: Buffer): 'warc' | 'arc' | null {
  if (startsWithAt(bytes, 0, WARC_MAGIC)) return 'warc';
  if (startsWithAt(bytes, 0, FILEDESC)) return 'arc';
  return null;
}

/** One step over `buf` from `at`; `eof` when no byte follows the buffer. */
export function parseStep(buf: Buffer, at: number, eof: boolean, format: 'warc' | 'arc', state: ParseState): ParseStep | null {
  if (at >= buf.length) return eof ? null : { need: buf.length + 1 };
  return format === 'arc' ? arcStep(buf, at, eof, state) : warcStep(buf, at, eof, state);
}

function warcStep(buf: Buffer, at: number, eof: boolean, state: ParseState): ParseStep {
  if (!startsWithAt(buf, at, WARC_MAGIC)) {
    if (!eof && buf.length - at < WARC_MAGIC.length) return { need: at + WARC_MAGIC.length };
    // The input ends after the first bytes of `WARC/`: cut short at the start of a record.
    if (eof && WARC_MAGIC.subarray(0, buf.length - at).equals(buf.subarray(at))) return { item: { kind: 'gap', bytes: buf.subarray(at), reason: 'the input ends at the start of a WARC record', truncated: true }, length: buf.length - at };
    return gapToNextWarc(buf, at, eof, state, 'bytes that are not a WARC record');
  }
  const end = headerEnd(buf, at, Math.min(buf.length, at + state.maxHeaderBytes));
  if (end === null) {
    if (!eof && buf.length - at < state.maxHeaderBytes) return { need: buf.length + 1 };
    // The input ends before the header does, within the limit: the file is cut short inside a header.
    if (eof && buf.length - at < state.maxHeaderBytes) return { item: { kind: 'gap', bytes: buf.subarray(at), reason: `the input ends inside a WARC header (${buf.length - at} bytes of it)`, truncated: true }, length: buf.length - at };
    return gapToNextWarc(buf, at + 1, eof, state, `a WARC header with no end within ${state.maxHeaderBytes} bytes (maxWarcHeaderBytes)`, at);
  }
  const header = parseFields(buf.toString('latin1', at, end.fieldsEnd));
  const lengthText = field(header, 'Content-Length');
  const length = lengthText !== undefined && /^\s*\d+\s*$/.test(lengthText) ? Number(lengthText) : NaN;
  if (!Number.isSafeInteger(length)) {
    return gapToNextWarc(buf, at + 1, eof, state, `a WARC header without a valid Content-Length (${JSON.stringify(lengthText ?? null)})`, at);
  }
  const blockEnd = end.blockStart + length;
  if (blockEnd > buf.length) {
    if (eof) {
      // Cut short (or a Content-Length too long): the rest is a gap, unless a record starts inside it.
      const step = gapToNextWarc(buf, at + 1, eof, state, `a WARC record cut short: its Content-Length is ${length}, ${buf.length - end.blockStart} bytes follow`, at);
      if ('item' in step && step.item.kind === 'gap' && at + step.length === buf.length) return { ...step, item: { ...step.item, truncated: true } };
      return step;
    }
    return { need: blockEnd + 1, header, blockEnd };
  }
  let next = blockEnd;
  while (next < buf.length && (buf[next] === CR || buf[next] === LF)) next++;
  if (next === buf.length && !eof) return { need: next + 1 };
  return { item: { kind: 'record', format: 'warc', bytes: buf.subarray(at, next), header, arc: null, block: buf.subarray(end.blockStart, blockEnd) }, length: next - at };
}

/** The end of the header fields and the start of the block: the first CRLF CRLF (or LF LF) from `at`. */
function headerEnd(buf: Buffer, at: number, limit: number): { fieldsEnd: number; blockStart: number } | null {
  for (let i = buf.indexOf(LF, at); i !== -1 && i < limit; i = buf.indexOf(LF, i + 1)) {
    // An empty line: LF, any CRs (CR CR LF line ends are seen in the wild), LF.
    let j = i + 1;
    while (buf[j] === CR) j++;
    if (buf[j] === LF) return { fieldsEnd: i, blockStart: j + 1 };
  }
  return null;
}

/** `WARC/1.x` line and named fields (continuation lines folded in, WARC 1.1 §4 "named fields"). */
export function parseFields(text: string): WarcHeader {
  const lines = text.split(/\r*\n/);
  const protocol = lines[0]!.trim();
  const fields: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0) {
      fields[fields.length - 1]![1] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return { protocol, fields };
}

/**
 * A gap from `at` to the next line that starts `WARC/1.` at or after `searchFrom` (or to the end). Keeps the last
 * bytes when more input may complete a `WARC/1.` there.
 */
function gapToNextWarc(buf: Buffer, searchFrom: number, eof: boolean, state: ParseState, reason: string, at = searchFrom): ParseStep {
  for (let i = buf.indexOf(RESYNC, searchFrom); i !== -1; i = buf.indexOf(RESYNC, i + 1)) {
    if (i === 0 || buf[i - 1] === LF) {
      if (i > at) return { item: { kind: 'gap', bytes: buf.subarray(at, i), reason }, length: i - at };
    }
  }
  if (eof) return { item: { kind: 'gap', bytes: buf.subarray(at), reason }, length: buf.length - at };
  // Hold back a possible start of `WARC/1.`, but never more than the header limit without a step.
  const keep = Math.max(at + 1, buf.length - RESYNC.length);
  if (buf.length - at < state.maxHeaderBytes) return { need: buf.length + 1 };
  return { item: { kind: 'gap', bytes: buf.subarray(at, keep), reason }, length: keep - at };
}

function arcStep(buf: Buffer, at: number, eof: boolean, state: ParseState): ParseStep {
  const lf = buf.indexOf(LF, at);
  if (lf === -1 || lf - at > state.maxHeaderBytes) {
    if (!eof && buf.length - at < state.maxHeaderBytes) return { need: buf.length + 1 };
    const end = lf === -1 ? buf.length : lf + 1;
    return { item: { kind: 'gap', bytes: buf.subarray(at, end), reason: 'an ARC header line with no end' }, length: end - at };
  }
  const line = buf.toString('latin1', at, lf).replace(/\r$/, '');
  // Blank lines between ARC records separate them: no damage (and no content: ARC input is written anew as WARC).
  if (line.trim() === '') return { item: { kind: 'gap', bytes: buf.subarray(at, lf + 1), reason: 'a blank line between ARC records', separator: true }, length: lf + 1 - at };
  const arc = parseArcLine(line, state.arcVersion);
  if (arc === null) return { item: { kind: 'gap', bytes: buf.subarray(at, lf + 1), reason: `not an ARC header line: ${JSON.stringify(line.slice(0, 200))}` }, length: lf + 1 - at };
  const blockStart = lf + 1;
  let blockEnd = blockStart + arc.length;
  let lengthNote: string | undefined;
  if (blockEnd > buf.length) {
    if (!eof) return { need: blockEnd + 1, header: { protocol: 'ARC', fields: [['WARC-Type', 'resource'], ['WARC-Target-URI', arc.url], ['WARC-Date', arcDateToWarc(arc.date)]] }, blockEnd };
    // The input ends inside the block. Python warcio reads the block to the end of the input: so do we when the
    // bytes missing are no more than its bare LFs (an LF-only ARC whose length counted CRLFs); more is a cut.
    const lfs = countLf(buf, blockStart, buf.length);
    if (blockEnd - buf.length > lfs) return { item: { kind: 'gap', bytes: buf.subarray(at), reason: `an ARC record cut short: its length is ${arc.length}, ${buf.length - blockStart} bytes follow`, truncated: true }, length: buf.length - at };
    lengthNote = `its length ${arc.length} counts CRLF line ends the block has as LF: ${buf.length - blockStart} bytes to the end of the input read as the block (as Python warcio reads it)`;
    blockEnd = buf.length;
  } else {
    const boundary = arcBoundary(buf, blockEnd, eof, state);
    if (boundary === null) return { need: buf.length + 1 };
    if (!boundary) {
      // Not followed by another record: a length that counted each LF as CRLF may end where one does.
      const crlfEnd = crlfCountedEnd(buf, blockStart, arc.length);
      const there = crlfEnd === null ? false : arcBoundary(buf, crlfEnd, eof, state);
      if (there === null) return { need: buf.length + 1 };
      if (there && crlfEnd !== null) {
        lengthNote = `its length ${arc.length} counts the block's LF line ends as CRLF: read as ${crlfEnd - blockStart} bytes, where the next record starts`;
        blockEnd = crlfEnd;
      }
    }
  }
  let next = blockEnd;
  while (next < buf.length && (buf[next] === LF || buf[next] === CR)) next++;
  if (next === buf.length && !eof) return { need: next + 1 };
  const block = buf.subarray(blockStart, blockEnd);
  if (arc.url.startsWith('filedesc:')) {
    // The version block's first line: "1 0 …" or "2 0 …".
    const version = /^(\d+)\s/.exec(block.toString('latin1', 0, Math.min(block.length, 32)));
    if (version !== null) state.arcVersion = Number(version[1]);
  }
  const isHttp = /^https?:/i.test(arc.url) && startsWithAt(block, 0, Buffer.from('HTTP/'));
  const header: WarcHeader = { protocol: 'ARC', fields: arc.url.startsWith('filedesc:') ? filedescFields(arc) : [
    ['WARC-Type', isHttp ? 'response' : 'resource'],
    ['WARC-Target-URI', arc.url],
    ['WARC-Date', arcDateToWarc(arc.date)],
    ['WARC-IP-Address', arc.ip],
    ['Content-Type', isHttp ? 'application/http; msgtype=response' : arc.contentType],
    ['Content-Length', String(arc.length)],
  ] };
  return { item: { kind: 'record', format: 'arc', bytes: buf.subarray(at, next), header, arc, block, ...(lengthNote === undefined ? {} : { lengthNote }) }, length: next - at };
}

function countLf(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = buf.indexOf(LF, from); i !== -1 && i < to; i = buf.indexOf(LF, i + 1)) n++;
  return n;
}

function skipLineEnds(buf: Buffer, at: number): number {
  while (at < buf.length && (buf[at] === LF || buf[at] === CR)) at++;
  return at;
}

/**
 * Whether a record may end at `at`: only line ends follow to the end of the input, or a whole ARC header line;
 * null when more input is needed to tell (never past the header limit).
 */
function arcBoundary(buf: Buffer, at: number, eof: boolean, state: ParseState): boolean | null {
  const start = skipLineEnds(buf, at);
  if (start === buf.length) return eof ? true : null;
  // A header line starts a line.
  if (start === 0 || buf[start - 1] !== LF) return false;
  const lf = buf.indexOf(LF, start);
  if (lf === -1) return eof || buf.length - start >= state.maxHeaderBytes ? false : null;
  return parseArcLine(buf.toString('latin1', start, lf).replace(/\r$/, ''), state.arcVersion) !== null;
}

/** Where a block ends if its `length` counted every bare LF as two bytes (CRLF), or null past the buffer. */
function crlfCountedEnd(buf: Buffer, blockStart: number, length: number): number | null {
  let counted = 0;
  let i = blockStart;
  while (counted < length) {
    if (i >= buf.length) return null;
    counted += buf[i] === LF && buf[i - 1] !== CR ? 2 : 1;
    i++;
  }
  return counted === length ? i : null;
}

/**
 * The ARC file's `filedesc://NAME` record as a `warcinfo`: its name as `WARC-Filename`, and no `WARC-Target-URI`
 * or `WARC-IP-Address`, which WARC 1.1 does not allow on a warcinfo record (jwarc's `validate` rejects both).
 */
function filedescFields(arc: ArcLine): Array<readonly [string, string]> {
  return [
    ['WARC-Type', 'warcinfo'],
    ['WARC-Date', arcDateToWarc(arc.date)],
    ['WARC-Filename', arc.url.slice('filedesc://'.length)],
    ['Content-Type', arc.contentType],
    ['Content-Length', String(arc.length)],
  ];
}

/** An ARC header line split from the right (version 1: 5 fields; version 2: 10), or null. */
export function parseArcLine(line: string, version: number): ArcLine | null {
  const tokens = line.trim().split(/ +/);
  const right = version === 2 && tokens.length >= 10 ? 9 : 4;
  if (tokens.length < right + 1) return null;
  const tail = tokens.slice(tokens.length - right);
  const url = tokens.slice(0, tokens.length - right).join(' ');
  const lengthText = tail[tail.length - 1]!;
  if (!/^\d+$/.test(lengthText) || !/^\d{14}/.test(tail[1]!)) return null;
  return { url, ip: tail[0]!, date: tail[1]!, contentType: tail[2]!, length: Number(lengthText) };
}

/** `YYYYMMDDhhmmss[…]` → `YYYY-MM-DDThh:mm:ssZ` (W3C-ISO8601, WARC 1.1 §5.4). */
export function arcDateToWarc(date: string): string {
  const d = date.slice(0, 14);
  return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}Z`;
}
