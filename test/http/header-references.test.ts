/**
 * Issue 22 item 1: the references of HTTP header fields — every `Link` target and `anchor` (RFC 8288, its
 * Appendix B parsing algorithm and §3.5 examples), `Refresh` (the HTML standard's shared declarative refresh
 * steps), `Content-Location` — found with their byte spans and rewritten in place, every other byte unchanged.
 */
import { describe, expect, it } from 'vitest';
import { findHeaderReferences, parseLinkValue, rewriteHeaderReferences } from '../../src/http/header-references.ts';
import type { HeaderReferenceRecord } from '../../src/http/header-references.ts';
import { rfc3986Resolver } from '../../src/uri/rfc3986.ts';

const BASE = 'http://example.com/dir/page.html';

function rewrite(block: string | Buffer, base: string | null = BASE): { output: string; records: HeaderReferenceRecord[]; rewritten: number; warnings: string[] } {
  const records: HeaderReferenceRecord[] = [];
  const warnings: string[] = [];
  const r = rewriteHeaderReferences(typeof block === 'string' ? Buffer.from(block, 'latin1') : block, { base, onReference: (x) => records.push(x), onWarning: (w) => warnings.push(w.code) });
  return { output: r.output.toString('latin1'), records, rewritten: r.rewritten, warnings };
}

const values = (text: string): Array<[string, string | undefined, string | undefined]> =>
  parseLinkValue(text).map((l) => [l.target.value, l.anchor?.value, l.rel]);

describe('Link (RFC 8288)', () => {
  it('the examples of §3.5', () => {
    expect(values('<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter"')).toEqual([['http://example.com/TheBook/chapter2', undefined, 'previous']]);
    expect(values('</>; rel="http://example.net/foo"')).toEqual([['/', undefined, 'http://example.net/foo']]);
    expect(values('</terms>; rel="copyright"; anchor="#foo"')).toEqual([['/terms', '#foo', 'copyright']]);
    expect(values(`</TheBook/chapter2>; rel="previous"; title*=UTF-8'de'letztes%20Kapitel, </TheBook/chapter4>; rel="next"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel`)).toEqual([
      ['/TheBook/chapter2', undefined, 'previous'],
      ['/TheBook/chapter4', undefined, 'next'],
    ]);
    expect(values('<http://example.org/>; rel="start http://example.net/relation/other"')).toEqual([['http://example.org/', undefined, 'start http://example.net/relation/other']]);
  });

  it('quoted parameters with escapes, commas and semicolons inside; token values; the first of a repeated parameter', () => {
    expect(values('<a>; title="x, <b>; y"; rel=next, <c>;anchor=d;anchor="e";rel="x\\"y"')).toEqual([
      ['a', undefined, 'next'],
      ['c', 'd', 'x"y'],
    ]);
    expect(values('<a>;rel=next;;, ,<b>')).toEqual([['a', undefined, 'next'], ['b', undefined, undefined]]);
  });

  it('parsing stops at what is not a link (B.2 step 3.2 and 3.5), keeping the links before it', () => {
    expect(values('<a>, junk, <b>')).toEqual([['a', undefined, undefined]]);
    expect(values('<a>, <b')).toEqual([['a', undefined, undefined]]);
  });

  it('every target and anchor of several links in several fields is rewritten; the rest of the block is kept', () => {
    const block = [
      'HTTP/1.1 200 OK',
      'Content-Type: text/html',
      'Link: </style.css>; rel=preload; as=style, <../next>; rel="next"',
      'link:<terms>;rel=copyright;anchor="#foo" , <x.html> ; anchor = "../other.html" ; rel = "alternate"',
      'Link: <https://cdn.example.net/a.js>; rel=preload',
      'X-Other: <not/a/link>',
      '',
      '<body> <a href="ignored">',
    ].join('\r\n');
    const r = rewrite(block);
    expect(r.output).toBe(
      [
        'HTTP/1.1 200 OK',
        'Content-Type: text/html',
        'Link: <http://example.com/style.css>; rel=preload; as=style, <http://example.com/next>; rel="next"',
        'link:<http://example.com/dir/terms>;rel=copyright;anchor="#foo" , <http://example.com/dir/x.html> ; anchor = "http://example.com/other.html" ; rel = "alternate"',
        'Link: <https://cdn.example.net/a.js>; rel=preload',
        'X-Other: <not/a/link>',
        '',
        '<body> <a href="ignored">',
      ].join('\r\n'),
    );
    expect(r.rewritten).toBe(5);
    expect(r.records.map((x) => [x.attribute, x.raw, x.resolved, x.changed, x.rel, x.parameter, x.line])).toEqual([
      ['Link', '/style.css', 'http://example.com/style.css', true, 'preload', undefined, 3],
      ['Link', '../next', 'http://example.com/next', true, 'next', undefined, 3],
      ['Link', 'terms', 'http://example.com/dir/terms', true, 'copyright', undefined, 4],
      ['Link', '#foo', 'http://example.com/dir/page.html#foo', false, 'copyright', 'anchor', 4],
      ['Link', 'x.html', 'http://example.com/dir/x.html', true, 'alternate', undefined, 4],
      ['Link', '../other.html', 'http://example.com/other.html', true, 'alternate', 'anchor', 4],
      ['Link', 'https://cdn.example.net/a.js', 'https://cdn.example.net/a.js', false, 'preload', undefined, 5],
    ]);
    expect(r.records.every((x) => x.element === null && x.base === BASE && x.baseSource === 'retrieval')).toBe(true);
  });

  it('an unquoted anchor whose absolute form would end the token is written quoted', () => {
    const r = rewrite('Link: <a>; anchor=b; rel=x\r\n', 'http://h/p;q,r/s');
    expect(r.output).toBe('Link: <http://h/p;q,r/a>; anchor="http://h/p;q,r/b"; rel=x\r\n');
    // …and the result reads back as the same two URLs.
    expect(values(r.output.slice(6, -2))).toEqual([['http://h/p;q,r/a', 'http://h/p;q,r/b', 'x']]);
  });

  it('a quoted anchor with escapes is read unescaped and written escaped', () => {
    const r = rewrite('Link: <a>; anchor="x\\y\\"z"\r\n', 'http://h/d/?q');
    expect(r.records[1]!.raw).toBe('xy"z');
    expect(r.output).toBe('Link: <http://h/d/a>; anchor="http://h/d/xy%22z"\r\n');
  });
});

describe('Refresh (the shared declarative refresh steps)', () => {
  it.each([
    ['0; url=/moved', '0; url=http://example.com/moved'],
    ['5;URL=next.html', '5;URL=http://example.com/dir/next.html'],
    ['0, url = ../up', '0, url = http://example.com/up'],
    ["3; url='quoted page.html' ignored", "3; url='http://example.com/dir/quoted%20page.html' ignored"],
    ['0; "dq.html"', '0; "http://example.com/dir/dq.html"'],
    ['0; plain.html', '0; http://example.com/dir/plain.html'],
    ['0;url=https://elsewhere.example/', '0;url=https://elsewhere.example/'],
    ['0', '0'],
    ['10', '10'],
    ['x; url=/not-a-refresh', 'x; url=/not-a-refresh'],
  ])('%s', (value, expected) => {
    expect(rewrite(`Refresh: ${value}\r\n`).output).toBe(`Refresh: ${expected}\r\n`);
  });

  it('a single-quoted URL whose absolute form holds a quote is written in double quotes', () => {
    expect(rewrite("Refresh: 0; url='x'\r\n", "http://h/it's/").output).toBe('Refresh: 0; url="http://h/it\'s/x"\r\n');
  });

  it('agrees with the <meta http-equiv=refresh> parser on the URL', () => {
    const refs = findHeaderReferences(Buffer.from("Refresh: 1;  URL = 'a b' tail\r\n"));
    expect(refs.map((r) => r.value)).toEqual(['a b']);
  });
});

describe('Content-Location', () => {
  it('relative and absolute; whitespace around the value kept', () => {
    expect(rewrite('Content-Location:  en/page.html  \r\n').output).toBe('Content-Location:  http://example.com/dir/en/page.html  \r\n');
    expect(rewrite('Content-Location: http://other/x\r\n').output).toBe('Content-Location: http://other/x\r\n');
    expect(rewrite('Content-Location:\r\n').records).toEqual([]);
  });
});

describe('bytes', () => {
  it('a block with nothing to rewrite is the same buffer', () => {
    const block = Buffer.from('HTTP/1.1 200 OK\r\nLink: <http://a/>; rel=x\r\nContent-Type: text/html\r\n\r\n');
    expect(rewriteHeaderReferences(block, { base: BASE }).output).toBe(block);
  });

  it('LF-only lines, an obs-fold continuation, a header without a colon, and stopping at the empty line', () => {
    const block = 'HTTP/1.0 200 OK\nLink: <a>;\n  rel=next,\n\t<b>\ngarbage line\nRefresh: 0;url=c\n\nLink: <body-not-header>\n';
    expect(rewrite(block).output).toBe('HTTP/1.0 200 OK\nLink: <http://example.com/dir/a>;\n  rel=next,\n\t<http://example.com/dir/b>\ngarbage line\nRefresh: 0;url=http://example.com/dir/c\n\nLink: <body-not-header>\n');
  });

  it('a UTF-8 value is read and written as UTF-8; a Latin-1 one as Latin-1', () => {
    const utf8 = Buffer.from('Link: <café.html>; rel=x\r\nContent-Location: ü\r\n', 'utf8');
    const r = rewriteHeaderReferences(utf8, { base: BASE, resolver: rfc3986Resolver });
    expect(r.output.toString('utf8')).toBe('Link: <http://example.com/dir/café.html>; rel=x\r\nContent-Location: http://example.com/dir/ü\r\n');
    const browser = rewriteHeaderReferences(utf8, { base: BASE });
    expect(browser.output.toString('utf8')).toBe('Link: <http://example.com/dir/caf%C3%A9.html>; rel=x\r\nContent-Location: http://example.com/dir/%C3%BC\r\n');
    const latin1 = Buffer.from('Link: <caf\xe9.html>\r\n', 'latin1');
    expect(rewriteHeaderReferences(latin1, { base: BASE, resolver: rfc3986Resolver }).output).toEqual(Buffer.from('Link: <http://example.com/dir/caf\xe9.html>\r\n', 'latin1'));
  });

  it('spans are byte offsets into the block, with line and column', () => {
    const block = Buffer.from('HTTP/1.1 200 OK\r\nX: é\r\nLink: <é/a>, <b>\r\n', 'utf8');
    const refs = findHeaderReferences(block);
    expect(refs.map((r) => [block.subarray(r.start, r.end).toString('utf8'), r.line, r.column])).toEqual([
      ['é/a', 3, 8],
      ['b', 3, 16],
    ]);
  });

  it('no base: nothing changes, one no-base warning', () => {
    const r = rewrite('Link: <a>, <b>\r\n', null);
    expect(r.output).toBe('Link: <a>, <b>\r\n');
    expect(r.warnings).toEqual(['no-base']);
    expect(r.records.map((x) => x.resolved)).toEqual([null, null]);
  });
});
