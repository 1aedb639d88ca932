/**
 * Content-Transfer-Encoding (RFC 2045 §6) of one body part: decode to bytes, and encode the rewritten bytes
 * back with the same encoding, in the same line style (line length and line ending) as the original.
 * base64 and quoted-printable come from libbase64 and libqp (the codecs mailsplit itself uses).
 */
import libbase64 from 'libbase64';
import libqp from 'libqp';

export type TransferEncoding = '7bit' | '8bit' | 'binary' | 'base64' | 'quoted-printable';

/** The part's transfer encoding, or null for one we do not know (the part then passes through). */
export function transferEncodingOf(value: string | false | undefined): TransferEncoding | null {
  const v = (value || '7bit').toLowerCase().trim();
  return v === '7bit' || v === '8bit' || v === 'binary' || v === 'base64' || v === 'quoted-printable' ? v : null;
}

/** How the encoded body was laid out: its line ending and, for base64, its line length. */
interface LineStyle {
  readonly eol: '\r\n' | '\n' | '\r';
  readonly lineLength: number;
  /** Whether the encoded text ends with a line ending. */
  readonly finalEol: boolean;
}

function lineStyle(encoded: Buffer): LineStyle {
  const lf = encoded.indexOf(0x0a);
  const cr = encoded.indexOf(0x0d);
  let eol: LineStyle['eol'] = '\n';
  let first = lf;
  if (cr !== -1 && (lf === -1 || cr < lf)) {
    eol = encoded[cr + 1] === 0x0a ? '\r\n' : '\r';
    first = cr;
  }
  const lineLength = first === -1 ? encoded.length : first;
  const last = encoded[encoded.length - 1];
  return { eol, lineLength: lineLength > 0 ? lineLength : 76, finalEol: last === 0x0a || last === 0x0d };
}

/**
 * Decodes a body. Returns null when the encoded bytes are not valid in that encoding, so that the part passes
 * through unchanged: base64 with characters outside its alphabet, or with 4k+1 characters (no padding can make
 * that whole; Python's email then gives up too). A final quantum short of padding is decoded as if padded
 * (Python does the same) and reported in `padded`.
 */
export function decodeBody(encoded: Buffer, encoding: TransferEncoding): { readonly decoded: Buffer; readonly padded: boolean } | null {
  switch (encoding) {
    case 'base64': {
      const text = encoded.toString('latin1');
      if (/[^A-Za-z0-9+/=\s]/.test(text)) return null;
      const length = text.replace(/\s+/g, '').length;
      if (length % 4 === 1) return null;
      return { decoded: Buffer.from(libbase64.decode(text)), padded: length % 4 !== 0 };
    }
    case 'quoted-printable':
      return { decoded: decodeQuotedPrintable(encoded), padded: false };
    default:
      return { decoded: encoded, padded: false };
  }
}

/**
 * Encodes rewritten bytes as the original body was encoded. Quoted-printable keeps every line of the original
 * whose text did not change, soft line breaks included (`encodeQuotedPrintableLike`); base64 lines are re-cut
 * at the original line length (before the first change, they come out as they were).
 */
export function encodeBody(decoded: Buffer, encoding: TransferEncoding, original: Buffer): Buffer {
  if (encoding !== 'base64' && encoding !== 'quoted-printable') return decoded;
  const style = lineStyle(original);
  if (encoding === 'quoted-printable') {
    const kept = encodeQuotedPrintableLike(decoded, original, style);
    if (kept !== null) return Buffer.from(kept, 'latin1');
  }
  let text =
    encoding === 'base64'
      ? libbase64.wrap(libbase64.encode(decoded), style.lineLength)
      : libqp.wrap(libqp.encode(decoded), 76);
  // libbase64/libqp wrap with CRLF; the original's line ending is kept.
  text = keepFinalLineEnding(text.replace(/\r?\n/g, style.eol), encoding, style);
  if (encoding === 'quoted-printable' && style.eol === '\r') text = text.replaceAll('=\r', '');
  return Buffer.from(text, 'latin1');
}

/**
 * The original quoted-printable text as hard lines: each runs to a line ending that is not a soft line break
 * (RFC 2045 §6.7 rule 5: a line ending in "=", trailing whitespace ignored per rule 3), and includes it.
 */
function quotedPrintableHardLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (const end of quotedPrintableHardLineEnds(text)) {
    lines.push(text.slice(start, end));
    start = end;
  }
  return lines;
}

/**
 * Where each hard line of quoted-printable text ends (after its line ending: CRLF, LF or a bare CR, not after "=",
 * RFC 2045 §6.7 rule 5, trailing whitespace ignored per rule 3); with `includeRest`, the end of the text too when
 * it ends inside a line.
 */
export function quotedPrintableHardLineEnds(text: string, includeRest = true): number[] {
  const ends: number[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x0a && c !== 0x0d) continue;
    const eolStart = i;
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
    let end = eolStart;
    while (end > start && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
    if (end > start && text.charCodeAt(end - 1) === 0x3d) continue; // "=": a soft line break
    ends.push(i + 1);
    start = i + 1;
  }
  if (includeRest && start < text.length) ends.push(text.length);
  return ends;
}

/** The hard lines of a quoted-printable body as decoded, kept for its re-encoding (`encodeQuotedPrintableLike`). */
const decodedLines = new WeakMap<Buffer, { readonly lines: string[]; readonly decoded: Buffer[] }>();

/** Quoted-printable decoded hard line by hard line (each line once; the lines are kept for re-encoding). */
function decodeQuotedPrintable(encoded: Buffer): Buffer {
  const lines = quotedPrintableHardLines(encoded.toString('latin1'));
  const decoded = lines.map((line) => Buffer.from(libqp.decode(line)));
  decodedLines.set(encoded, { lines, decoded });
  return Buffer.concat(decoded);
}

/**
 * Quoted-printable for `decoded` that keeps the original's layout: a hard line of the original whose decoded
 * bytes are the next bytes of `decoded` is copied as it was (its soft line breaks, case of hex digits and
 * trailing whitespace too); in place of a changed one, the next line of `decoded` is encoded afresh. Rewriting
 * a URL changes no line structure, so only the lines that held rewritten references differ. Returns null, and
 * the caller re-encodes the whole body, if the result does not decode to exactly `decoded` (a rewrite that
 * removed a line break inside a value, or an original that libqp decodes differently line by line).
 */
function encodeQuotedPrintableLike(decoded: Buffer, original: Buffer, style: LineStyle): string | null {
  const out: string[] = [];
  let at = 0;
  const known = decodedLines.get(original);
  const lines = known?.lines ?? quotedPrintableHardLines(original.toString('latin1'));
  for (const [k, line] of lines.entries()) {
    const before = known?.decoded[k] ?? Buffer.from(libqp.decode(line));
    if (decoded.length - at >= before.length && decoded.compare(before, 0, before.length, at, at + before.length) === 0) {
      out.push(line);
      at += before.length;
      continue;
    }
    const lf = decoded.indexOf(style.eol === '\r' ? 0x0d : 0x0a, at);
    const end = lf === -1 ? decoded.length : lf + 1;
    out.push(encodeQuotedPrintableLine(decoded.subarray(at, end), style));
    at = end;
  }
  if (at < decoded.length) out.push(encodeQuotedPrintableLine(decoded.subarray(at), style));
  // Each kept line decodes to its bytes (decoded line by line), each new one to its own (libqp's round trip).
  return keepFinalLineEnding(out.join(''), 'quoted-printable', style);
}

/**
 * A body that ended with a line ending ends with one again. In quoted-printable that line ending followed "="
 * (the decoded text has none), so it is written as a soft line break, "=" and the line ending, which decodes to
 * nothing: a bare one would add a line break to the part's text. (In a multipart, mailsplit gives the body
 * without the line ending that belongs to the boundary delimiter, RFC 2046 §5.1.1, so none is added there.)
 */
function keepFinalLineEnding(text: string, encoding: 'base64' | 'quoted-printable', style: LineStyle): string {
  if (!style.finalEol || text.endsWith('\n') || text.endsWith('\r')) return text;
  return encoding === 'quoted-printable' ? `${text}=${style.eol}` : text + style.eol;
}

/** One hard line (with its line ending, if any), encoded and wrapped at 76 with the original's soft breaks. */
function encodeQuotedPrintableLine(line: Buffer, style: LineStyle): string {
  // libqp.wrap breaks with "=\r\n"; a literal "=" is always encoded ("=3D"), so each "=\r\n" is a soft break.
  // With bare CR line endings no soft line break is written (Python's quopri does not read "=" CR as one).
  if (style.eol === '\r') return libqp.encode(line).replace(/\r?\n/g, '\r');
  return libqp.wrap(libqp.encode(line), 76).replaceAll('=\r\n', `=${style.eol}`);
}
