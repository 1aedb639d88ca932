/**
 * SURT (Sort-friendly URI Reordering Transform), the key CDX and CDXJ indexes sort on, as the `surt` library
 * (internetarchive/surt, used by pywb and the Wayback Machine) writes it by default: the IA canonicalization
 * (lowercased, `www.` dropped, default port, fragment and user info dropped, query arguments sorted, a trailing
 * slash dropped), then the host's labels reversed and joined by commas, `)` and the path:
 * `http://www.Example.com/Goo/?b=2&a=1#x` → `com,example)/goo?a=1&b=2`; query arguments that are session ids
 * (PHPSESSID, JSESSIONID, ASPSESSIONID…, CFID, CFTOKEN, sid) dropped. Other schemes (filedesc:, dns:, mailto:)
 * are returned as they are, as `surt` does; null for a string that does not parse as a URL.
 */

const SESSION_ID = /^(?:phpsessid|jsessionid|aspsessionid[a-z]*|cfid|cftoken|sid)=/;

export function surt(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return url;
  let host = u.hostname.toLowerCase().replace(/\.+$/, '');
  host = host.replace(/^www\d*\./, '');
  const isIp = /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.startsWith('[');
  const hostKey = isIp ? host : host.split('.').reverse().join(',');
  const port = u.port === '' ? '' : `:${u.port}`;
  let path = u.pathname.toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const query = u.search.slice(1).toLowerCase().split('&').filter((a) => a !== '' && !SESSION_ID.test(a)).sort();
  return `${hostKey}${port})${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}
