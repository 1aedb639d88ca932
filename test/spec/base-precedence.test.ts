/**
 * The base-precedence table (SPEC §2): every layer and combination, with the provenance each decision records.
 */
import { describe, expect, it } from 'vitest';
import { establishBase, headerUrlValue } from '../../src/base/index.ts';
import type { BaseLayers, BaseSource } from '../../src/base/index.ts';
import { browserResolver, rfc3986Resolver } from '../../src/uri/index.ts';

const retrieval = { url: 'http://retrieved.example/dir/page.html' };

interface Row {
  name: string;
  layers: BaseLayers;
  url: string | null;
  source: BaseSource;
  honour?: boolean;
}

const rows: Row[] = [
  { name: 'no layer at all: no base', layers: {}, url: null, source: 'none' },
  { name: 'fallback alone', layers: { fallback: 'thismessage:/' }, url: 'thismessage:/', source: 'fallback' },
  { name: 'retrieval over fallback', layers: { fallback: 'http://f/', retrieval }, url: retrieval.url, source: 'retrieval' },
  {
    name: "redirect chain: the final URL is the base",
    layers: { retrieval: { url: 'https://final.example/b/', redirects: ['http://start.example/a', 'https://mid.example/x'] } },
    url: 'https://final.example/b/',
    source: 'retrieval',
  },
  { name: 'embedded absolute <base href> over retrieval', layers: { retrieval, embedded: 'http://embedded.example/x/' }, url: 'http://embedded.example/x/', source: 'embedded' },
  { name: 'relative <base href> resolved against retrieval', layers: { retrieval, embedded: '../sub/' }, url: 'http://retrieved.example/sub/', source: 'embedded' },
  { name: 'relative <base href> resolved against Content-Location', layers: { retrieval, headers: { contentLocation: 'http://loc.example/a/b' }, embedded: 'c/' }, url: 'http://loc.example/a/c/', source: 'embedded' },
  { name: 'empty <base href> falls back to the layers beneath', layers: { retrieval, embedded: '' }, url: retrieval.url, source: 'retrieval' },
  { name: 'whitespace-only <base href> falls back', layers: { retrieval, embedded: ' \n ' }, url: retrieval.url, source: 'retrieval' },
  { name: 'data: <base href> falls back', layers: { retrieval, embedded: 'data:text/html,x' }, url: retrieval.url, source: 'retrieval' },
  { name: 'javascript: <base href> falls back', layers: { retrieval, embedded: 'JavaScript:alert(1)' }, url: retrieval.url, source: 'retrieval' },
  { name: 'unparseable <base href> falls back', layers: { retrieval, embedded: 'http://[oops/' }, url: retrieval.url, source: 'retrieval' },
  { name: 'relative <base href> with nothing beneath: no base', layers: { embedded: 'sub/' }, url: null, source: 'none' },
  { name: 'absolute <base href> with nothing beneath', layers: { embedded: 'http://e.example/' }, url: 'http://e.example/', source: 'embedded' },
  { name: 'Content-Location over retrieval (MIME)', layers: { retrieval, headers: { contentLocation: 'http://loc.example/p/q.html' } }, url: 'http://loc.example/p/q.html', source: 'content-location' },
  {
    name: 'Content-Base over Content-Location',
    layers: { retrieval, headers: { contentBase: 'http://cb.example/', contentLocation: 'http://cl.example/x' } },
    url: 'http://cb.example/',
    source: 'content-base',
  },
  {
    name: 'relative Content-Location resolved against the encapsulating base',
    layers: { encapsulating: establishBase({ headers: { contentLocation: 'http://outer.example/dir/index.html' } }), headers: { contentLocation: 'img/a.png' } },
    url: 'http://outer.example/dir/img/a.png',
    source: 'content-location',
  },
  {
    name: 'part without headers inherits the encapsulating base',
    layers: { encapsulating: establishBase({ headers: { contentBase: 'http://outer.example/base/' } }) },
    url: 'http://outer.example/base/',
    source: 'encapsulating',
  },
  {
    name: 'nested encapsulation: message/rfc822 inside multipart/related inside a fetched message',
    layers: {
      encapsulating: establishBase({
        encapsulating: establishBase({ retrieval, headers: { contentLocation: 'archive/' } }),
        headers: { contentLocation: 'msg/' },
      }),
      headers: { contentLocation: 'part.html' },
    },
    url: 'http://retrieved.example/dir/archive/msg/part.html',
    source: 'content-location',
  },
  { name: 'folded Content-Location with comments is unfolded', layers: { headers: { contentLocation: ' (loc)\r\n http://x.example/very/\r\n long/path.html (end)' } }, url: 'http://x.example/very/long/path.html', source: 'content-location' },
  { name: 'relative Content-Location with nothing beneath is ignored', layers: { headers: { contentLocation: 'a/b.html' } }, url: null, source: 'none' },
  { name: 'HTTP Content-Location is ignored by default', layers: { retrieval, headers: { contentLocation: '/other/', http: true } }, url: retrieval.url, source: 'retrieval' },
  { name: 'HTTP Content-Location honoured with the option', layers: { retrieval, headers: { contentLocation: '/other/', http: true } }, honour: true, url: 'http://retrieved.example/other/', source: 'content-location' },
  { name: 'HTTP Content-Base ignored by default', layers: { retrieval, headers: { contentBase: 'http://cb.example/', http: true } }, url: retrieval.url, source: 'retrieval' },
];

describe('base precedence', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const decision = establishBase(row.layers, { honourHttpContentLocation: row.honour === true });
    expect(decision.url).toBe(row.url);
    expect(decision.source).toBe(row.source);
  });

  it('first <base href> wins over a later one: the caller passes only the first', () => {
    // The HTML rewriter hands over the first base element with an href; a later one never reaches the model.
    const first = establishBase({ retrieval, embedded: 'http://first.example/' });
    expect(first.url).toBe('http://first.example/');
  });

  it('records provenance: raw value and the chain beneath', () => {
    const d = establishBase({ fallback: 'http://f.example/', retrieval: { url: 'http://r.example/a/', redirects: ['http://start.example/'] }, embedded: '../b/' });
    expect(d).toMatchObject({ source: 'embedded', raw: '../b/', url: 'http://r.example/b/' });
    expect(d.below).toMatchObject({ source: 'retrieval', url: 'http://r.example/a/', redirects: ['http://start.example/'] });
    expect(d.below?.below).toMatchObject({ source: 'fallback', url: 'http://f.example/' });
    expect(d.below?.below?.below).toBeNull();
  });

  it('says which layers it ignored and why', () => {
    const d = establishBase({ retrieval, headers: { contentLocation: '/x', http: true }, embedded: 'javascript:void 0' });
    expect(d.ignored.map((i) => i.source)).toEqual(['content-location', 'embedded']);
    expect(d.ignored[0]?.reason).toMatch(/RFC 9110/);
    expect(d.ignored[1]?.reason).toMatch(/javascript/);
  });

  it('resolves a relative <base href> in the document encoding', () => {
    const d = establishBase({ retrieval, embedded: 'x/?q=é' }, { encoding: 'windows-1252' });
    expect(d.url).toBe('http://retrieved.example/dir/x/?q=%E9');
  });

  it('uses the rfc3986 resolver when asked: thismessage:/ fallback (RFC 2557 §5(e))', () => {
    const d = establishBase({ fallback: 'thismessage:/', headers: { contentLocation: 'images/a.gif' } }, { resolver: rfc3986Resolver });
    expect(d).toMatchObject({ url: 'thismessage:/images/a.gif', source: 'content-location' });
    // The browser resolver gives the same answer for this hierarchical, non-special scheme.
    expect(establishBase({ fallback: 'thismessage:/', headers: { contentLocation: 'images/a.gif' } }, { resolver: browserResolver }).url).toBe('thismessage:/images/a.gif');
  });

  it('no base at all: references are left as they are', () => {
    const d = establishBase({});
    expect(d.url).toBeNull();
    // With no base, a relative reference has nothing to resolve against: the rewriters leave it as written.
    expect(browserResolver.isValidBase(d.url ?? '')).toBe(false);
  });
});

describe('header URL values', () => {
  it.each([
    ['http://x/a', 'http://x/a'],
    ['  "http://x/a"  ', 'http://x/a'],
    ['(comment) http://x/a (another)', 'http://x/a'],
    ['http://x/a_(b)', 'http://x/a_(b)'],
    ['http://x/very\r\n  /long', 'http://x/very/long'],
    ['http://x/very\n\t/long', 'http://x/very/long'],
    ['', ''],
  ])('%j → %j', (raw, value) => expect(headerUrlValue(raw)).toBe(value));
});
