/**
 * Bad input (issue "HTML and CSS", Done when): truncated tags, giant attributes, NUL bytes, broken entities,
 * invalid UTF-8, unparseable URLs — never a crash, never lost bytes, a warning with a stable code. Every case is
 * fed whole, byte by byte and in random chunks.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createHtmlRewriter } from '../../src/html/stream.ts';
import type { HtmlStreamOptions } from '../../src/html/stream.ts';
import type { HtmlWarning } from '../../src/html/rewriter.ts';
import { resolveLimits } from '../../src/limits.ts';
import { chunkings } from '../helpers/chunks.ts';

const retrieval = { url: 'http://example.com/d/page.html' };

/** Output and warning codes, asserting they are the same for every chunking. */
async function run(input: Buffer, options: HtmlStreamOptions = { retrieval }): Promise<{ output: Buffer; codes: string[] }> {
  let first: { output: Buffer; codes: string[] } | undefined;
  for (const chunks of chunkings(input, 3)) {
    const warnings: HtmlWarning[] = [];
    const stream = Readable.from(chunks, { objectMode: false }).pipe(createHtmlRewriter({ ...options, onWarning: (w) => warnings.push(w) }));
    const out: Buffer[] = [];
    for await (const c of stream) out.push(c as Buffer);
    const result = { output: Buffer.concat(out), codes: [...new Set(warnings.map((w) => w.code))].sort() };
    if (first === undefined) first = result;
    else {
      expect(result.output.toString('latin1')).toBe(first.output.toString('latin1'));
      expect(result.codes).toEqual(first.codes);
    }
  }
  return first!;
}

const bytes = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('bad input', () => {
  it('a tag truncated by the end of input passes through as it is', async () => {
    for (const tail of ['<a href="x', '<a href=x', '<img src="a.png" srcset="b.png 2x, c', '<a', '<!--<a href="x">']) {
      const r = await run(bytes(`<p><a href="ok">k</a>${tail}`));
      expect(r.output.toString('latin1')).toBe(`<p><a href="http://example.com/d/ok">k</a>${tail}`);
    }
    // A <style> still open at the end of input is a stylesheet Chromium applies (issue 19): its url( token, cut
    // by the end of input, is a URL all the same (CSS Syntax, "consume a url token": EOF ends it).
    const open = await run(bytes('<p><a href="ok">k</a><style>p{background:url(a'));
    expect(open.output.toString('latin1')).toBe('<p><a href="http://example.com/d/ok">k</a><style>p{background:url(http://example.com/d/a');
  });

  it('an attribute over the token limit passes through with a warning', async () => {
    const giant = 'x'.repeat(5000);
    const input = bytes(`<a href="a">1</a><a title="${giant}" href="b">2</a><a href="c">3</a>`);
    const r = await run(input, { retrieval, limits: resolveLimits({ maxTokenBytes: 1024 }) });
    expect(r.codes).toEqual(['token-limit']);
    // Rewriting stops at the giant tag: it and everything after it pass through as they are.
    expect(r.output.toString('latin1')).toBe(`<a href="http://example.com/d/a">1</a><a title="${giant}" href="b">2</a><a href="c">3</a>`);
  });

  it('NUL bytes are kept, in text and next to rewritten values', async () => {
    const r = await run(bytes('<p>\0</p><a href="x" title="\0">', [0], '<img src="i\0.png">'));
    expect(r.output.toString('latin1')).toBe('<p>\0</p><a href="http://example.com/d/x" title="\0">\0<img src="http://example.com/d/i%EF%BF%BD.png">');
  });

  it('broken character references decode as the HTML standard says, and only the URL changes', async () => {
    const r = await run(bytes('<a href="a&amp">1</a><a href="b&#xZZ;">2</a><a href="c&#99999999;">3</a><a href="d&;&#;">4</a>'));
    expect(r.output.toString('latin1')).toBe(
      '<a href="http://example.com/d/a&amp">1</a><a href="http://example.com/d/b&#xZZ;">2</a>' +
        '<a href="http://example.com/d/c%EF%BF%BD">3</a><a href="http://example.com/d/d&;&#;">4</a>',
    );
  });

  it('invalid UTF-8 is kept byte for byte; a value holding it is left as it is, with a warning', async () => {
    const input = bytes('<meta charset=utf-8><p>', [0xff, 0xc3], '</p><a href="x', [0xfe], '">a</a><a href="y">b</a>', [0x80]);
    const r = await run(input);
    expect(r.codes).toEqual(['undecodable-value']);
    expect(r.output).toEqual(bytes('<meta charset=utf-8><p>', [0xff, 0xc3], '</p><a href="x', [0xfe], '">a</a><a href="http://example.com/d/y">b</a>', [0x80]));
  });

  it('open elements past maxOpenElements: the rest passes through with a warning', async () => {
    const input = bytes(`<a href="a">1</a>${'<div>'.repeat(20)}<a href="b">2</a>`);
    const r = await run(input, { retrieval, limits: resolveLimits({ maxOpenElements: 16 }) });
    expect(r.codes).toEqual(['open-elements-limit']);
    // From the <div> that makes the stack (html, body, divs) longer than 16 on, every byte passes through.
    expect(r.output.toString('latin1')).toBe(`<a href="http://example.com/d/a">1</a>${'<div>'.repeat(20)}<a href="b">2</a>`);
    expect((await run(input, { retrieval, limits: resolveLimits({ maxOpenElements: 64 }) })).codes).toEqual([]);
  });

  it('an unparseable URL is left as it is, with a warning, and the rest is rewritten', async () => {
    const r = await run(bytes('<a href="//[::1">a</a><img src="http://example.com:99999/"><a href="z">'));
    expect(r.codes).toEqual(['unresolvable-reference']);
    expect(r.output.toString('latin1')).toBe('<a href="//[::1">a</a><img src="http://example.com:99999/"><a href="http://example.com/d/z">');
  });

  it('invalid JSON in an import map is left as it is, with a warning', async () => {
    const r = await run(bytes('<script type="importmap">{"imports": {"a": "./a.js",}}</script><a href="q">'));
    expect(r.codes).toEqual(['invalid-json']);
    expect(r.output.toString('latin1')).toBe('<script type="importmap">{"imports": {"a": "./a.js",}}</script><a href="http://example.com/d/q">');
  });
});

describe('streaming', () => {
  it('writes output before the input ends', async () => {
    const stream = createHtmlRewriter({ retrieval });
    const received: Buffer[] = [];
    stream.on('data', (c: Buffer) => received.push(c));
    stream.write(Buffer.from(`<!doctype html><html><head><title>t</title></head><body>${'<p><a href="x">x</a></p>\n'.repeat(200)}`));
    await new Promise((resolve) => setImmediate(resolve));
    const early = Buffer.concat(received).toString('latin1');
    expect(early).toContain('<body><p><a href="http://example.com/d/x">x</a></p>');
    stream.end('</body></html>');
    await new Promise((resolve) => stream.on('end', resolve));
  });
});

describe('undecodable bytes cost only the URL that holds them (issue 11)', () => {
  const utf8 = (s: string): number[] => [...Buffer.from(s, 'utf8')];

  it('a UTF-8 page labelled gb2312: every URL of <style>, style= and attributes is rewritten but one holding the bytes', async () => {
    // "中 " in UTF-8 is E4 B8 AD 20: E4 B8 is a GBK character, AD 20 is not (a trail byte is 0x40-0xFE).
    const css = ['.t{content:"', utf8('中 文'), '"} .a{background:url(a.png)} @import "b.css"; .c{background:url("', utf8('图 1.png'), '")}'];
    const input = bytes('<meta charset=gb2312><style>', ...css, '</style><p style="font-family:\'', utf8('宋 体'), '\';background:url(p.png)">', '<a href="ok.html" title="', utf8('标 题'), '">x</a>');
    const r = await run(input);
    expect(r.codes).toEqual(['undecodable-value']);
    expect(r.output).toEqual(
      bytes(
        '<meta charset=gb2312><style>', '.t{content:"', utf8('中 文'), '"} .a{background:url(http://example.com/d/a.png)} @import "http://example.com/d/b.css"; .c{background:url("', utf8('图 1.png'), '")}',
        '</style><p style="font-family:\'', utf8('宋 体'), '\';background:url(http://example.com/d/p.png)">', '<a href="http://example.com/d/ok.html" title="', utf8('标 题'), '">x</a>',
      ),
    );
  });

  it('a windows-1252 byte in a UTF-8 page: the rest of the CSS and of a srcset is rewritten, the byte stays', async () => {
    const input = bytes(
      '<meta charset=utf-8><style>.a{content:"caf', [0xe9], '"} .b{background:url(b.png)}</style>',
      '<p style="font-family:\'caf', [0xe9], '\';background:url(c.png)">',
      '<img srcset="x.png 1x, caf', [0xe9], '.png 2x" src="', [0xe9], '/i.png" alt="caf', [0xe9], '">',
      '<iframe srcdoc="<img src=\'caf', [0xe9], '.png\'><a href=\'s.html\'>"></iframe>',
    );
    const r = await run(input);
    expect(r.codes).toEqual(['undecodable-value']);
    expect(r.output).toEqual(
      bytes(
        '<meta charset=utf-8><style>.a{content:"caf', [0xe9], '"} .b{background:url(http://example.com/d/b.png)}</style>',
        '<p style="font-family:\'caf', [0xe9], '\';background:url(http://example.com/d/c.png)">',
        '<img srcset="http://example.com/d/x.png 1x, caf', [0xe9], '.png 2x" src="', [0xe9], '/i.png" alt="caf', [0xe9], '">',
        '<iframe srcdoc="<img src=\'caf', [0xe9], '.png\'><a href=\'http://example.com/d/s.html\'>"></iframe>',
      ),
    );
  });
});
