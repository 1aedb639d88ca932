/**
 * Writes examples/crawl.warc.gz, the small crawl the docs use: a warcinfo, and for a two-page site a request
 * and response each, a relative redirect and a stylesheet — one gzip member per record, as crawlers write.
 * Deterministic (fixed ids and dates; gzip headers carry no time), so a re-run gives the same bytes.
 *   node scripts/make-example-warc.ts
 */
import { writeFileSync } from 'node:fs';
import { encodeUnit, serializeRecord, sha1Digest, warcFields } from '../src/warc/writer.ts';

const DATE = '2026-11-24T09:30:00Z';
let n = 0;
const id = (): string => `<urn:uuid:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}>`;
const crlf = (lines: string[]): Buffer => Buffer.from(lines.join('\r\n'), 'utf8');

const warcinfoId = id();
const units: Buffer[] = [];
const push = (fields: [string, string][], block: Buffer): void => {
  units.push(encodeUnit(serializeRecord('WARC/1.1', fields, block), true));
};

push([['WARC-Type', 'warcinfo'], ['WARC-Record-ID', warcinfoId], ['WARC-Date', DATE], ['WARC-Filename', 'crawl.warc.gz'], ['Content-Type', 'application/warc-fields']],
  warcFields([['software', 'absolutize scripts/make-example-warc.ts'], ['format', 'WARC File Format 1.1'], ['description', 'a two-page example crawl']]));

function exchange(uri: string, status: string, headers: string[], body: string): void {
  const requestId = id();
  const url = new URL(uri);
  push([['WARC-Type', 'request'], ['WARC-Record-ID', requestId], ['WARC-Date', DATE], ['WARC-Target-URI', uri], ['WARC-Warcinfo-ID', warcinfoId], ['Content-Type', 'application/http; msgtype=request']],
    crlf([`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'User-Agent: example-crawler/1.0', '', '']));
  const payload = Buffer.from(body, 'utf8');
  const block = Buffer.concat([crlf([`HTTP/1.1 ${status}`, ...headers, `Content-Length: ${payload.length}`, '', '']), payload]);
  push([['WARC-Type', 'response'], ['WARC-Record-ID', id()], ['WARC-Date', DATE], ['WARC-Target-URI', uri], ['WARC-Concurrent-To', requestId], ['WARC-Warcinfo-ID', warcinfoId],
    ['WARC-IP-Address', '192.0.2.10'], ['WARC-Block-Digest', sha1Digest(block)], ['WARC-Payload-Digest', sha1Digest(payload)], ['Content-Type', 'application/http; msgtype=response']], block);
}

exchange('https://example.com/docs/', '301 Moved Permanently', ['Location: guide/'], '');
exchange('https://example.com/docs/guide/', '200 OK', ['Content-Type: text/html; charset=utf-8'],
  '<!DOCTYPE html>\n<html><head><title>Guide</title><link rel="stylesheet" href="../css/site.css"></head>\n' +
  '<body><p><a href="install.html">Install</a> · <a href="/about">About</a> · <a href="#top">Top</a></p>\n' +
  '<img src="img/diagram.png" srcset="img/diagram.png 1x, img/diagram@2x.png 2x" alt="diagram"></body></html>\n');
exchange('https://example.com/docs/css/site.css', '200 OK', ['Content-Type: text/css'],
  'body { background: url(../img/paper.png) }\n@import "print.css" print;\n');

writeFileSync(new URL('../examples/crawl.warc.gz', import.meta.url), Buffer.concat(units));
