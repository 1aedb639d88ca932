/**
 * `100 Continue` before the real response. RFC 9110 §15.2: "A client MUST be able to parse one or more 1xx
 * responses received prior to a final response, even if the client does not expect one." undici hands 102
 * and 103 to `onInfo`, but fails on 100 ("bad response": it never sends `Expect: 100-continue`, so it treats
 * one as a broken server), and servers behind some proxies send it to every request.
 *
 * So the bytes a connection receives are filtered before undici's parser sees them: at the start of each
 * response, whole `HTTP/1.x 100 …` header blocks are dropped. A response can only start after a request was
 * written (undici sends one request per connection at a time), so "the start of a response" is: the first
 * bytes after a write. Everything else passes as it came.
 */
import type { Socket } from 'node:net';

/** An interim response's header block is short; past this many bytes the data is passed on as it is. */
const MAX_INTERIM_HEADER_BYTES = 16 * 1024;

const CONTINUE_LINE = /^HTTP\/\d\.\d 100(?:[ \t\r\n]|$)/;

/** True when `head` (under 13 bytes) may still grow into a `100` status line. */
function mayBecomeContinue(head: string): boolean {
  const pattern = 'HTTP/#.# 100';
  for (let i = 0; i < head.length && i < pattern.length; i++) {
    if (pattern[i] === '#' ? !/\d/.test(head[i]!) : head[i] !== pattern[i]) return false;
  }
  return true;
}

/** The end of a header block at the start of `buf` (after its empty line, CRLF or LF), or -1. */
export function headEnd(buf: Buffer): number {
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return crlf + 4;
  return lf !== -1 ? lf + 2 : -1;
}

/** What to do with the bytes at the start of a response: `rest` passes on; `held` waits for more. */
export function skipContinue(bytes: Buffer): { rest: Buffer | null; held: Buffer | null } {
  let buf = bytes;
  for (;;) {
    const head = buf.subarray(0, 13).toString('latin1');
    // Too short to tell: hold it while it can still become a 100 status line.
    if (buf.length < 13 && mayBecomeContinue(head)) return { rest: null, held: buf };
    if (!CONTINUE_LINE.test(head)) return { rest: buf, held: null };
    const end = headEnd(buf);
    if (end === -1) return buf.length > MAX_INTERIM_HEADER_BYTES ? { rest: buf, held: null } : { rest: null, held: buf };
    buf = buf.subarray(end);
    if (buf.length === 0) return { rest: null, held: null };
  }
}

/**
 * What a filter of the bytes at a response's start gives back: `out` passes on now (null: nothing yet), `held`
 * waits for the next bytes, `done`: the response's head is behind, and what follows passes as it comes.
 */
export interface ResponseStartStep {
  readonly out: Buffer | null;
  readonly held: Buffer | null;
  readonly done: boolean;
}

/**
 * Runs `filter` over the bytes `socket` receives at the start of each response (see above: the first bytes after
 * a request was written) until it says the head is behind; every other byte passes as it came, and bytes held at
 * the end of the stream are passed on. Shared by the filters of this module and framing.ts.
 */
export function filterResponseStarts(socket: Socket, filter: (bytes: Buffer) => ResponseStartStep): Socket {
  const push = socket.push.bind(socket);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let atResponseStart = true;
  let held: Buffer | null = null;
  socket.write = ((...args: unknown[]) => {
    atResponseStart = true;
    return write(...args);
  }) as Socket['write'];
  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk === null) {
      if (held !== null) push(held);
      held = null;
      return push(null);
    }
    if (!atResponseStart || !Buffer.isBuffer(chunk)) return push(chunk, encoding);
    const step = filter(held === null ? chunk : Buffer.concat([held, chunk]));
    held = step.held;
    if (step.done) atResponseStart = false;
    return step.out === null || step.out.length === 0 ? true : push(step.out);
  };
  return socket;
}

/** Drops `100 Continue` responses from what `socket` receives (see above). */
export function skipInterimContinue(socket: Socket): Socket {
  return filterResponseStarts(socket, (bytes) => {
    const result = skipContinue(bytes);
    return { out: result.rest, held: result.held, done: result.rest !== null };
  });
}
