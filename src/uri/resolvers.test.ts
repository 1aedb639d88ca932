import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { browserResolver, classifyReference, rfc3986Resolver, stripAsciiWhitespace } from './index.ts';

describe('reference kinds', () => {
  it.each([
    ['https://x/', 'absolute'],
    ['mailto:a@b', 'absolute'],
    ['g:h', 'absolute'],
    ['//g', 'network-path'],
    ['/g', 'absolute-path'],
    ['g', 'relative-path'],
    ['../g', 'relative-path'],
    ['1a:b', 'relative-path'],
    ['?y', 'query-only'],
    ['', 'same-document'],
    ['#s', 'same-document'],
  ] as const)('%j is %s', (ref, kind) => {
    expect(classifyReference(ref)).toBe(kind);
    expect(rfc3986Resolver.resolve(ref, 'http://a/b/c/d;p?q').kind).toBe(kind);
  });

  it('counts "\\" as "/" in the browser resolver for special schemes only', () => {
    expect(browserResolver.resolve('\\\\g\\x', 'http://a/b').kind).toBe('network-path');
    expect(browserResolver.resolve('\\\\g\\x', 'http://a/b').href).toBe('http://g/x');
    expect(browserResolver.resolve('\\g', 'foo://a/b').kind).toBe('relative-path');
    expect(rfc3986Resolver.resolve('\\g', 'http://a/b').kind).toBe('relative-path');
  });

  it('marks failures unresolvable with a warning, never throwing', () => {
    const r = browserResolver.resolve('http://[::1', 'http://a/');
    expect(r).toMatchObject({ kind: 'unresolvable', href: null, warning: { code: 'unresolvable-reference' } });
    expect(rfc3986Resolver.resolve('g', 'not a base').href).toBeNull();
  });
});

describe('attribute whitespace', () => {
  it('strips leading and trailing ASCII whitespace only', () => {
    expect(stripAsciiWhitespace('\t\n\f\r x y \r\n')).toBe('x y');
    expect(stripAsciiWhitespace('\u00a0x\u00a0')).toBe('\u00a0x\u00a0');
  });
  it.each([browserResolver, rfc3986Resolver])('$name resolves a padded reference as the stripped one', (resolver) => {
    expect(resolver.resolve('  \n../g?x \t', 'http://a/b/c/d').href).toBe('http://a/b/g?x');
  });
});

describe('browser resolver: the document encoding in the query', () => {
  // Expected bytes are those of the encodings' own index tables (https://encoding.spec.whatwg.org/#indexes):
  // windows-1252 é = E9, € = 80; Shift_JIS 日 = 93 FA, 本 = 96 7B ("{" stays as is in a special query);
  // GB18030 中 = D6 D0, 文 = CE C4, U+1F600 = 94 39 FC 36 (four-byte form).
  it.each([
    ['windows-1252', '?q=é€', 'http://x/y/z?q=%E9%80'],
    ['windows-1252', 'a é/?q=é#é', 'http://x/y/a%20%C3%A9/?q=%E9#%C3%A9'],
    ['shift_jis', '日本?q=日本', 'http://x/y/%E6%97%A5%E6%9C%AC?q=%93%FA%96{'],
    ['gb18030', '?q=中文😀', 'http://x/y/z?q=%D6%D0%CE%C4%949%FC6'],
  ] as const)('%s: %j', (encoding, ref, expected) => {
    expect(browserResolver.resolve(ref, 'http://x/y/z', { encoding }).href).toBe(expected);
  });

  it('encodes a character the encoding cannot represent as %26%23NNNN%3B', () => {
    expect(browserResolver.resolve('?q=日', 'http://x/', { encoding: 'windows-1252' }).href).toBe('http://x/?q=%26%2326085%3B');
  });

  it('uses UTF-8 for the query of non-special schemes and in UTF-8 documents', () => {
    expect(browserResolver.resolve('?q=é', 'foo://x/', { encoding: 'windows-1252' }).href).toBe('foo://x/?q=%C3%A9');
    expect(browserResolver.resolve('?q=é', 'http://x/', { encoding: 'UTF-8' }).href).toBe('http://x/?q=%C3%A9');
    expect(browserResolver.resolve('?q=é', 'http://x/').href).toBe('http://x/?q=%C3%A9');
  });
});

describe('bases of every scheme the seeds name', () => {
  // Hierarchical: both resolvers resolve relative references.
  it.each([
    ['ftp://ftp.example.org/pub/dir/file.txt', '../other.txt', 'ftp://ftp.example.org/pub/other.txt', 'ftp://ftp.example.org/pub/other.txt'],
    ['file:///home/user/docs/a.html', 'img/b.png', 'file:///home/user/docs/img/b.png', 'file:///home/user/docs/img/b.png'],
    ['gopher://gopher.example.org/1/dir/', 'item', 'gopher://gopher.example.org/1/dir/item', 'gopher://gopher.example.org/1/dir/item'],
    ['wais://wais.example.org:210/db?query', 'other', 'wais://wais.example.org:210/other', 'wais://wais.example.org:210/other'],
    ['prospero://host.example.org/dir/file;type=x', '../y', 'prospero://host.example.org/y', 'prospero://host.example.org/y'],
    ['telnet://user@host.example.org:23/', 'session', 'telnet://user@host.example.org:23/session', 'telnet://user@host.example.org:23/session'],
    ['http://a/b/c/d;p?q', '../g', 'http://a/b/g', 'http://a/b/g'],
  ] as const)('%s + %j', (base, ref, browser, rfc3986) => {
    expect(browserResolver.resolve(ref, base).href).toBe(browser);
    expect(rfc3986Resolver.resolve(ref, base).href).toBe(rfc3986);
  });

  // Opaque: the URL standard fails relative references against a URL with an opaque path (except fragment-only
  // ones); RFC 3986 §5.2.3 merges paths regardless, which we return as computed.
  it.each([
    ['mailto:user@example.org', 'g', 'mailto:g'],
    ['news:comp.infosystems.www', 'other.group', 'news:other.group'],
    ['cid:part1@example.org', 'part2', 'cid:part2'],
    ['mid:msg@example.org/part', 'other', 'mid:msg@example.org/other'],
    ['data:text/html,<p>x</p>', 'img.png', 'data:text/html,<p>x</img.png'],
  ] as const)('%s + %j', (base, ref, rfc3986) => {
    const b = browserResolver.resolve(ref, base);
    expect(b.href).toBeNull();
    expect(b.kind).toBe('unresolvable');
    expect(rfc3986Resolver.resolve(ref, base).href).toBe(rfc3986);
    // A fragment-only reference still resolves against an opaque base in the URL standard.
    expect(browserResolver.resolve('#f', base).href).toBe(`${base}#f`);
  });
});

describe('where the two resolvers differ', () => {
  it.each([
    // ref, base, browser, rfc3986
    ['http:g', 'http://a/b/c/d;p?q', 'http://a/b/c/g', 'http:g'],
    ['//g', 'http://a/b', 'http://g/', 'http://g'],
    ['../../../g', 'http://a/b/c/d', 'http://a/g', 'http://a/g'],
    ['a b/ü', 'http://a/', 'http://a/a%20b/%C3%BC', 'http://a/a b/ü'],
    ['HTTP://EXAMPLE.COM:80/%7e', 'http://a/', 'http://example.com/%7e', 'HTTP://EXAMPLE.COM:80/%7e'],
    ['\\g', 'http://a/b/', 'http://a/g', 'http://a/b/\\g'],
    ['g', 'mailto:x', null, 'mailto:g'],
  ] as const)('%j against %j', (ref, base, browser, rfc3986) => {
    expect(browserResolver.resolve(ref, base).href).toBe(browser);
    expect(rfc3986Resolver.resolve(ref, base).href).toBe(rfc3986);
  });
});

describe('properties', () => {
  const bases = fc.constantFrom('http://a/b/c/d;p?q', 'https://example.com/', 'file:///x/y', 'foo://h/p/q', 'mailto:a@b', 'data:,x', 'urn:a:b');

  it.each([browserResolver, rfc3986Resolver])('$name never throws, on arbitrary strings', (resolver) => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.oneof(bases, fc.string({ unit: 'binary' })), (ref, base) => {
        const r = resolver.resolve(ref, base);
        expect(r.href === null).toBe(r.kind === 'unresolvable');
      }),
      { numRuns: 3000 },
    );
  });

  it.each([browserResolver, rfc3986Resolver])('$name: resolving an absolute result again is the identity', (resolver) => {
    const refChars = fc.constantFrom('a', 'b', '/', '.', '..', '?', '#', ':', '%41', 'é', ' ', '\\', '@', ';', '=');
    const ref = fc.array(refChars, { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(ref, bases, (r, base) => {
        const first = resolver.resolve(r, base).href;
        if (first === null) return;
        expect(resolver.resolve(first, base).href).toBe(first);
        expect(resolver.resolve(first, 'http://elsewhere.example/').href).toBe(first);
      }),
      { numRuns: 5000 },
    );
  });

  it('rfc3986 keeps every character of the reference path outside dot segments', () => {
    const segment = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }).filter((s) => !/[/?#]/.test(s) && s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        // "./" keeps a colon in the first segment from being read as a scheme (RFC 3986 §4.2); the last "z"
        // keeps trailing attribute whitespace (which is stripped) out of the comparison.
        const path = `${segments.join('/')}/z`;
        const href = rfc3986Resolver.resolve(`./${path}`, 'http://a/b/c/d').href;
        expect(href).toBe(`http://a/b/c/${path}`);
      }),
      { numRuns: 2000 },
    );
  });
});
