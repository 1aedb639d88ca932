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
  readonly eol: '\r\n' | '\n';
  readonly lineLength: number;
  /** Whether the encoded text ends with a line ending. */
  readonly finalEol: boolean;
}

function lineStyle(encoded: Buffer): LineStyle {
  const lf = encoded.indexOf(0x0a);
  const eol = lf > 0 && encoded[lf - 1] === 0x0d ? '\r\n' : '\n';
  const lineLength = lf === -1 ? encoded.length : lf - (eol === '\r\n' ? 1 : 0);
  return { eol, lineLength: lineLength > 0 ? lineLength : 76, finalEol: encoded.length > 0 && encoded[encoded.length - 1] === 0x0a };
}

/**
 * Decodes a body. Returns null when the encoded bytes are not valid in that encoding (base64 with characters
 * outside its alphabet), so that the part passes through unchanged.
 */
export function decodeBody(encoded: Buffer, encoding: TransferEncoding): Buffer | null {
  switch (encoding) {
    case 'base64': {
      const text = encoded.toString('latin1');
      if (/[^A-Za-z0-9+/=\s]/.test(text)) return null;
      return Buffer.from(libbase64.decode(text));
    }
    case 'quoted-printable':
      return Buffer.from(libqp.decode(encoded.toString('latin1')));
    default:
      return encoded;
  }
}

/** Encodes rewritten bytes as the original body was encoded. */
export function encodeBody(decoded: Buffer, encoding: TransferEncoding, original: Buffer): Buffer {
  if (encoding !== 'base64' && encoding !== 'quoted-printable') return decoded;
  const style = lineStyle(original);
  let text =
    encoding === 'base64'
      ? libbase64.wrap(libbase64.encode(decoded), style.lineLength)
      : libqp.wrap(libqp.encode(decoded), 76);
  // libbase64/libqp wrap with CRLF; the original's line ending is kept.
  text = text.replace(/\r?\n/g, style.eol);
  if (style.finalEol && !text.endsWith(style.eol)) text += style.eol;
  return Buffer.from(text, 'latin1');
}
