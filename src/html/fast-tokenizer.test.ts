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
import { describe, expect, it } from 'vitest';
import { CHUNK_SEED, randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { EDGES, LONG } from '../../test/helpers/tokenizer-cases.ts';
import type { Location } from '../../test/helpers/tokenizer-cases.ts';
import { FastTokenizerDriver } from './fast-tokenizer.ts';
import { IDENTITY_CODEC } from './attribute-value.ts';
import { HtmlRewriteCore } from './rewriter.ts';
import type { ReferenceRecord } from './rewriter.ts';
import { TokenizerDriver } from './tokenizer-driver.ts';
import type { DriverHandler, TokenizerEngine } from './tokenizer-driver.ts';

/**
 * Where a location is, as offsets; its lines and columns are checked on their own (checkLines): parse5 counts a
 * CRLF twice after a character reference ("&\r\n") or when it waited for input between the two.
 */
function at(l: Location | null | undefined): string {
  return l ? `@${l.startOffset}-${l.endOffset}` : '-';
}

/** Line (from 1) and column (UTF-16 units from 1) of each offset of `input`; CRLF, CR and LF end a line. */
function linesOf(input: string): { line: Int32Array; col: Int32Array } {
  const line = new Int32Array(input.length + 2);
  const col = new Int32Array(input.length + 2);
  let l = 1;
  let start = 0;
  for (let i = 0; i <= input.length + 1; i++) {
    line[i] = l;
    col[i] = i - start + 1;
    const c = input.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && input.charCodeAt(i + 1) !== 0x0a)) {
      l++;
      start = i + 1;
    }
  }
  return { line, col };
}

/** A token's end is after its last character; an attribute's is the character after it. */
function checkLines(input: string, locations: Array<{ l: Location; attribute: boolean }>): void {
  const { line, col } = linesOf(input);
  for (const { l, attribute } of locations) {
    const where = `${JSON.stringify(input.slice(l.startOffset, l.endOffset))} at ${l.startOffset}`;
    expect([l.startLine, l.startCol], where).toEqual([line[l.startOffset], col[l.startOffset]]);
    const last = attribute ? l.endOffset : l.endOffset - 1;
    expect([l.endLine, l.endCol], where).toEqual([line[last], col[last]! + (attribute ? 0 : 1)]);
  }
}

type Engine = 'fast' | 'parse5';

/** Everything the rewriter can read from a driver, as lines; and whether each safe offset was safe. */
function events(chunks: readonly string[], engine: Engine): string[] {
  const out: string[] = [];
  const locations: Array<{ l: Location; attribute: boolean }> = [];
  const keep = (l: Location | null | undefined, attribute = false): Location | null | undefined => {
    if (l) locations.push({ l, attribute });
    return l;
  };
  let inText = false;
  let driver: TokenizerEngine;
  const tag = (kind: string) => (t: Parameters<DriverHandler['onStartTag']>[0], ns: string, inserted?: boolean): void => {
    inText = false;
    const attrs = t.attrs.map((a) => `${a.prefix === undefined ? '' : `${a.prefix}:`}${a.name}=${JSON.stringify(a.value)}${at(keep((t.location?.attrs as Record<string, Location> | undefined)?.[a.prefix === undefined ? a.name : `${a.prefix}:${a.name}`], true))}`);
    out.push(`${kind}${ns}:${t.tagName}#${t.tagID} ${at(keep(t.location))}${t.selfClosing ? ' /' : ''} ${attrs.join(' ')}${inserted === false ? ' ignored' : ''} [${driver.openElementCount()}${driver.inTemplate() ? ' template' : ''}]`);
  };
  const handler: DriverHandler = {
    onStartTag: tag('<'),
    onEndTag: tag('</'),
    onText: () => {
      if (!inText) out.push('text');
      inText = true;
    },
    onComment: (t) => {
      inText = false;
      out.push(`comment ${at(keep(t.location))}`);
    },
    onDoctype: (t) => {
      inText = false;
      out.push(`doctype ${JSON.stringify([t.name, t.publicId, t.systemId, t.forceQuirks])} ${at(keep(t.location))}`);
    },
    onEof: () => out.push('eof'),
  };
  driver = engine === 'fast' ? new FastTokenizerDriver(handler) : new TokenizerDriver(handler);
  let safe = 0;
  for (const chunk of chunks) {
    driver.write(chunk, false);
    // The safe offset never goes back; what came before it is complete (checked against the final events below).
    const now = driver.safeOffset();
    expect(now).toBeGreaterThanOrEqual(safe);
    safe = now;
    out.push(`safe ${safe}`);
  }
  driver.write('', true);
  if (engine === 'fast') checkLines(chunks.join(''), locations);
  return out;
}

/**
 * The fast driver's events, fed `chunks`, against parse5's fed the whole input (parse5's line numbers can
 * depend on where chunks end: a line feed read again after the tokenizer waited for input is counted twice).
 * Safe offsets differ (each says "complete before here" at its own points): each fast one must lie at or before
 * the start of every token emitted after it.
 */
function expectSameEvents(chunks: readonly string[]): void {
  const fast = events(chunks, 'fast');
  const reference = events([chunks.join('')], 'parse5');
  const strip = (lines: string[]): string[] => lines.filter((l) => !l.startsWith('safe ')).filter((l, i, all) => l !== 'text' || all[i - 1] !== 'text');
  expect(strip(fast), JSON.stringify(chunks.join(''))).toEqual(strip(reference));
  let safe = 0;
  for (const line of fast) {
    if (line.startsWith('safe ')) safe = Number(line.slice(5));
    else {
      const m = /@(\d+)-/.exec(line);
      if (m !== null) expect(Number(m[1]), line).toBeGreaterThanOrEqual(safe);
    }
  }
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

/** The rewriter's output and report with the given tokenizer. */
function rewrite(chunks: readonly string[], tokenizer: Engine): { out: string; refs: ReferenceRecord[]; warnings: string[] } {
  let out = '';
  const refs: ReferenceRecord[] = [];
  const warnings: string[] = [];
  const core = new HtmlRewriteCore(
    { retrieval: { url: 'https://example.com/a/b/page.html' }, onReference: (r) => refs.push(r), onWarning: (w) => warnings.push(`${w.code} ${w.line ?? ''}:${w.column ?? ''}`) },
    IDENTITY_CODEC,
    (raw) => {
      out += raw;
    },
    { tokenizer },
  );
  for (const c of chunks) core.write(c);
  core.end();
  return { out, refs, warnings };
}

describe('the rewriter with the fast tokenizer writes what it writes with parse5', () => {
  it('the 258 real pages and the edge cases, whole and in random chunks', () => {
    const dir = `${dirname(createRequire(import.meta.url).resolve('htmlparser-benchmark/package.json'))}/files/`;
    const docs = [...readdirSync(dir).filter((f) => f.endsWith('.html')).sort().map((f) => readFileSync(dir + f, 'latin1')), ...Object.values(EDGES)];
    const random = seededRandom(CHUNK_SEED);
    let rewritten = 0;
    for (const html of docs) {
      const reference = rewrite([html], 'parse5');
      expect(rewrite([html], 'fast')).toEqual(reference);
      expect(rewrite(randomChunks(html, random, 1 + Math.floor(random() * 4096)), 'fast')).toEqual(reference);
      if (reference.out !== html) rewritten++;
    }
    expect(rewritten).toBeGreaterThan(200);
  }, 300_000);
});
