/**
 * Issue 20 item 6, against loopback servers: a URL list never stops on one bad line (over-long, not UTF-8, not a
 * URL): each is one failed entry with its reason, every other line is tried, the summary and `--links` are
 * always finished, no `.tmp` is left. Two different `Location` headers are refused as Chromium refuses them;
 * interim (1xx) responses count against the header timeout; bytes after a compressed body are ignored with a
 * warning, as Chromium ignores them.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError } from '../../src/errors.ts';
import { fetchDocument } from '../../src/http/fetch.ts';
import { absolutizeUrl } from '../../src/http/response-rewriter.ts';
import { readUrlList } from '../../src/http/url-list.ts';
import type { UrlListEntry } from '../../src/http/url-list.ts';
import { failure, runCliAsync, startRawServer, startTestServer } from './http-test-server.ts';
import type { RawServer, TestServer } from './http-test-server.ts';

const PAGE = '<a href="next.html">n</a>';
const ok = (body = PAGE, extra = ''): string => `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

let raw: RawServer;
let r: string;
let server: TestServer;
let o: string;
let dir: string;
const timers = new Set<NodeJS.Timeout>();

/** Sends `HTTP/1.1 <status>` interim responses every 20 ms for as long as the connection is open. */
function interimForEver(status: string): (socket: Socket) => void {
  return (socket) => {
    const send = (): void => {
      if (socket.destroyed) return;
      socket.write(`HTTP/1.1 ${status}\r\nLink: </s.css>; rel=preload\r\n\r\n`);
      const t = setTimeout(send, 20);
      timers.add(t);
    };
    send();
  };
}

const GZIPPED = gzipSync(PAGE);
const RAW: Record<string, string | Buffer | ((socket: Socket) => void)> = {
  '/two-locations': 'HTTP/1.1 302 Found\r\nLocation: /a\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n',
  '/two-locations-200': ok(PAGE, 'Location: /a\r\nLocation: /b\r\n'),
  '/same-location-twice': 'HTTP/1.1 302 Found\r\nLocation: /page\r\nLocation:  /page \r\nContent-Length: 0\r\n\r\n',
  '/page': ok(),
  '/early-hints-for-ever': interimForEver('103 Early Hints'),
  '/continue-for-ever': interimForEver('100 Continue'),
  '/gzip-trailing': Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: ${GZIPPED.length + 9}\r\n\r\n`), GZIPPED, Buffer.from('\r\nGARBAGE')]),
};

beforeAll(async () => {
  raw = await startRawServer((path, socket) => {
    const answer = RAW[path.split('?')[0]!];
    if (answer === undefined) socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    else if (typeof answer === 'string') socket.write(Buffer.from(answer, 'latin1'));
    else if (Buffer.isBuffer(answer)) socket.write(answer);
    else answer(socket);
  });
  r = raw.origin;
  server = await startTestServer();
  o = server.origin;
  dir = mkdtempSync(join(tmpdir(), 'abs-issue-20-'));
});
afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await raw.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function entries(chunks: ReadonlyArray<Buffer | string>, max?: number): Promise<UrlListEntry[]> {
  const out: UrlListEntry[] = [];
  for await (const e of readUrlList(Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))), max)) out.push(e);
  return out;
}

describe('readUrlList: no line stops the list', () => {
  const text = ['http://a/1', '', '# comment', 'x'.repeat(20), '  http://a/2  \r', Buffer.from([0x68, 0xff, 0xfe]).toString('latin1'), 'http://a/3'];
  const bytes = Buffer.from(text.join('\n'), 'latin1');
  const expected: UrlListEntry[] = [
    { line: 1, url: 'http://a/1' },
    { line: 4, code: 'ABS_ERR_LIMIT', reason: 'line 4 is 20 bytes, longer than 16 (BATCH_LIMITS.maxLineBytes): skipped' },
    { line: 5, url: 'http://a/2' },
    { line: 6, code: 'ABS_ERR_INPUT', reason: 'line 6 is not UTF-8 text' },
    { line: 7, url: 'http://a/3' },
  ];
  it('whole, byte by byte, and in every two-piece split', async () => {
    expect(await entries([bytes], 16)).toEqual(expected);
    expect(await entries([...bytes].map((b) => Buffer.from([b])), 16)).toEqual(expected);
    for (let i = 1; i < bytes.length; i++) expect(await entries([bytes.subarray(0, i), bytes.subarray(i)], 16)).toEqual(expected);
  });

  it('limit-1, limit and limit+1 bytes; an over-long last line without a line feed', async () => {
    const max = 64;
    const url = (n: number): string => `http://a/${'p'.repeat(n - 9)}`;
    expect(await entries([`${url(max - 1)}\n${url(max)}\n${url(max + 1)}\nhttp://a/next\n${url(max + 1)}`], max)).toEqual([
      { line: 1, url: url(max - 1) },
      { line: 2, url: url(max) },
      { line: 3, code: 'ABS_ERR_LIMIT', reason: `line 3 is ${max + 1} bytes, longer than ${max} (BATCH_LIMITS.maxLineBytes): skipped` },
      { line: 4, url: 'http://a/next' },
      { line: 5, code: 'ABS_ERR_LIMIT', reason: `line 5 is ${max + 1} bytes, longer than ${max} (BATCH_LIMITS.maxLineBytes): skipped` },
    ]);
  });

  it('a line of megabytes is skipped as it arrives, in constant memory', async () => {
    async function* huge(): AsyncGenerator<Buffer> {
      yield Buffer.from('http://a/1\n');
      for (let i = 0; i < 256; i++) yield Buffer.alloc(1 << 16, 0x78); // 16 MiB, no line feed
      yield Buffer.from('\nhttp://a/2\n');
    }
    const out: UrlListEntry[] = [];
    for await (const e of readUrlList(huge())) out.push(e);
    expect(out).toEqual([{ line: 1, url: 'http://a/1' }, { line: 2, code: 'ABS_ERR_LIMIT', reason: `line 2 is ${256 << 16} bytes, longer than 65536 (BATCH_LIMITS.maxLineBytes): skipped` }, { line: 3, url: 'http://a/2' }]);
  });
});

describe('--input-list with garbage and over-long lines', () => {
  it('every good URL is retrieved, every bad line is one failure with its reason, the summary printed, no .tmp', { timeout: 120_000 }, async () => {
    const GOOD = 1500;
    const served = new Set<string>();
    server.route('/u', (req, res) => {
      served.add(req.url!);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    });
    const lines: Buffer[] = [];
    const bad: string[] = [];
    let good = 0;
    for (let i = 0; good < GOOD; i++) {
      switch (i % 50) {
        case 7:
          lines.push(Buffer.from(`${o}/u?long=${'x'.repeat(70_000)}`));
          bad.push('ABS_ERR_LIMIT');
          break;
        case 19:
          lines.push(Buffer.from([0x68, 0x74, 0x74, 0x70, 0xc3, 0x28, 0x00, 0xff]));
          bad.push('ABS_ERR_INPUT');
          break;
        case 31:
          lines.push(Buffer.from('not a url at all \x1b[2J'));
          bad.push('ABS_ERR_INPUT');
          break;
        case 43:
          lines.push(Buffer.from('http://[::1'));
          bad.push('ABS_ERR_INPUT');
          break;
        default:
          lines.push(Buffer.from(`${o}/u?n=${good++}`));
      }
    }
    lines.push(Buffer.from('y'.repeat(100_000))); // the last line: over-long, no line feed after it
    bad.push('ABS_ERR_LIMIT');
    const listFile = join(dir, 'urls.txt');
    writeFileSync(listFile, Buffer.concat(lines.flatMap((l, i) => (i === lines.length - 1 ? [l] : [l, Buffer.from('\n')]))));
    const reportDir = join(dir, 'report');
    rmSync(reportDir, { recursive: true, force: true });
    const report = join(dir, 'links.jsonl');
    const result = await runCliAsync(['--input-list', listFile, '--links', report, '-o', reportDir, '--concurrency', '16', '--per-host', '16']);
    expect(result.status).toBe(1);
    expect(served.size).toBe(GOOD);
    expect(readdirSync(reportDir)).toHaveLength(GOOD);
    expect(result.stderr).toMatch(new RegExp(`absolutize: ${GOOD} rewritten, 0 unchanged, 0 copied, ${bad.length} failed, 0 warnings in \\d+\\.\\d s\\n$`));
    const errors = result.stderr.split('\n').filter((l) => l.startsWith('absolutize: error'));
    expect(errors).toHaveLength(bad.length);
    expect(errors.filter((l) => l.includes('[ABS_ERR_LIMIT]'))).toHaveLength(bad.filter((c) => c === 'ABS_ERR_LIMIT').length);
    expect(errors[0]).toBe(`absolutize: error [ABS_ERR_LIMIT] --input-list ${listFile}: line 8 is ${70_000 + o.length + 8} bytes, longer than 65536 (BATCH_LIMITS.maxLineBytes): skipped`);
    // The link report is in place, whole: one reference per good URL, one failure line per bad line.
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    const linesOut = readFileSync(report, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(linesOut.filter((l) => l['resolved'] !== undefined)).toHaveLength(GOOD);
    expect(linesOut.filter((l) => l['error'] !== undefined).map((l) => l['error']).sort()).toEqual([...bad].sort());
    expect(linesOut.find((l) => l['listLine'] === lines.length)?.['error']).toBe('ABS_ERR_LIMIT');
    // Every failure names its line of the list.
    for (const l of linesOut.filter((x) => x['error'] !== undefined)) {
      expect(l['document']).toBeNull();
      expect(bad[[...lines.keys()].filter((i) => !lines[i]!.toString('latin1').startsWith(`${o}/u?n=`)).indexOf((l['listLine'] as number) - 1)]).toBe(l['error']);
    }
    expect(errors).toContain(`absolutize: error [ABS_ERR_INPUT] --input-list ${listFile}: line 32: "not a url at all \\u001b[2J" is not an http: or https: URL`);
    expect(errors).toContain(`absolutize: error [ABS_ERR_INPUT] --input-list ${listFile}: line 20 is not UTF-8 text`);
  });

  it('a list that is all bad lines: still a summary and a link report', async () => {
    const listFile = join(dir, 'bad.txt');
    writeFileSync(listFile, `${'z'.repeat(1 << 17)}\n\xff\n`, 'latin1');
    const report = join(dir, 'bad.jsonl');
    const result = await runCliAsync(['--input-list', listFile, '--links', report, '-o', join(dir, 'bad-out')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/absolutize: 0 rewritten, 0 unchanged, 0 copied, 2 failed, 0 warnings in \d+\.\d s\n$/);
    expect(readFileSync(report, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('multiple Location headers (Chromium: ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION)', () => {
  it.each(['/two-locations', '/two-locations-200'])('%s: two different values are refused', async (path) => {
    const err = await failure(fetchDocument(`${r}${path}`));
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('ABS_ERR_HTTP_PROTOCOL');
    expect(err.message).toBe(`${r}${path}: not a valid HTTP/1.1 response (2 different Location headers: "/a", "/b"; browsers refuse it: ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION)`);
  });

  it('copies of one value are followed', async () => {
    const result = await absolutizeUrl(`${r}/same-location-twice`);
    expect(result.url).toBe(`${r}/page`);
    expect(result.chain).toEqual([{ url: `${r}/same-location-twice`, status: 302, location: '/page' }]);
  });

  it('on the command line: one error line', async () => {
    const result = await runCliAsync([`${r}/two-locations`]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`absolutize: error [ABS_ERR_HTTP_PROTOCOL] ${r}/two-locations: not a valid HTTP/1.1 response (2 different Location headers: "/a", "/b"; browsers refuse it: ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION)\n`);
  });
});

describe('interim responses count against headersTimeoutMs', () => {
  it.each(['/early-hints-for-ever', '/continue-for-ever'])('%s: stopped by the header timeout, with no deadline', { timeout: 20_000 }, async (path) => {
    const err = await failure(fetchDocument(`${r}${path}`, { httpLimits: { headersTimeoutMs: 400, bodyTimeoutMs: 600_000 } }));
    expect(err.code).toBe('ABS_ERR_HTTP_TIMEOUT');
    expect(err.message).toBe(`${r}${path}: timeout: no response headers within 400 ms (headersTimeoutMs)`);
  });
});

describe('bytes after a compressed body (Chromium ignores them)', () => {
  it('the page is decoded and rewritten, with a warning', async () => {
    const result = await absolutizeUrl(`${r}/gzip-trailing`);
    expect(result.output.toString()).toBe(`<a href="${r}/next.html">n</a>`);
    expect(result.warnings.map((w) => w.code)).toEqual(['content-encoding-trailing-bytes']);
    const cli = await runCliAsync([`${r}/gzip-trailing`]);
    expect(cli.status).toBe(0);
    expect(cli.stdout).toBe(`<a href="${r}/next.html">n</a>`);
    expect(cli.stderr).toBe(`absolutize: warning [content-encoding-trailing-bytes] ${r}/gzip-trailing: 9 bytes after the end of the gzip data ignored, as browsers ignore them\n`);
  });
});
