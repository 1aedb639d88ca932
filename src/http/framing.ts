/**
 * Content-Length as Chromium reads it (net::HttpStreamParser), where undici's parser (llhttp) refuses the
 * response:
 * - the same length stated more than once (`Content-Length: 64` twice, or `Content-Length: 64, 64`) is that
 *   length: Chromium refuses only copies that differ (ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH), as RFC 9110
 *   §8.6 allows ("MAY ... replace the duplicated field values with a single valid Content-Length field");
 * - beside `Transfer-Encoding: chunked` it is ignored (RFC 9112 §6.3 item 3: "Transfer-Encoding overrides the
 *   Content-Length").
 * So the header block of each response is read whole (up to MAX_HEAD_BYTES) before undici's parser sees it, and
 * such Content-Length fields are written as the one field they mean. Lengths that differ are left as they came:
 * undici refuses them (ABS_ERR_HTTP_PROTOCOL). Body bytes pass as they came.
 */
import type { Socket } from 'node:net';
import { filterResponseStarts, headEnd } from './interim-responses.ts';
import type { ResponseStartStep } from './interim-responses.ts';

/** Past this many bytes without the header block's end, the bytes are passed on as they are (undici's limit rules). */
const MAX_HEAD_BYTES = 512 * 1024;

/** A response header block (status line to empty line, latin1) with its framing fields made one; else as it was. */
export function normalizeFramingHead(head: string): string {
  const lines = head.split(/(?<=\n)/);
  const isCl = (l: string): boolean => /^content-length[ \t]*:/i.test(l);
  const cl = lines.filter(isCl);
  if (cl.length === 0) return head;
  // A folded line (obs-fold) is left to undici's parser.
  if (lines.slice(1).some((l) => /^[ \t]/.test(l))) return head;
  const valueOf = (l: string): string => l.slice(l.indexOf(':') + 1).replace(/\r?\n$/, '');
  const chunked = lines.some((l) => /^transfer-encoding[ \t]*:/i.test(l) && valueOf(l).split(',').some((c) => c.trim().toLowerCase() === 'chunked'));
  if (chunked) return lines.filter((l) => !isCl(l)).join('');
  const values = cl.flatMap((l) => valueOf(l).split(',').map((v) => v.trim()));
  if (values.length < 2 || !values.every((v) => /^\d+$/.test(v) && v === values[0])) return head;
  let first = true;
  return lines
    .map((l) => {
      if (!isCl(l)) return l;
      if (!first) return '';
      first = false;
      return `Content-Length: ${values[0]}${l.endsWith('\r\n') ? '\r\n' : '\n'}`;
    })
    .join('');
}

/** Writes the framing fields of each response `socket` receives as Chromium reads them (see above). */
export function normalizeFraming(socket: Socket): Socket {
  return filterResponseStarts(socket, normalizeResponseStart);
}

/** normalizeFraming's step over the bytes at a response's start: each whole header block normalized. */
function normalizeResponseStart(bytes: Buffer): ResponseStartStep {
  let buf = bytes;
  const out: Buffer[] = [];
  let held: Buffer | null = null;
  let done = false;
  for (;;) {
    // What does not start as a status line is not held: undici's parser says what it is at once.
    const start = buf.subarray(0, 5).toString('latin1');
    if (!'HTTP/'.startsWith(start)) {
      done = true;
      out.push(buf);
      break;
    }
    const end = headEnd(buf);
    if (end === -1) {
      if (buf.length > MAX_HEAD_BYTES) {
        done = true;
        out.push(buf);
      } else if (buf.length > 0) held = buf;
      break;
    }
    const head = buf.subarray(0, end).toString('latin1');
    const normalized = normalizeFramingHead(head);
    out.push(normalized === head ? buf.subarray(0, end) : Buffer.from(normalized, 'latin1'));
    buf = buf.subarray(end);
    // An interim response (103 Early Hints…) is followed by another header block; 101 switches protocols.
    if (/^HTTP\/\d\.\d 1\d\d(?:[ \t\r\n]|$)/.test(head) && !/^HTTP\/\d\.\d 101/.test(head)) continue;
    done = true;
    out.push(buf);
    break;
  }
  return { out: out.length === 0 ? null : out.length === 1 ? out[0]! : Buffer.concat(out), held, done };
}
