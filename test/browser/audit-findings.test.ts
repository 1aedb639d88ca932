/**
 * Audit (outside reviewer's differential fuzz): which `<base>` applies, as Chromium resolves it.
 *
 * Each page is loaded at its real URL on origin A, rewritten (exactBase, so that a `<base>` in the body is
 * honoured), served from origin B at another path, and loaded again. Truth is what Chromium really did, not a
 * re-resolution at collection time: the requests each load made, computed styles, the `href` of a link inside a
 * srcdoc document, `document.baseURI` and an `<a>`'s href.
 *
 * - CSS, import maps and srcdoc documents are resolved when they are parsed: before a `<base href>` (late in the
 *   body, or simply after them in the head), against the document URL (the base of that moment). We resolved
 *   them against the base.
 * - A `<base>` inside `<noscript>` is text to Chromium (scripting enabled): the next `<base href>` is the base.
 *   We took the noscript one.
 * - An SVG resource reference to the document itself without a fragment (`<use href="http:">`) is a reference
 *   into the document to Blink; we made it the absolute URL of the original, another document in the copy.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { absolutizeHtml } from '../../src/html/stream.ts';
import type { ResolvedRef } from '../helpers/chromium.ts';
import { collectResolved, launchBrowser } from '../helpers/chromium.ts';
import { compareRefs, formatMismatches } from '../helpers/compare.ts';
import type { LoopbackServer } from '../helpers/server.ts';
import { startServer } from '../helpers/server.ts';

let browser: Browser | undefined;
let a: LoopbackServer | undefined;
let b: LoopbackServer | undefined;
beforeAll(async () => {
  browser = await launchBrowser();
  a = await startServer(new Map());
  b = await startServer(new Map());
});
afterAll(async () => {
  await browser?.close();
  await a?.close();
  await b?.close();
});

interface Loaded {
  readonly url: string;
  readonly requests: string[];
  readonly facts: unknown;
  /** Every URL-bearing attribute, as test/helpers/collector.browser.js records it. */
  readonly refs: ResolvedRef[];
}

/** Loads `url`, lets it settle, evaluates `facts` in the page; every request but the page's own navigation. */
async function load(url: string, facts: string): Promise<Loaded> {
  const context: BrowserContext = await browser!.newContext({ serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    const requests: string[] = [];
    const allowed = [a!.origin, b!.origin];
    await context.route('**/*', async (route, request) => {
      if (request.url() === url) return route.continue();
      requests.push(request.url());
      if (allowed.includes(new URL(request.url()).origin)) return route.continue();
      return route.fulfill({ status: 204, body: '' });
    });
    await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    await page.waitForTimeout(300);
    return { url, requests: requests.sort(), facts: await page.evaluate(facts), refs: await collectResolved(page) };
  } finally {
    await context.close();
  }
}

let pageId = 0;

async function original(html: string, facts: string): Promise<{ url: string; loaded: Loaded }> {
  const path = `/d1/d2/audit${pageId++}.html`;
  a!.files.set(path, { body: Buffer.from(html), contentType: 'text/html; charset=utf-8' });
  const url = a!.origin + path;
  return { url, loaded: await load(url, facts) };
}

async function relocated(html: string, url: string, facts: string, exactBase = true): Promise<Loaded> {
  const r = await absolutizeHtml(Buffer.from(html), { retrieval: { url }, charset: 'utf-8', exactBase });
  const path = `/elsewhere/x/${pageId++}/y.html`;
  b!.files.set(path, { body: r.output, contentType: 'text/html; charset=utf-8' });
  return load(b!.origin + path, facts);
}

describe('audit: base timing in Chromium', () => {
  it('CSS, an import map and a srcdoc document before a late <base href> keep their parse-time base', async () => {
    const html =
      '<!doctype html><body><div id=s1 style="background-image:url(s1.png)">x</div>' +
      '<style>@import "i.css"; #s2{background-image:url(s2.png)}</style><div id=s2>y</div>' +
      '<svg><rect id=r1 width=5 height=5 fill="url(f.png) red"/><style>#r2{fill:url(s3.png)}</style><rect id=r2 width=5 height=5/></svg>' +
      '<script type=importmap>{"imports":{"m":"./m.js"}}</script>' +
      '<iframe srcdoc="<a id=x href=x.html>x</a>"></iframe>' +
      '<base href="/late/"><div id=s4 style="background-image:url(s4.png)">z</div>' +
      '<script type=module>import "m"</script><a id=a href="a.html">a</a>';
    const facts = `({
      s1: getComputedStyle(document.getElementById('s1')).backgroundImage,
      s2: getComputedStyle(document.getElementById('s2')).backgroundImage,
      r1: getComputedStyle(document.getElementById('r1')).fill,
      r2: getComputedStyle(document.getElementById('r2')).fill,
      s4: getComputedStyle(document.getElementById('s4')).backgroundImage,
      srcdoc: document.querySelector('iframe').contentDocument.getElementById('x').href,
      a: document.getElementById('a').href,
    })`;
    const orig = await original(html, facts);
    const copy = await relocated(html, orig.url, facts);
    const dir = orig.url.slice(0, orig.url.lastIndexOf('/') + 1);
    // The original as Chromium parsed it: before the base, the document URL; after it, /late/.
    expect(orig.loaded.facts).toEqual({
      s1: `url("${dir}s1.png")`,
      s2: `url("${dir}s2.png")`,
      // (A presentation attribute is parsed at the next style recalculation: after the base, here.)
      r1: `url("${a!.origin}/late/f.png") rgb(255, 0, 0)`,
      r2: `url("${dir}s3.png")`,
      s4: `url("${a!.origin}/late/s4.png")`,
      srcdoc: `${dir}x.html`,
      a: `${a!.origin}/late/a.html`,
    });
    expect(orig.loaded.requests).toContain(`${dir}m.js`);
    expect(orig.loaded.requests).toContain(`${dir}i.css`);
    expect(copy.facts).toEqual(orig.loaded.facts);
    expect(copy.requests).toEqual(orig.loaded.requests);
  });

  it('a <base> inside <noscript> is not the base; the next one is', async () => {
    for (const html of [
      '<!doctype html><head><noscript><base href="/ns/"></noscript><base href="/second/"></head><body><a id=a href="a.html">a</a><img src="i.png">',
      '<!doctype html><body><noscript><p><base href="/ns/"></p></noscript><base href="/second/"><a id=a href="a.html">a</a><img src="i.png">',
    ]) {
      const facts = `({ base: document.baseURI, a: document.getElementById('a').href })`;
      const orig = await original(html, facts);
      const copy = await relocated(html, orig.url, facts);
      expect(orig.loaded.facts).toEqual({ base: `${a!.origin}/second/`, a: `${a!.origin}/second/a.html` });
      expect((copy.facts as { a: string }).a).toBe(`${a!.origin}/second/a.html`);
      expect(copy.requests).toEqual(orig.loaded.requests);
    }
  });

  it('an SVG <use> that names the document itself stays a reference into the copy', async () => {
    const html = '<!doctype html><body><svg><use id=u1 href="http:"/><use id=u2 href="PAGE"/><use href="PAGE#g"/><g id=g></g></svg><a href="a.html">a</a>';
    const path = `/d1/d2/audit${pageId}.html`;
    const page = html.replaceAll('PAGE', path.slice(path.lastIndexOf('/') + 1));
    const orig = await original(page, '1');
    expect(orig.url.endsWith(path)).toBe(true);
    const copy = await relocated(page, orig.url, '1');
    expect(orig.loaded.refs.filter((r) => r.element === 'use').map((r) => r.resolved)).toEqual(['local:', 'local:', 'local:#g']);
    expect(formatMismatches(compareRefs(orig.loaded.refs, copy.refs, { original: orig.url, copy: copy.url }))).toBe('');
    expect(copy.requests).toEqual(orig.loaded.requests);
  });

  it('a <style> before the <base> in the head keeps the document URL, without exactBase too', async () => {
    const html = '<!doctype html><head><style>p{background-image:url(h.png)}</style><base href="/x/"></head><body><p>t</p><a href="a.html">a</a>';
    const facts = `getComputedStyle(document.querySelector('p')).backgroundImage`;
    const orig = await original(html, facts);
    const dir = orig.url.slice(0, orig.url.lastIndexOf('/') + 1);
    expect(orig.loaded.facts).toBe(`url("${dir}h.png")`);
    for (const exactBase of [false, true]) {
      const copy = await relocated(html, orig.url, facts, exactBase);
      expect(copy.facts).toBe(orig.loaded.facts);
      expect(copy.requests).toEqual(orig.loaded.requests);
    }
  });
});
