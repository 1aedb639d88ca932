/**
 * Following redirects by hand (SPEC §6), so that the chain is recorded and the final URL becomes the retrieval
 * base. Pure functions; fetch.ts does the I/O.
 */
import { FetchError } from '../errors.ts';
import type { RedirectHop } from '../errors.ts';
import { redactUrl, redactUserinfo } from './credentials.ts';
import { escapeControls } from './printable.ts';

/** https://fetch.spec.whatwg.org/#redirect-status */
export function isRedirectStatus(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** The schemes a retrieval may go to: a redirect elsewhere (`file:`, `ftp:`, `data:`…) is refused. */
export function isFetchableScheme(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

/**
 * The `Location` header value as text. Headers arrive as latin1 (one unit per byte); browsers read a
 * `Location` as UTF-8, so a value that is valid UTF-8 is decoded as such (`/caf\u00c3\u00a9` → `/café`).
 */
export function decodeLocation(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return value;
  }
}

/**
 * The `Location` value as the URL parser is to read it, as Chromium reads the header's bytes: valid UTF-8 as
 * UTF-8; otherwise every byte above 0x7F percent-encoded as it is (`/p\xe9ge` → `/p%E9ge`, not `/p%C3%A9ge`).
 * Nothing is trimmed but what the URL parser trims itself (C0 controls and spaces): a trailing U+3000 or U+00A0
 * is part of the URL (`/page%E3%80%80`), as Chromium requests it.
 */
export function locationForParsing(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value)) return value;
  const decoded = decodeLocation(value);
  if (decoded !== value) return decoded;
  return value.replace(/[\u0080-\u00ff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * https://fetch.spec.whatwg.org/#concept-http-redirect-fetch steps 3–6 and 19:
 * 3. Let locationURL be actualResponse's location URL given request's current URL's fragment:
 *    parse the `Location` value relative to the response's URL; if it has no fragment, it takes the
 *    current URL's fragment.
 * 5. If locationURL is failure, return a network error.
 * 6. If locationURL's scheme is not an HTTP(S) scheme, return a network error.
 * Loop detection is ours: a URL (without its fragment) requested twice in one chain is a loop, since
 * without cookies or state the same request will redirect the same way again.
 * Returns the next URL to request, or throws a FetchError (`ABS_ERR_HTTP_REDIRECT`).
 */
export function nextRedirectUrl(current: URL, location: string, chain: readonly RedirectHop[], requested: ReadonlySet<string>): URL {
  const value = locationForParsing(location);
  let next: URL;
  try {
    next = new URL(value, current);
  } catch {
    throw new FetchError(`${redactUrl(current)}: redirect to an invalid URL ${escapeControls(JSON.stringify(redactUserinfo(value)))}`, 'ABS_ERR_HTTP_REDIRECT', { url: redactUrl(current), chain });
  }
  if (!value.includes('#') && current.hash !== '') next.hash = current.hash;
  if (!isFetchableScheme(next)) {
    throw new FetchError(`${redactUrl(current)}: redirect to ${next.protocol} refused (${redactUrl(next)}): only http and https are followed`, 'ABS_ERR_HTTP_REDIRECT', { url: redactUrl(current), chain });
  }
  if (requested.has(requestKey(next))) {
    throw new FetchError(`${redactUrl(current)}: redirect loop: ${redactUrl(next)} was already requested (${chain.length} redirects)`, 'ABS_ERR_HTTP_REDIRECT', { url: redactUrl(current), chain });
  }
  return next;
}

/** What identifies a request: the URL without its fragment (fragments are not sent). */
export function requestKey(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}
