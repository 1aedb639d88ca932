/**
 * SURT (Sort-friendly URI Reordering Transform), the key CDX and CDXJ indexes sort on, exactly as the `surt`
 * library (internetarchive/surt, which pywb and the Wayback Machine's tools use) writes it by default:
 * `surt.surt(url)`, i.e. its handyurl parse, GoogleURLCanonicalizer, then IAURLCanonicalizer, then the host's labels
 * reversed (IPv4 addresses too), `)` and the path and query, without the scheme.
 *
 *   `http://www.Example.com/Goo/?b=2&a=1#x` → `com,example)/goo?a=1&b=2`
 *
 * Ported step by step from surt 0.3 (surt.py, handyurl.py, GoogleURLCanonicalizer.py, IAURLCanonicalizer.py,
 * URLRegexTransformer.py); src/uri/surt.test.ts holds that library's own expected values. Like the library, it
 * works on the URL's UTF-8 bytes: here a string of one unit per byte. Differences, both for inputs a resolved URL
 * never is: a host that is not ASCII goes through WHATWG's domain-to-ASCII (UTS #46) rather than Python's IDNA 2003
 * codec, and a numeric host that is not an address is never looked up in the DNS (the library asks the resolver).
 * An invalid port, on which the library raises, gives null.
 */

import { domainToASCII } from 'node:url';

/** The library's `surt.surt(url)`; null where it raises (a port that is not a number from 0 to 65535). */
export function surt(url: string): string | null {
  if (url === '') return '-';
  let bytes = Buffer.from(url, 'utf8').toString('latin1');
  if (bytes.startsWith('filedesc')) return url;
  const parsed = parse(bytes);
  if (parsed === null) return null;
  googleCanonicalize(parsed);
  iaCanonicalize(parsed);
  bytes = serialize(parsed);
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** handyurl: the parts the library keeps (user info is never kept by its parse). */
interface HandyUrl {
  scheme: string;
  host: string | null;
  port: number | null;
  path: string | null;
  query: string | null;
  hash: string | null;
  lastDelimiter: string | null;
}

/** handyurl.RFC2396REGEX: RFC 3986 appendix B, with a scheme of legal scheme characters only. */
const RFC2396 = /^(([a-zA-Z][a-zA-Z0-9+.-]*):)?((\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?)?(#(.*))?$/;
const HAS_PROTOCOL = /^[a-zA-Z][a-zA-Z0-9+\-.]*:/;
const MULTIPLE_PROTOCOLS = /^(https?:\/\/)+/;

/** Python's `bytes.strip()`: ASCII whitespace (space, \t, \n, \v, \f, \r) at both ends. */
function strip(s: string): string {
  return s.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
}

/** handyurl.parse, with Python's urlsplit `hostname` and `port` (null: `port` raises). */
function parse(input: string): HandyUrl | null {
  let url = strip(input).replace(/[\n\r\t]/g, '');
  if (url !== '' && !HAS_PROTOCOL.test(url)) url = `http://${url}`;
  url = url.replace(MULTIPLE_PROTOCOLS, (_m, one: string) => one);
  const m = RFC2396.exec(url);
  if (m === null) return null;
  const scheme = m[2] ?? '';
  let netloc = m[5] ?? '';
  if (netloc.endsWith(':')) netloc = netloc.replace(/:+$/, '');
  // SplitResult._hostinfo: after the last "@"; a bracketed IPv6 host; the port after the first ":" otherwise.
  const hostinfo = netloc.slice(netloc.lastIndexOf('@') + 1);
  let hostname: string;
  let portText: string;
  const open = hostinfo.indexOf('[');
  if (open !== -1) {
    const bracketed = hostinfo.slice(open + 1);
    const close = bracketed.indexOf(']');
    hostname = close === -1 ? bracketed : bracketed.slice(0, close);
    const rest = close === -1 ? '' : bracketed.slice(close + 1);
    const colon = rest.indexOf(':');
    portText = colon === -1 ? '' : rest.slice(colon + 1);
  } else {
    const colon = hostinfo.indexOf(':');
    hostname = colon === -1 ? hostinfo : hostinfo.slice(0, colon);
    portText = colon === -1 ? '' : hostinfo.slice(colon + 1);
  }
  let port: number | null = null;
  if (portText !== '') {
    if (!/^[0-9]+$/.test(portText)) return null;
    port = Number(portText);
    if (port > 65535) return null;
    if (port === 0) port = null; // `o.port or None`
  }
  // SplitResult.hostname: lowercased (ASCII), the part after "%" (an IPv6 zone) kept as it is.
  const zone = hostname.indexOf('%');
  let host: string | null = hostname === '' ? null : zone === -1 ? asciiLower(hostname) : asciiLower(hostname.slice(0, zone)) + hostname.slice(zone);
  let path: string | null = (m[6] ?? '') === '' ? null : m[6]!;
  if (scheme.startsWith('http') && host === null && path !== null) {
    // "http:/host/x": the host is the first segment of the path.
    const p = path.replace(/^\/+/, '');
    const slash = p.indexOf('/');
    host = slash === -1 ? p : p.slice(0, slash);
    path = `/${slash === -1 ? '' : p.slice(slash + 1)}`;
  }
  const query = (m[8] ?? '') === '' ? null : m[8]!;
  return { scheme, host, port, path, query, hash: (m[10] ?? '') === '' ? null : m[10]!, lastDelimiter: url.endsWith('?') && query === null ? '?' : null };
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (c) => c.toLowerCase());
}

// --- GoogleURLCanonicalizer -----------------------------------------------------------------------------------

function googleCanonicalize(u: HandyUrl): void {
  u.hash = null;
  if (u.query !== null) u.query = escapeOnce(unescapeRepeatedly(u.query));
  if (u.host) {
    let host = unescapeRepeatedly(u.host);
    if (/[^\x00-\x7f]/.test(host)) {
      // Python: host.decode('utf-8', 'ignore').encode('idna'), kept as it was if that fails.
      const ascii = domainToASCII(Buffer.from(host, 'latin1').toString('utf8').replace(/\uFFFD/g, ''));
      if (ascii !== '') host = ascii;
    }
    host = trimDots(host.replaceAll('..', '.'));
    u.host = attemptIpFormats(host) ?? escapeOnce(asciiLower(host));
  }
  let path = unescapeRepeatedly(u.path ?? '');
  if (u.host) path = normalizePath(path);
  u.path = path === '' ? (u.path === null ? null : '') : escapeOnce(path);
}

function trimDots(s: string): string {
  return s.replace(/^\.+|\.+$/g, '');
}

/** Python's `unquote_to_bytes`, repeated until nothing changes: every `%XX` becomes its byte. */
function unescapeRepeatedly(s: string): string {
  for (;;) {
    const un = s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (un === s) return s;
    s = un;
  }
}

/** Python's `quote_from_bytes` with the library's safe set: every byte but printable ASCII other than `#` and `%`. */
function escapeOnce(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c > 0x20 && c < 0x7f && c !== 0x23 && c !== 0x25 ? s[i] : `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Dot segments removed, empty segments dropped (but a trailing slash kept). */
function normalizePath(path: string): string {
  if (path === '') return '/';
  const kept: string[] = [];
  for (const p of path.split('/').slice(1)) {
    if (p === '.') continue;
    if (p === '..') {
      if (kept.length > 0) kept.pop();
      else kept.push(p);
    } else kept.push(p);
  }
  let out = '/';
  for (let i = 0; i < kept.length - 1; i++) if (kept[i] !== '') out += `${kept[i]}/`;
  if (kept.length > 0) out += kept[kept.length - 1];
  return out;
}

const OCTAL_IP = /^(0[0-7]*)(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$/;
const DECIMAL_IP = /^([1-9][0-9]*)(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$/;

/** A numeric host as a dotted IPv4 address, as the library has it (all digits: its low 32 bits), or null. */
function attemptIpFormats(host: string): string | null {
  if (/^[0-9]+$/.test(host)) return dotted(Number(BigInt(host) & 0xffffffffn));
  if (DECIMAL_IP.test(host) || OCTAL_IP.test(host)) {
    const n = inetAton(host);
    return n === null ? null : dotted(n);
  }
  return null;
}

function dotted(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** inet_aton (what the resolver makes of a numeric name): 1–4 parts, each decimal, octal (0…) or hex (0x…). */
function inetAton(s: string): number | null {
  const parts = s.split('.');
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const p of parts) {
    let v: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(p)) v = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) v = parseInt(p, 8);
    else if (/^[1-9][0-9]*$/.test(p)) v = Number(p);
    else return null;
    values.push(v);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last > 2 ** (8 * (4 - values.length)) - 1) return null;
  let n = 0;
  values.forEach((v, i) => (n += v * 2 ** (8 * (3 - i))));
  return n + last;
}

// --- IAURLCanonicalizer ---------------------------------------------------------------------------------------

const PATH_SESSION_IDS = [/^(.*\/)(\((?:[a-z]\([0-9a-z]{24}\))+\)\/)([^?]+\.aspx.*)$/i, /^(.*\/)(\([0-9a-z]{24}\)\/)([^?]+\.aspx.*)$/i];
const QUERY_SESSION_IDS = [
  /^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$/i,
  /^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$/i,
];

function iaCanonicalize(u: HandyUrl): void {
  if (u.host) {
    u.host = asciiLower(u.host);
    if (u.scheme !== 'dns') u.host = u.host.replace(/^www[0-9]*\./, '');
  }
  const scheme = asciiLower(u.scheme);
  const defaultPort = scheme === 'http' ? 80 : scheme === 'https' ? 443 : 0;
  if (u.port === defaultPort) u.port = null;
  let path = u.path;
  if (path !== null && path !== '') {
    path = asciiLower(path);
    for (const re of PATH_SESSION_IDS) {
      const m = re.exec(path);
      if (m !== null) path = m[1]! + m[3]!;
    }
    if (path.endsWith('/') && path.length > 1) path = path.slice(0, -1);
  }
  u.path = path;
  if (u.query !== null && u.query !== '') {
    let query = u.query;
    for (const re of QUERY_SESSION_IDS) {
      const m = re.exec(query);
      if (m !== null) query = m[2] ? m[1]! + m[2] : m[1]!;
    }
    query = alphaReorderQuery(asciiLower(query));
    u.query = query === '' ? null : query;
  } else {
    u.lastDelimiter = null;
  }
}

/** Arguments sorted as Python sorts the (name,) / (name, value) tuples: by name, a name without "=" first. */
function alphaReorderQuery(query: string): string {
  if (query.length <= 1) return query;
  const args = query.split('&').map((a) => {
    const eq = a.indexOf('=');
    return eq === -1 ? [a] : [a.slice(0, eq), a.slice(eq + 1)];
  });
  args.sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length - b.length;
  });
  return args.map((t) => t.join('=')).join('&');
}

/** The library's GoogleURLCanonicalizer alone, as a URL (`canonicalize(handyurl.parse(url)).getURLString()`): its own tests' form. */
export function googleCanonicalUrl(url: string): string | null {
  const u = parse(Buffer.from(url, 'utf8').toString('latin1'));
  if (u === null) return null;
  googleCanonicalize(u);
  let s = `${u.scheme}:`;
  if (u.host) s += `${u.scheme === 'dns' ? '' : '//'}${u.host}${u.port === null ? '' : `:${u.port}`}`;
  return Buffer.from(s + tail(u), 'latin1').toString('utf8');
}

// --- handyurl.geturl_bytes(surt=True, with_scheme=False) ---------------------------------------------------------

function serialize(u: HandyUrl): string {
  let s = u.host === null || u.host === '' ? `${u.scheme}:` : '';
  if (u.host !== null && u.host !== '') {
    s += u.host.split('.').reverse().join(',');
    if (u.port !== null) s += `:${u.port}`;
    s += ')';
  }
  return s + tail(u);
}

/** The path, query, fragment and a kept trailing "?". */
function tail(u: HandyUrl): string {
  let s = '';
  if (u.path !== null && u.path !== '') s += u.path;
  else if (u.query !== null || u.hash !== null) s += '/';
  if (u.query !== null) s += `?${u.query}`;
  if (u.hash !== null) s += `#${u.hash}`;
  if (u.lastDelimiter !== null) s += u.lastDelimiter;
  return s;
}
