/**
 * The fast runs (`withFastRuns`) move parse5's tokenizer over text, script, style, attribute values and comments
 * without a state step per code point. They must change nothing the rewriter sees: every tag, attribute value,
 * source location (line, column, offset), comment, text event and safe offset is the same as parse5 reading one
 * code point at a time — over the 258 real pages and inputs made to hit every edge (CR and CRLF, surrogates,
 * NUL, references, the 64 KiB buffer drop), whole and in seeded random chunks.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHUNK_SEED, randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { EDGES, LONG } from '../../test/helpers/tokenizer-cases.ts';
import { PARSE5, PARSE5_SLOW, comparable, driverEvents, rewriteWith } from '../../test/helpers/tokenizer-harness.ts';
import { TokenizerDriver } from './tokenizer-driver.ts';

/**
 * The fast driver, fed `chunks`, against parse5 reading one code point at a time, fed the same chunks: every
 * event with its lines and columns, comment text, and the safe offset after every chunk.
 */
function expectSameEvents(chunks: readonly string[]): void {
  const options = { lines: true, commentData: true };
  const fast = driverEvents(chunks, PARSE5, options).out;
  const slow = driverEvents(chunks, PARSE5_SLOW, options).out;
  // (Text is reported before the tag that follows it in both; in which chunk is parse5's choice of token splits.)
  expect(comparable(fast)).toEqual(comparable(slow));
  const safe = (lines: string[]): string[] => lines.filter((l) => l.startsWith('safe '));
  expect(safe(fast)).toEqual(safe(slow));
}

describe('fast runs: the tokenizer driver emits what parse5 emits reading code point by code point', () => {
  for (const [name, html] of Object.entries({ ...EDGES, ...LONG })) {
    it(`${name}: whole, one code unit at a time, and in random chunks (seed ${CHUNK_SEED})`, () => {
      expectSameEvents([html]);
      if (html.length < 1000) expectSameEvents(Array.from(html));
      const random = seededRandom(CHUNK_SEED);
      for (const max of html.length < 1000 ? [2, 7, 64] : [64, 4096, 30_000]) expectSameEvents(randomChunks(html, random, max));
    });
  }

  it('2000 random documents from the pieces that move the tokenizer between states, whole and in random chunks', () => {
    const pieces = [
      '<', '>', '/', '&', '"', "'", '=', '-', '!', '?', ' ', '\t', '\n', '\r', '\r\n', '\f', '\0', 'a', 'x y', '😀', '\uD800', '\uDC00',
      '<p>', '</p>', '<a href="', '<img src=', " title='", '<!--', '-->', '--!>', '<!', '<![CDATA[', ']]>', '&amp;', '&#x41;', '&#', '&copy', '&nosuch;',
      '<script>', '</script>', '<!-- <script>', '<style>', '</style>', '<textarea>', '</textarea>', '<title>', '</title>', '<plaintext>',
      '<xmp>', '</xmp>', '<svg>', '</svg>', '<math>', '<foreignObject>', '<!doctype html>', '</', 'text ', 'more words here ',
    ];
    const random = seededRandom(CHUNK_SEED);
    for (let n = 0; n < 2000; n++) {
      let html = '';
      const length = Math.floor(random() * 60);
      for (let i = 0; i < length; i++) html += pieces[Math.floor(random() * pieces.length)];
      expectSameEvents([html]);
      expectSameEvents(randomChunks(html, random, 1 + Math.floor(random() * 8)));
    }
  });

  it('the 258 real pages of htmlparser-benchmark, whole and in random chunks', () => {
    const dir = `${dirname(createRequire(import.meta.url).resolve('htmlparser-benchmark/package.json'))}/files/`;
    const files = readdirSync(dir).filter((f) => f.endsWith('.html')).sort();
    expect(files.length).toBe(258);
    const random = seededRandom(CHUNK_SEED);
    for (const file of files) {
      const html = readFileSync(dir + file, 'utf8');
      expectSameEvents([html]);
      expectSameEvents(randomChunks(html, random, 1 + Math.floor(random() * 4096)));
    }
  }, 300_000); // ~9 s alone; on a busy 2-core machine several times that

  // Streaming: parse5 drops parsed input only when it emits a token, so without the split in skipRun one long
  // run of text would be held whole (and copied at every chunk).
  for (const [name, open, close] of [['text', '<p>', '</p>'], ['<script>', '<script>', '</script>'], ['<textarea>', '<textarea>', '</textarea>'], ['<plaintext>', '<plaintext>', '']] as const) {
    it(`one 8 MiB run of ${name} is not held: the tokenizer's buffer stays under 256 KiB`, () => {
      let texts = 0;
      const driver = new TokenizerDriver({ onStartTag() {}, onEndTag() {}, onText: () => void texts++, onComment() {}, onDoctype() {}, onEof() {} });
      const held = (): number => (driver.tokenizer as unknown as { preprocessor: { html: string } }).preprocessor.html.length;
      let most = 0;
      driver.write(open, false);
      const chunk = 'abc def '.repeat(8 << 10); // 64 KiB, no line feed at a chunk's end (parse5 would emit a token there)
      for (let i = 0; i < 128; i++) {
        driver.write(chunk, false);
        most = Math.max(most, held());
      }
      driver.write(close, true);
      expect(most).toBeLessThan(256 << 10);
      expect(texts).toBeGreaterThan(0);
    });
  }
});

describe('a stack 64 or more deep (parse5 8.1 indexes it, and leaves the slot of an element removed from the middle free)', () => {
  // Found by review: the adoption agency freed an `<a>`'s slot above a table, and a <select> in the table reset the
  // insertion mode down the stack through the free slot ("reading 'namespaceURI'": the whole document was lost).
  it('a <select> in a table over a free slot is rewritten, with either tokenizer', () => {
    const html = readFileSync(new URL('../../test/fixtures/html/select-over-free-slot.html', import.meta.url), 'utf8');
    const fast = rewriteWith([html], 'fast');
    const slow = rewriteWith(randomChunks(html, seededRandom(CHUNK_SEED), 97), 'parse5');
    expect(fast.warnings.filter((w) => w.startsWith('threw'))).toEqual([]);
    expect(slow).toEqual(fast);
    expect(fast.out).not.toMatch(/href=m>/);
    expect(fast.out.match(/href=https:\/\/example\.com\/a\/b\/m>/g)).toHaveLength(6);
  });
});
