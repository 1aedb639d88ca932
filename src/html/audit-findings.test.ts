/**
 * Audit (differential fuzz against Chromium, test/browser/audit-fuzz.test.ts): two disagreements about which
 * `<base>` applies, each checked in Chromium 153 on a minimal page served at http://127.0.0.1:…/d1/d2/p.html.
 *
 * 1. CSS, JSON scripts and srcdoc documents before a late `<base href>` (exactBase). Chromium resolves the
 *    url()s of a style attribute when the attribute is parsed, a `<style>` sheet (@import, url()) or an import
 *    map when its element ends, and gives an `iframe srcdoc` document the base of the moment the iframe is
 *    inserted: a `<base>` later in the document does not apply to them (getComputedStyle gives /d1/d2/s2.png; the
 *    import map's "./m.js" is fetched from /d1/d2/m.js; the srcdoc's link is /d1/d2/x.html), unlike element
 *    attributes, whose IDL getters read the base of the moment (and SVG presentation attributes, parsed at the
 *    next style recalculation). We resolved them all against the late base.
 * 2. A `<base>` inside `<noscript>`. The rewriter reads `<noscript>` content as markup (what a reader without
 *    scripts sees), but Chromium runs with scripting enabled and keeps it as text: there is no base element there,
 *    and the next `<base href>` is the document base (document.baseURI = /second/). We took the noscript one.
 */
import { describe, expect, it } from 'vitest';
import { chunkings, feedChunks } from '../../test/helpers/chunks.ts';
import { absolutizeHtml } from './stream.ts';

const url = 'http://example.com/d1/d2/p.html';

async function rewrite(html: string, exactBase = true): Promise<{ output: string; base: string | null | undefined; warnings: string[] }> {
  const warnings: string[] = [];
  const r = await absolutizeHtml(html, { retrieval: { url }, exactBase, onWarning: (w) => warnings.push(w.code) });
  // Whole and in chunks, the same.
  for (const chunks of chunkings(Buffer.from(html), 3)) {
    expect((await feedChunks(chunks, { retrieval: { url }, exactBase, charset: 'utf-8' })).toString()).toBe(r.output);
  }
  return { output: r.output, base: r.base?.url, warnings };
}

describe('CSS and JSON scripts parsed before a late <base href> (exactBase)', () => {
  it('style attributes before the base resolve against the layers below (SVG presentation attributes do not)', async () => {
    const { output } = await rewrite(
      `<body><div style="background:url(s1.png)">x</div><svg><rect fill="url(f.png)" style="fill:url(g.png)"/></svg>` +
        `<base href="/x/"><div style="background:url(s4.png)">y</div><a href="a.html">a</a>`,
    );
    expect(output).toBe(
      `<body><div style="background:url(http://example.com/d1/d2/s1.png)">x</div><svg><rect fill="url(http://example.com/x/f.png)" style="fill:url(http://example.com/d1/d2/g.png)"/></svg>` +
        `<base href="http://example.com/x/"><div style="background:url(http://example.com/x/s4.png)">y</div><a href="http://example.com/x/a.html">a</a>`,
    );
  });

  it('a <style> (HTML or SVG) and an import map that end before the base resolve against the layers below', async () => {
    const { output } = await rewrite(
      `<body><style>@import "i.css"; p{background-image:url(s2.png)}</style><svg><style>rect{fill:url(s3.png)}</style></svg>` +
        `<script type=importmap>{"imports":{"m":"./m.js"}}</script><base href="/x/"><style>q{background:url(s5.png)}</style>`,
    );
    expect(output).toBe(
      `<body><style>@import "http://example.com/d1/d2/i.css"; p{background-image:url(http://example.com/d1/d2/s2.png)}</style><svg><style>rect{fill:url(http://example.com/d1/d2/s3.png)}</style></svg>` +
        `<script type=importmap>{"imports":{"m":"http://example.com/d1/d2/m.js"}}</script><base href="http://example.com/x/"><style>q{background:url(http://example.com/x/s5.png)}</style>`,
    );
  });

  it('an iframe srcdoc document made before the base inherits the layers below; one after it, the base', async () => {
    const { output } = await rewrite(`<body><iframe srcdoc="<a href=x>i</a>"></iframe><base href="/late/"><iframe srcdoc="<a href=y>i</a>"></iframe>`);
    expect(output).toBe(`<body><iframe srcdoc="<a href=http://example.com/d1/d2/x>i</a>"></iframe><base href="http://example.com/late/"><iframe srcdoc="<a href=http://example.com/late/y>i</a>"></iframe>`);
  });

  it('a <style> in the head before the base resolves against the layers below (any mode)', async () => {
    for (const exactBase of [true, false]) {
      const { output } = await rewrite(`<head><style>p{background:url(a.png)}</style><base href="/x/"></head><body style="background:url(b.png)">`, exactBase);
      expect(output).toBe(`<head><style>p{background:url(http://example.com/d1/d2/a.png)}</style><base href="http://example.com/x/"></head><body style="background:url(http://example.com/x/b.png)">`);
    }
  });

  it('a base in the head still applies to everything after it', async () => {
    const { output } = await rewrite(`<head><base href="/x/"><style>p{background:url(a.png)}</style></head><body style="background:url(b.png)">`);
    expect(output).toBe(`<head><base href="http://example.com/x/"><style>p{background:url(http://example.com/x/a.png)}</style></head><body style="background:url(http://example.com/x/b.png)">`);
  });
});

describe('<base> inside <noscript>', () => {
  it('is not the document base (scripting enabled, <noscript> is text); the next <base href> is', async () => {
    for (const exactBase of [true, false]) {
      const r = await rewrite(`<head><noscript><base href="/ns/"></noscript><base href="/second/"></head><body><a href="x">x</a>`, exactBase);
      expect(r.base).toBe('http://example.com/second/');
      expect(r.output).toBe(`<head><noscript><base href="http://example.com/ns/"></noscript><base href="http://example.com/second/"></head><body><a href="http://example.com/second/x">x</a>`);
      expect(r.warnings).toContain('base-href-ignored');
    }
  });

  it('in the body too, and one after it in the body is the base (exactBase)', async () => {
    const r = await rewrite(`<body><a href="x">x</a><noscript><p><base href="/ns/"></p></noscript><base href="/second/">`);
    expect(r.base).toBe('http://example.com/second/');
    expect(r.output).toBe(`<body><a href="http://example.com/second/x">x</a><noscript><p><base href="http://example.com/ns/"></p></noscript><base href="http://example.com/second/">`);
  });

  it('with no other base, the retrieval URL is the base', async () => {
    const r = await rewrite(`<head><noscript><base href="http://other.example/"></noscript></head><body><a href="x">x</a>`);
    expect(r.base).toBe(url);
    expect(r.output).toBe(`<head><noscript><base href="http://other.example/"></noscript></head><body><a href="http://example.com/d1/d2/x">x</a>`);
  });
});

describe('an SVG resource reference to the document itself, without a fragment', () => {
  // <use href="http:"> (or "p.html" inside p.html) is, to Blink, a reference into the document (no element, no
  // fetch): it must stay one in the copy, where the absolute URL of the original would be another document.
  it('is written as the empty reference', async () => {
    for (const exactBase of [true, false]) {
      const { output } = await rewrite(`<svg><use href="http:"/><use href=" p.html "/><use href="p.html#i"/><use href="p.html?"/><image href="p.html"/></svg>`, exactBase);
      expect(output).toBe(`<svg><use href=""/><use href="  "/><use href="#i"/><use href="http://example.com/d1/d2/p.html?"/><image href="http://example.com/d1/d2/p.html"/></svg>`);
    }
  });
});
