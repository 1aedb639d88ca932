/**
 * A crawl generated as Heritrix and Python warcio lay one out (one gzip member a record, WARC/1.0):
 * `warcinfo`; per page a `response`, then its `request` and a `metadata` record (`application/warc-fields`,
 * Heritrix's outlinks) each `WARC-Concurrent-To` the response; later captures as `revisit`s — by `WARC-Refers-To`
 * (Heritrix), by `WARC-Refers-To-Target-URI` and `-Date` (warcio), and by payload digest alone; a page stored
 * gzip-encoded, one chunked, a custom 404 page, a `resource` holding HTML, a redirect and a revisit of it, an
 * image. Every page has relative links, so every HTML response is replaced in the `replace` model.
 */
import { gzipSync } from 'node:zlib';
import { sha1Digest } from '../../src/warc/writer.ts';

export interface CrawlRecord {
  readonly id: string;
  readonly type: string;
  readonly bytes: Buffer;
}

let serial = 0;
const uuid = (): string => `<urn:uuid:6a0c${String(++serial).padStart(4, '0')}-1111-4222-8333-444455556666>`;

function warcRecord(fields: Array<[string, string]>, block: Buffer): Buffer {
  const head = ['WARC/1.0', ...fields.map(([n, v]) => `${n}: ${v}`), `Content-Length: ${block.length}`, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'utf8'), block, Buffer.from('\r\n\r\n')]);
}

/** The crawl: its gzip members in order, and the records each holds. */
export function generateCrawl(pages = 12): { bytes: Buffer; records: CrawlRecord[] } {
  serial = 0;
  const records: CrawlRecord[] = [];
  const add = (type: string, fields: Array<[string, string]>, block: Buffer | string, id = uuid()): string => {
    const b = Buffer.from(block);
    records.push({ id, type, bytes: gzipSync(warcRecord([['WARC-Type', type], ['WARC-Record-ID', id], ...fields], b)) });
    return id;
  };
  const date = (n: number): string => `2024-05-01T10:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}Z`;
  let clock = 0;
  add('warcinfo', [['WARC-Date', date(clock++)], ['Content-Type', 'application/warc-fields']], 'software: Heritrix/3.4.0 (generated)\r\nformat: WARC File Format 1.0\r\n');
  const http = (status: string, headers: Array<[string, string]>, body: Buffer | string): Buffer => Buffer.concat([Buffer.from([`HTTP/1.1 ${status}`, ...headers.map(([n, v]) => `${n}: ${v}`), '', ''].join('\r\n')), Buffer.from(body)]);
  /** A page, its request and metadata: returns the response's id and its payload digest. */
  const capture = (url: string, status: string, headers: Array<[string, string]>, body: Buffer | string, payload: Buffer = Buffer.from(body)): { id: string; digest: string; date: string } => {
    const d = date(clock++);
    const block = http(status, headers, body);
    const digest = sha1Digest(payload);
    const id = add('response', [['WARC-Date', d], ['WARC-Target-URI', url], ['Content-Type', 'application/http; msgtype=response'], ['WARC-Payload-Digest', digest], ['WARC-Block-Digest', sha1Digest(block)]], block);
    const path = new URL(url).pathname;
    add('request', [['WARC-Date', d], ['WARC-Target-URI', url], ['WARC-Concurrent-To', id], ['Content-Type', 'application/http; msgtype=request']], `GET ${path} HTTP/1.1\r\nHost: example.org\r\n\r\n`);
    add('metadata', [['WARC-Date', d], ['WARC-Target-URI', url], ['WARC-Concurrent-To', id], ['Content-Type', 'application/warc-fields']], `via: http://example.org/\r\noutlink: ${url}next.html L a/@href\r\n`);
    return { id, digest, date: d };
  };
  const page = (n: number): string => `<!doctype html><html><head><title>p${n}</title><link rel=stylesheet href="../s.css"></head><body><a href="p${n + 1}.html">next</a> <img src="img/${n}.png"></body></html>`;
  const html: Array<{ url: string; id: string; digest: string; date: string; body: string }> = [];
  for (let n = 0; n < pages; n++) {
    const url = `http://example.org/d${n % 3}/p${n}.html`;
    const body = page(n);
    if (n === 1) {
      // Stored gzip-encoded, as the server sent it: the payload digest is over the encoded bytes.
      const gz = gzipSync(body);
      html.push({ url, ...capture(url, '200 OK', [['Content-Type', 'text/html; charset=utf-8'], ['Content-Encoding', 'gzip'], ['Content-Length', String(gz.length)]], gz), body });
    } else if (n === 2) {
      const chunked = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      html.push({ url, ...capture(url, '200 OK', [['Content-Type', 'text/html'], ['Transfer-Encoding', 'chunked']], chunked, Buffer.from(body)), body });
    } else html.push({ url, ...capture(url, '200 OK', [['Content-Type', 'text/html'], ['Content-Length', String(Buffer.byteLength(body))]], body), body });
    capture(`http://example.org/d${n % 3}/img/${n}.png`, '200 OK', [['Content-Type', 'image/png']], Buffer.from([0x89, 0x50, 0x4e, 0x47, n]));
  }
  // A custom 404 page, a resource holding HTML, a redirect.
  capture('http://example.org/missing/', '404 Not Found', [['Content-Type', 'text/html']], '<html><body><a href="../">home</a></body></html>');
  add('resource', [['WARC-Date', date(clock++)], ['WARC-Target-URI', 'http://example.org/doc/page.html'], ['Content-Type', 'text/html']], '<html><body><a href="other.html">o</a></body></html>');
  const redirect = capture('http://example.org/old', '301 Moved Permanently', [['Location', '/d0/p0.html'], ['Content-Length', '0']], '');
  // Revisits: every way a crawler names the original.
  const revisit = (original: { url: string; id: string; digest: string; date: string }, how: 'id' | 'uri-date' | 'digest', status = '200 OK', headers: Array<[string, string]> = [['Content-Type', 'text/html'], ['Content-Length', '999']]): void => {
    const d = date(clock++);
    const fields: Array<[string, string]> = [['WARC-Date', d], ['WARC-Target-URI', original.url], ['Content-Type', 'application/http; msgtype=response'], ['WARC-Profile', 'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest'], ['WARC-Payload-Digest', original.digest]];
    if (how === 'id') fields.push(['WARC-Refers-To', original.id], ['WARC-Refers-To-Target-URI', original.url], ['WARC-Refers-To-Date', original.date]);
    if (how === 'uri-date') fields.push(['WARC-Refers-To-Target-URI', original.url], ['WARC-Refers-To-Date', original.date]);
    const block = http(status, headers, '');
    const id = add('revisit', [...fields, ['WARC-Block-Digest', sha1Digest(block)]], block);
    add('request', [['WARC-Date', d], ['WARC-Target-URI', original.url], ['WARC-Concurrent-To', id], ['Content-Type', 'application/http; msgtype=request']], `GET ${new URL(original.url).pathname} HTTP/1.1\r\nHost: example.org\r\n\r\n`);
  };
  html.forEach((h, i) => revisit(h, (['id', 'uri-date', 'digest'] as const)[i % 3], '200 OK', i === 1 ? [['Content-Type', 'text/html; charset=utf-8'], ['Content-Encoding', 'gzip'], ['Content-Length', '999']] : undefined));
  revisit({ url: 'http://example.org/old', ...redirect }, 'id', '301 Moved Permanently', [['Location', '/d0/p0.html'], ['Content-Length', '0']]);
  return { bytes: Buffer.concat(records.map((r) => r.bytes)), records };
}
