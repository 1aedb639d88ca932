/** Pure parts of src/http: address classes, file names, content codings, credentials, scheduling. */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseContentEncoding } from './content-decoding.ts';
import { mimeTypeParser, parseContentType, rewriteKindFor } from './content-type.ts';
import { undici } from './undici.ts';
import { outputFileName } from './output-name.ts';
import { decodeLocation, nextRedirectUrl } from './redirect.ts';
import { toFetchError } from './fetch.ts';

describe('outputFileName', () => {
  it('is readable, safe and unique, the same for the same URL', () => {
    expect(outputFileName('https://example.com/docs/page.html', 'html')).toMatch(/^example\.com_docs_page\.[0-9a-f]{10}\.html$/);
    expect(outputFileName('https://example.com/docs/', 'html')).toMatch(/^example\.com_docs_index\.[0-9a-f]{10}\.html$/);
    expect(outputFileName('http://127.0.0.1:8080/a/style.css', 'css')).toMatch(/^127\.0\.0\.1_8080_a_style\.[0-9a-f]{10}\.css$/);
    expect(outputFileName('https://example.com/a?b=1', 'html')).not.toBe(outputFileName('https://example.com/a?b=2', 'html'));
    expect(outputFileName('https://example.com/a#x', 'html')).toBe(outputFileName('https://example.com/a#y', 'html'));
    // %2e%2e is a dot-segment to the URL parser; what is left cannot leave the directory.
    expect(outputFileName('https://example.com/a/%2e%2e/%2F..%5c', 'html')).toMatch(/^example\.com_2F\.\._5c\.[0-9a-f]{10}\.html$/);
    expect(outputFileName(`https://example.com/${'x'.repeat(500)}`, 'html').length).toBeLessThan(150);
    expect(outputFileName('https://example.com/data.json', 'none')).toMatch(/\.json$/);
  });
});

describe('content codings and types', () => {
  it('parses Content-Encoding in the order applied and refuses unknown ones', () => {
    expect(parseContentEncoding(undefined)).toEqual([]);
    expect(parseContentEncoding('identity')).toEqual([]);
    expect(parseContentEncoding('GZIP, br')).toEqual(['gzip', 'br']);
    expect(() => parseContentEncoding('zstd')).toThrow(/not supported/);
    expect(() => parseContentEncoding('gzip,gzip,gzip,gzip,gzip,gzip')).toThrow(/more than 5/);
  });

  it('dispatches media types to rewriters', () => {
    expect(parseContentType('Text/HTML; Charset="Shift_JIS"')).toEqual({ raw: 'Text/HTML; Charset="Shift_JIS"', essence: 'text/html', charset: 'Shift_JIS', boundary: undefined });
    expect(parseContentType('nonsense').essence).toBeNull();
    expect(['text/html', 'application/xhtml+xml', 'text/css', 'message/rfc822', 'multipart/related', 'image/png', null].map(rewriteKindFor)).toEqual(['html', 'xhtml', 'css', 'mime', 'mime', 'none', 'none']);
  });
});

describe('redirect targets', () => {
  it('resolve against the current URL, inherit the fragment, refuse other schemes and loops', () => {
    const current = new URL('http://a/b/c#f');
    expect(nextRedirectUrl(current, 'd', [], new Set()).href).toBe('http://a/b/d#f');
    expect(nextRedirectUrl(current, 'd#', [], new Set()).href).toBe('http://a/b/d#');
    expect(nextRedirectUrl(current, '//h/p', [], new Set()).href).toBe('http://h/p#f');
    expect(() => nextRedirectUrl(current, 'file:///x', [], new Set())).toThrow(/file: refused/);
    expect(() => nextRedirectUrl(current, 'javascript:alert(1)', [], new Set())).toThrow(/javascript: refused/);
    expect(() => nextRedirectUrl(current, 'http://[bad', [], new Set())).toThrow(/invalid URL/);
    expect(() => nextRedirectUrl(current, '/b/c', [], new Set(['http://a/b/c']))).toThrow(/loop/);
    expect(decodeLocation(Buffer.from('/é', 'utf8').toString('latin1'))).toBe('/é');
    expect(decodeLocation('/\u00e9')).toBe('/\u00e9'); // not UTF-8: left as latin1
  });
});

describe('toFetchError: one code per failure', () => {
  const url = new URL('http://u:p@example.test/x');
  const err = (code: string, message = code): Error => Object.assign(new Error(message), { code });
  it.each([
    ['ENOTFOUND', 'ABS_ERR_HTTP_DNS'],
    ['EAI_AGAIN', 'ABS_ERR_HTTP_DNS'],
    ['ECONNREFUSED', 'ABS_ERR_HTTP_CONNECT'],
    ['EHOSTUNREACH', 'ABS_ERR_HTTP_CONNECT'],
    ['UND_ERR_CONNECT_TIMEOUT', 'ABS_ERR_HTTP_TIMEOUT'],
    ['UND_ERR_HEADERS_TIMEOUT', 'ABS_ERR_HTTP_TIMEOUT'],
    ['UND_ERR_BODY_TIMEOUT', 'ABS_ERR_HTTP_TIMEOUT'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'ABS_ERR_HTTP_TLS'],
    ['CERT_HAS_EXPIRED', 'ABS_ERR_HTTP_TLS'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'ABS_ERR_HTTP_TLS'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'ABS_ERR_HTTP_TLS'],
    ['ECONNRESET', 'ABS_ERR_HTTP_NETWORK'],
    ['UND_ERR_SOCKET', 'ABS_ERR_HTTP_NETWORK'],
  ])('%s → %s, credentials removed', (code, expected) => {
    const mapped = toFetchError(err(code), url, []);
    expect(mapped.code).toBe(expected);
    expect(mapped.message.startsWith('http://example.test/x: ')).toBe(true);
  });

  it('names the connect timeout limit, and reads the first error of an AggregateError', () => {
    expect(toFetchError(err('UND_ERR_CONNECT_TIMEOUT'), url, []).message).toContain('no connection within 10000 ms (connectTimeoutMs)');
    expect(toFetchError(new AggregateError([err('ECONNREFUSED'), err('ENETUNREACH')]), url, []).code).toBe('ABS_ERR_HTTP_CONNECT');
  });
});

describe('the MIME type parser', () => {
  it("is undici's parseMIMEType itself, loaded from its own module rather than all of undici", () => {
    expect(mimeTypeParser()).toBe(undici().parseMIMEType);
    // Its own module is there to load (else mimeTypeParser falls back to all of undici, and the line above holds
    // either way).
    const own = createRequire(import.meta.url)('undici/lib/web/fetch/data-url.js') as { parseMIMEType?: unknown };
    expect(own.parseMIMEType).toBe(undici().parseMIMEType);
  });
});
