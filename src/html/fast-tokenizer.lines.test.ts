/**
 * Lines and columns of the fast tokenizer's locations (fast-tokenizer.ts, SourceLocation), which are counted when
 * first read: read at once, later, after the input they were read from was let go (the driver keeps only what it
 * has not consumed after each write, and counts the lines of what it let go only when a later line is read, or
 * once 1 MiB of it is uncounted), and in any order, they are what an independent count of the whole input gives
 * (test/helpers/tokenizer-harness.ts lineError). Documents of LF, CR and CRLF (split between writes too), long
 * lines, tags the tree builder keeps (formatting elements) across those drops; whole and in random chunks. Then
 * the lines and columns the rewriter reports (references and warnings) against those it reports with parse5's
 * tokenizer, which counts every line as it reads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Token } from 'parse5';
import { randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { keepingStartTags, lineError, rewriteWith } from '../../test/helpers/tokenizer-harness.ts';
import type { Located } from '../../test/helpers/tokenizer-harness.ts';
import { FastTokenizerDriver } from './fast-tokenizer.ts';
import type { DriverHandler } from './tokenizer-driver.ts';

/** Pieces that hold line breaks of every kind where locations start, end and lie between. */
const PIECES = [
  '<a href="x.html">link</a>',
  '<a href="y.html">open link ',
  '<b>bold ',
  '</b>',
  '<i\r\nclass=c>',
  '<img\nsrc=a.png\r\nalt="a\nb"\r>',
  '<link rel=stylesheet\rhref="c.css">',
  '<p style="background:url(bg.png)">',
  '<div\r\n\r\n title="t\r\n">text\r\n</div>',
  '<!-- a\ncomment\r\n-->',
  '<style>\n p { background: url(s.png) }\r\n</style>',
  '<script>\nvar s = "</div>";\r\n</script>',
  '<table><tr><td>cell\n</td></tr></table>',
  '<form action="/f">\n<input type=image src=i.gif></form>',
  '\n',
  '\r',
  '\r\n',
  '\n\n\n',
  'plain text ',
  '<base href="https://other.example/">',
];

/** A line of `n` units (a long line, so that a location's column is large and a chunk ends inside it). */
const pad = (n: number): string => 'x'.repeat(n);

/**
 * A document made of pieces and pads, from a plan of [piece or -1 for a pad, pad length], repeated up to
 * `length` units or more (past the 64 KiB the driver keeps, for the longer ones).
 */
function documentOf(plan: ReadonlyArray<readonly [number, number]>, length: number): string {
  let html = '<!doctype html><html><body>\r\n';
  do for (const [piece, n] of plan) html += piece === -1 ? pad(n) : PIECES[piece]!;
  while (html.length < length);
  return html;
}

const plan = fc.array(fc.tuple(fc.integer({ min: -1, max: PIECES.length - 1 }), fc.integer({ min: 1, max: 9000 })), { minLength: 1, maxLength: 120, size: 'max' });
/** How long a document is made: short, or across one or a few of the driver's drops. */
const length = fc.constantFrom(0, 1000, 70_000, 300_000);

/**
 * Feeds `chunks` to the fast driver and reads lines: of some locations as their token comes (`readNow`), of
 * the rest once the input has ended, in a random order. The locations, for lineError.
 */
function readLines(chunks: readonly string[], random: () => number, readNow: number): Located[] {
  const locations: Located[] = [];
  const read = (l: Token.Location): void => {
    // Any field counts the location's lines; each is read.
    void (l.startLine + l.startCol + l.endLine + l.endCol);
  };
  const keep = (l: Token.Location | null | undefined, attribute: boolean): void => {
    if (!l) return;
    locations.push({ l, attribute });
    if (random() < readNow) read(l);
  };
  const tag = (t: Token.TagToken): void => {
    keep(t.location, false);
    const attrs = t.location?.attrs;
    if (attrs !== undefined) for (const name of Object.keys(attrs)) keep(attrs[name], true);
  };
  const handler: DriverHandler = {
    onStartTag: tag,
    onEndTag: tag,
    onText() {},
    onComment: (t) => keep(t.location, false),
    onDoctype: (t) => keep(t.location, false),
    onEof() {},
  };
  const driver = new FastTokenizerDriver(handler);
  for (const chunk of chunks) driver.write(chunk, false);
  driver.write('', true);
  const later = [...locations];
  for (let i = later.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [later[i], later[j]] = [later[j]!, later[i]!];
  }
  for (const { l } of later) read(l);
  return locations;
}

describe('lines and columns counted when read', () => {
  it('are those of an independent count, read at once, later or in any order, whole and in random chunks', () => {
    fc.assert(
      fc.property(plan, length, fc.integer(), fc.constantFrom(0, 0.1, 0.5, 1), (p, length, seed, readNow) => {
        const html = documentOf(p, length);
        const random = seededRandom(seed);
        const small = randomChunks(html, random, html.length < 2000 ? 7 : 700);
        for (const chunks of [[html], randomChunks(html, random, 1 + Math.floor(random() * 100_000)), small]) {
          const locations = readLines(chunks, random, readNow);
          expect(lineError(html, locations), `${chunks.length} chunks`).toBeNull();
        }
      }),
      { numRuns: 60, seed: 20261127 },
    );
  });

  it('are right read after more input was let go uncounted than the driver holds so (1 MiB), and read now and then', () => {
    const random = seededRandom(23);
    // (No formatting element, whose kept token would have its lines counted at every drop: PIECES from 5 on.)
    const plan = Array.from({ length: 60 }, () => [random() < 0.2 ? -1 : 5 + Math.floor(random() * (PIECES.length - 5)), 1 + Math.floor(random() * 300)] as const);
    const html = documentOf(plan, 2_600_000);
    for (const readNow of [0, 0.0005]) {
      const locations = readLines(randomChunks(html, random, 65_536), random, readNow);
      expect(lineError(html, locations), `read now ${readNow}`).toBeNull();
    }
  });

  it('hold at most 64 Lines uncounted when written in small pieces (a Lines a write)', () => {
    const random = seededRandom(29);
    const plan = Array.from({ length: 40 }, () => [random() < 0.2 ? -1 : 5 + Math.floor(random() * (PIECES.length - 5)), 1 + Math.floor(random() * 50)] as const);
    const html = documentOf(plan, 200_000);
    const driver = new FastTokenizerDriver({ onStartTag() {}, onEndTag() {}, onText() {}, onComment() {}, onDoctype() {}, onEof() {} });
    let longest = 0;
    for (const chunk of randomChunks(html, random, 200)) {
      driver.write(chunk, false);
      let chain = 0;
      for (let l = (driver as unknown as { lines: { before: unknown } }).lines; l.before !== null; l = l.before as typeof l) chain++;
      longest = Math.max(longest, chain);
    }
    driver.write('', true);
    expect(longest).toBeGreaterThan(10);
    expect(longest).toBeLessThanOrEqual(64);
  });

  it('of the tokens the tree builder keeps are counted before the input they were read from is let go', () => {
    // A formatting element's token stays in the list of active formatting elements: its location must not keep
    // the text of a dropped stretch alive (it is counted at the drop) and must still read right.
    const html = `<body><b>\r\n<a href="x">${`${pad(200)}\n`.repeat(1500)}</a></b>`;
    const kept: Token.TagToken[] = [];
    const driver = new FastTokenizerDriver(keepingStartTags(['b', 'a'], kept));
    const chunks = randomChunks(html, seededRandom(5), 65_536);
    for (const chunk of chunks.slice(0, -1)) driver.write(chunk, false);
    expect(kept.map((t) => t.tagName)).toEqual(['b', 'a']);
    const counted = (l: unknown): boolean => (l as { lines: unknown }).lines === null;
    expect(kept.every((t) => counted(t.location) && counted(t.location!.attrs?.['href'] ?? t.location))).toBe(true);
    driver.write(chunks.at(-1)!, true);
    const locations: Located[] = kept.flatMap((t) => [{ l: t.location!, attribute: false }, ...Object.values(t.location!.attrs ?? {}).map((l) => ({ l, attribute: true }))]);
    expect(lineError(html, locations)).toBeNull();
  });

  it('the rewriter reports the same lines and columns as with parse5 tokenizer, in random chunks', () => {
    // (No "&" in these documents: parse5 counts a CRLF after a character reference twice.)
    const bad = ['<a href="http://[bad">x</a>', '<img src="http://exa mple.com:99999/">', '<base href="/late/">'];
    fc.assert(
      fc.property(plan, length, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...bad)), { maxLength: 4 }), fc.integer(), (p, length, inserts, seed) => {
        let html = documentOf(p, length);
        for (const [at, piece] of inserts) {
          const i = html.indexOf('>', at % html.length) + 1;
          if (i > 0) html = html.slice(0, i) + piece + html.slice(i);
        }
        const reference = rewriteWith([html], 'parse5');
        const fast = rewriteWith(randomChunks(html, seededRandom(seed), 1 + (Math.abs(seed) % 80_000)), 'fast');
        expect(fast).toEqual(reference);
      }),
      { numRuns: 40, seed: 20261127 },
    );
  });
});
