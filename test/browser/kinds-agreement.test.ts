/**
 * Acceptance (issue 22): Chromium requests the same URLs from an SVG document, an XHTML page, a JavaScript module
 * graph (a page → modules → modules, a literal dynamic import, `fetch(new URL(…, import.meta.url))`) and a web
 * app manifest (read with `Page.getAppManifest` over the DevTools protocol) served at one origin and path, and
 * from their rewritten copies served at another origin and path. The original origin sends CORS headers, so that
 * the copy's cross-origin module loads are allowed as a relocated mirror's would be.
 * Requests to anything but the two loopback origins are aborted and must not happen (the SVG and XHTML carry an
 * `xml:base` to a host that must not be asked: Chromium ignores xml:base).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { transformWhole } from '../../src/html/stream.ts';
import { createHtmlRewriter } from '../../src/html/stream.ts';
import { createKindRewriter, kindOfName } from '../../src/kinds/index.ts';
import { launchBrowser } from '../helpers/chromium.ts';

interface Site {
  origin: string;
  files: Map<string, { body: Buffer; type: string }>;
  requests: string[];
  close(): Promise<void>;
}

async function serve(): Promise<Site> {
  const files = new Map<string, { body: Buffer; type: string }>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push(req.url ?? '/');
    const f = files.get(path);
    const cors = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
    if (f === undefined) {
      res.writeHead(404, { ...cors, 'content-length': '0' });
      res.end();
      return;
    }
    res.writeHead(200, { ...cors, 'content-type': f.type, 'content-length': String(f.body.length) });
    res.end(f.body);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    files,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.xhtml': 'application/xhtml+xml', '.webmanifest': 'application/manifest+json', '.css': 'text/css', '.png': 'image/png', '.bin': 'application/octet-stream', '.wasm': 'application/wasm' };

const SITE: Record<string, string> = {
  // An inline module: its imports and its import.meta.url are the document's base URL (js/).
  'page.html': `<!doctype html><html><head><base href="js/"><link rel="manifest" href="../app/app.webmanifest"><script type="module" src="main.mjs"></script><script type="module">import { inline } from './inline-dep.mjs';\nawait fetch(new URL('assets/inline.bin', import.meta.url));\nawait import("./lazy-inline.mjs");\n</script></head><body><p id="out">…</p></body></html>`,
  'js/inline-dep.mjs': `export const inline = 1;\n`,
  // An external classic script: its import() resolves against the script's URL (when the script is same-origin
  // with the page: a cross-origin classic script has "muted errors" and the base URL about:blank, HTML standard).
  // The page that loads it is served as it is at both places, so that each loads its own copy of the script.
  'classic.html': `<!doctype html><script src="js/classic/c.js"></script>`,
  'js/classic/c.js': `import('./classic-dep.mjs');\nvar notAReference = './not-fetched.js';\n`,
  'js/classic/classic-dep.mjs': `export const c = 1;\n`,
  'js/lazy-inline.mjs': `export const l = 1;\n`,
  'assets/inline.bin': 'x',
  'js/main.mjs': `import { dep } from './lib/dep.mjs';\nexport * from "../shared/re.mjs";\nconst lazy = await import('./lazy.mjs');\nconst data = await fetch(new URL("data/payload.bin", import.meta.url));\nconst other = new URL('../assets/pic.png', import.meta.url);\nawait fetch(other);\ndocument.getElementById('out').textContent = dep + lazy.lazy + (await data.text());\n//# sourceMappingURL=main.mjs.map\n`,
  'js/lib/dep.mjs': `import { util } from '../../util.mjs';\nexport const dep = 'dep' + util;\n`,
  'util.mjs': `export const util = 'u';\n`,
  'shared/re.mjs': `export const re = 1;\n`,
  'js/lazy.mjs': `export const lazy = 'lazy';\n`,
  'js/data/payload.bin': 'payload',
  'assets/pic.png': 'png',
  'app/app.webmanifest': `{\n  "name": "Kinds",\n  "start_url": "../page.html?from=manifest",\n  "scope": "../",\n  "icons": [{ "src": "icons/192.png", "sizes": "192x192", "type": "image/png" }],\n  "shortcuts": [{ "name": "s", "url": "s/1", "icons": [{ "src": "../i/s.png", "sizes": "96x96" }] }]\n}\n`,
  'doc.svg': `<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xml:base="http://xml-base.invalid/" width="10" height="10">\n<style>rect { fill: url(grad/g.svg#g) }</style>\n<image href="img/a.png" width="1" height="1"/><image xlink:href="../b.png" width="1" height="1"/>\n<rect width="1" height="1" style="stroke: url('img/s.svg#p')"/>\n</svg>\n`,
  'page.xhtml': `<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" xml:base="http://xml-base.invalid/"><head><base href="sub/"/><link rel="stylesheet" href="s.css"/></head><body><img src="x.png"/><img srcset="y.png 1x"/><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><image href="z.png" width="1" height="1"/></svg></body></html>\n`,
  'sub/s.css': `body { background: url(bg.png) }`,
};

async function rewriteFile(name: string, text: string, url: string): Promise<Buffer> {
  const input = Buffer.from(text);
  const ext = name.slice(name.lastIndexOf('.'));
  if (ext === '.html') return transformWhole(createHtmlRewriter({ retrieval: { url } }), input);
  const kind = kindOfName(name);
  if (kind === null) return input;
  return transformWhole(createKindRewriter(kind, { retrieval: { url } }), input);
}

let browser: Browser;
let a: Site;
let b: Site;
const ORIGINAL = '/orig/deep/';
const COPY = '/elsewhere/';

beforeAll(async () => {
  browser = await launchBrowser();
  a = await serve();
  b = await serve();
  for (const [name, text] of Object.entries(SITE)) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';
    a.files.set(ORIGINAL + name, { body: Buffer.from(text), type });
    const copy = { body: await rewriteFile(name, text, a.origin + ORIGINAL + name), type };
    b.files.set(COPY + name, name === 'classic.html' ? { body: Buffer.from(text), type } : copy);
    // The same copy at another path of the original origin: a manifest's start_url and scope only count when
    // same-origin with the document (W3C appmanifest, "processing the start_url member").
    a.files.set(COPY + name, copy);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await a?.close();
  await b?.close();
});

/** Loads `url`, waits for the network to settle, and returns the requests it made and what `after` gives. */
async function load<T>(url: string, after: (page: import('playwright-core').Page) => Promise<T>): Promise<{ requests: string[]; foreign: string[]; result: T }> {
  const context = await browser.newContext();
  const foreign: string[] = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(a.origin) || u.startsWith(b.origin)) return route.continue();
    foreign.push(u);
    return route.abort();
  });
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const result = await after(page);
  await page.waitForTimeout(300); // lets late loads (after the module ran) be recorded: not a threshold asserted on
  await context.close();
  return { requests: [...new Set(requests)].sort(), foreign, result };
}

describe('Chromium requests the same URLs from the original and from the relocated copy', () => {
  for (const [name, what] of [['doc.svg', 'an SVG document'], ['page.xhtml', 'an XHTML page']] as const) {
    it(`${what}: the same requests; xml:base ignored by Chromium`, async () => {
      const original = await load(a.origin + ORIGINAL + name, async () => null);
      const copy = await load(b.origin + COPY + name, async () => null);
      expect(original.foreign).toEqual([]);
      expect(copy.foreign).toEqual([]);
      const expected = original.requests.filter((u) => u !== a.origin + ORIGINAL + name);
      expect(expected.length).toBeGreaterThanOrEqual(name === 'doc.svg' ? 4 : 5);
      expect(copy.requests.filter((u) => u !== b.origin + COPY + name)).toEqual(expected);
    });
  }

  it('an external classic script: its literal import() rewritten, the same module requested', async () => {
    const original = await load(a.origin + ORIGINAL + 'classic.html', async (page) => page.waitForTimeout(300));
    const copy = await load(b.origin + COPY + 'classic.html', async (page) => page.waitForTimeout(300));
    const imports = (r: string[]): string[] => r.filter((u) => u.endsWith('classic-dep.mjs'));
    expect(imports(original.requests)).toEqual([a.origin + ORIGINAL + 'js/classic/classic-dep.mjs']);
    expect(imports(copy.requests)).toEqual(imports(original.requests));
    expect(copy.requests).toContain(b.origin + COPY + 'js/classic/c.js');
    expect([...original.requests, ...copy.requests].some((u) => u.includes('not-fetched'))).toBe(false);
  });

  it('a JavaScript module graph (static, re-export, dynamic import, new URL(…, import.meta.url)) and the manifest', async () => {
    const manifestOf = async (page: import('playwright-core').Page): Promise<{ text: string; manifest: unknown }> => {
      await page.locator('#out').filter({ hasNotText: '…' }).waitFor({ timeout: 15_000 }).catch(() => {});
      const cdp = await page.context().newCDPSession(page);
      const m = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[]; manifest?: unknown };
      return { text: await page.locator('#out').innerText(), manifest: m.manifest };
    };
    const original = await load(a.origin + ORIGINAL + 'page.html', manifestOf);
    const copy = await load(b.origin + COPY + 'page.html', manifestOf);
    expect(original.result.text).toBe('depulazypayload');
    expect(copy.result.text).toBe('depulazypayload');
    const expected = original.requests.filter((u) => u !== a.origin + ORIGINAL + 'page.html');
    // The inline module's import.meta.url is the document's base URL (js/), not its URL.
    for (const m of ['js/inline-dep.mjs', 'js/lazy-inline.mjs', 'js/assets/inline.bin', 'js/main.mjs', 'js/lib/dep.mjs', 'util.mjs', 'shared/re.mjs', 'js/lazy.mjs', 'js/data/payload.bin', 'assets/pic.png', 'app/app.webmanifest']) expect(expected).toContain(a.origin + ORIGINAL + m);
    expect(copy.requests.filter((u) => u !== b.origin + COPY + 'page.html')).toEqual(expected);
    // The manifest as Chromium parsed it: from another origin the icons name the same URLs (start_url and scope of
    // another origin are dropped by the standard, whatever we do); from another path of the same origin, all of it.
    expect(original.result.manifest).toBeDefined();
    const icons = (m: unknown): unknown => (m as { icons: unknown }).icons;
    expect(icons(copy.result.manifest)).toEqual(icons(original.result.manifest));
    const samePath = await load(a.origin + COPY + 'page.html', manifestOf);
    expect(JSON.stringify(samePath.result.manifest)).toBe(JSON.stringify(original.result.manifest));
    expect(JSON.stringify(original.result.manifest)).toContain(`${a.origin}${ORIGINAL}app/icons/192.png`);
    expect(JSON.stringify(original.result.manifest)).toContain(`${a.origin}${ORIGINAL}app/s/1`);
  }, 60_000);
});
