import fc from 'fast-check';
import whatwgUrl from 'whatwg-url';
import { describe, expect, it } from 'vitest';
import { parseWithoutShortcut } from '../../test/helpers/url-oracle.ts';
import { browserResolver, parseWhatwgUrl, whatwgJoinPrefix } from './browser.ts';
import { stripAsciiWhitespace } from './reference.ts';
import { prefixCut, prepareSpecialBase, resolveSimpleReference, simpleReferencePrefix } from './relative-shortcut.ts';

// The shortcut must give what the URL parser gives, or nothing: Node's URL (Ada) and whatwg-url, the two
// implementations the browser resolver uses, in UTF-8 and in legacy document encodings.
// (Output encodings: a UTF-16 document's is UTF-8, https://encoding.spec.whatwg.org/#get-an-output-encoding.)
const ENCODINGS = ['utf-8', 'windows-1252', 'shift_jis', 'euc-kr', 'gb18030', 'iso-8859-2', 'koi8-r'];

function parsers(reference: string, base: string): string[] {
  const results = [URL.parse(reference, base)?.href ?? null];
  const baseURL = whatwgUrl.parseURL(base);
  for (const encoding of ENCODINGS) {
    const url = baseURL === null ? null : whatwgUrl.parseURL(reference, { baseURL, encoding });
    results.push(url === null ? null : whatwgUrl.serializeURL(url));
  }
  return results as string[];
}

const BASES = [
  'https://example.com/a/b/page.html',
  'https://example.com/',
  'http://example.com',
  'http://example.com/a/b/',
  'https://example.com/a/b/c?q=1&r=2',
  'https://example.com/a?',
  'https://example.com/a#',
  'https://example.com/a/b?q#frag?x',
  'https://example.com/a/b#frag',
  'http://user:pa%20ss@example.com:8080/x/y/z',
  'http://user@example.com/x/',
  'http://[::1]:81/x/y',
  'http://192.168.0.1/x/y',
  'https://xn--nxasmq6b.example/%E6%97%A5/x',
  'https://example.com//double//slash/',
  'https://example.com/a/./b/../c',
  'https://EXAMPLE.com/A/B',
  'https://example.com:443/a',
  'http://example.com/a/%2e/b',
  'https://example.com/a/b/c/d/e/f/g',
  // Not for the shortcut: other schemes, unserialized forms.
  'file:///home/u/doc.html',
  'ftp://example.com/a/b',
  'foo://example.com/a/b',
  'about:blank',
  'data:text/html,x',
  'HTTP://example.com/a',
];

// Pieces of references: plain characters, every ASCII character, dot segments in all spellings, percent-encodings,
// backslashes, whitespace, non-ASCII, and the characters that start a query, fragment, scheme or host.
const PIECES = [
  'a', 'b', 'img', 'page.html', 'x1', '-', '_', '~', '.', '..', '/', '//', '\\', '?', '#', '&', '=', ';', ',', ':',
  '@', '!', '$', "'", '(', ')', '*', '+', '%', '%20', '%2e', '%2E', '.%2e', '%2e%2E', '%41', '%zz', '%e6%97%a5',
  '"', '<', '>', '`', '^', '{', '}', '|', '[', ']', ' ', '\t', '\n', '\r', '\f', '\0', '\x7f', 'é', '日', '😀',
  '\ud800', 'http:', 'https:', 'mailto:', 'javascript:', 'a:', '1a:', 'C:', './', '../', '/..', '/.', '?q=1',
  '#top', 'x=1&y=2',
];
const piece = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) });
const anyReference = fc.array(piece, { maxLength: 8 }).map((xs) => xs.join(''));
// References made mostly of what the shortcut takes, so that it decides many of them.
const SAFE_PIECES = ['a', 'img', 'x.png', '.', '..', '/', './', '../', '/..', '/.', '?', '#', '?q=1', '&', ':', '@', "'", '%', '%20', '%2e', '~', '-', '_', '!', '$', '(', ')', '*', '+', ',', ';', '='];
const safeReference = fc.array(fc.constantFrom(...SAFE_PIECES), { maxLength: 8 }).map((xs) => xs.join(''));
const reference = fc.oneof(anyReference, safeReference);
const base = fc.oneof(
  fc.constantFrom(...BASES),
  fc.array(fc.constantFrom('a', 'b', '', '.', '..', '%2e', 'x.html', '日'), { maxLength: 5 }).map((segs) => new URL(`https://h.example/${segs.join('/')}`).href),
);

describe('the plain-reference shortcut (relative-shortcut.ts)', () => {
  it('gives what URL.parse and whatwg-url give, in every document encoding, or nothing', () => {
    let decided = 0;
    fc.assert(
      fc.property(reference, base, (raw, b) => {
        const ref = stripAsciiWhitespace(raw);
        const record = prepareSpecialBase(b);
        if (record === null) return;
        const joined = resolveSimpleReference(record, ref);
        const prefix = simpleReferencePrefix(record, ref);
        if (prefix !== null) expect(prefix + ref.slice(prefixCut())).toBe(joined);
        if (joined === null) return;
        decided++;
        for (const expected of parsers(ref, b)) expect(joined).toBe(expected);
      }),
      { numRuns: 20000 },
    );
    // The generator reaches the shortcut often enough for the property to mean something.
    expect(decided).toBeGreaterThan(5000);
  });

  it('decides the usual references, dot segments included', () => {
    const b = 'https://example.com/a/b/page.html';
    const record = prepareSpecialBase(b)!;
    const cases = [
      'img/1.png', 'img/1@2x.png', 'css/x.css', '/post/1', 'btn1.gif', '../section/page1.html?x=1&y=2#f', './a', '.',
      '..', '../..', '../../../../x', 'a/./b/../c', 'a/..', '/../x', '?q', '#f', '?q#f', 'a?b?c#d#e', 'a%20b', '%',
      '.hidden', '...', 'a.', 'a/.../b', "a'b?c#d'e", 'x/y:z', '/:x',
    ];
    for (const ref of cases) {
      const joined = resolveSimpleReference(record, ref);
      expect(joined, ref).not.toBeNull();
      for (const expected of parsers(ref, b)) expect(joined, ref).toBe(expected);
    }
  });

  it('gives a prefix in place of leading "../" and "./", and none for other dot segments', () => {
    const b = 'https://example.com/a/b/page.html';
    const record = prepareSpecialBase(b)!;
    for (const [ref, cut] of [['../section/page1.html?x=1&y=2#f', 3], ['./a', 2], ['../../../../x', 12], ['/../x', 4], ['.././x/', 5], ['../?q', 3], ['img/1.png', 0]] as const) {
      const prefix = simpleReferencePrefix(record, ref);
      expect(prefix, ref).not.toBeNull();
      expect(prefixCut(), ref).toBe(cut);
      expect(prefix + ref.slice(cut), ref).toBe(URL.parse(ref, b)!.href);
    }
    for (const ref of ['..', '.', 'a/../b', '../a/./b', '../..']) {
      expect(simpleReferencePrefix(record, ref), ref).toBeNull();
      expect(resolveSimpleReference(record, ref), ref).toBe(URL.parse(ref, b)!.href);
    }
  });

  it('leaves the parser what it alone decides', () => {
    const record = prepareSpecialBase('https://example.com/a/b')!;
    for (const ref of ['//h/x', '\\x', 'a\\b', 'a b', ' a', 'a\t', 'http:x', 'g:h', 'é', '?é', '#é', '%2e%2e/x', 'a/%2E', '?\'', 'a"b', 'a<b', 'a`b', 'a{b', 'a^b', 'a|b', '[x]', '']) {
      expect(resolveSimpleReference(record, ref), ref).toBeNull();
    }
    expect(prepareSpecialBase('ftp://example.com/a')).toBeNull();
    expect(prepareSpecialBase('HTTP://example.com/a')).toBeNull(); // not serialized
    expect(prepareSpecialBase('not a url')).toBeNull();
  });

  it('leaves parseWhatwgUrl and the browser resolver answering as they did without it', () => {
    fc.assert(
      fc.property(reference, base, fc.constantFrom(undefined, 'UTF-8', ...ENCODINGS), (raw, b, encoding) => {
        const ref = stripAsciiWhitespace(raw);
        const href = parseWhatwgUrl(ref, b, encoding);
        expect(href).toBe(parseWithoutShortcut(ref, b, encoding));
        const options = encoding === undefined ? undefined : { encoding };
        expect(browserResolver.resolve(raw, b, options).href).toBe(href);
        expect(browserResolver.resolveHref!(raw, b, options)).toBe(href);
        const prefix = whatwgJoinPrefix(ref, b);
        if (prefix !== null) expect(prefix + ref.slice(prefixCut())).toBe(href);
      }),
      { numRuns: 5000 },
    );
  });
});

