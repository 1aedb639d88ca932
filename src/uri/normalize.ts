/**
 * RFC 3986 §6.2.2 syntax-based and §6.2.3 scheme-based normalization, for de-duplicating URLs (a frontier's
 * key), never for rewriting: the link report's `resolved` stays exactly as resolved. Pure.
 *
 * - §6.2.2.1 case: scheme and host lowercased, percent-encoding hex digits uppercased;
 * - §6.2.2.2 percent-encoding: octets of unreserved characters (ALPHA DIGIT - . _ ~) decoded;
 * - §6.2.2.3 path segments: dot segments removed (§5.2.4);
 * - §6.2.3 scheme-based: the default port (and an empty port) dropped, an empty path of an http(s) URL with an
 *   authority becomes "/".
 * The fragment is kept (§6 normalizes it like any other component); nothing else is changed.
 */
import { parseUriReference, recomposeUri, removeDotSegments } from './rfc3986.ts';

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443', ws: '80', wss: '443', ftp: '21' };

/** §6.2.2.1 and §6.2.2.2 on one component: `%7e` → `~`, `%3a` → `%3A`. */
export function normalizePercentEncoding(component: string): string {
  return component.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${hex.toUpperCase()}`;
  });
}

/** The normalized form of an absolute URI; a string that is not one comes back unchanged. */
export function normalizeUri(uri: string): string {
  const c = parseUriReference(uri);
  if (c.scheme === undefined) return uri;
  const scheme = c.scheme.toLowerCase();
  let authority = c.authority;
  if (authority !== undefined) {
    const at = authority.lastIndexOf('@');
    const userinfo = at === -1 ? null : normalizePercentEncoding(authority.slice(0, at));
    let hostport = authority.slice(at + 1);
    const portMatch = /:(\d*)$/.exec(hostport);
    let port: string | null = null;
    if (portMatch !== null && !hostport.endsWith(']')) {
      port = portMatch[1]!;
      hostport = hostport.slice(0, portMatch.index);
    }
    // Leading zeros do not change a port's number.
    if (port !== null && port !== '') port = String(Number(port));
    if (port === '' || (port !== null && DEFAULT_PORTS[scheme] === port)) port = null;
    const host = normalizePercentEncoding(hostport).toLowerCase();
    authority = `${userinfo === null ? '' : `${userinfo}@`}${host}${port === null ? '' : `:${port}`}`;
  }
  let path = normalizePercentEncoding(c.path);
  if (authority !== undefined || path.startsWith('/')) path = removeDotSegments(path);
  if (path === '' && authority !== undefined && DEFAULT_PORTS[scheme] !== undefined) path = '/';
  return recomposeUri({
    scheme,
    authority,
    path,
    query: c.query === undefined ? undefined : normalizePercentEncoding(c.query),
    fragment: c.fragment === undefined ? undefined : normalizePercentEncoding(c.fragment),
  });
}
