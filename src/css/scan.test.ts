import { readdirSync, readFileSync, statSync } from 'node:fs';
import { TokenType, tokenizer } from '@csstools/css-tokenizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { sharedPath } from '../../test/helpers/shared.ts';
import { findCssUrls, mayHoldCssUrl, scanCss, scanCssFast, scanCssTokenized } from './rewrite-css.ts';

/** The cut as the stream found it before (a tokenizer pass of its own): after the last top-level `;` or `}`. */
function lastCutAlone(css: string): number {
  const t = tokenizer({ css });
  let depth = 0;
  let cut = 0;
  for (let token = t.nextToken(); token[0] !== TokenType.EOF; token = t.nextToken()) {
    const type = token[0];
    if (type === TokenType.OpenCurly || type === TokenType.OpenParen || type === TokenType.OpenSquare || type === TokenType.Function) depth++;
    else if (type === TokenType.CloseCurly || type === TokenType.CloseParen || type === TokenType.CloseSquare) {
      depth = Math.max(0, depth - 1);
      if (depth === 0 && type === TokenType.CloseCurly) cut = token[3] + 1;
    } else if (type === TokenType.Semicolon && depth === 0) cut = token[3] + 1;
  }
  return cut;
}

// Pieces of CSS that make or break URLs: names in any case and with escapes, strings, comments, blocks.
const PIECES = ['url(', 'URL(', 'uRl(', 'u\\72l(', '\\75rl(', 'url', 'src(', 'SRC(', 'image-set(', '-webkit-image-set(', 'Image-Set(', '@import ', '@IMPORT ', '@namespace ',
  '@im\\70ort ', 'ur', 'l(', 'sr', 'c(', 'import', 'a.png', ' ', '\n', '\r\n', '\f', '"x.css"', "'y.png'", '"', "'", '/*', '*/', '(', ')', '{', '}', '[', ']', ';', ',', '\\', '\\\n', 'b:', 'c', '1x', '#f', '\u00e9', '<!--', '-->'];

function randomCss(random: () => number): string {
  let css = '';
  const n = Math.floor(random() * 24);
  for (let i = 0; i < n; i++) css += PIECES[Math.floor(random() * PIECES.length)];
  return css;
}

/** Stylesheet-like text from the corpus: each file of the mail corpus cut into pieces of 4 KiB. */
function corpusCss(): string[] {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(`${dir}/${f}`).isDirectory() ? walk(`${dir}/${f}`) : [`${dir}/${f}`]));
  const pieces: string[] = [];
  for (const file of walk(sharedPath('corpus/mail'))) {
    const text = readFileSync(file, 'latin1');
    for (let i = 0; i < text.length; i += 4096) pieces.push(text.slice(i, i + 4096));
  }
  return pieces;
}

describe('scanCss: one tokenizer pass for the references and the cut', () => {
  const random = seededRandom(2026);
  const inputs = [...Array.from({ length: 4000 }, () => randomCss(random)), ...corpusCss()];

  it('skips only text that the tokenizer finds no reference in (the pre-check never hides one)', () => {
    let skipped = 0;
    let found = 0;
    for (const css of inputs) {
      for (const context of ['stylesheet', 'declarations'] as const) {
        const full = scanCss(css, { context }).references;
        expect(findCssUrls(css, { context }), JSON.stringify(css)).toEqual(full);
        if (!mayHoldCssUrl(css)) {
          expect(full, JSON.stringify(css)).toEqual([]);
          skipped++;
        }
        found += full.length;
      }
    }
    // Both paths are exercised: some inputs are skipped, and many references are found.
    expect(skipped).toBeGreaterThan(100);
    expect(found).toBeGreaterThan(1000);
  });

  it('gives the cut a pass of its own gave, and the references of the text before it', () => {
    let cuts = 0;
    for (const css of inputs) {
      const { references, cut } = scanCss(css, { context: 'stylesheet' });
      expect(cut, JSON.stringify(css)).toBe(lastCutAlone(css));
      if (cut > 0) cuts++;
      expect(references.filter((r) => r.end <= cut), JSON.stringify(css)).toEqual(scanCss(css.slice(0, cut), { context: 'stylesheet' }).references);
    }
    expect(cuts).toBeGreaterThan(100);
  });
});

describe('scanCssFast: the hand-written tokenizer gives what @csstools/css-tokenizer gives', () => {
  const random = seededRandom(2027);
  /** The pieces above and what the fast scan reads itself: numbers, dimensions, hashes, at-keywords, bad urls. */
  const MORE = [...PIECES, '1', '.5', '+2', '-3', '1e3', '1e', 'e-', '2E+1', '%', 'px', '-', '--', '-x', '#', '#1', '#-', '@', '@-', '@1', '<', '!', '*', '/', '+', '.', 'url( ', ' )', 'url(a b)', 'url(a"b)', 'url(()', '\u0000', '\u0001', '\u007f', '\t', '\ud83d\ude00', '\ud800', 'x', '_', 'A', '"a\nb"', "'\\'", '"\\f101"', '"\\41 "', '\\41\r\n', '"\\\r\n', "'\\\n", '\\0', '"\\', 'url(\\)', 'url("a\\"b")', "url('\\41 x')", '"\\110000"', '"\\d800"', '"\\0"', '"\\1F600"', '"\\\ud83d\ude00"', '"\u0000"', '"\ud83d"', '"\\41\r\n"', '"\\\f"', 'image-set("\\61"'];
  const randomPieces = (n: number): string => {
    let css = '';
    for (let i = 0; i < n; i++) css += MORE[Math.floor(random() * MORE.length)];
    return css;
  };
  const inputs = [...Array.from({ length: 20000 }, () => randomPieces(Math.floor(random() * 30))), ...corpusCss()];

  it('the same references and cut, whenever it answers; and it answers for most text', () => {
    let answered = 0;
    for (const css of inputs) {
      for (const context of ['stylesheet', 'declarations'] as const) {
        const fast = scanCssFast(css, { context });
        if (fast === null) continue;
        answered++;
        expect(fast, JSON.stringify(css)).toEqual(scanCssTokenized(css, { context }));
      }
    }
    expect(answered).toBeGreaterThan(inputs.length / 2);
  });

  it('the same on arbitrary strings (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...MORE.flatMap((p) => [...p]), 'u', 'r', 'l', '(', ')', '"', "'") , maxLength: 60 }), (css) => {
        const fast = scanCssFast(css);
        if (fast !== null) expect(fast).toEqual(scanCssTokenized(css));
      }),
      { numRuns: 20000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (css) => {
        const fast = scanCssFast(css);
        if (fast !== null) expect(fast).toEqual(scanCssTokenized(css));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('scanCssFast reads non-ASCII names and delims as @csstools/css-tokenizer does', () => {
  // Each side of every range of the standard's non-ASCII ident code points, and names, numbers, hashes and
  // at-keywords made of them.
  const NON_ASCII = ['\u0080', '\u00a0', '\u00b6', '\u00b7', '\u00b8', '\u00bf', '\u00c0', '\u00d6', '\u00d7', '\u00d8', '\u00f6', '\u00f7', '\u00f8', '\u037d', '\u037e', '\u037f',
    '\u1fff', '\u2000', '\u200b', '\u200c', '\u200d', '\u200e', '\u203e', '\u203f', '\u2040', '\u2041', '\u206f', '\u2070', '\u218f', '\u2190', '\u2bff', '\u2c00', '\u2fef', '\u2ff0',
    '\u3000', '\u3001', '\ud7ff', '\ue000', '\uf8ff', '\uf900', '\ufdcf', '\ufdd0', '\ufdef', '\ufdf0', '\ufeff', '\ufffd', '\ufffe', '\uffff', '\u00e9', '\u5fae\u8f6f', '\u00e2\u0080\u0094',
    '\ud83d\ude00', '\ud800', '\u0000'];
  const PARTS = [...NON_ASCII, 'url(', 'url(a', ')', '"b"', "'c'", 'src(', 'image-set(', '@import ', '@', '#', '-', '--', '1', '2px', 'a', 'x', ' ', ';', ':', '{', '}', '(', '/**/', '\\', 'e'];
  it('the same references and cut whenever it answers (property), and it answers for text without NUL, surrogates or escapes', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PARTS), { maxLength: 30 }), fc.constantFrom('stylesheet' as const, 'declarations' as const), (parts, context) => {
        const css = parts.join('');
        const fast = scanCssFast(css, { context });
        if (!/[\u0000\ud800-\udfff\\\\]/.test(css)) expect(fast, JSON.stringify(css)).not.toBeNull();
        if (fast === null) return;
        answered++;
        expect(fast, JSON.stringify(css)).toEqual(scanCssTokenized(css, { context }));
      }),
      { numRuns: 20000 },
    );
    expect(answered).toBeGreaterThan(10000);
  });

  it('a stylesheet with non-ASCII text outside strings, as real pages have it', () => {
    const css = 'blockquote small::before{content:\u00e2\u0080\u0094\u00c2\u00a0}p{font-family:\u5fae\u8f6f\u96c5\u9ed1;background:url(a\u00e9.png)}.\u00e9t\u00e9{b:url( "c.png" )}';
    const fast = scanCssFast(css);
    expect(fast).not.toBeNull();
    expect(fast).toEqual(scanCssTokenized(css));
    expect(fast!.references.map((r) => r.value)).toEqual(['a\u00e9.png', 'c.png']);
  });
});

describe('what one scan leaves for the next (the frame stack is shared; an empty result is one frozen array)', () => {
  it('a scan after a deeply nested one, and after one left open inside a function, finds what it finds alone', () => {
    const plain = 'a{b:url("c.png")image-set("d" 1x)}';
    const alone = scanCss(plain);
    for (const before of ['('.repeat(3000) + 'url("x")', '{'.repeat(1500) + 'src("y"', 'url("z"', '[image-set(']) {
      scanCssFast(before);
      scanCssTokenized(before);
      expect(scanCss(plain)).toEqual(alone);
      expect(scanCssFast(plain)).toEqual(scanCssTokenized(plain));
    }
    expect(alone.references.map((r) => r.value)).toEqual(['c.png', 'd']);
  });

  it("findCssUrls returns an array of the caller's own, also when it finds nothing", () => {
    const none = findCssUrls('url-less: src-less');
    expect(none).toEqual([]);
    none.push({ kind: 'url', value: 'x', start: 0, end: 1, line: 1, column: 1 });
    expect(findCssUrls('url-less: src-less')).toEqual([]);
    expect(scanCss('url-less').references).toEqual([]);
  });
});

describe('reference positions', () => {
  /** Line and column of `offset`, counted naively: CR LF, CR, FF and LF each end a line. */
  const naive = (css: string, offset: number): { line: number; column: number } => {
    const lines = css.slice(0, offset).split(/\r\n|\r|\n|\f/);
    return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
  };
  const newlines = ['\n', '\r\n', '\r', '\f'];

  it('line and column of every reference, whatever the line endings (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.constantFrom(...newlines)), { maxLength: 40 }), (pieces) => {
        const css = pieces.join('');
        for (const ref of scanCss(css).references) expect({ line: ref.line, column: ref.column }).toEqual(naive(css, ref.start));
      }),
      { numRuns: 5000 },
    );
  });
});
