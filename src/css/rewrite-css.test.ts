import { tokenize, TokenType } from '@csstools/css-tokenizer';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { findCssUrls, isFragmentOnly, replacementText, rewriteCss, serializeCssUrl } from './index.ts';
import type { CssUrlReference } from './index.ts';

const BASE = 'https://example.com/dir/';
const absolutize = (value: string): string => new URL(value, BASE).href;

/** [kind, value, source text] of each reference, the shape most tests compare. */
function refs(css: string, context?: 'stylesheet' | 'declarations'): Array<[CssUrlReference['kind'], string, string]> {
  return findCssUrls(css, context === undefined ? {} : { context }).map((r) => [r.kind, r.value, css.slice(r.start, r.end)]);
}

function rewrite(css: string, context?: 'stylesheet' | 'declarations'): string {
  return rewriteCss(css, absolutize, context === undefined ? {} : { context }).css;
}

describe('url()', () => {
  test.each([
    ['url(foo.png)', 'foo.png', 'url(https://example.com/dir/foo.png)'],
    ['url(  foo.png  )', 'foo.png', 'url(  https://example.com/dir/foo.png  )'],
    ['URL(foo.png)', 'foo.png', 'URL(https://example.com/dir/foo.png)'],
    ['uRl(foo.png)', 'foo.png', 'uRl(https://example.com/dir/foo.png)'],
    ['u\\72l(foo.png)', 'foo.png', 'u\\72l(https://example.com/dir/foo.png)'],
    ['url(\n\tfoo.png\r\n)', 'foo.png', 'url(\n\thttps://example.com/dir/foo.png\r\n)'],
    ['url(a\\)b)', 'a)b', 'url(https://example.com/dir/a\\)b)'],
    ['url(\\66oo)', 'foo', 'url(https://example.com/dir/foo)'],
    ['url(\\000066 oo)', 'foo', 'url(https://example.com/dir/foo)'],
    ['url(a\\ b)', 'a b', 'url(https://example.com/dir/a%20b)'],
    ['url(\\41 )', 'A', 'url(https://example.com/dir/A )'],
  ])('unquoted %j', (css, value, expected) => {
    expect(findCssUrls(css)).toEqual([{ kind: 'url', value, start: 0, end: css.length, line: 1, column: 1 }]);
    expect(rewrite(css)).toBe(expected);
  });

  test.each([
    ['url("foo.png")', 'foo.png', '"foo.png"', 'url("https://example.com/dir/foo.png")'],
    ["url('foo.png')", 'foo.png', "'foo.png'", "url('https://example.com/dir/foo.png')"],
    ["url( 'x y' )", 'x y', "'x y'", "url( 'https://example.com/dir/x%20y' )"],
    ['URL("foo")', 'foo', '"foo"', 'URL("https://example.com/dir/foo")'],
    ['url("a\\"b")', 'a"b', '"a\\"b"', 'url("https://example.com/dir/a%22b")'],
    ['url("\\66 oo")', 'foo', '"\\66 oo"', 'url("https://example.com/dir/foo")'],
    ['url("a\\\nb")', 'ab', '"a\\\nb"', 'url("https://example.com/dir/ab")'],
    ['url("a" x)', 'a', '"a"', 'url("https://example.com/dir/a" x)'],
  ])('quoted %j', (css, value, token, expected) => {
    expect(refs(css)).toEqual([['url', value, token]]);
    expect(rewrite(css)).toBe(expected);
  });

  test('value is unescaped but not whitespace-trimmed', () => {
    expect(refs('url(" a ")')).toEqual([['url', ' a ', '" a "']]);
    expect(refs('url(\\20 a\\20)')).toEqual([['url', ' a ', 'url(\\20 a\\20)']]);
  });

  test('only the first string of url() is the URL', () => {
    expect(refs('url("a" "b")')).toEqual([['url', 'a', '"a"']]);
  });

  test('inside declarations, shorthands and nested functions', () => {
    const css = 'a { background: #fff url(a.png) no-repeat, linear-gradient(red, blue); cursor: url("c.cur"), auto }\n'
      + 'b { --bg: url(v.png); mask: var(--m, url(m.svg)) }';
    expect(refs(css).map((r) => r[1])).toEqual(['a.png', 'c.cur', 'v.png', 'm.svg']);
  });
});

describe('@import', () => {
  test.each([
    ['@import "x.css";', [['import', 'x.css', '"x.css"']]],
    ["@import 'x.css' screen;", [['import', 'x.css', "'x.css'"]]],
    ['@IMPORT "x.css";', [['import', 'x.css', '"x.css"']]],
    ['@import /* c */ "x.css";', [['import', 'x.css', '"x.css"']]],
    ['@import url(x.css) screen;', [['url', 'x.css', 'url(x.css)']]],
    ['@import url("x.css") layer(l) supports(content: "no") screen;', [['url', 'x.css', '"x.css"']]],
    ['@import "x.css" supports(content: "no");', [['import', 'x.css', '"x.css"']]],
  ])('%j', (css, expected) => {
    expect(refs(css)).toEqual(expected);
  });

  test('rewrite keeps the rest of the rule', () => {
    expect(rewrite('@import "x.css" screen;\n@import url(y.css);')).toBe(
      '@import "https://example.com/dir/x.css" screen;\n@import url(https://example.com/dir/y.css);',
    );
  });

  test('a string after the rule ends is not an import', () => {
    expect(refs('@import url(a.css); a { content: "b" }')).toEqual([['url', 'a.css', 'url(a.css)']]);
    expect(refs('@import; "b"')).toEqual([]);
  });

  test('@import is only an at-rule of the top level', () => {
    expect(refs('@media screen { @import "x.css"; }')).toEqual([]);
    expect(refs('@media screen { @import url(x.css); }')).toEqual([['url', 'x.css', 'url(x.css)']]);
  });
});

describe('image-set()', () => {
  test('strings and url() inside image-set', () => {
    const css = 'a { background-image: image-set("a.png" 1x, url(b.png) 2x, url("c.png") 3x) }';
    expect(refs(css)).toEqual([
      ['image-set', 'a.png', '"a.png"'],
      ['url', 'b.png', 'url(b.png)'],
      ['url', 'c.png', '"c.png"'],
    ]);
    expect(rewrite(css)).toBe(
      'a { background-image: image-set("https://example.com/dir/a.png" 1x, url(https://example.com/dir/b.png) 2x, '
        + 'url("https://example.com/dir/c.png") 3x) }',
    );
  });

  test('-webkit-image-set, any case', () => {
    expect(refs("-webkit-image-set('a.png' 1x, 'b.png' 2x) IMAGE-SET('c.png')")).toEqual([
      ['image-set', 'a.png', "'a.png'"],
      ['image-set', 'b.png', "'b.png'"],
      ['image-set', 'c.png', "'c.png'"],
    ]);
  });

  test('type() strings are MIME types, not URLs', () => {
    expect(refs('image-set("a.avif" type("image/avif"), "a.png" type("image/png"))').map((r) => r[1])).toEqual(['a.avif', 'a.png']);
  });

  test('strings in nested functions are not image-set URLs', () => {
    expect(refs('image-set(linear-gradient(red, blue) 1x, attr(data-x "fallback") 2x)')).toEqual([]);
  });

  test('a function name that only lowercases to image-set with Unicode rules is not image-set', () => {
    // U+212A KELVIN SIGN lowercases to "k" with String#toLowerCase.
    expect(refs('-webi\u212At-image-set("a.png")')).toEqual([]);
  });
});

describe('@font-face and src()', () => {
  test('the src descriptor holds ordinary url()s; format() and local() strings are not URLs', () => {
    const css = '@font-face { font-family: "F"; src: local("F Bold"), url(f.woff2) format("woff2"), url("f.woff") format("woff") }';
    expect(refs(css)).toEqual([
      ['url', 'f.woff2', 'url(f.woff2)'],
      ['url', 'f.woff', '"f.woff"'],
    ]);
  });

  test('the src() function (CSS Values 4)', () => {
    const css = '@font-face { src: src("f.woff") format("woff"), SRC(\'g.woff\') }';
    expect(refs(css)).toEqual([
      ['src', 'f.woff', '"f.woff"'],
      ['src', 'g.woff', "'g.woff'"],
    ]);
    expect(rewrite(css)).toBe('@font-face { src: src("https://example.com/dir/f.woff") format("woff"), SRC(\'https://example.com/dir/g.woff\') }');
  });

  test('src() with var() is not a string', () => {
    expect(refs('a { b: src(var(--u)) }')).toEqual([]);
  });
});

describe('not URLs', () => {
  test('@namespace never', () => {
    const css = '@namespace svg url(http://www.w3.org/2000/svg);\n@namespace url(ns);\n@namespace x url("ns");\n@NAMESPACE "ns";\n'
      + 'a { b: url(real.png) }';
    expect(refs(css)).toEqual([['url', 'real.png', 'url(real.png)']]);
    expect(rewrite(css)).toBe(css.replace('real.png', 'https://example.com/dir/real.png'));
  });

  test('strings elsewhere and comments', () => {
    const css = 'a::before { content: "a.png" } /* url(b.png) @import "c.css"; */ q { quotes: "\'" "url(d)" }';
    expect(refs(css)).toEqual([]);
    expect(rewrite(css)).toBe(css);
  });

  test('identifiers that merely contain url', () => {
    expect(refs('a { b: myurl(x) url-prefix(y) urlx("z") }')).toEqual([]);
  });
});

describe('fragment-only references', () => {
  test('are reported; the callback decides', () => {
    const css = 'path { fill: url(#grad); clip-path: url("#c") } a { b: url(x.svg#i) }';
    expect(refs(css).map((r) => r[1])).toEqual(['#grad', '#c', 'x.svg#i']);
    const out = rewriteCss(css, (value) => (isFragmentOnly(value) ? null : absolutize(value)));
    expect(out.css).toBe('path { fill: url(#grad); clip-path: url("#c") } a { b: url(https://example.com/dir/x.svg#i) }');
    expect(out.references.map((r) => r.changed)).toEqual([false, false, true]);
  });

  test.each([
    ['#a', true],
    ['#', true],
    ['a#b', false],
    [' #a', false],
    ['', false],
  ])('isFragmentOnly(%j) = %j', (value, expected) => {
    expect(isFragmentOnly(value)).toBe(expected);
  });
});

describe('positions', () => {
  test('offsets are UTF-16 code units; lines count LF, CR LF, CR and FF', () => {
    const css = '/*😀*/\r\na{}\rb{}\fc{}\n  d { e: url(x) }';
    const [ref] = findCssUrls(css);
    expect(ref).toMatchObject({ start: css.indexOf('url(x)'), end: css.indexOf('url(x)') + 6, line: 5, column: 10 });
  });

  test('several references on several lines', () => {
    const css = 'a { b: url(1) }\n\n@import "2";\n    x: image-set("3")';
    expect(findCssUrls(css).map((r) => [r.line, r.column])).toEqual([[1, 8], [3, 9], [4, 18]]);
  });
});

describe('malformed CSS', () => {
  test.each([
    ['bad-url token', 'a { b: url(a b) url(c"d) url(e\\\nf) }'],
    ['bad-string token', 'a { b: url("x\ny") }'],
    ['unclosed comment', 'a { b: c } /* url(x)'],
    ['NUL in an unquoted url', 'url(a\0b)'],
    ['lone backslash', '\\'],
    ['empty', ''],
  ])('%s: nothing to rewrite, output = input', (_name, css) => {
    expect(refs(css)).toEqual([]);
    expect(rewrite(css)).toBe(css);
  });

  test('stray closing tokens do not close an enclosing block', () => {
    expect(refs('image-set(] } "a.png")')).toEqual([['image-set', 'a.png', '"a.png"']]);
    expect(refs(') ] } url(x)')).toEqual([['url', 'x', 'url(x)']]);
  });

  test('bad tokens are left alone while their neighbours are rewritten', () => {
    expect(rewrite('a { b: url(a b) url(c) url("d\n") }')).toBe('a { b: url(a b) url(https://example.com/dir/c) url("d\n") }');
  });

  test('NUL inside a string reads as U+FFFD', () => {
    expect(refs('url("a\0b")')).toEqual([['url', 'a\uFFFDb', '"a\0b"']]);
  });

  test('a token left open at the end of input stays open', () => {
    expect(rewrite('a { b: url(c.png')).toBe('a { b: url(https://example.com/dir/c.png');
    expect(rewrite('a { b: url(c.png  ')).toBe('a { b: url(https://example.com/dir/c.png  ');
    expect(rewrite('a { b: url("c.png')).toBe('a { b: url("https://example.com/dir/c.png');
    expect(rewrite("@import 'c.css")).toBe("@import 'https://example.com/dir/c.css");
    // The last quote is escaped: the string is still open.
    expect(rewriteCss('url("c\\"', () => 'n').css).toBe('url("n');
    // The last ")" is escaped: the url-token is still open.
    expect(rewriteCss('url(c\\)', () => 'n').css).toBe('url(n');
  });

  test('an escape at the end of input reads as U+FFFD', () => {
    expect(refs('url(a\\')).toEqual([['url', 'a\uFFFD', 'url(a\\']]);
  });
});

describe("context: 'declarations' (style attributes)", () => {
  test('url(), image-set() and src() are found', () => {
    const style = 'background: url(a.png) no-repeat; content: "x.png"; list-style: image-set("b.png" 1x); --f: src("c")';
    expect(refs(style, 'declarations')).toEqual([
      ['url', 'a.png', 'url(a.png)'],
      ['image-set', 'b.png', '"b.png"'],
      ['src', 'c', '"c"'],
    ]);
    expect(rewrite(style, 'declarations')).toBe(
      'background: url(https://example.com/dir/a.png) no-repeat; content: "x.png"; '
        + 'list-style: image-set("https://example.com/dir/b.png" 1x); --f: src("https://example.com/dir/c")',
    );
  });

  test('at-rules are not allowed, so @import "x" is not a reference', () => {
    expect(refs('@import "x.css"; color: red', 'declarations')).toEqual([]);
    expect(refs('@import "x.css"; color: red', 'stylesheet')).toEqual([['import', 'x.css', '"x.css"']]);
  });
});

describe('rewriteCss', () => {
  test('reports what the callback returned and whether the text changed', () => {
    const css = 'a { b: url(x) url(https://a.test/y) url(#z) }';
    const seen: CssUrlReference[] = [];
    const out = rewriteCss(css, (value, ref) => {
      seen.push(ref);
      return isFragmentOnly(value) ? null : absolutize(value);
    });
    expect(out.css).toBe('a { b: url(https://example.com/dir/x) url(https://a.test/y) url(#z) }');
    expect(out.references.map((r) => [r.value, r.resolved, r.changed])).toEqual([
      ['x', 'https://example.com/dir/x', true],
      ['https://a.test/y', 'https://a.test/y', false],
      ['#z', null, false],
    ]);
    expect(seen).toEqual(findCssUrls(css));
  });

  test('returning the value itself keeps the original escapes', () => {
    const css = 'url(\\61) url("\\62")';
    expect(rewriteCss(css, (value) => value).css).toBe(css);
  });

  test('the new URL is escaped for its token', () => {
    expect(rewriteCss('url(a) url("b") url(\'c\')', () => 'x y"z\'(w)\\').css).toBe(
      'url(x\\20 y\\"z\\\'\\(w\\)\\\\) url("x y\\"z\'(w)\\\\") url(\'x y"z\\\'(w)\\\\\')',
    );
  });
});

describe('serializeCssUrl', () => {
  test.each([
    ['a.png', null, 'url(a.png)'],
    ['a b', null, 'url(a\\20 b)'],
    ['a\tb\nc', null, 'url(a\\9 b\\a c)'],
    ['(x)"\'\\', null, 'url(\\(x\\)\\"\\\'\\\\)'],
    ['\x01\x7f', null, 'url(\\1 \\7f )'],
    ['é😀', null, 'url(é😀)'],
    ['a"b\'c', '"', '"a\\"b\'c"'],
    ['a"b\'c', "'", "'a\"b\\'c'"],
    ['a\nb\rc\fd\\e', '"', '"a\\a b\\d c\\c d\\\\e"'],
    ['(x) y', '"', '"(x) y"'],
    ['a\0b', null, 'url(a\uFFFDb)'],
  ] as const)('%j %j', (url, quote, expected) => {
    expect(serializeCssUrl(url, quote)).toBe(expected);
  });
});

// Strings built from the characters that matter to CSS escaping, plus arbitrary code points.
const trickyUnit = fc.constantFrom(
  '"', "'", '(', ')', '\\', ' ', '\t', '\n', '\r', '\r\n', '\f', '\x01', '\x08', '\x0b', '\x1f', '\x7f', '\0',
  'a', 'f', 'F', '0', '9', 'g', '#', '/', ':', '%', 'é', '😀', '\uD800', '\uDFFF', '\uFFFD',
);
const anyUrl = fc.oneof(fc.string({ unit: trickyUnit }), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
// U+0000 cannot be written in CSS, and the tokenizer reads lone surrogates (which no decoded document contains) as
// U+FFFD too.
const readBack = (url: string): string => url.replace(/\0|\p{Cs}/gu, '\uFFFD');

describe('round trip: tokenizing the serialized URL yields the URL', () => {
  test('unquoted url-token', () => {
    fc.assert(
      fc.property(anyUrl, (url) => {
        const tokens = tokenize({ css: serializeCssUrl(url, null) });
        expect(tokens.map((t) => t[0])).toEqual([TokenType.URL, TokenType.EOF]);
        expect(tokens[0]?.[4]).toEqual({ value: readBack(url) });
      }),
      { numRuns: 2000 },
    );
  });

  test.each(['"', "'"] as const)('string quoted with %s', (quote) => {
    fc.assert(
      fc.property(anyUrl, (url) => {
        const tokens = tokenize({ css: serializeCssUrl(url, quote) });
        expect(tokens.map((t) => t[0])).toEqual([TokenType.String, TokenType.EOF]);
        expect(tokens[0]?.[4]).toEqual({ value: readBack(url) });
      }),
      { numRuns: 2000 },
    );
  });

  test.each([
    'a { b: url(x) }',
    'a { b: URL(  x  ) }',
    'a { b: url("x") }',
    "@import 'x';",
    'a { b: image-set("x" 1x) }',
    'a { b: src("x") }',
    'a { b: url(x',
    'a { b: url("x',
  ])('in place, in %j', (css) => {
    fc.assert(
      fc.property(anyUrl, (url) => {
        const out = rewriteCss(css, () => url);
        const [before] = findCssUrls(css);
        const after = findCssUrls(out.css);
        expect(after).toHaveLength(1);
        expect(after[0]?.kind).toBe(before?.kind);
        expect(after[0]?.value).toBe(readBack(url));
        expect(out.css.slice(0, after[0]?.start)).toBe(css.slice(0, before?.start));
        expect(out.css.slice(after[0]?.end)).toBe(css.slice(before?.end));
      }),
      { numRuns: 500 },
    );
  });
});

// Random CSS made of the pieces this module cares about.
const cssPiece = fc.constantFrom(
  'url(', 'URL(', 'u\\72l(', 'url( ', 'src(', 'image-set(', '-webkit-image-set(', 'type(', 'var(', '(', ')', '[', ']',
  '{', '}', ';', ',', ':', ' ', '\n', '\r\n', '\f', '"', "'", '\\', '/*', '*/', '@import ', '@namespace ', '@media ',
  'a.png', '#f', 'x y', '1x', '\0', '😀', '\uD800', '\\29 ', 'https://a.test/',
);
const anyCss = fc.oneof(fc.array(cssPiece, { maxLength: 40 }).map((pieces) => pieces.join('')), fc.string({ unit: 'binary' }));

describe('identity and structure over random CSS', () => {
  test('callback returns null ⇒ output === input', () => {
    fc.assert(
      fc.property(anyCss, fc.constantFrom('stylesheet' as const, 'declarations' as const), (css, context) => {
        const out = rewriteCss(css, () => null, { context });
        expect(out.css).toBe(css);
        expect(out.references.every((r) => !r.changed && r.resolved === null)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  test('callback returns the value ⇒ output === input', () => {
    fc.assert(
      fc.property(anyCss, (css) => {
        expect(rewriteCss(css, (value) => value).css).toBe(css);
      }),
      { numRuns: 1000 },
    );
  });

  test('rewriting changes only the reference tokens, and the rewritten CSS reads back the new URLs', () => {
    fc.assert(
      fc.property(anyCss, (css) => {
        const before = findCssUrls(css);
        const out = rewriteCss(css, (value) => `https://h.test/${value}`);
        const after = findCssUrls(out.css);
        expect(after.map((r) => [r.kind, r.value])).toEqual(before.map((r) => [r.kind, `https://h.test/${readBack(r.value)}`]));
        // The text between references is unchanged.
        const gaps = (text: string, list: CssUrlReference[]): string[] =>
          [...list, { start: text.length }].map((r, i) => text.slice(i === 0 ? 0 : (list[i - 1]?.end ?? 0), r.start));
        expect(gaps(out.css, after)).toEqual(gaps(css, before));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('replacementText', () => {
  test('rewrites one token the way rewriteCss does', () => {
    const css = 'a { b: URL( x ) image-set("y" 1x) url(\'z\' }';
    const refsOfCss = findCssUrls(css);
    expect(refsOfCss.map((ref) => replacementText(css.slice(ref.start, ref.end), 'n m'))).toEqual([
      'URL( n\\20 m )',
      '"n m"',
      "'n m'",
    ]);
    let spliced = css;
    for (const ref of refsOfCss.toReversed()) {
      spliced = spliced.slice(0, ref.start) + replacementText(css.slice(ref.start, ref.end), 'n m') + spliced.slice(ref.end);
    }
    expect(spliced).toBe(rewriteCss(css, () => 'n m').css);
  });
});

describe('sourceMappingURL comments (issue 22)', () => {
  test('rewrites /*# sourceMappingURL=… */ against the stylesheet URL, and nothing in other comments', () => {
    const css = 'a{color:red}\n/* sourceMappingURL=no.map */\n/*# sourceMappingURL=s.css.map */\n';
    const out = rewriteCss(css, (v) => new URL(v, 'https://ex.com/css/s.css').href);
    expect(out.css).toBe('a{color:red}\n/* sourceMappingURL=no.map */\n/*# sourceMappingURL=https://ex.com/css/s.css.map */\n');
    expect(out.references.map((r) => r.kind)).toEqual(['source-map']);
  });
});
