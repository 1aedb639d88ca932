/**
 * Writes examples/headers.warc, the small crawl docs/crawls.md uses for HTTP header references: a page whose
 * response carries `Link`, `Refresh` and `Content-Location` headers, and an image whose response has a relative
 * `Link` (uncompressed, so that `grep` reads it). Deterministic (fixed ids and dates).
 *   node scripts/make-example-headers-warc.ts
 */
import { writeFileSync } from 'node:fs';
import { serializeRecord, sha1Digest } from '../src/warc/writer.ts';

const DATE = '2026-11-24T09:30:00Z';
let n = 100;
const id = (): string => `<urn:uuid:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}>`;
const crlf = (lines: string[]): Buffer => Buffer.from(lines.join('\r\n'), 'utf8');
const records: Buffer[] = [];

function exchange(uri: string, headers: string[], payload: Buffer): void {
  const requestId = id();
  const url = new URL(uri);
  records.push(serializeRecord('WARC/1.1', [['WARC-Type', 'request'], ['WARC-Record-ID', requestId], ['WARC-Date', DATE], ['WARC-Target-URI', uri], ['Content-Type', 'application/http; msgtype=request']],
    crlf([`GET ${url.pathname} HTTP/1.1`, `Host: ${url.host}`, '', ''])));
  const block = Buffer.concat([crlf(['HTTP/1.1 200 OK', ...headers, `Content-Length: ${payload.length}`, '', '']), payload]);
  records.push(serializeRecord('WARC/1.1', [['WARC-Type', 'response'], ['WARC-Record-ID', id()], ['WARC-Date', DATE], ['WARC-Target-URI', uri], ['WARC-Concurrent-To', requestId],
    ['WARC-Block-Digest', sha1Digest(block)], ['WARC-Payload-Digest', sha1Digest(payload)], ['Content-Type', 'application/http; msgtype=response']], block));
}

exchange('https://example.com/docs/guide/', ['Content-Type: text/html; charset=utf-8', 'Link: <../css/site.css>; rel=preload; as=style, <../next/>; rel=next', 'Refresh: 30; url=../latest/', 'Content-Location: index.en.html'],
  Buffer.from('<!DOCTYPE html>\n<title>Guide</title><p><a href="install.html">Install</a></p>\n'));
exchange('https://example.com/docs/img/logo.png', ['Content-Type: image/png', 'Link: <../guide/>; rel=up'],
  Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201c9e7d2660000000049454e44ae426082', 'hex'));

writeFileSync(new URL('../examples/headers.warc', import.meta.url), Buffer.concat(records));
