/**
 * A connection reset (TCP RST, `ECONNRESET`) is a failure, never the end of a body. undici reads an `ECONNRESET`
 * on a response that is not kept alive (HTTP/1.0, `Connection: close`) as the body's end — "On Mac OS, we get
 * an ECONNRESET even if there is a full body" — so a close-delimited page cut short by a reset came out as a
 * whole document, and a `Content-Length` or chunked one as a framing error. Chromium fails the load
 * (ERR_CONNECTION_RESET); docs/errors.md: `ABS_ERR_HTTP_NETWORK`, "reset, closed before the body ended".
 *
 * The socket's `ECONNRESET` errors are handed to undici as a ConnectionResetError (another code), which it
 * passes to the request like any other socket error; `toFetchError` names it.
 */
import type { Socket } from 'node:net';

export class ConnectionResetError extends Error {
  override name = 'ConnectionResetError';
  readonly code = 'ABS_CONNECTION_RESET';
  constructor(cause: Error) {
    super(cause.message, { cause });
  }
}

/** Makes `socket` report ECONNRESET as a ConnectionResetError. */
export function reportResets<S extends Socket>(socket: S): S {
  const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
  socket.emit = ((event: string | symbol, ...args: unknown[]) => {
    const err = args[0] as (Error & { code?: unknown }) | undefined;
    if (event === 'error' && err instanceof Error && err.code === 'ECONNRESET') return emit(event, new ConnectionResetError(err));
    return emit(event, ...args);
  }) as S['emit'];
  return socket;
}
