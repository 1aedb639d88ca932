import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import { chunkings } from '../../test/helpers/chunks.ts';
import { createXmlRewriter } from './stream.ts';
import type { XmlStreamOptions } from './stream.ts';

async function feed(chunks: readonly Buffer[], options: XmlStreamOptions): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of Readable.from(chunks, { objectMode: false }).pipe(createXmlRewriter(options))) out.push(c as Buffer);
  return Buffer.concat(out);
}

/** Rewrites whole, byte by byte and in random chunks: every way gives the same output, which is returned. */
async function rewrite(doc: string | Buffer, url: string, options: Partial<XmlStreamOptions> = {}): Promise<{ out: string; refs: ReferenceRecord[] }> {
  const input = typeof doc === 'string' ? Buffer.from(doc) : doc;
  let first: Buffer | null = null;
  let refs: ReferenceRecord[] = [];
  for (const chunks of chunkings(input, 6)) {
    const seen: ReferenceRecord[] = [];
    const out = await feed(chunks, { retrieval: { url }, ...options, onReference: (r) => seen.push(r) });
    if (first === null) {
      first = out;
      refs = seen;
    } else {
      expect(out.toString('latin1')).toBe(first.toString('latin1'));
      expect(seen).toEqual(refs);
    }
  }
  return { out: first!.toString('latin1'), refs };
}

describe('SVG documents (browser rules)', () => {
  const svg = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink" xml:base="http://other.example/">
<image x:href="a.png" href='b&amp;c.png'/><use href="#g"/><use href="s.svg#g"/><use href="doc.svg#g"/>
<style>rect { fill: url(p.svg#x) } @import "i.css";</style>
<style><![CDATA[ .a { background: url("c d.png") } ]]></style>
<rect style="fill:url(q.svg#y)" fill="url(#local)"/><a href="?q=1"><text>x</text></a>
<foreignObject><div xmlns="http://www.w3.org/1999/xhtml"><img src="f.png"/><a href="z">z</a></div></foreignObject>
<!-- <image href="comment.png"/> --><text>href="text.png"</text>
</svg>`;
  it('rewrites href, xlink:href (any prefix), style, <style> and XHTML in foreignObject; ignores xml:base', async () => {
    const { out, refs } = await rewrite(svg, 'https://ex.com/dir/doc.svg');
    expect(out).toBe(svg
      .replace('x:href="a.png"', 'x:href="https://ex.com/dir/a.png"')
      .replace("href='b&amp;c.png'", "href='https://ex.com/dir/b&amp;c.png'")
      .replace('"s.svg#g"', '"https://ex.com/dir/s.svg#g"')
      .replace('"doc.svg#g"', '"#g"')
      .replace('url(p.svg#x)', 'url(https://ex.com/dir/p.svg#x)')
      .replace('"i.css"', '"https://ex.com/dir/i.css"')
      .replace('url("c d.png")', 'url("https://ex.com/dir/c%20d.png")')
      .replace('url(q.svg#y)', 'url(https://ex.com/dir/q.svg#y)')
      .replace('"?q=1"', '"https://ex.com/dir/doc.svg?q=1"')
      .replace('"f.png"', '"https://ex.com/dir/f.png"')
      .replace('href="z"', 'href="https://ex.com/dir/z"'));
    // Same-document resource references stay fragments (Blink); text and comments are not markup.
    expect(out).toContain('<use href="#g"/>');
    expect(out).toContain('<use href="#g"/><use href="https://ex.com/dir/s.svg#g"/><use href="#g"/>');
    expect(out).toContain('comment.png');
    expect(refs.find((r) => r.raw === 'a.png')).toMatchObject({ element: 'image', attribute: 'x:href', line: 3, baseSource: 'retrieval' });
    expect(refs.find((r) => r.raw === 'p.svg#x')).toMatchObject({ element: 'style', attribute: null });
  });

  it('comes out byte-identical when nothing is relative, and with no base', async () => {
    const abs = `<svg xmlns="http://www.w3.org/2000/svg"><image href="https://x.example/a.png"/>\u00e9</svg>`;
    expect((await rewrite(abs, 'https://ex.com/a.svg')).out).toBe(Buffer.from(abs).toString('latin1'));
    const chunks = [[Buffer.from(svg)]];
    expect((await feed(chunks[0]!, {})).toString()).toBe(svg);
  });

  it('keeps invalid bytes and legacy encodings as they are', async () => {
    const doc = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="windows-1252"?><svg xmlns="http://www.w3.org/2000/svg"><text>\xe9\xff</text><image href="\xe9.png?\xe9"/></svg>', 'latin1')]);
    const { out } = await rewrite(doc, 'https://ex.com/a.svg');
    expect(out).toBe('<?xml version="1.0" encoding="windows-1252"?><svg xmlns="http://www.w3.org/2000/svg"><text>\xe9\xff</text><image href="https://ex.com/%C3%A9.png?%E9"/></svg>');
  });
});

describe('XHTML documents', () => {
  it('honours the first <base href>, resolving it against the document URL', async () => {
    const doc = `<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml" xml:base="http://ignored.example/"><head><link rel="stylesheet" href="s.css"/><base href="b/"/><base href="nope/"/></head><body><a href="x" style="background:url(y.png)">x</a><img srcset="a.png 1x, b.png 2x"/></body></html>`;
    const { out, refs } = await rewrite(doc, 'https://ex.com/a/p.xhtml');
    expect(out).toContain('<link rel="stylesheet" href="https://ex.com/a/b/s.css"/><base href="https://ex.com/a/b/"/><base href="https://ex.com/a/nope/"/>');
    expect(out).toContain('<a href="https://ex.com/a/b/x" style="background:url(https://ex.com/a/b/y.png)">');
    expect(out).toContain('srcset="https://ex.com/a/b/a.png 1x, https://ex.com/a/b/b.png 2x"');
    expect(refs.find((r) => r.raw === 'x')).toMatchObject({ baseSource: 'embedded', element: 'a', attribute: 'href' });
  });
});

describe('Atom and RSS feeds (xml:base at any level)', () => {
  it('resolves link, icon, escaped HTML, CDATA HTML and inline XHTML against each element’s xml:base', async () => {
    const doc = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/today/">
  <link href="/"/><icon>i.png</icon><id>tag:example.org,2026:feed</id>
  <entry xml:base="e/"><link rel="alternate" href="1"/>
   <content type="html" xml:base="c/">&lt;a href="x.html"&gt;x&lt;/a&gt; &lt;img src=&quot;y&amp;amp;z.png&quot;&gt;</content>
   <summary type="html"><![CDATA[<a href="s.html">s</a>]]></summary>
   <title type="text">&lt;a href="not-html"&gt;</title>
   <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="xh.html">x</a></div></content>
  </entry>
</feed>`;
    const { out } = await rewrite(doc, 'https://ex.com/feed.xml');
    expect(out).toContain('<link href="http://example.org/"/><icon>http://example.org/today/i.png</icon><id>tag:example.org,2026:feed</id>');
    expect(out).toContain('<link rel="alternate" href="http://example.org/today/e/1"/>');
    // A relative xml:base is written absolute (against its parent's base): an empty href still means it.
    expect(out).toContain('<entry xml:base="http://example.org/today/e/">');
    expect(out).toContain('<content type="html" xml:base="http://example.org/today/e/c/">');
    expect(out).toContain('&lt;a href="http://example.org/today/e/c/x.html"&gt;x&lt;/a&gt; &lt;img src=&quot;http://example.org/today/e/c/y&amp;amp;z.png&quot;&gt;');
    expect(out).toContain('<![CDATA[<a href="http://example.org/today/e/s.html">s</a>]]>');
    expect(out).toContain('&lt;a href="not-html"&gt;');
    expect(out).toContain('<a href="http://example.org/today/e/xh.html">');
  });

  it('RSS 2.0: link, comments, enclosure url, description HTML against the feed URL', async () => {
    const doc = `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><link>/home</link><atom:link rel="self" href="rss.xml"/><image><url>logo.png</url><link>/</link></image><item><title>/not-a-url</title><link> rel/1 </link><guid>rel/1</guid><comments>c?id=1&amp;x=2</comments><description>&lt;a href="d"&gt;d&lt;/a&gt;</description><content:encoded><![CDATA[<img src="e.png">]]></content:encoded><enclosure url="m.mp3" length="1" type="audio/mpeg"/></item></channel></rss>`;
    const { out } = await rewrite(doc, 'https://ex.com/a/rss.xml');
    expect(out).toBe(doc
      .replace('<link>/home', '<link>https://ex.com/home')
      .replace('href="rss.xml"', 'href="https://ex.com/a/rss.xml"')
      .replace('<url>logo.png', '<url>https://ex.com/a/logo.png')
      .replace('<link>/</link>', '<link>https://ex.com/</link>')
      .replace('<link> rel/1 ', '<link> https://ex.com/a/rel/1 ')
      .replace('<comments>c?id=1&amp;x=2', '<comments>https://ex.com/a/c?id=1&amp;x=2')
      .replace('href="d"', 'href="https://ex.com/a/d"')
      .replace('src="e.png"', 'src="https://ex.com/a/e.png"')
      .replace('url="m.mp3"', 'url="https://ex.com/a/m.mp3"'));
  });
});

describe('sitemaps', () => {
  it('loc, image:loc, video locations and xhtml:link alternates', async () => {
    const doc = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>/p?a=1&amp;b=2</loc><lastmod>2026-01-01</lastmod><xhtml:link rel="alternate" hreflang="de" href="/de/p"/>
<image:image><image:loc>i.jpg</image:loc></image:image><video:video><video:thumbnail_loc>t.jpg</video:thumbnail_loc><video:title>t.jpg</video:title></video:video></url>
</urlset>`;
    const { out, refs } = await rewrite(doc, 'https://ex.com/s/sitemap.xml');
    expect(out).toBe(doc.replace('/p?a=1', 'https://ex.com/p?a=1').replace('"/de/p"', '"https://ex.com/de/p"').replace('>i.jpg<', '>https://ex.com/s/i.jpg<').replace('>t.jpg</video:thumbnail_loc>', '>https://ex.com/s/t.jpg</video:thumbnail_loc>'));
    expect(refs.map((r) => [r.element, r.attribute])).toEqual([['loc', null], ['xhtml:link', 'href'], ['image:loc', null], ['video:thumbnail_loc', null]]);
  });

  it('a sitemap index', async () => {
    const doc = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>sitemap1.xml.gz</loc></sitemap></sitemapindex>`;
    expect((await rewrite(doc, 'https://ex.com/s/index.xml')).out).toContain('<loc>https://ex.com/s/sitemap1.xml.gz</loc>');
  });
});

describe('other XML and limits', () => {
  it('passes an unknown vocabulary through unchanged', async () => {
    const doc = `<?xml version="1.0"?><config><link href="x"/><loc>y</loc></config>`;
    expect((await rewrite(doc, 'https://ex.com/c.xml')).out).toBe(doc);
  });
  it('an entity declared in a DTD is left as it is, with a warning', async () => {
    const doc = `<rss><channel><link>&home;/x</link><link>y</link></channel></rss>`;
    const warnings: string[] = [];
    const out = await feed([Buffer.from(doc)], { retrieval: { url: 'https://ex.com/' }, onWarning: (w) => warnings.push(w.code) });
    expect(out.toString()).toBe(doc.replace('>y<', '>https://ex.com/y<'));
    expect(warnings).toEqual(['undecodable-value']);
  });
  it('maxTokenBytes: a tag longer than the limit passes the rest through; at the limit it is rewritten', async () => {
    const tag = (n: number): string => `<image href="a.png" title="${'x'.repeat(n)}"/>`;
    const mk = (n: number): string => `<svg xmlns="http://www.w3.org/2000/svg">${tag(n)}<image href="b.png"/></svg>`;
    const limit = 200;
    const base = tag(0).length;
    for (const [n, rewritten] of [[limit - base - 1, true], [limit - base + 40, false]] as const) {
      const warnings: string[] = [];
      const out = await feed([Buffer.from(mk(n))], { retrieval: { url: 'https://ex.com/' }, limits: { ...(await import('../limits.ts')).DEFAULT_LIMITS, maxTokenBytes: limit }, onWarning: (w) => warnings.push(w.code) });
      expect(out.toString().includes('https://ex.com/b.png'), String(n)).toBe(rewritten);
      expect(warnings.includes('token-limit')).toBe(!rewritten);
    }
  });
});

describe('encodings and the base lookahead', () => {
  it('Shift_JIS (XML declaration) and EUC-KR (transport charset): queries in the document encoding, other bytes as they were', async () => {
    const { encodeString } = await import('../encoding/codec.ts');
    const text = `<?xml version="1.0" encoding="Shift_JIS"?><svg xmlns="http://www.w3.org/2000/svg"><text>日本語</text><image href="画像.png?q=日本"/></svg>`;
    const sjis = Buffer.from(encodeString(text, 'Shift_JIS', { unencodable: 'html' }));
    const { out } = await rewrite(sjis, 'https://ex.com/a/b.svg');
    expect(Buffer.from(out, 'latin1').equals(Buffer.from(encodeString(text.replace('画像.png?q=日本', 'https://ex.com/a/%E7%94%BB%E5%83%8F.png?q=%93%FA%96{'), 'Shift_JIS', { unencodable: 'html' })))).toBe(true);
    const kr = `<rss><channel><link>한국?q=한</link></channel></rss>`;
    const euc = Buffer.from(encodeString(kr, 'EUC-KR', { unencodable: 'html' }));
    const r = await rewrite(euc, 'https://ex.com/', { charset: 'euc-kr' });
    expect(Buffer.from(r.out, 'latin1').equals(Buffer.from(encodeString(kr.replace('한국?q=한', 'https://ex.com/%ED%95%9C%EA%B5%AD?q=%C7%D1'), 'EUC-KR', { unencodable: 'html' })))).toBe(true);
  });

  it('UTF-16 passes through unchanged, with a warning', async () => {
    const doc = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><image href="a.png"/></svg>', 'utf16le')]);
    const warnings: string[] = [];
    const out = await feed([doc], { retrieval: { url: 'https://ex.com/' }, onWarning: (w) => warnings.push(w.code) });
    expect(out.equals(doc)).toBe(true);
    expect(warnings).toEqual(['encoding-not-rewritable']);
  });

  it('maxBaseLookaheadBytes: a <base> within the lookahead is honoured, one past it is reported and not honoured', async () => {
    const { DEFAULT_LIMITS } = await import('../limits.ts');
    const limit = 300;
    const mk = (pad: number): string => `<html xmlns="http://www.w3.org/1999/xhtml"><head><link href="s.css"/><!--${'x'.repeat(pad)}--><base href="/b/"/></head><body><a href="x">x</a></body></html>`;
    const prefix = mk(0).indexOf('<base');
    for (const [pad, honoured] of [[limit - prefix - 1, true], [limit - prefix + 1, false]] as const) {
      const warnings: string[] = [];
      for (const chunks of chunkings(Buffer.from(mk(pad)), 3)) {
        const out = (await feed(chunks, { retrieval: { url: 'https://ex.com/d/p.xhtml' }, limits: { ...DEFAULT_LIMITS, maxBaseLookaheadBytes: limit }, onWarning: (w) => warnings.push(w.code) })).toString();
        expect(out.includes('href="https://ex.com/b/x"'), `pad ${pad}`).toBe(honoured);
        expect(out.includes(honoured ? 'href="https://ex.com/b/s.css"' : 'href="https://ex.com/d/s.css"')).toBe(true);
      }
      expect(warnings.includes('base-href-after-commit')).toBe(!honoured);
    }
  });
});
