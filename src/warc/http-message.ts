/**
 * The HTTP response inside a WARC `response` record's block (`application/http; msgtype=response`, WARC 1.1
 * §6.3.2): status line and header fields as stored, the body after them. Pure.
 */

export interface HttpHead {
  readonly status: number;
  readonly statusText: string;
  /** Header fields in order, names as written. */
  readonly fields: ReadonlyArray<readonly [string, string]>;
  /** Byte length of the head: status line, fields and the empty line. */
  readonly length: number;
  /** Byte offset and length of each field line (without its line end), for renaming in place. */
  readonly lines: ReadonlyArray<{ readonly start: number; readonly end: number; readonly name: string }>;
  /** Offset of the empty line that ends the head. */
  readonly emptyLine: number;
  /** The line end the head uses (CRLF, or LF in some captures). */
  readonly eol: string;
}

/** Parses the head of an HTTP response at the start of `block`, or null when it is not one. */
export function parseHttpHead(block: Buffer): HttpHead | null {
  const limit = Math.min(block.length, 1 << 16);
  let end = -1;
  let emptyLine = -1;
  for (let i = block.indexOf(0x0a); i !== -1 && i < limit; i = block.indexOf(0x0a, i + 1)) {
    if (block[i + 1] === 0x0a) {
      emptyLine = i + 1;
      end = i + 2;
      break;
    }
    if (block[i + 1] === 0x0d && block[i + 2] === 0x0a) {
      emptyLine = i + 1;
      end = i + 3;
      break;
    }
  }
  // A head with no body and no empty line (a record cut after the head) ends at the block's end.
  if (end === -1) {
    if (block.length > limit) return null;
    end = block.length;
    emptyLine = block.length;
  }
  const text = block.toString('latin1', 0, end);
  const m = /^HTTP\/\d(?:\.\d)?\s+(\d{3})(?:[ \t]+([^\r\n]*))?\r?\n?/.exec(text);
  if (m === null) return null;
  const fields: Array<[string, string]> = [];
  const lines: Array<{ start: number; end: number; name: string }> = [];
  let pos = m[0].length;
  while (pos < emptyLine) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1 || nl > emptyLine) nl = emptyLine;
    const lineEnd = text[nl - 1] === '\r' ? nl - 1 : nl;
    const line = text.slice(pos, lineEnd);
    const colon = line.indexOf(':');
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0) fields[fields.length - 1]![1] += ` ${line.trim()}`;
    else if (colon > 0) {
      const name = line.slice(0, colon).trim();
      fields.push([name, line.slice(colon + 1).trim()]);
      lines.push({ start: pos, end: lineEnd, name });
    }
    pos = nl + 1;
  }
  const eol = /\r\n/.test(text.slice(0, m[0].length + 2)) || text.endsWith('\r\n\r\n') ? '\r\n' : '\n';
  return { status: Number(m[1]), statusText: m[2] ?? '', fields, length: end, lines, emptyLine, eol };
}

/** Values of a header field (names case-insensitive), in order. */
export function headerValues(head: HttpHead, name: string): string[] {
  const lower = name.toLowerCase();
  return head.fields.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
}

/** The last value of a header field (as undici's `headerValue` takes it), or undefined. */
export function lastHeader(head: HttpHead, name: string): string | undefined {
  const values = headerValues(head, name);
  return values[values.length - 1];
}

/**
 * The body with chunked transfer coding removed (RFC 9112 §7.1), or null when it does not parse as chunked from
 * start to end: most crawlers store the body already de-chunked while keeping the header.
 */
export function dechunk(body: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const nl = body.indexOf(0x0a, pos);
    if (nl === -1 || nl - pos > 1024) return null;
    const sizeLine = body.toString('latin1', pos, nl).replace(/\r$/, '');
    const m = /^([0-9a-fA-F]+)[ \t]*(?:;.*)?$/.exec(sizeLine);
    if (m === null) return null;
    const size = Number.parseInt(m[1]!, 16);
    pos = nl + 1;
    if (size === 0) {
      // Trailer fields, then the empty line; a body that ends right after the last chunk is accepted too.
      return Buffer.concat(parts);
    }
    if (pos + size > body.length) return null;
    parts.push(body.subarray(pos, pos + size));
    pos += size;
    if (body[pos] === 0x0d) pos++;
    if (body[pos] !== 0x0a) return null;
    pos++;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value (parsed as Latin-1, one character a byte) read as UTF-8 when its bytes are valid UTF-8, as
 * Chromium reads `Location`, `Content-Location` and `Refresh` (raw UTF-8 `Location: /café` goes to `/caf%C3%A9`);
 * otherwise as it is, one character a byte.
 */
export function headerText(value: string): string {
  if (!/[^\x00-\x7f]/.test(value)) return value;
  try {
    return UTF8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}
