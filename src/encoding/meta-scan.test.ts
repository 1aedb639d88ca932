/**
 * The fast charset <meta> scan (MetaCharsetScanner) against the scan on parse5's tokenizer
 * (TokenizerMetaScanner), which it shadows (issue 23): the same result (encoding and end offset) on random heads
 * built from the constructs the fast scan reads or hands over (tags, odd quoting, metas, comments, doctypes,
 * raw text, script escapes, NUL, CR, character references, text across byte 1024), whole and in random chunks,
 * and on the 258 real pages of htmlparser-benchmark and the files of ../shared/corpus.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomChunks, seededRandom, CHUNK_SEED } from '../../test/helpers/chunks.ts';
import { MetaCharsetScanner, TokenizerMetaScanner } from './meta-scan.ts';
import type { MetaScanResult } from './meta-scan.ts';

/** The scan as src/html/stream.ts runs it: chunks, then the end of input if it has not decided. */
function scan(scanner: { write(raw: string, last: boolean): MetaScanResult | null }, chunks: readonly string[]): MetaScanResult {
  for (const chunk of chunks) {
    const found = scanner.write(chunk, false);
    if (found !== null) return found;
  }
  return scanner.write('', true)!;
}

/** How many characters had been written when the scanner answered (before the end of input), or Infinity. */
function writtenWhenDecided(scanner: { write(raw: string, last: boolean): MetaScanResult | null }, chunks: readonly string[]): number {
  let written = 0;
  for (const chunk of chunks) {
    written += chunk.length;
    if (scanner.write(chunk, false) !== null) return written;
  }
  return Infinity;
}

function expectSame(text: string, random: () => number, runs: number): void {
  const expected = scan(new TokenizerMetaScanner(), [text]);
  expect(scan(new MetaCharsetScanner(), [text])).toEqual(expected);
  for (let r = 0; r < runs; r++) {
    const chunks = randomChunks(text, random, 1 + Math.floor(random() * 300));
    expect(scan(new MetaCharsetScanner(), chunks)).toEqual(expected);
  }
}

const tagName = fc.constantFrom('meta', 'META', 'Meta', 'script', 'SCRIPT', 'style', 'title', 'textarea', 'link', 'base', 'noscript', 'object', 'html', 'head', 'body', 'div', 'p', 'br', 'iframe', 'xmp', 'noembed', 'noframes', 'plaintext', 'scr\0ipt', 'me\0ta', 'metа', 'mÉta', 'a');
const attrName = fc.constantFrom('charset', 'CHARSET', 'content', 'Content', 'http-equiv', 'HTTP-EQUIV', 'name', 'id', '"x', "'", '<', '=', 'char\0set', 'charset\0', 'a&b', 'É');
const attrValue = fc.oneof(
  fc.constantFrom('utf-8', 'UTF-8', 'iso-8859-2', 'windows-1251', 'shift_jis', 'utf-16le', 'x-user-defined', 'bogus', '', ' utf-8 ', 'content-type', 'Content-Type', 'text/html; charset=iso-8859-5', 'text/html;charset="koi8-r"', "charset='euc-kr'", 'charset = gbk;x', 'charset', 'charset=', 'utf&#45;8', 'text/html; charset&#61;big5', 'utf-8&amp;', '&#99;harset=iso-8859-7', 'content&#45;type', 'a\r\nb', 'charset=\r\nutf-8', 'utf-8\0', '>', '"', "'", '/', 'a b', 'x/>'),
  fc.string({ unit: fc.constantFrom('a', '-', '8', ' ', '"', "'", '>', '/', '=', '&', ';', '\r', '\n', '\0', 'é'), maxLength: 8 }),
);
const space = fc.constantFrom('', ' ', '\n', '\r\n', '\t', '\f', '\r', '  ');
const attribute = fc
  .tuple(attrName, fc.constantFrom('"', "'", '', 'none'), attrValue, space, space, space)
  .map(([name, quote, value, s1, s2, s3]) => (quote === 'none' ? `${s1}${name}` : `${s1 || ' '}${name}${s2}=${s3}${quote}${value}${quote}`));
const tag = fc
  .tuple(fc.boolean(), tagName, fc.array(attribute, { maxLength: 4 }), fc.constantFrom('>', '/>', ' />', ' / >', '/ x>', ''))
  .map(([end, name, attrs, close]) => `<${end ? '/' : ''}${name}${attrs.join('')}${close === '' ? '>' : close}`);
const metaAttribute = fc
  .tuple(fc.constantFrom('charset', 'content', 'http-equiv', 'CharSet'), fc.constantFrom('"', "'", ''), fc.constantFrom('', 'utf-8', 'koi8-r', 'content-type', 'text/html; charset=big5', 'x', '&#99;harset=gbk', 'utf&#45;8'))
  .map(([name, quote, value]) => ` ${name}=${quote}${value}${quote}`);
const metaCharset = fc
  .tuple(fc.constantFrom('meta', 'META'), fc.array(fc.oneof(metaAttribute, attribute), { maxLength: 3 }), fc.constantFrom('>', '/>'))
  .map(([name, attrs, close]) => `<${name}${attrs.join('')}${close}`);
const markup = fc.constantFrom(
  '<!---->', '<!-->', '<!--->', '<!-- x -->', '<!-- -- --!>', '<!-- <!-- -->', '<!--x--!-->', '<!-- --!->-->', '<!-- --->',
  '<!-- <meta charset=koi8-r> -->', '<!DOCTYPE html>', '<!doctype html PUBLIC "a>b">', '<!DOCTYPE>', '<!doc>', '<!>',
  '<![CDATA[x]]>', '<?xml version="1.0"?>', '<?>', '</>', '</ x>', '</3>', '< ', '<', '<<', 'a<b', '<!', '<!-', '</',
  '&', '&amp;', '&#0;', '&#32;', '&nbsp;', '\0', '\0\0', '\r', '\r\n', '\n', ' ', '\t', 'x', '-->', '--!>', '>', '"', "'",
  '</script>', '</style>', '</title>',
);
const rawText = fc
  .tuple(fc.constantFrom('script', 'style', 'title', 'textarea', 'xmp', 'SCRIPT'), fc.array(fc.constantFrom('x', ' ', '<', '</', '</scrip', '</script', '</script ', '</SCRIPT>', '</style>', '</title>', '</scripty>', '<!--', '-->', '<script>', '<script ', '</script>', '<meta charset=big5>', '\0', '\r\n', '&lt;', '-', '--', '<!-', '<!-->', '<!--->', '<scripts>', '<SCRIPT/', '<scrip>', '</scriptx', '</ script>', '</>', '<<', '--!>', '-- >'), { maxLength: 12 }), fc.constantFrom('</script>', '</style>', '</title >', '</textarea>', '</xmp/>', '</SCRIPT x=">">', ''))
  .map(([name, body, end]) => `<${name}>${body.join('')}${end}`);
const padding = fc.nat({ max: 1400 }).map((n) => ' abc\n\t'.repeat(Math.ceil(n / 6)).slice(0, n));
const latin1 = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 20 });
const head = fc.array(fc.oneof({ weight: 4, arbitrary: tag }, { weight: 2, arbitrary: metaCharset }, { weight: 3, arbitrary: markup }, { weight: 2, arbitrary: rawText }, { weight: 1, arbitrary: padding }, { weight: 1, arbitrary: latin1 }), { maxLength: 30 }).map((parts) => parts.join(''));

describe('MetaCharsetScanner: the same result as the scan on parse5 tokenizer', () => {
  it(`random heads, whole and in random chunks (seed ${CHUNK_SEED})`, () => {
    const random = seededRandom(CHUNK_SEED);
    fc.assert(
      fc.property(head, (text) => {
        expectSame(text, random, 3);
      }),
      { numRuns: 10000, seed: CHUNK_SEED },
    );
  });

  it('script text through the escaped and double escaped states', () => {
    const piece = fc.constantFrom('<!--', '-->', '->', '-', '--', '<script>', '<script ', '</script>', '</script/', '<meta charset=big5>', 'x', '<', '/', '>', '<!-', '<scripts>', '</scripts>', '<SCRIPT/', '</sc', 'ript>', '\0', '\r', '</script><meta charset=koi8-r>', '<!--><script>', '<!--<script>');
    const random = seededRandom(CHUNK_SEED);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16, size: 'max' }), (pieces) => {
        expectSame(`<script>${pieces.join('')}`, random, 1);
      }),
      { numRuns: 20000, seed: CHUNK_SEED },
    );
  });

  // The fast scan reads on after a tag outside the head (every token ending at or past byte 1024 ends the scan;
  // text reaching byte 1024 is parse5's), and holds a write that cannot end a token without searching it.
  const text = fc.oneof(
    fc.nat({ max: 1100 }).map((n) => 'word '.repeat(Math.ceil(n / 5)).slice(0, n)),
    fc.nat({ max: 1100 }).map((n) => 'x'.repeat(n)),
    fc.constantFrom(' ', 'a b', '\0', '&amp;', '\r\n', '<', '< b', '<3', 'a<', '<<', '>', '-', '-->', '/', '</'),
  );
  const body = fc
    .tuple(fc.constantFrom('<body>', '<p>', '</head>', '<div class="x">', '</html>', '<BR/>', '<meta charset=nope><b>'), fc.nat({ max: 1050 }), fc.array(fc.oneof({ weight: 3, arbitrary: text }, { weight: 3, arbitrary: tag }, { weight: 1, arbitrary: metaCharset }, { weight: 2, arbitrary: markup }, { weight: 2, arbitrary: rawText }), { maxLength: 16 }))
    .map(([leave, n, parts]) => `<head>${' '.repeat(n)}${leave}${parts.join('')}`);
  it('after a tag outside the head, whole, in random chunks and in small chunks', () => {
    const random = seededRandom(CHUNK_SEED);
    fc.assert(
      fc.property(body, (text) => {
        expectSame(text, random, 2);
        expect(scan(new MetaCharsetScanner(), randomChunks(text, random, 8))).toEqual(scan(new TokenizerMetaScanner(), [text]));
      }),
      { numRuns: 6000, seed: CHUNK_SEED },
    );
  });

  it('writes held without a search: a token whose ">" or "</" came in an earlier write, or comes across a join', () => {
    const piece = fc.constantFrom('x', ' ', 'abc def ', '-', '--', '>', '-->', '--!>', '<', '</', '/', '!', '<!', '<!-', '<!--', '<!-->', '<!--->', '<!>', '<!doctype', '<?', '"', "'", '=', '<a', '<meta', ' charset=koi8-r', '</style', '</script', '</title', '</noframes', 'e', '<b>', '<meta charset=big5>');
    const opener = fc.constantFrom('', '<head>', '<style>', '<script>', '<title>', '<noframes>', '<head><!--', '<head><meta x="', '<body>');
    const random = seededRandom(CHUNK_SEED);
    fc.assert(
      fc.property(opener, fc.array(piece, { maxLength: 20 }), fc.array(fc.nat({ max: 12 }), { minLength: 1, maxLength: 8 }), (open, pieces, sizes) => {
        const text = `${open}${pieces.join('')}`;
        // Chunks cut at the given sizes, so that a chunk without ">" or "</" often follows one that ends a token.
        const chunks: string[] = [];
        for (let i = 0, k = 0; i < text.length; k++) {
          const n = 1 + sizes[k % sizes.length]!;
          chunks.push(text.slice(i, i + n));
          i += n;
        }
        const expected = scan(new TokenizerMetaScanner(), [text]);
        expect(scan(new MetaCharsetScanner(), chunks)).toEqual(expected);
        expect(scan(new MetaCharsetScanner(), randomChunks(text, random, 6))).toEqual(expected);
        // Holding a write must not delay the answer: it comes no more than a few characters (the lookahead past
        // a token's end) after parse5's, fed the same chunks.
        expect(writtenWhenDecided(new MetaCharsetScanner(), chunks)).toBeLessThanOrEqual(writtenWhenDecided(new TokenizerMetaScanner(), chunks) + 16);
      }),
      { numRuns: 20000, seed: CHUNK_SEED },
    );
  });

  it('constructs longer than what the fast scan holds (parse5 reads on)', () => {
    const long = 'x- <b>\n'.repeat(50_000);
    const random = seededRandom(CHUNK_SEED);
    for (const text of [
      `<head><script><!-- ${long} --></script><meta charset=koi8-r>`,
      `<head><script>${long}</script><meta charset=koi8-r>`,
      `<head><meta content="${long}"><meta charset=koi8-r>`,
      `<head><!-- ${long} --><meta charset=koi8-r>`,
      `<head>${long}<meta charset=koi8-r>`,
      `<head>${long}`,
      `<head><title>${long}`,
      `<head><title>${long}</title><meta charset=koi8-r>`,
      `<head><title>${'a&amp b&#1234567 c &#x &lt\r\n</titl </title\r'.repeat(12_000)}</title ><meta charset=koi8-r>`,
      `<head><title>${'a&ampb&#1234567\0c&#x&lt\r\r\n</titl\f</title'.repeat(12_000)}`,
      `<head><style>${long}`,
      `<head><textarea>${'&#1 x\r\n'.repeat(60_000)}`,
      `<head><script>${'a<!- <b </scrip\t>'.repeat(20_000)}<!--`,
      `<head><script>${'a<!- <b </scrip\t>'.repeat(20_000)}`,
      `<head>${'a&#123 < b\r\n&amp'.repeat(20_000)}`,
      `<head>${'&'.repeat(300_000)} x`,
      // Held past HELD_CHARS at a write ending in "<!-" (65 slices of 4096), and escaped script text held whole.
      `<head><script>${'x '.repeat(133_112).slice(0, 266_223)}<!--<script></script><meta charset=koi8-r>`,
      `<head><script><!--<script>${'x '.repeat(150_000)}</script><meta charset=koi8-r>`,
      `<head><script>${'x '.repeat(50_000)}<!--<script>${'x '.repeat(150_000)}</script><meta charset=koi8-r>`,
    ]) {
      const slices: string[] = [];
      for (let i = 0; i < text.length; i += 4096) slices.push(text.slice(i, i + 4096));
      expect(scan(new MetaCharsetScanner(), slices)).toEqual(scan(new TokenizerMetaScanner(), [text]));
      expect(scan(new MetaCharsetScanner(), randomChunks(text, random, 20_000))).toEqual(scan(new TokenizerMetaScanner(), [text]));
    }
  });

  it('text dropped past what the fast scan holds, and a tag in the next write', () => {
    // 4096-char slices: the write ending at 266240 is the first to hold more than 256 KiB; the one ending at 20480
    // the first to hold more than DROP_CHARS (16 KiB).
    for (const at of [16_380, 16_400, 20_480, 20_500, 24_600, 266_240, 266_300, 268_000, 270_300, 272_000]) {
      for (const [open, end] of [['<head>', '<meta charset=koi8-r>'], ['<head><title>', '</title><meta charset=koi8-r>'], ['<head><style>', '</style ><meta charset=koi8-r>'], ['<head><script>', '</script><meta charset=koi8-r>']] as const) {
        const text = `${open}${'x '.repeat(at).slice(0, at - open.length)}${end}${'y '.repeat(5000)}`;
        const slices: string[] = [];
        for (let i = 0; i < text.length; i += 4096) slices.push(text.slice(i, i + 4096));
        expect(scan(new MetaCharsetScanner(), slices), `${open} ${at}`).toEqual({ encoding: 'KOI8-R', end: at + end.length });
        // Found by the fast scan as the slice holding it comes, not by parse5 at the end of input.
        expect(writtenWhenDecided(new MetaCharsetScanner(), slices), `${open} ${at}`).toBeLessThan(at + end.length + 4096);
      }
    }
  });

  it('each construct byte by byte', () => {
    fc.assert(
      fc.property(head, (text) => {
        const expected = scan(new TokenizerMetaScanner(), [text]);
        expect(scan(new MetaCharsetScanner(), Array.from(text))).toEqual(expected);
      }),
      { numRuns: 1000, seed: CHUNK_SEED },
    );
  });

  it('the 258 real pages of htmlparser-benchmark and the files of ../shared/corpus, as the stream slices them and in random chunks', () => {
    const dir = 'node_modules/htmlparser-benchmark/files';
    const files = readdirSync(dir).map((f) => join(dir, f));
    const walk = (d: string): void => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk('../shared/corpus');
    expect(files.length).toBeGreaterThan(258);
    const random = seededRandom(CHUNK_SEED);
    for (const file of files) {
      let bytes = readFileSync(file);
      if (file.endsWith('.gz')) bytes = gunzipSync(bytes);
      // The first MiB: what the stream scans at most (maxCharsetLookaheadBytes).
      const text = bytes.toString('latin1', 0, Math.min(bytes.length, 1 << 20));
      const slices: string[] = [];
      for (let i = 0; i < text.length; i += 4096) slices.push(text.slice(i, i + 4096));
      const expected = scan(new TokenizerMetaScanner(), slices);
      expect(scan(new MetaCharsetScanner(), slices), file).toEqual(expected);
      expect(scan(new MetaCharsetScanner(), randomChunks(text.slice(0, 20000), random, 2000)), file).toEqual(scan(new TokenizerMetaScanner(), [text.slice(0, 20000)]));
    }
  });
});
