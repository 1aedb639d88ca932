/**
 * The fast tokenizer (fast-tokenizer.ts) against parse5's tokenizer, both driving parse5's tree builder: every
 * event the rewriter can read must be the same — tags (name, id, namespace, attributes with decoded values and
 * locations, self-closing, whether inserted, the stack depth after it), text before each tag, comments and
 * doctypes (extent, doctype fields), EOF — on html5lib-tests' tokenizer and tree-construction inputs, the 258
 * real pages, edge cases and random documents, whole, one unit at a time and in seeded random chunks. Then the
 * rewriter's output and link report, byte for byte, with either tokenizer.
 * (Comment data is not compared: the fast tokenizer does not build it, and nothing reads it.)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Token } from 'parse5';
import { CHUNK_SEED, randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { EDGES, LONG } from '../../test/helpers/tokenizer-cases.ts';
import { eventDifference, keepingStartTags, rewriteWith } from '../../test/helpers/tokenizer-harness.ts';
import { FastTokenizerDriver } from './fast-tokenizer.ts';
import { StackBuilder } from './tokenizer-driver.ts';

/**
 * The fast driver's events, fed `chunks`, against parse5's fed the whole input; then its lines and columns against
 * an independent count, and its safe offsets (test/helpers/tokenizer-harness.ts).
 */
function expectSameEvents(chunks: readonly string[]): void {
  expect(eventDifference(chunks), JSON.stringify(chunks.join(''))).toBeNull();
}

function check(html: string, random: () => number): void {
  expectSameEvents([html]);
  if (html.length < 400) expectSameEvents(Array.from(html));
  for (const max of html.length < 1000 ? [2, 7, 64] : [64, 4096, 30_000]) expectSameEvents(randomChunks(html, random, max));
}


describe('the fast tokenizer emits what parse5 emits', () => {
  for (const [name, html] of Object.entries({ ...EDGES, ...LONG })) {
    it(`${name}: whole, a unit at a time and in random chunks (seed ${CHUNK_SEED})`, () => {
      check(html, seededRandom(CHUNK_SEED));
    });
  }

  it('html5lib-tests tokenizer inputs', () => {
    const dir = new URL('../../../shared/conformance/html5lib-tests/tokenizer/', import.meta.url);
    const random = seededRandom(CHUNK_SEED);
    let n = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.test'))) {
      const json = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { tests?: Array<{ input: string; doubleEscaped?: boolean }> };
      for (const test of json.tests ?? []) {
        let input = test.input;
        if (test.doubleEscaped === true) input = input.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
        // In the data state, after a <script>, <style>, <title> and <textarea> (the tree builder's text modes).
        for (const prefix of ['', '<script>', '<style>', '<title>', '<svg>', '<plaintext>']) {
          expectSameEvents([prefix + input]);
          expectSameEvents(randomChunks(prefix + input, random, 5));
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(5000);
  }, 300_000);

  it('html5lib-tests tree-construction inputs', () => {
    const dir = new URL('../../../shared/conformance/html5lib-tests/tree-construction/', import.meta.url);
    const random = seededRandom(CHUNK_SEED);
    let n = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.dat'))) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const m of text.matchAll(/(?:^|\n)#data\n([\s\S]*?)\n#(?:errors|new-errors|document-fragment|script-off|script-on|document)/g)) {
        expectSameEvents([m[1]!]);
        expectSameEvents(randomChunks(m[1]!, random, 6));
        expectSameEvents(Array.from(m[1]!));
        n++;
      }
    }
    expect(n).toBeGreaterThan(1500);
  }, 300_000);

  it('4000 random documents from the pieces that move the tokenizer between states, whole and in random chunks', () => {
    const pieces = [
      '<', '>', '/', '&', '"', "'", '=', '-', '!', '?', ' ', '\t', '\n', '\r', '\r\n', '\f', '\0', 'a', 'x y', '😀', '\uD800', '\uDC00', ']]>', ']',
      '<p>', '</p>', '<a href="', '<img src=', " title='", '<!--', '-->', '--!>', '<!', '<![CDATA[', '&amp;', '&#x41;', '&#32;', '&#', '&copy', '&nosuch;',
      '<script>', '</script>', '<!-- <script>', '</script ', '<style>', '</style>', '<textarea>', '</textarea>', '<title>', '</title>', '<plaintext>',
      '<xmp>', '</xmp>', '<svg>', '</svg>', '<math>', '<mi>', '<foreignObject>', '<desc>', '<!doctype html>', '<!DOCTYPE', '</', 'text ', 'more words here ',
      '<table>', '<tr>', '<td>', '</table>', '<select>', '<option>', '<template>', '</template>', '<frameset>', '<noframes>', '<pre>', '<b>', '</b>', '<body>', '<head>',
    ];
    const random = seededRandom(CHUNK_SEED);
    for (let n = 0; n < 4000; n++) {
      let html = '';
      const length = Math.floor(random() * 60);
      for (let i = 0; i < length; i++) html += pieces[Math.floor(random() * pieces.length)];
      expectSameEvents([html]);
      expectSameEvents(randomChunks(html, random, 1 + Math.floor(random() * 8)));
    }
  }, 300_000);

  it('1500 pieces of the real pages, mutated (pieces of markup inserted, ranges cut and repeated), whole and in random chunks', () => {
    const dir = `${dirname(createRequire(import.meta.url).resolve('htmlparser-benchmark/package.json'))}/files/`;
    const pages = readdirSync(dir).filter((f) => f.endsWith('.html')).sort().map((f) => readFileSync(dir + f, 'latin1'));
    const pieces = ['<', '>', '</', '<!--', '-->', '--!>', '"', "'", '=', '&', '&amp;', '&#32;', '&#x0d;', '\r', '\r\n', '\0', '<script>', '</script>', '<!-- <script>', '<style>', '</style>', '<svg>', '</svg>', '<math>', '<![CDATA[', ']]>', '<textarea>', '<title>', '<plaintext>', '<table>', '<template>', '<select>', '<frameset>', '<!DOCTYPE html>', '/>', ' ', '\n'];
    const random = seededRandom(CHUNK_SEED + 1);
    const pick = (n: number): number => Math.floor(random() * n);
    for (let n = 0; n < 1500; n++) {
      const page = pages[pick(pages.length)]!;
      const start = pick(Math.max(1, page.length - 4000));
      let html = page.slice(start, start + 500 + pick(3500));
      for (let m = 1 + pick(12); m > 0; m--) {
        const at = pick(html.length + 1);
        const what = pick(3);
        if (what === 0) html = html.slice(0, at) + pieces[pick(pieces.length)] + html.slice(at);
        else if (what === 1) html = html.slice(0, at) + html.slice(at + pick(40));
        else html = html.slice(0, at) + html.slice(at, at + pick(60)) + html.slice(at);
      }
      expectSameEvents([html]);
      expectSameEvents(randomChunks(html, random, 1 + pick(300)));
    }
  }, 300_000);

  it('the 258 real pages of htmlparser-benchmark, whole and in random chunks', () => {
    const dir = `${dirname(createRequire(import.meta.url).resolve('htmlparser-benchmark/package.json'))}/files/`;
    const files = readdirSync(dir).filter((f) => f.endsWith('.html')).sort();
    expect(files.length).toBe(258);
    const random = seededRandom(CHUNK_SEED);
    for (const file of files) {
      const html = readFileSync(dir + file, 'latin1');
      expectSameEvents([html]);
      expectSameEvents(randomChunks(html, random, 1 + Math.floor(random() * 4096)));
    }
  }, 300_000);
});

describe('the fast tokenizer holds what is not yet tokenized, not what was', () => {
  for (const [name, open, close] of [['text', '<p>', '</p>'], ['<script>', '<script>', '</script>'], ['<textarea>', '<textarea>', '</textarea>'], ['<plaintext>', '<plaintext>', ''], ['a comment', '<!--', '-->']] as const) {
    it(`one 8 MiB run of ${name}: the buffer stays under 256 KiB, or under twice what one open token needs`, () => {
      let texts = 0;
      const driver = new FastTokenizerDriver({ onStartTag() {}, onEndTag() {}, onText: () => void texts++, onComment() {}, onDoctype() {}, onEof() {} });
      const held = (): number => (driver as unknown as { html: string }).html.length;
      let most = 0;
      driver.write(open, false);
      const chunk = 'abc def\n'.repeat(8 << 10); // 64 KiB
      for (let i = 0; i < 128; i++) {
        driver.write(chunk, false);
        most = Math.max(most, held());
      }
      driver.write(close, true);
      // A comment is one token: it is held whole until it ends (the rewriter stops at maxTokenBytes).
      if (name === 'a comment') expect(most).toBeLessThanOrEqual((8 << 20) + 16);
      else {
        expect(most).toBeLessThan(256 << 10);
        expect(texts).toBeGreaterThan(0);
      }
    });
  }
});

describe('the attribute values of the tokens the tree builder keeps', () => {
  it('are decoded and made their own when the input they were read from is let go, and read right after', () => {
    // A formatting element's token stays in the list of active formatting elements: its values are decoded when
    // read, from the input they were read from, until the driver lets that input go (then they are made their own,
    // `end` -2, holding no slice of it).
    const long = 'c'.repeat(40);
    const html = `<body><b class="${long}" title="a&amp;b\r\nc" id=x><a href="/a/${long}.html">${'text\n'.repeat(40_000)}</a></b>`;
    const kept: Token.TagToken[] = [];
    const driver = new FastTokenizerDriver(keepingStartTags(['b', 'a'], kept));
    const chunks = randomChunks(html, seededRandom(11), 65_536);
    for (const chunk of chunks.slice(0, -1)) driver.write(chunk, false);
    expect(kept.map((t) => t.tagName)).toEqual(['b', 'a']);
    expect(kept.flatMap((t) => t.attrs.map((a) => (a as unknown as { end: number }).end))).toEqual([-2, -2, -2, -2]);
    driver.write(chunks.at(-1)!, true);
    expect(kept.map((t) => t.attrs.map((a) => [a.name, a.value]))).toEqual([
      [['class', long], ['title', 'a&b\nc'], ['id', 'x']],
      [['href', `/a/${long}.html`]],
    ]);
  });
});

describe('the rewriter with the fast tokenizer writes what it writes with parse5', () => {
  it('the 258 real pages and the edge cases, whole and in random chunks', () => {
    const dir = `${dirname(createRequire(import.meta.url).resolve('htmlparser-benchmark/package.json'))}/files/`;
    const docs = [...readdirSync(dir).filter((f) => f.endsWith('.html')).sort().map((f) => readFileSync(dir + f, 'latin1')), ...Object.values(EDGES)];
    const random = seededRandom(CHUNK_SEED);
    let rewritten = 0;
    for (const html of docs) {
      const reference = rewriteWith([html], 'parse5');
      expect(rewriteWith([html], 'fast')).toEqual(reference);
      expect(rewriteWith(randomChunks(html, random, 1 + Math.floor(random() * 4096)), 'fast')).toEqual(reference);
      if (reference.out !== html) rewritten++;
    }
    expect(rewritten).toBeGreaterThan(200);
  }, 300_000);
});

describe('the walk over the tokens the tree builder keeps', () => {
  it('runs once per 64 KiB of input let go, not at every write (it costs the formatting elements open)', () => {
    // 40,000 open <b> (all kept: only identical tags count towards the Noah's Ark limit of three), in 64-unit writes.
    let html = '<body>';
    for (let i = 0; i < 40_000; i++) html += `<b id=${i}>`;
    html += 'text '.repeat(20_000);
    const walks = vi.spyOn(StackBuilder.prototype, 'keptTokens');
    try {
      const driver = new FastTokenizerDriver(keepingStartTags([], []));
      for (let i = 0; i < html.length; i += 64) driver.write(html.slice(i, i + 64), false);
      driver.write('', true);
      expect(walks.mock.calls.length).toBeGreaterThan(0);
      expect(walks.mock.calls.length).toBeLessThanOrEqual(Math.ceil(html.length / (1 << 16)));
    } finally {
      walks.mockRestore();
    }
  });
});
