/**
 * Credentials in URLs (`http://user:password@host/`): sent as HTTP Basic authentication to the URL that carries
 * them, and never printed: every URL in a report, an `--explain` chain, a link report or an error message goes
 * through `redactUrl` first.
 */

/** The URL with its username and password removed; the input unchanged if it does not parse. */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch {
    return typeof url === 'string' ? redactUnparsed(url) : url.href;
  }
  if (parsed.username === '' && parsed.password === '') return parsed.href;
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/** For text that is not a URL (a relative `Location`, an argument that failed to parse): drop `user:pass@`. */
function redactUnparsed(text: string): string {
  return text.replace(/^([a-zA-Z][a-zA-Z0-9+.-]*:)?(\/\/)[^/?#@]*@/, '$1$2');
}

/**
 * The `Authorization` header value for the credentials in `url`, or null. The URL standard percent-encodes
 * userinfo, so the values are percent-decoded first (https://fetch.spec.whatwg.org/#http-network-or-cache-fetch
 * step 12: "Let authorizationValue be … username and password").
 */
export function basicAuthorization(url: URL): string | null {
  if (url.username === '' && url.password === '') return null;
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  return `Basic ${Buffer.from(`${decode(url.username)}:${decode(url.password)}`, 'utf8').toString('base64')}`;
}
