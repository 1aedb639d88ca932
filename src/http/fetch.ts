/**
 * HTTP retrieval with undici (SPEC §6): GET, redirects followed by hand so that the chain is recorded, the
 * final URL as the retrieval base, content codings decoded, every wait and size bounded by a named limit
 * (`HttpLimits`), and network failures turned into one FetchError code each.
 */
import { PassThrough, Readable, pipeline } from 'node:stream';
import type { Transform } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import type { Retrieval } from '../base/base.ts';
import { AbsError, FetchError, LimitExceededError } from '../errors.ts';
import type { RedirectHop, Warning } from '../errors.ts';
import { DEFAULT_HTTP_LIMITS, resolveHttpLimits } from '../limits.ts';
import type { HttpLimits } from '../limits.ts';
import { AddressRefusedError, createConnector } from './address-guard.ts';
import { ConnectionResetError } from './connection-reset.ts';
import { ACCEPT_ENCODING, createByteLimit, createDecoders, parseContentEncoding } from './content-decoding.ts';
import { extractContentType } from './content-type.ts';
import type { ContentTypeInfo } from './content-type.ts';
import { basicAuthorization, redactUrl, redactUserinfo, withoutCredentials } from './credentials.ts';
import { escapeControls } from './printable.ts';
import { headerList } from './header-value.ts';
import { undici } from './undici.ts';
import { decodeLocation, isFetchableScheme, isRedirectStatus, nextRedirectUrl, requestKey } from './redirect.ts';

export interface FetchAgentOptions {
  /** Limits; only `connectTimeoutMs` and `maxConnectionsPerOrigin` concern the agent. @default DEFAULT_HTTP_LIMITS */
  readonly httpLimits?: { readonly [K in keyof HttpLimits]?: number | undefined } | undefined;
  /** Refuse to connect to private, loopback, link-local and other non-public addresses. @default false */
  readonly refusePrivateAddresses?: boolean | undefined;
}

/**
 * The largest response header block read, as Chromium's (net::HttpStreamParser kMaxHeaderBufSize, 256 KiB;
 * past it ERR_RESPONSE_HEADERS_TOO_BIG). undici's default is Node's 16 KiB, which real pages with long
 * `Set-Cookie`, `Content-Security-Policy` or `Link` fields pass.
 */
export const MAX_RESPONSE_HEADER_BYTES: number = 256 * 1024;

/** One undici Agent for many retrievals: per-origin connection limit, connect timeout, address guard. */
export function createFetchAgent(options: FetchAgentOptions = {}): Agent {
  const limits = resolveHttpLimits(options.httpLimits);
  return new (undici().Agent)({
    connections: limits.maxConnectionsPerOrigin,
    maxHeaderSize: MAX_RESPONSE_HEADER_BYTES,
    connect: createConnector({ connectTimeoutMs: limits.connectTimeoutMs, refusePrivateAddresses: options.refusePrivateAddresses === true }),
  });
}

export interface FetchOptions extends FetchAgentOptions {
  /**
   * The dispatcher to send requests through (one `createFetchAgent()` shared by a batch). Without it, an Agent
   * is made for this retrieval and closed when the body has been read.
   */
  readonly dispatcher?: Dispatcher | undefined;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Told of what the retrieval let pass that a browser also lets pass: `content-encoding-trailing-bytes` (bytes
   * after the end of a compressed body, ignored as Chromium ignores them), once the body has been read.
   */
  readonly onWarning?: ((warning: Warning) => void) | undefined;
}

export interface FetchedDocument {
  /**
   * The URL that returned the body, after redirects, credentials removed: the retrieval base (SPEC §2 layer 4).
   * To print it, use `redactUrl(url)` (see credentials.ts).
   */
  readonly url: string;
  /** The URL first requested, for printing (`redactUrl`). */
  readonly requestedUrl: string;
  /** The redirects followed, first request first. */
  readonly chain: readonly RedirectHop[];
  /** `{ url, redirects }` for the rewriters' `retrieval` option. */
  readonly retrieval: Retrieval;
  readonly status: number;
  /** The reason phrase as the server sent it: escape it before printing (`escapeControls`). */
  readonly statusText: string;
  /** Response headers (lowercase names). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly contentType: ContentTypeInfo;
  /** The content codings that were decoded, in the order they were applied. */
  readonly contentCodings: readonly string[];
  /**
   * The body with content codings decoded, bounded by `maxBodyBytes` (as transferred) and `maxDecompressedBytes`
   * (decoded): past either it fails with a LimitExceededError and the rest is not downloaded. Network failures
   * while reading come as FetchErrors. Read it to the end or destroy it.
   */
  readonly body: Readable;
}

const DEFAULT_REQUEST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'user-agent': 'absolutize (+https://www.npmjs.com/package/absolutize)',
  accept: 'text/html,application/xhtml+xml,text/css;q=0.9,*/*;q=0.8',
});

/**
 * Retrieves `url` with GET, following redirects (301, 302, 303, 307, 308) by hand up to `maxRedirects`.
 * Resolves once the final response's headers are in, whatever its status (see `httpStatusError`); rejects
 * with a FetchError for a network failure, a timeout, a refused address, a bad or looping redirect, or an
 * unsupported content coding.
 */
export async function fetchDocument(url: string, options: FetchOptions = {}): Promise<FetchedDocument> {
  const limits = resolveHttpLimits(options.httpLimits);
  const requestedUrl = redactUrl(url);
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new AbsError(`${escapeControls(JSON.stringify(requestedUrl))} is not a URL`, 'ABS_ERR_USAGE');
  }
  if (!isFetchableScheme(current)) throw new AbsError(`${escapeControls(requestedUrl)}: only http: and https: URLs are retrieved`, 'ABS_ERR_USAGE');

  const ownAgent = options.dispatcher === undefined ? createFetchAgent(options) : null;
  const dispatcher = options.dispatcher ?? ownAgent!;
  const chain: RedirectHop[] = [];
  const requested = new Set<string>();
  const deadline = startDeadline(limits.deadlineMs, options.signal);
  try {
    for (;;) {
      requested.add(requestKey(current));
      const response = await send(dispatcher, current, limits, { ...options, signal: deadline.signal }, chain);
      let location: string | undefined;
      try {
        location = singleLocation(response.headers['location'], current, chain);
        // Chromium (HttpResponseHeaders::IsRedirect): an empty `Location` "doesn't count": the response is not a
        // redirect but the final response (a 3xx without Location).
        if (location !== undefined && /^[ \t]*$/.test(location)) location = undefined;
      } catch (err) {
        discard(response.body);
        throw err;
      }
      // https://fetch.spec.whatwg.org/#http-fetch step 8: a redirect status with a Location is followed; one
      // without a Location is the response.
      if (isRedirectStatus(response.statusCode) && location !== undefined) {
        // A redirect response's own body is never output, and not waited for: a body that stalls would hold
        // each hop for up to bodyTimeoutMs. Destroying it ends the request (undici keeps the connection when the
        // body had already arrived whole).
        discard(response.body);
        // https://fetch.spec.whatwg.org/#concept-http-redirect-fetch step 8: "If request's redirect count is 20,
        // then return a network error."
        if (chain.length >= limits.maxRedirects) {
          throw new FetchError(`${requestedUrl}: more than ${limits.maxRedirects} redirects (limit maxRedirects)`, 'ABS_ERR_LIMIT', { url: redactUrl(current), chain });
        }
        // The hop is recorded first, so that a refused redirect is reported with the hop that asked for it.
        chain.push({ url: redactUrl(current), status: response.statusCode, location: redactUserinfo(decodeLocation(location)) });
        current = nextRedirectUrl(current, location, chain, requested);
        continue;
      }
      const document = finalDocument(response, current, requestedUrl, chain, limits, options.onWarning);
      if (ownAgent !== null) closeWhenDone(document.body, ownAgent);
      document.body.once('close', deadline.clear);
      return document;
    }
  } catch (err) {
    deadline.clear();
    await ownAgent?.destroy().catch(() => {});
    throw toFetchError(err, current, chain, limits);
  }
}

/** Ends a response body we do not read, at once; the error its destruction raises has no reader. */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** The reason the `deadlineMs` signal aborts with; `toFetchError` turns it into ABS_ERR_HTTP_TIMEOUT. */
class DeadlinePassed extends Error {
  override name = 'DeadlinePassed';
}

/** setTimeout's longest delay (2³¹−1 ms, 24.8 days); a longer deadline is no deadline. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `deadlineMs`: one signal that aborts the request in flight — a redirect, the headers or the body — once the
 * whole retrieval has taken that long, combined with the caller's signal.
 */
function startDeadline(deadlineMs: number, signal: AbortSignal | undefined): { signal: AbortSignal | undefined; clear: () => void } {
  if (!(deadlineMs <= MAX_TIMER_MS)) return { signal, clear: () => {} };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlinePassed(`deadlineMs ${deadlineMs}`)), deadlineMs);
  timer.unref();
  return { signal: signal === undefined ? controller.signal : AbortSignal.any([signal, controller.signal]), clear: () => clearTimeout(timer) };
}

async function send(dispatcher: Dispatcher, url: URL, limits: HttpLimits, options: FetchOptions, chain: readonly RedirectHop[]): Promise<Dispatcher.ResponseData> {
  const headers: Record<string, string> = { ...DEFAULT_REQUEST_HEADERS, ...options.headers, 'accept-encoding': ACCEPT_ENCODING };
  // Credentials go, as Basic authentication, only to the URL that carries them (a relative redirect keeps them,
  // as URL resolution does; another origin does not get them).
  const authorization = basicAuthorization(url);
  if (authorization !== null) headers['authorization'] = authorization;
  // undici hands interim (1xx) responses to onInfo, statuses below 100 among them ("000"), and then fails on
  // an assertion: the status seen here turns that into one clear line.
  let invalidStatus: number | null = null;
  // undici's headersTimeout restarts with every interim (1xx) response, so a server sending `103 Early Hints`
  // for ever would hold the request until deadlineMs (off by default). The wait for the final response's
  // headers is bounded here as a whole: interim responses count against headersTimeoutMs.
  const headers$ = startHeadersTimeout(limits.headersTimeoutMs, options.signal);
  try {
    return await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers,
      headersTimeout: limits.headersTimeoutMs,
      bodyTimeout: limits.bodyTimeoutMs,
      signal: headers$.signal ?? null,
      onInfo: ({ statusCode }: { statusCode: number }) => {
        if (statusCode < 100) invalidStatus = statusCode;
      },
    });
  } catch (err) {
    // Before any response is handed over, a length mismatch is undici's name for llhttp refusing a header block
    // that has a Content-Length: Content-Length values that differ (copies of one value are made one field,
    // framing.ts; Chromium: ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH), or another malformed field. The same
    // server answers the same way again: not a network fault.
    if ((err as { code?: unknown } | null)?.code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
      const where = redactUrl(url);
      throw new FetchError(`${where}: not a valid HTTP/1.1 response (header block refused: Content-Length values that differ, or a malformed field)`, 'ABS_ERR_HTTP_PROTOCOL', { url: where, chain }, { cause: err });
    }
    if (firstError(err) instanceof ConnectionResetError) {
      const where = redactUrl(url);
      throw new FetchError(`${where}: the connection was reset before the response headers came (ECONNRESET)`, 'ABS_ERR_HTTP_NETWORK', { url: where, chain }, { cause: err });
    }
    if (invalidStatus !== null && !(err instanceof DeadlinePassed) && !(err instanceof HeadersTimeoutPassed)) {
      const where = redactUrl(url);
      throw new FetchError(`${where}: status ${String(invalidStatus).padStart(3, '0')} is not an HTTP status (100–999): not an HTTP response`, 'ABS_ERR_HTTP_PROTOCOL', { url: where, chain }, { cause: err });
    }
    throw toFetchError(err, url, chain, limits);
  } finally {
    headers$.clear();
  }
}

/** The reason the headers signal aborts with; `toFetchError` turns it into ABS_ERR_HTTP_TIMEOUT. */
class HeadersTimeoutPassed extends Error {
  override name = 'HeadersTimeoutPassed';
}

/** A signal that aborts once `headersTimeoutMs` has passed without a final response, combined with `signal`. */
function startHeadersTimeout(headersTimeoutMs: number, signal: AbortSignal | undefined): { signal: AbortSignal | undefined; clear: () => void } {
  if (!(headersTimeoutMs <= MAX_TIMER_MS)) return { signal, clear: () => {} };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new HeadersTimeoutPassed(`headersTimeoutMs ${headersTimeoutMs}`)), headersTimeoutMs);
  timer.unref();
  return { signal: signal === undefined ? controller.signal : AbortSignal.any([signal, controller.signal]), clear: () => clearTimeout(timer) };
}

/**
 * Chromium refuses a response with two `Location` fields whose values differ
 * (net::HttpStreamParser, `HeadersContainMultipleCopiesOfField`: ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION), whatever
 * its status; copies of one value are fine. Returns the value, or throws ABS_ERR_HTTP_PROTOCOL.
 */
export function singleLocation(value: string | string[] | undefined, url: URL, chain: readonly RedirectHop[]): string | undefined {
  if (!Array.isArray(value)) return value;
  const first = value[0]!.trim();
  if (value.every((v) => v.trim() === first)) return value[0];
  const where = redactUrl(url);
  const shown = value.map((v) => escapeControls(JSON.stringify(redactUserinfo(decodeLocation(v))))).join(', ');
  throw new FetchError(`${where}: not a valid HTTP/1.1 response (${value.length} different Location headers: ${shown}; browsers refuse it: ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION)`, 'ABS_ERR_HTTP_PROTOCOL', { url: where, chain });
}

function finalDocument(response: Dispatcher.ResponseData, url: URL, requestedUrl: string, chain: readonly RedirectHop[], limits: HttpLimits, onWarning: FetchOptions['onWarning']): FetchedDocument {
  let codings: string[];
  let undecodable: AbsError | null = null;
  try {
    codings = parseContentEncoding(headerList(response.headers['content-encoding']));
  } catch (err) {
    // undici's body reports an unread destroy as an AbortError: nobody is listening for it here.
    response.body.on('error', () => {});
    response.body.destroy();
    // A 4xx/5xx (or 1xx, 3xx) is reported by its status (a 503 is worth a retry; its coding does not change
    // that): only a body that is read fails with the coding.
    if (response.statusCode >= 200 && response.statusCode < 300) throw err;
    codings = [];
    undecodable = toFetchError(err, url, chain, limits);
  }
  const finalUrl = withoutCredentials(url);
  const fetched = (body: Readable): FetchedDocument => ({
    url: finalUrl,
    requestedUrl,
    chain,
    retrieval: chain.length > 0 ? { url: finalUrl, redirects: chain.map((h) => h.url) } : { url: finalUrl },
    status: response.statusCode,
    statusText: response.statusText,
    headers: response.headers,
    contentType: extractContentType(response.headers['content-type']),
    contentCodings: codings,
    body,
  });
  if (undecodable !== null) {
    const failed = undecodable;
    return fetched(
      new Readable({
        read() {
          this.destroy(failed);
        },
      }),
    );
  }
  const stages: Transform[] = [createByteLimit('maxBodyBytes', limits.maxBodyBytes)];
  if (codings.length > 0) {
    const decoders = createDecoders(codings, {
      onTrailingBytes: (coding, bytes) =>
        onWarning?.({ code: 'content-encoding-trailing-bytes', message: `${redactUrl(url)}: ${bytes} byte${bytes === 1 ? '' : 's'} after the end of the ${coding} data ignored, as browsers ignore them` }),
    });
    for (const d of decoders) d.on('error', (e) => decodingErrors.add(e));
    stages.push(...decoders, createByteLimit('maxDecompressedBytes', limits.maxDecompressedBytes));
  }
  // The body is piped into `body` (not part of the pipeline) so that it fails with the mapped error rather than
  // the raw one; if its reader gives up early, the download is stopped.
  const body = new PassThrough();
  const last = pipeline([response.body, ...stages] as unknown as [Readable, Transform], (err) => {
    if (err) body.destroy(toFetchError(err, url, chain, limits));
  }) as Transform;
  last.pipe(body);
  body.once('close', () => {
    if (!body.readableEnded) response.body.destroy();
  });
  return fetched(body);
}

function closeWhenDone(body: Readable, agent: Agent): void {
  const close = (): void => {
    agent.close().catch(() => {});
  };
  body.once('close', close);
}

/** The FetchError for a final response whose status is not 2xx, or null. */
export function httpStatusError(document: FetchedDocument): FetchError | null {
  if (document.status >= 200 && document.status < 300) return null;
  const text = document.statusText === '' ? '' : ` ${escapeControls(document.statusText)}`;
  const where = redactUrl(document.url);
  return new FetchError(`${where}: HTTP ${document.status}${text}`, 'ABS_ERR_HTTP_STATUS', { url: where, chain: document.chain, status: document.status });
}

/** Errors raised by a content decoder (corrupt gzip, deflate or br data). */
const decodingErrors = new WeakSet<object>();

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'EAI_ADDRFAMILY']);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);

/** One clear FetchError for whatever undici, node:net, node:tls or node:zlib threw. Limits pass unchanged. */
export function toFetchError(err: unknown, url: URL, chain: readonly RedirectHop[], limits: HttpLimits = DEFAULT_HTTP_LIMITS): AbsError {
  if (err instanceof FetchError || err instanceof LimitExceededError) return err;
  const where = redactUrl(url);
  const details = { url: where, chain };
  if (err instanceof HeadersTimeoutPassed) return new FetchError(`${where}: timeout: no response headers within ${limits.headersTimeoutMs} ms (headersTimeoutMs)`, 'ABS_ERR_HTTP_TIMEOUT', details, { cause: err });
  if (err instanceof DeadlinePassed) return new FetchError(`${where}: timeout: no complete document within ${limits.deadlineMs} ms (deadlineMs)`, 'ABS_ERR_HTTP_TIMEOUT', details, { cause: err });
  if (err instanceof AddressRefusedError) return new FetchError(`${where}: ${err.message}`, 'ABS_ERR_HTTP_ADDRESS_REFUSED', details, { cause: err });
  if (err instanceof AbsError) return err;
  const e = firstError(err);
  const code = typeof e?.code === 'string' ? e.code : '';
  // Text from the network stack may quote the server (a parser error, a TLS alert): one escaped line.
  const message = escapeControls(e?.message ?? String(err));
  if (e instanceof AddressRefusedError) return new FetchError(`${where}: ${e.message}`, 'ABS_ERR_HTTP_ADDRESS_REFUSED', details, { cause: err });
  if (DNS_CODES.has(code)) return new FetchError(`${where}: cannot resolve host ${url.hostname} (${code})`, 'ABS_ERR_HTTP_DNS', details, { cause: err });
  if (CONNECT_CODES.has(code)) {
    const what = code === 'ECONNREFUSED' ? 'connection refused' : 'cannot connect';
    return new FetchError(`${where}: ${what} (${code})`, 'ABS_ERR_HTTP_CONNECT', details, { cause: err });
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new FetchError(`${where}: timeout: no connection within ${limits.connectTimeoutMs} ms (connectTimeoutMs)`, 'ABS_ERR_HTTP_TIMEOUT', details, { cause: err });
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new FetchError(`${where}: timeout: no response headers within ${limits.headersTimeoutMs} ms (headersTimeoutMs)`, 'ABS_ERR_HTTP_TIMEOUT', details, { cause: err });
  if (code === 'UND_ERR_BODY_TIMEOUT') return new FetchError(`${where}: timeout: the body stalled for ${limits.bodyTimeoutMs} ms (bodyTimeoutMs); the document is incomplete`, 'ABS_ERR_HTTP_TIMEOUT', details, { cause: err });
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|DEPTH_ZERO|ALTNAME/.test(code)) {
    return new FetchError(`${where}: TLS error: ${message} (${code})`, 'ABS_ERR_HTTP_TLS', details, { cause: err });
  }
  if (decodingErrors.has(e as object)) {
    return new FetchError(`${where}: cannot decode the body (${message})`, 'ABS_ERR_HTTP_CONTENT_ENCODING', details, { cause: err });
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return new FetchError(`${where}: not a valid HTTP/1.1 response (response headers larger than ${MAX_RESPONSE_HEADER_BYTES} bytes; browsers refuse them: ERR_RESPONSE_HEADERS_TOO_BIG)`, 'ABS_ERR_HTTP_PROTOCOL', details, { cause: err });
  }
  // Once the body is being read (a header-time mismatch is ABS_ERR_HTTP_PROTOCOL, in send), a mismatch is a
  // connection closed before Content-Length bytes came.
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return new FetchError(`${where}: the connection closed before the body ended (fewer bytes than its Content-Length); the document is incomplete`, 'ABS_ERR_HTTP_NETWORK', details, { cause: err });
  }
  if (e instanceof ConnectionResetError) {
    return new FetchError(`${where}: the connection was reset (ECONNRESET); the document is incomplete`, 'ABS_ERR_HTTP_NETWORK', details, { cause: err });
  }
  if (code === 'ERR_ASSERTION' || code.startsWith('HPE_') || e?.name === 'HTTPParserError' || (code === 'UND_ERR_SOCKET' && message === 'bad response')) {
    // undici's parser quotes the reason in parentheses; its assertions span lines and name its own code.
    const reason = code === 'ERR_ASSERTION' ? 'rejected by the HTTP client' : message.replace(/^Response does not match the HTTP\/1\.1 protocol \((.*)\)$/, '$1');
    return new FetchError(`${where}: not a valid HTTP/1.1 response (${reason})`, 'ABS_ERR_HTTP_PROTOCOL', details, { cause: err });
  }
  if ((e as { name?: unknown } | null)?.name === 'AbortError' || code === 'UND_ERR_ABORTED') return new FetchError(`${where}: aborted`, 'ABS_ERR_HTTP_NETWORK', details, { cause: err });
  return new FetchError(`${where}: ${message}${code === '' ? '' : ` (${code})`}`, 'ABS_ERR_HTTP_NETWORK', details, { cause: err });
}

/** The error that says what happened: the first of an AggregateError (Happy Eyeballs), else the error itself. */
function firstError(err: unknown): (Error & { code?: unknown }) | null {
  if (err instanceof AggregateError && err.errors.length > 0) return firstError(err.errors[0]);
  if (err instanceof Error) return err as Error & { code?: unknown };
  return null;
}
