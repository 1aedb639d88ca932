/**
 * Issue 22 item 1 through the command line: `--links` for a URL retrieved over HTTP reports the references of
 * its `Link`, `Refresh` and `Content-Location` header fields (element null, attribute the field name), before
 * the body's, resolved against the final URL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsync, startRawServer } from './http-test-server.ts';
import type { RawServer } from './http-test-server.ts';

const PAGE = '<a href="next.html">n</a>';
let raw: RawServer;
let r: string;
let dir: string;

beforeAll(async () => {
  raw = await startRawServer((path, socket) => {
    if (path === '/start') return void socket.write('HTTP/1.1 301 Moved\r\nLocation: /docs/page\r\nContent-Length: 0\r\n\r\n');
    if (path !== '/docs/page') return void socket.write('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    socket.write(
      Buffer.from(
        'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n' +
          'Link: </style.css>; rel=preload; as=style, <../next>; rel="next"\r\n' +
          'Link: <terms>; rel=copyright; anchor="#top"\r\n' +
          'Refresh: 5; url=moved\r\n' +
          'Content-Location: page.en.html\r\n' +
          `Content-Length: ${PAGE.length}\r\n\r\n${PAGE}`,
        'latin1',
      ),
    );
  });
  r = raw.origin;
  dir = mkdtempSync(join(tmpdir(), 'abs-issue-22-'));
});
afterAll(async () => {
  await raw.close();
  rmSync(dir, { recursive: true, force: true });
});

const EXPECTED = (): Array<Record<string, unknown>> => [
  { attribute: 'Link', rel: 'preload', raw: '/style.css', resolved: `${r}/style.css` },
  { attribute: 'Link', rel: 'next', raw: '../next', resolved: `${r}/next` },
  { attribute: 'Link', rel: 'copyright', raw: 'terms', resolved: `${r}/docs/terms` },
  { attribute: 'Link', rel: 'copyright', parameter: 'anchor', raw: '#top', resolved: `${r}/docs/page#top` },
  { attribute: 'Refresh', raw: 'moved', resolved: `${r}/docs/moved` },
  { attribute: 'Content-Location', raw: 'page.en.html', resolved: `${r}/docs/page.en.html` },
];

describe('--links for a URL retrieved over HTTP', () => {
  it('reports the header references, then the body references', async () => {
    const result = await runCliAsync([`${r}/start`, '--links', '-']);
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const headers = lines.filter((l) => l['element'] === null);
    expect(headers.map(({ attribute, rel, parameter, raw: v, resolved }) => ({ attribute, ...(rel === undefined ? {} : { rel }), ...(parameter === undefined ? {} : { parameter }), raw: v, resolved }))).toEqual(EXPECTED());
    for (const h of headers) {
      expect(h).toMatchObject({ document: `${r}/docs/page`, part: null, base: `${r}/docs/page`, baseSource: 'retrieval', line: null, column: null, changed: false });
      expect(h['redirects']).toEqual([{ url: `${r}/start`, status: 301, location: '/docs/page' }]);
    }
    // The body's reference comes after them.
    expect(lines.slice(headers.length).map((l) => [l['element'], l['resolved']])).toEqual([['a', `${r}/docs/next.html`]]);
  });

  it('in a URL list run too', async () => {
    const list = join(dir, 'urls.txt');
    writeFileSync(list, `${r}/docs/page\n`);
    const report = join(dir, 'links.jsonl');
    const result = await runCliAsync(['--input-list', list, '-o', join(dir, 'out'), '--links', report]);
    expect(result.status).toBe(0);
    const lines = readFileSync(report, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l['element'] === null).map((l) => l['resolved'])).toEqual(EXPECTED().map((e) => e['resolved']));
  });
});
