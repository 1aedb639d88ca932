/**
 * Issue 22 from the command line, as a user runs it (the built bin): SVG, XHTML, feeds, sitemaps, manifests and
 * JavaScript modules by extension or `--type`, the link report's fields, a directory of them, and the same kinds
 * retrieved over HTTP (by Content-Type).
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { html, runCliAsync, startTestServer } from '../http/http-test-server.ts';
import type { TestServer } from '../http/http-test-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'absolutize-kinds-'));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="a.png"/><use href="#x"/></svg>`;
const FEED = `<feed xmlns="http://www.w3.org/2005/Atom"><link href="/"/><entry xml:base="e/"><content type="html">&lt;a href="x"&gt;x&lt;/a&gt;</content></entry></feed>`;
const SITEMAP = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/p</loc></url></urlset>`;
const MANIFEST = `{"start_url": ".", "icons": [{"src": "i.png"}]}`;
const MODULE = `import './dep.js';\nconst w = new URL('w.wasm', import.meta.url);\n`;

describe('absolutize FILE of each kind', () => {
  for (const [name, text, expected] of [
    ['a.svg', SVG, `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="https://ex.com/d/a.png"/><use href="#x"/></svg>`],
    ['f.atom', FEED, `<feed xmlns="http://www.w3.org/2005/Atom"><link href="https://ex.com/"/><entry xml:base="https://ex.com/d/e/"><content type="html">&lt;a href="https://ex.com/d/e/x"&gt;x&lt;/a&gt;</content></entry></feed>`],
    ['sitemap.xml', SITEMAP, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://ex.com/p</loc></url></urlset>`],
    ['m.webmanifest', MANIFEST, `{"start_url": "https://ex.com/d/", "icons": [{"src": "https://ex.com/d/i.png"}]}`],
    ['app.mjs', MODULE, `import 'https://ex.com/d/dep.js';\nconst w = new URL('https://ex.com/d/w.wasm', import.meta.url);\n`],
  ] as const) {
    it(`${name}: by its extension`, () => {
      const file = join(dir, name);
      writeFileSync(file, text);
      const r = runCli([file, '--url', `https://ex.com/d/${name}`]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(expected);
    });
  }

  it('--type from standard input, and the link report names element and attribute', () => {
    const r = runCli(['--type', 'svg', '--url', 'https://ex.com/d/a.svg', '--links', '-'], { input: SVG });
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ element: 'image', attribute: 'xlink:href', raw: 'a.png', resolved: 'https://ex.com/d/a.png', baseSource: 'retrieval', changed: true, line: 1 });
    expect(lines[1]).toMatchObject({ element: 'use', attribute: 'href', raw: '#x', changed: false });
    const m = runCli(['--type', 'manifest', '--url', 'https://ex.com/d/m.json', '--links', '-'], { input: MANIFEST });
    expect(m.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { attribute: string }).attribute)).toEqual(['start_url', 'icons[0].src']);
    const js = runCli(['--type', 'js', '--url', 'https://ex.com/d/a.js', '--links', '-'], { input: MODULE });
    expect(js.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { attribute: string }).attribute)).toEqual(['import', 'new-url']);
  });

  it('--type rejects an unknown name and lists the kinds', () => {
    const r = runCli(['--type', 'rss'], { input: '' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('svg, xhtml, feed, sitemap, xml, manifest, js');
  });

  it('.xml: the root element decides; an unknown vocabulary comes out byte-identical', () => {
    const file = join(dir, 'other.xml');
    const text = `<?xml version="1.0"?><config><link href="x"/></config>`;
    writeFileSync(file, text);
    const r = runCli([file, '--url', 'https://ex.com/d/other.xml']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(text);
  });

  it('a directory of them is rewritten file by file', () => {
    const src = join(dir, 'tree');
    const out = join(dir, 'tree-out');
    mkdirSync(join(src, 'js'), { recursive: true });
    writeFileSync(join(src, 'a.svg'), SVG);
    writeFileSync(join(src, 'js', 'app.mjs'), MODULE);
    const r = runCli([src, '-o', out, '--url', 'https://ex.com/site/']);
    expect(r.status).toBe(0);
    expect(readFileSync(join(out, 'a.svg'), 'utf8')).toContain('xlink:href="https://ex.com/site/a.png"');
    expect(readFileSync(join(out, 'js', 'app.mjs'), 'utf8')).toContain(`import 'https://ex.com/site/js/dep.js';`);
  });
});

describe('absolutize URL of each kind (by Content-Type)', () => {
  it('SVG, a feed, a manifest and a module retrieved over HTTP', async () => {
    server.route('/img/a.svg', html(SVG, 'image/svg+xml'));
    server.route('/feeds/f', html(FEED, 'application/atom+xml; charset=utf-8'));
    server.route('/app/m.json', html(MANIFEST, 'application/manifest+json'));
    server.route('/js/app', html(MODULE, 'text/javascript'));
    const o = server.origin;
    for (const [path, contains] of [['/img/a.svg', `xlink:href="${o}/img/a.png"`], ['/feeds/f', `&lt;a href="${o}/feeds/e/x"&gt;`], ['/app/m.json', `"src": "${o}/app/i.png"`], ['/js/app', `import '${o}/js/dep.js';`]] as const) {
      const r = await runCliAsync([`${o}${path}`]);
      expect(r.stderr, path).toBe('');
      expect(r.stdout, path).toContain(contains);
    }
  });
});
