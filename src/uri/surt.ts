/**
 * SURT (Sort-friendly URI Reordering Transform), the key CDX and CDXJ indexes sort on, as the `surt` library
 * (internetarchive/surt, used by pywb and the Wayback Machine) writes it by default: the IA canonicalization
 * (lowercased, `www.` dropped, default port, fragment and user info dropped, query arguments sorted, a trailing
 * slash dropped), then the host's labels reversed and joined by commas, `)` and the path:
 * `http://www.Example.com/Goo/?b=2&a=1#x` → `com,example)/goo?a=1&b=2`. Session-id stripping is not done.
 * Pure; null for URLs that have no host (mailto:, data:, javascript:, …) or do not parse.
 */

export function surt(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.hostname === '') return null;
  let host = u.hostname.toLowerCase().replace(/\.+$/, '');
  host = host.replace(/^www\d*\./, '');
  const isIp = /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.startsWith('[');
  const hostKey = isIp ? host : host.split('.').reverse().join(',');
  const port = u.port === '' ? '' : `:${u.port}`;
  let path = u.pathname.toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const query = u.search.slice(1).toLowerCase().split('&').filter((a) => a !== '').sort();
  const scheme = u.protocol === 'http:' || u.protocol === 'https:' ? '' : u.protocol.replace(/:$/, '://(');
  return `${scheme}${hostKey}${port})${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}
