import { describe, expect, it } from 'vitest';
import { rfc3986Resolver } from '../uri/index.ts';
import { absolutizeHtml } from './stream.ts';
import type { HtmlStreamOptions } from './stream.ts';
import { resolveLimits } from '../limits.ts';
import { chunkings, feedChunks } from '../../test/helpers/chunks.ts';

const url = 'http://example.com/docs/page.html';
const retrieval = { url };

async function rewrite(html: string, options: HtmlStreamOptions = { retrieval }): Promise<string> {
  const r = await absolutizeHtml(html, options);
  return r.output;
}

describe('attributes', () => {
  it('rewrites only the value, keeping quotes, case and spacing of the tag', async () => {
    expect(await rewrite(`<A  HREF = '../x.html'  class=a>t</A>`)).toBe(`<A  HREF = 'http://example.com/x.html'  class=a>t</A>`);
    expect(await rewrite(`<img src=img/a.png alt=x>`)).toBe(`<img src=http://example.com/docs/img/a.png alt=x>`);
    expect(await rewrite(`<img src="img/a.png"/>`)).toBe(`<img src="http://example.com/docs/img/a.png"/>`);
  });

  it('keeps whitespace around a URL and leaves absolute references as written', async () => {
    expect(await rewrite(`<a href=" x ">`)).toBe(`<a href=" http://example.com/docs/x ">`);
    expect(await rewrite(`<a href="HTTPS://Other.example/%7e">`)).toBe(`<a href="HTTPS://Other.example/%7e">`);
    expect(await rewrite(`<a href="mailto:a@b">`)).toBe(`<a href="mailto:a@b">`);
  });

  it('decodes character references and escapes the result so it decodes to the URL', async () => {
    expect(await rewrite(`<a href="a?b=1&amp;c=2">`)).toBe(`<a href="http://example.com/docs/a?b=1&amp;c=2">`);
    expect(await rewrite(`<a href='it&#39;s'>`)).toBe(`<a href='http://example.com/docs/it&#39;s'>`);
    expect(await rewrite(`<a href=&#x2e;&#x2e;/up>`)).toBe(`<a href=http://example.com/up>`);
    // Not a reference in an attribute value ("&amp=" is literal there): kept as written, it still is.
    expect(await rewrite(`<a href="?x&amp=1">`)).toBe(`<a href="http://example.com/docs/page.html?x&amp=1">`);
    // The author's spelling of the unchanged end of a reference is kept: a bare "&" stays bare, "&amp;" stays.
    expect(await rewrite(`<a href="min/?b=css&f=a.css">`)).toBe(`<a href="http://example.com/docs/min/?b=css&f=a.css">`);
    expect(await rewrite(`<a href="min/?b=css&amp;f=a.css">`)).toBe(`<a href="http://example.com/docs/min/?b=css&amp;f=a.css">`);
    // A prefix that changes is escaped in full.
    expect(await rewrite(`<a href="../a&b/x">`, { retrieval: { url: 'http://example.com/d&amp;/e/' } })).toBe(`<a href="http://example.com/d&amp;amp;/a&b/x">`);
  });

  it('treats a same-scheme "http:g" as relative, as browsers do', async () => {
    expect(await rewrite(`<a href="http:g">`)).toBe(`<a href="http://example.com/docs/g">`);
    expect(await rewrite(`<a href="http:g">`, { retrieval, resolver: rfc3986Resolver })).toBe(`<a href="http:g">`);
  });

  it('leaves same-document references as they are, unless asked', async () => {
    expect(await rewrite(`<a href="#top"><a href=""><img src="">`)).toBe(`<a href="#top"><a href=""><img src="">`);
    expect(await rewrite(`<a href="#top">`, { retrieval, absolutizeFragments: true })).toBe(`<a href="http://example.com/docs/page.html#top">`);
    expect(await rewrite(`<svg><use href="#a"/></svg>`, { retrieval, absolutizeFragments: true })).toBe(`<svg><use href="#a"/></svg>`);
  });

  it('never touches text of script, textarea, title, comments, or xmlns/itemprop/usemap', async () => {
    const html = `<title><a href="x"></title><textarea><a href="x"></textarea><script>var a = '<a href="x">';</script><!-- <a href="x"> --><html xmlns="x"><img usemap="#m" itemprop="x">`;
    expect(await rewrite(html)).toBe(html);
  });

  it('rewrites srcset candidates, keeping descriptors and commas in URLs', async () => {
    expect(await rewrite(`<img srcset="a.png 1x, b,c.png  2x,d.png">`)).toBe(
      `<img srcset="http://example.com/docs/a.png 1x, http://example.com/docs/b,c.png  2x,http://example.com/docs/d.png">`,
    );
  });

  it('rewrites only the URL of a meta refresh', async () => {
    expect(await rewrite(`<meta http-equiv="Refresh" content="5; URL='../next.html'">`)).toBe(
      `<meta http-equiv="Refresh" content="5; URL='http://example.com/next.html'">`,
    );
    expect(await rewrite(`<meta name="x" content="a.html">`)).toBe(`<meta name="x" content="a.html">`);
  });

  it('rewrites ping lists', async () => {
    expect(await rewrite(`<a ping=" a  /b ">`)).toBe(`<a ping=" http://example.com/docs/a  http://example.com/b ">`);
  });

  it('rewrites CSS in style attributes and <style>, not fragment-only url(#id)', async () => {
    expect(await rewrite(`<p style="background:url( 'i.png' ) ; mask:url(#m)">`)).toBe(
      `<p style="background:url( 'http://example.com/docs/i.png' ) ; mask:url(#m)">`,
    );
    expect(await rewrite(`<style>@import "a.css"; b { background: url(b.png) }</style>`)).toBe(
      `<style>@import "http://example.com/docs/a.css"; b { background: url(http://example.com/docs/b.png) }</style>`,
    );
    expect(await rewrite(`<p style="background:url(&quot;x y.png&quot;)">`)).toBe(`<p style="background:url(&quot;http://example.com/docs/x%20y.png&quot;)">`);
  });

  it('finds url() written with escapes, and leaves CSS without URLs alone', async () => {
    expect(await rewrite(`<p style="background: \\75 rl(a.png)">`)).toBe(`<p style="background: \\75 rl(http://example.com/docs/a.png)">`);
    expect(await rewrite(`<p style="color: red; margin: 0">`)).toBe(`<p style="color: red; margin: 0">`);
  });

  it('rewrites iframe srcdoc as a nested document against the parent base', async () => {
    expect(await rewrite(`<base href="/b/"><iframe srcdoc="<a href=&quot;x&quot;>x</a><img src='y'>"></iframe>`)).toBe(
      `<base href="http://example.com/b/"><iframe srcdoc="<a href=&quot;http://example.com/b/x&quot;>x</a><img src='http://example.com/b/y'>"></iframe>`,
    );
  });

  it('resolves applet code and archive against its codebase, object data against the document', async () => {
    expect(await rewrite(`<applet codebase="classes/" code="A.class" archive="a.jar,b.jar">`)).toBe(
      `<applet codebase="http://example.com/docs/classes/" code="http://example.com/docs/classes/A.class" archive="http://example.com/docs/classes/a.jar,http://example.com/docs/classes/b.jar">`,
    );
    expect(await rewrite(`<object codebase="c/" data="d.swf">`)).toBe(`<object codebase="http://example.com/docs/c/" data="http://example.com/docs/d.swf">`);
  });

  it('rewrites SVG href and xlink:href', async () => {
    expect(await rewrite(`<svg><image xlink:href="i.png"/><a href="a"></a></svg>`)).toBe(
      `<svg><image xlink:href="http://example.com/docs/i.png"/><a href="http://example.com/docs/a"></a></svg>`,
    );
  });
});

describe('more attribute kinds', () => {
  it('writes an SVG resource reference to this document as its fragment, so it stays same-document', async () => {
    expect(await rewrite(`<svg><use href="page.html#p"/><use href="other.svg#p"/><a href="page.html#p"></a></svg>`)).toBe(
      `<svg><use href="#p"/><use href="http://example.com/docs/other.svg#p"/><a href="http://example.com/docs/page.html#p"></a></svg>`,
    );
    expect(await rewrite(`<svg><use href="page.html#p"/></svg>`, { retrieval, absolutizeFragments: true })).toBe(
      `<svg><use href="http://example.com/docs/page.html#p"/></svg>`,
    );
  });

  it('rewrites RDFa IRIs but not safe CURIEs, blank nodes or CURIEs', async () => {
    expect(await rewrite(`<div vocab="v/" about="#me" resource="r"><span href="h" src="s" about="[ex:x]" resource="_:b"></span><p about="foaf:x">`)).toBe(
      `<div vocab="http://example.com/docs/v/" about="#me" resource="http://example.com/docs/r"><span href="http://example.com/docs/h" src="http://example.com/docs/s" about="[ex:x]" resource="_:b"></span><p about="foaf:x">`,
    );
  });

  it('rewrites lazy-load attributes only with the option', async () => {
    const html = `<img data-src="a.png" data-lazy-src="b.png" data-srcset="c.png 2x" data-original="d.png">`;
    expect(await rewrite(html)).toBe(html);
    expect(await rewrite(html, { retrieval, lazyLoad: true })).toBe(
      `<img data-src="http://example.com/docs/a.png" data-lazy-src="http://example.com/docs/b.png" data-srcset="http://example.com/docs/c.png 2x" data-original="http://example.com/docs/d.png">`,
    );
  });

  it('decodes astral character references whole (the query of a legacy document gets the code point)', async () => {
    const r = await absolutizeHtml(Buffer.from('<a href="?s=&#x1F600;">'), { retrieval, charset: 'windows-1252' });
    expect(r.output.toString('latin1')).toBe('<a href="http://example.com/docs/page.html?s=%26%23128512%3B">');
  });
});

describe('base', () => {
  it('uses the first <base href>, resolved against the retrieval URL, and rewrites it to absolute', async () => {
    const r = await absolutizeHtml(`<head><base href="../sub/"><base href="http://wrong/"></head><a href="x">`, { retrieval });
    expect(r.output).toBe(`<head><base href="http://example.com/sub/"><base href="http://wrong/"></head><a href="http://example.com/sub/x">`);
    expect(r.base).toMatchObject({ source: 'embedded', url: 'http://example.com/sub/' });
  });

  it('resolves every base href against the layers below, not against itself', async () => {
    // https://html.spec.whatwg.org/multipage/semantics.html#set-the-frozen-base-url: a second <base> is resolved
    // against the fallback base too; so is the first (it *is* the embedded layer).
    expect(await rewrite(`<base href="frames/"><base href="../second/"><a href="x">`)).toBe(
      `<base href="http://example.com/docs/frames/"><base href="http://example.com/second/"><a href="http://example.com/docs/frames/x">`,
    );
  });

  it('applies the base to references before the <base> element too', async () => {
    expect(await rewrite(`<link href="s.css"><base href="http://b.example/d/"><a href="x">`)).toBe(
      `<link href="http://b.example/d/s.css"><base href="http://b.example/d/"><a href="http://b.example/d/x">`,
    );
  });

  it('warns about a <base href> after the commit point and does not use it', async () => {
    const r = await absolutizeHtml(`<body><a href="x"><base href="http://late/">`, { retrieval });
    expect(r.output).toBe(`<body><a href="http://example.com/docs/x"><base href="http://late/">`);
    expect(r.warnings.map((w) => w.code)).toContain('base-href-after-commit');
    expect(r.warnings.find((w) => w.code === 'base-href-after-commit')?.message).toMatch(/1 earlier relative/);
  });

  it('honours a late <base href> with exactBase', async () => {
    const r = await absolutizeHtml(`<body><a href="x"><base href="http://late/">`, { retrieval, exactBase: true });
    expect(r.output).toBe(`<body><a href="http://late/x"><base href="http://late/">`);
  });

  it('commits and warns when the lookahead limit is hit', async () => {
    const head = `<head><!--${'x'.repeat(200)}-->`;
    const r = await absolutizeHtml(`${head}<link href="a"><base href="http://b/">`, { retrieval, limits: resolveLimits({ maxBaseLookaheadBytes: 100 }) });
    expect(r.warnings.map((w) => w.code)).toContain('base-lookahead-limit');
    expect(r.output).toBe(`${head}<link href="http://example.com/docs/a"><base href="http://b/">`);
  });

  it('leaves relative references with no base, byte for byte, and warns once', async () => {
    const html = `<a href="x"><img src="y">`;
    const r = await absolutizeHtml(html, {});
    expect(r.output).toBe(html);
    expect(r.warnings.filter((w) => w.code === 'no-base')).toHaveLength(1);
    expect(r.references.map((x) => x.resolved)).toEqual([null, null]);
  });

  it('does not warn about a header ignored by rule, and does about one that is wrong', async () => {
    // An HTTP Content-Location is not a base unless honoured (RFC 9110 §8.7): by rule, not the document's fault.
    const http = await absolutizeHtml(`<a href="x">`, { retrieval, headers: { contentLocation: 'http://other.example/', http: true } });
    expect(http.output).toBe(`<a href="http://example.com/docs/x">`);
    expect(http.warnings).toEqual([]);
    expect(http.base?.ignored.map((i) => i.source)).toEqual(['content-location']);
    // A cid: label on a MIME part (RFC 2557 §8.3), likewise.
    expect((await absolutizeHtml(`<a href="x">`, { retrieval, headers: { contentLocation: 'cid:part1@example' } })).warnings).toEqual([]);
    // An empty Content-Base is the input's problem: warned.
    const empty = await absolutizeHtml(`<a href="x">`, { retrieval, headers: { contentBase: ' ' } });
    expect(empty.warnings.map((w) => w.code)).toEqual(['invalid-base-layer']);
  });

  it('ignores a <base> inside <template> and in SVG', async () => {
    expect(await rewrite(`<template><base href="http://t/"></template><svg><base href="http://s/"/></svg><a href="x">`)).toBe(
      `<template><base href="http://t/"></template><svg><base href="http://s/"/></svg><a href="http://example.com/docs/x">`,
    );
  });
});

describe('reports', () => {
  it('reports every reference with its base and position', async () => {
    const r = await absolutizeHtml(`<p>\n  <a href="x" ping="p q">`, { retrieval });
    expect(r.references).toEqual([
      { element: 'a', attribute: 'href', raw: 'x', resolved: 'http://example.com/docs/x', base: url, baseSource: 'retrieval', line: 2, column: 6, changed: true },
      { element: 'a', attribute: 'ping', raw: 'p', resolved: 'http://example.com/docs/p', base: url, baseSource: 'retrieval', line: 2, column: 15, changed: true },
      { element: 'a', attribute: 'ping', raw: 'q', resolved: 'http://example.com/docs/q', base: url, baseSource: 'retrieval', line: 2, column: 15, changed: true },
    ]);
    expect(r.stats).toMatchObject({ rewritten: 3, unchanged: 0, unresolvable: 0 });
  });

  it('reports plain records: data fields in one order, line and column as counted when the tag was read', async () => {
    // The rewriter's site reads line and column lazily (rewriter.ts attributeSite); a record is a copy of plain values.
    const html = `<p>\n\n  <a rel="next" href="x">\r\n<img src="y"><link rel=icon href=z>`;
    {
      const r = await absolutizeHtml(html, { retrieval });
      expect(JSON.stringify(r.references)).toBe(
        JSON.stringify([
          { element: 'a', attribute: 'href', line: 3, column: 17, rel: 'next', raw: 'x', resolved: 'http://example.com/docs/x', base: url, baseSource: 'retrieval', changed: true },
          { element: 'img', attribute: 'src', line: 4, column: 6, raw: 'y', resolved: 'http://example.com/docs/y', base: url, baseSource: 'retrieval', changed: true },
          { element: 'link', attribute: 'href', line: 4, column: 29, rel: 'icon', raw: 'z', resolved: 'http://example.com/docs/z', base: url, baseSource: 'retrieval', changed: true },
        ]),
      );
      for (const record of r.references) for (const key of Object.keys(record)) expect(Object.getOwnPropertyDescriptor(record, key)).toHaveProperty('value');
    }
  });

  it('reports an unresolvable reference and leaves it as written', async () => {
    const r = await absolutizeHtml(`<a href="http://[bad">`, { retrieval: { url: 'http://a/' } });
    expect(r.output).toBe(`<a href="http://[bad">`);
    expect(r.references[0]).toMatchObject({ resolved: null, changed: false });
  });
});

describe('bytes and encodings', () => {
  const enc = (s: string): Buffer => Buffer.from(s, 'utf8');

  it('is byte-identical with nothing to rewrite, including invalid UTF-8 and NUL', async () => {
    const input = Buffer.concat([enc('<meta charset=utf-8><p>caf\u00e9 '), Buffer.from([0xff, 0xfe, 0x00, 0xc3]), enc('<a href="#x">')]);
    const r = await absolutizeHtml(input, { retrieval });
    expect(r.output.equals(input)).toBe(true);
  });

  it('keeps invalid bytes next to a rewritten value', async () => {
    const input = Buffer.concat([enc('<meta charset=utf-8>'), Buffer.from([0xff]), enc('<a href="x">'), Buffer.from([0xc3])]);
    const r = await absolutizeHtml(input, { retrieval });
    expect(r.output.equals(Buffer.concat([enc('<meta charset=utf-8>'), Buffer.from([0xff]), enc('<a href="http://example.com/docs/x">'), Buffer.from([0xc3])]))).toBe(true);
  });

  it('encodes the query in a windows-1252 document and keeps the bytes of the rest', async () => {
    // 0xE9 is "é" in windows-1252 (the default with no <meta>).
    const input = Buffer.from([...enc('<a href="caf'), 0xe9, ...enc('?q='), 0xe9, ...enc('">'), 0xe9]);
    const r = await absolutizeHtml(input, { retrieval });
    expect(r.encoding).toBe('windows-1252');
    expect(r.output.toString('latin1')).toBe('<a href="http://example.com/docs/caf%C3%A9?q=%E9">\u00e9');
  });

  it('is the same whole, byte by byte, and in random chunks', async () => {
    const input = enc(
      `<!doctype html><html><head><meta charset="utf-8"><title>é</title><base href="sub/"><link rel=stylesheet href="s.css"></head>` +
        `<body style="background:url(bg.png)"><a href='a?b=1&amp;c=2'>x</a><img srcset="a.png 1x, b.png 2x"><style>p{background:url("p.png")}</style>` +
        `<iframe srcdoc="<a href=&quot;y&quot;>"></iframe><svg><image href="i.svg"/></svg>日本</body></html>`,
    );
    const whole = (await absolutizeHtml(input, { retrieval })).output;
    expect(whole.toString()).toContain('http://example.com/docs/sub/s.css');
    for (const chunks of chunkings(input, 5)) {
      const out = await feedChunks(chunks, { retrieval });
      expect(out.equals(whole)).toBe(true);
    }
  });
});
