/**
 * Issue 22, Done when: a crawl holding `Link`/`Refresh` headers, SVG, XHTML, an Atom feed, a sitemap, a web app
 * manifest and JavaScript modules — every relative reference reported and rewritten, every record not rewritten
 * byte-identical, the output read whole by npm warcio and by the tests' own Python reader (warc_read.py).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { PYTHON } from '../mime/differential/harness.ts';
import { readWithWarcio, record, response, runWarc, sha1 } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'abs-warc-kinds-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const id = (n: number): string => `<urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}>`;
const ok = (type: string, extra = ''): string => `HTTP/1.1 200 OK\nContent-Type: ${type}\n${extra}`;

/** Each record: its URL, its HTTP head, its body, and the absolute URLs its rewritten body must hold. */
const DOCUMENTS: Array<{ uri: string; head: string; body: string; absolute: string[] }> = [
  { uri: 'https://example.com/docs/page.html', head: ok('text/html', 'Link: <../css/site.css>; rel=preload; as=style\nRefresh: 30; url=../latest/\n'), body: '<a href="next.html">n</a>', absolute: ['https://example.com/docs/next.html'] },
  { uri: 'https://example.com/img/logo.svg', head: ok('image/svg+xml'), body: '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="paper.png"/><a href="../docs/"><text>d</text></a></svg>', absolute: ['https://example.com/img/paper.png', 'https://example.com/docs/'] },
  { uri: 'https://example.com/x/page.xhtml', head: ok('application/xhtml+xml'), body: '<html xmlns="http://www.w3.org/1999/xhtml"><body><img src="i.png"/></body></html>', absolute: ['https://example.com/x/i.png'] },
  { uri: 'https://example.com/feed.atom', head: ok('application/atom+xml'), body: '<feed xmlns="http://www.w3.org/2005/Atom" xml:base="/blog/"><entry><link href="post-1"/><content type="html">&lt;img src="i.png"&gt;</content></entry></feed>', absolute: ['https://example.com/blog/post-1', 'https://example.com/blog/i.png'] },
  { uri: 'https://example.com/sitemap.xml', head: ok('application/xml'), body: '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/about/</loc></url></urlset>', absolute: ['https://example.com/about/'] },
  { uri: 'https://example.com/app/site.webmanifest', head: ok('application/manifest+json'), body: '{"start_url": "./", "icons": [{"src": "icon.png"}]}', absolute: ['https://example.com/app/', 'https://example.com/app/icon.png'] },
  { uri: 'https://example.com/js/app.mjs', head: ok('text/javascript'), body: "import './dep.js';\nconst w = new URL('w.wasm', import.meta.url);\n//# sourceMappingURL=app.mjs.map\n", absolute: ['https://example.com/js/dep.js', 'https://example.com/js/w.wasm', 'https://example.com/js/app.mjs.map'] },
];
const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201c9e7d2660000000049454e44ae426082', 'hex');
const IMAGE = response(id(99), 'https://example.com/img/a.png', `HTTP/1.1 200 OK\nContent-Type: image/png\nContent-Length: ${png.length}\nLink: <../x>; rel=preload\n`, png);
const REQUEST_BLOCK = Buffer.from('GET /docs/page.html HTTP/1.1\r\nHost: example.com\r\n\r\n');
const REQUEST = record([['WARC-Type', 'request'], ['WARC-Record-ID', id(98)], ['WARC-Date', '2026-01-02T03:04:05Z'], ['WARC-Target-URI', 'https://example.com/docs/page.html'], ['WARC-Concurrent-To', id(1)], ['Content-Type', 'application/http; msgtype=request'], ['WARC-Block-Digest', sha1(REQUEST_BLOCK)]], REQUEST_BLOCK);
const CRAWL = Buffer.concat([...DOCUMENTS.map((d, i) => response(id(i + 1), d.uri, d.head, Buffer.from(d.body))), REQUEST, IMAGE]);

describe('a crawl of every kind', () => {
  test('every relative reference reported and rewritten; the rest byte-identical; read whole by warcio and Python', async () => {
    const run = await runWarc([CRAWL]);
    const out = await readWithWarcio(run.output);
    for (const [i, d] of DOCUMENTS.entries()) {
      const records = run.lines.filter((l) => l.warcRecordId === id(i + 1));
      expect(records.at(-1), d.uri).toMatchObject({ kind: 'record', action: 'rewritten' });
      // Every reference reported, none left unresolved; every one of them written absolute.
      const references = records.filter((l) => l.kind === 'reference');
      expect(references.length, d.uri).toBeGreaterThanOrEqual(d.absolute.length);
      const replaced = out.find((r) => r.type === 'response' && r.targetUri === d.uri)!;
      const text = Buffer.from(replaced.block).toString('utf8');
      for (const url of d.absolute) expect(text, d.uri).toContain(url);
    }
    // The page's head: Link and Refresh made absolute.
    const page = Buffer.from(out.find((r) => r.type === 'response' && r.targetUri === DOCUMENTS[0]!.uri)!.block).toString('latin1');
    expect(page).toContain('Link: <https://example.com/css/site.css>; rel=preload; as=style\r\n');
    expect(page).toContain('Refresh: 30; url=https://example.com/latest/\r\n');
    // The image: copied byte for byte, its Link reported; the request relinked to the page's new id.
    expect(run.output.includes(IMAGE)).toBe(true);
    expect(run.lines.filter((l) => l.kind === 'reference' && l.warcRecordId === id(99))).toMatchObject([{ attribute: 'Link', resolved: 'https://example.com/x', changed: false }]);
    const request = out.find((r) => r.type === 'request')!;
    const pageId = out.find((r) => r.type === 'response' && r.targetUri === DOCUMENTS[0]!.uri)!.id;
    expect(request.headers.get('warc-concurrent-to')).toBe(pageId);
    // An independent reader: every record whole, every digest holding.
    const path = join(tmp, 'kinds.warc');
    writeFileSync(path, run.output);
    const lines = execFileSync(PYTHON, [fileURLToPath(new URL('warc_read.py', import.meta.url)), path], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l) as { whole?: boolean; block?: boolean | null; payload?: boolean | null });
    lines.pop();
    expect(lines.length).toBe(out.length);
    for (const l of lines) expect(l).toMatchObject({ whole: true, block: true });
    for (const l of lines) if (l.payload !== null) expect(l.payload).toBe(true);
  });
});
