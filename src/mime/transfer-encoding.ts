/**
 * Content-Transfer-Encoding (RFC 2045 §6) of one held body part: decode to bytes, and encode the rewritten bytes
 * back with the same encoding, in the same line style (line length and line ending) as the original, through
 * the same segment codec a streamed part uses (`codec.ts`), so that a part comes out the same whichever way it
 * was rewritten. base64 is validated with libbase64's alphabet rules before it is decoded.
 */
import libbase64 from 'libbase64';
import { Base64Decoder, decodeQuotedPrintableLines, lineEndingOf, QuotedPrintableDecoder, quotedPrintableSegments, reencodeQuotedPrintablePieces, Reencoder } from './codec.ts';
import type { EncodedStyle, LineEnding, QuotedPrintableLines, Segment } from './codec.ts';

export type TransferEncoding = '7bit' | '8bit' | 'binary' | 'base64' | 'quoted-printable';

/** The part's transfer encoding, or null for one we do not know (the part then passes through). */
export function transferEncodingOf(value: string | false | undefined): TransferEncoding | null {
  const v = (value || '7bit').toLowerCase().trim();
  return v === '7bit' || v === '8bit' || v === 'binary' || v === 'base64' || v === 'quoted-printable' ? v : null;
}

/**
 * The line style of an encoded body: its line ending (`lineEndingOfBody` over `segments`, the body's first
 * physical lines in order; CRLF when it has none) and the length of its first line (base64 line length; 76
 * when the body is one line).
 */
export function encodedStyleOf(segments: readonly Segment[]): EncodedStyle {
  const first = segments[0];
  const eol = first === undefined ? null : lineEndingOfSegments(segments);
  if (eol === null || first === undefined) return { eol: '\r\n', lineLength: 76 };
  // The first line of the segment (a base64 segment holds several).
  const length = first.encoded.indexOf(eol === '\r' ? 0x0d : eol === '\n' ? 0x0a : 0x0d);
  return { eol, lineLength: length > 0 ? length : 76 };
}

/**
 * The line ending lines written afresh get: that of the body's first line ending in LF (CRLF or LF) or, when
 * no line does, its first line's (a bare CR: a body of CR-only lines). A bare CR before the first LF is not the
 * body's style but a mangled line end — `=\r\r\n`, a CRLF file converted to CRLF once more, leaves its soft
 * line break ending in a lone CR; taken as the style, every line written afresh ended in a bare CR and each LF
 * of the decoded text became "=0A", bytes far from the rewritten reference.
 */
export function lineEndingOfBody(encoded: Buffer): LineEnding | null {
  const lf = encoded.indexOf(0x0a);
  if (lf !== -1) return lf > 0 && encoded[lf - 1] === 0x0d ? '\r\n' : '\n';
  return lineEndingOf(encoded, true);
}

/** `lineEndingOfBody` of the segments' bytes joined (a CRLF is never split between two segments). */
function lineEndingOfSegments(segments: readonly Segment[]): LineEnding | null {
  for (const s of segments) if (s.encoded.indexOf(0x0a) !== -1) return lineEndingOfBody(s.encoded);
  return lineEndingOf(segments[0]!.encoded, true);
}

/** Whether the encoded bytes end with a line ending. */
export function endsWithLineEnding(encoded: Buffer): boolean {
  const last = encoded[encoded.length - 1];
  return last === 0x0a || last === 0x0d;
}

/** The segments of a whole encoded body. */
function segmentsOf(encoded: Buffer, encoding: 'base64' | 'quoted-printable'): Segment[] {
  if (encoding === 'base64') return new Base64Decoder().push(encoded, true);
  return quotedPrintableSegments(encoded) ?? new QuotedPrintableDecoder().push(encoded, true);
}

/** A decoded body; `lines`: a quoted-printable body's segment ends, for `encodeBody` (null: none kept). */
export interface DecodedBody {
  readonly decoded: Buffer;
  readonly padded: boolean;
  readonly lines: QuotedPrintableLines | null;
}

/**
 * Decodes a body. Returns null when the encoded bytes are not valid in that encoding, so that the part passes
 * through unchanged: base64 with characters outside its alphabet, or with 4k+1 characters (no padding can make
 * that whole; Python's email then gives up too). A final quantum short of padding is decoded as if padded
 * (Python does the same) and reported in `padded`.
 */
export function decodeBody(encoded: Buffer, encoding: TransferEncoding): DecodedBody | null {
  switch (encoding) {
    case 'base64': {
      const text = encoded.toString('latin1');
      if (/[^A-Za-z0-9+/=\s]/.test(text)) return null;
      const length = text.replace(/\s+/g, '').length;
      if (length % 4 === 1) return null;
      return { decoded: Buffer.from(libbase64.decode(text)), padded: length % 4 !== 0, lines: null };
    }
    case 'quoted-printable': {
      // One pass into one buffer, noting where each segment ends; segment objects (a buffer per line) are made
      // only for a body with a line longer than a segment.
      const lines = decodeQuotedPrintableLines(encoded);
      if (lines !== null) return { decoded: lines.decoded, padded: false, lines };
      return { decoded: Buffer.concat(segmentsOf(encoded, 'quoted-printable').map((s) => s.decoded)), padded: false, lines: null };
    }
    default:
      return { decoded: encoded, padded: false, lines: null };
  }
}

/**
 * Encodes rewritten bytes as the original body was encoded (`Reencoder`): every segment of the original whose
 * text did not change is copied as it was, soft line breaks included; the rest is encoded afresh in the
 * original's line style. `lines`: what `decodeBody` noted of the original (quoted-printable), which spares
 * making its segments again (`reencodeQuotedPrintable`, the same bytes).
 */
export function encodeBody(decoded: Buffer, encoding: TransferEncoding, original: Buffer, lines: QuotedPrintableLines | null = null): Buffer {
  const pieces = encodeBodyPieces(decoded, encoding, original, lines);
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
}

/** `encodeBody`'s bytes in the pieces they are made in (a quoted-printable body: `reencodeQuotedPrintablePieces`). */
export function encodeBodyPieces(decoded: Buffer, encoding: TransferEncoding, original: Buffer, lines: QuotedPrintableLines | null = null): Buffer[] {
  if (encoding !== 'base64' && encoding !== 'quoted-printable') return [decoded];
  if (encoding === 'quoted-printable' && lines !== null && lines.body === original) {
    const eol = lines.count === 0 ? null : lineEndingOfBody(original);
    return reencodeQuotedPrintablePieces(lines, decoded, eol ?? '\r\n', endsWithLineEnding(original));
  }
  const segments = segmentsOf(original, encoding);
  const reencoder = new Reencoder(encoding, encodedStyleOf(segments));
  reencoder.addSegments(segments);
  return [reencoder.writeBytes(decoded, true, endsWithLineEnding(original))];
}
