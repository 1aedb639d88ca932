/**
 * Credentials in URLs (`http://user:password@host/`): sent as HTTP Basic authentication to the URL that carries
 * them, and never printed: every URL in a report, an `--explain` chain, a link report or an error message goes
 * through `redactUrl` first.
 *
 * NOTE: a password may hold an unencoded `@`, `/`, `?` or `#` (`http://u:p/w@host/`). The URL parser then reads
 * part of it as the host, the port or the path, or fails; either way the parsed URL still shows it. So the
 * printed form removes everything between `//` and the *last* `@` of the text, whether it parses or not. The
 * price: a URL with an `@` in its path or query (`https://example.com/@user`) is printed from its last `@` on
 * (`https://user`); it is still requested, and used as a base, as written.
 */

/** The URL as the retrieval base: parsed, with its username and password removed. */
export function withoutCredentials(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

/**
 * The URL for printing: parsed and serialized when it parses, its username and password removed, and then
 * everything between `//` and the last `@` removed (`redactUserinfo`).
 */
export function redactUrl(url: string | URL): string {
  if (typeof url !== 'string') return redactUserinfo(withoutCredentials(url));
  try {
    return redactUserinfo(withoutCredentials(new URL(url)));
  } catch {
    return redactUserinfo(url);
  }
}

/**
 * Any text that may be a URL (an argument that does not parse, a `Location` value as sent): everything
 * between the start of the authority and the last `@` removed. The authority starts after `scheme:` and any
 * slashes or backslashes following it (the URL parser accepts `http:\\`, `http:/` and `http:` for special
 * schemes), or at the first `//` of a scheme-less text.
 */
export function redactUserinfo(text: string): string {
  const start = /^[\s\x00-\x1f]*[A-Za-z][A-Za-z0-9+.-]*:[\\/]*/.exec(text)?.[0].length ?? authorityAfterSlashes(text);
  if (start === -1) return text;
  const at = text.lastIndexOf('@');
  return at < start ? text : text.slice(0, start) + text.slice(at + 1);
}

function authorityAfterSlashes(text: string): number {
  const slashes = /[\\/]{2}/.exec(text);
  return slashes === null ? -1 : slashes.index + 2;
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
