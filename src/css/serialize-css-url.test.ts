import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeStringBody, escapeUrlTokenBody, isWhitespace } from './serialize-css-url.ts';

// The escapes as first written, one code unit at a time: the slicing versions must give exactly these.
function escapeUrlTokenBodyByChar(url: string): string {
  let out = '';
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0) out += '\uFFFD';
    else if (isWhitespace(c) || c <= 0x08 || c === 0x0b || (c >= 0x0e && c <= 0x1f) || c === 0x7f) out += `\\${c.toString(16)} `;
    else if (c === 0x22 || c === 0x27 || c === 0x28 || c === 0x29 || c === 0x5c) out += '\\' + url[i];
    else out += url[i];
  }
  return out;
}

function escapeStringBodyByChar(url: string, quote: '"' | "'"): string {
  let out = '';
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0) out += '\uFFFD';
    else if (c === 0x0a || c === 0x0c || c === 0x0d) out += `\\${c.toString(16)} `;
    else if (url[i] === quote || c === 0x5c) out += '\\' + url[i];
    else out += url[i];
  }
  return out;
}

// Every ASCII code unit (so every one that is escaped), some non-ASCII ones and lone surrogates, and URL text.
const urlText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('a', '/', ' ', '"', "'", '(', ')', '\\', '\n', '\r', '\f', '\t', '\0', '\x7f', '\x01', 'é', '\ud800', '\udc00', '😀'), maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.webUrl(),
);

describe('CSS URL escapes: the slicing versions give what escaping one code unit at a time gives', () => {
  it('escapeUrlTokenBody (property)', () => {
    fc.assert(
      fc.property(urlText, (url) => {
        expect(escapeUrlTokenBody(url)).toBe(escapeUrlTokenBodyByChar(url));
      }),
      { numRuns: 20000 },
    );
  });

  it('escapeStringBody, both quotes (property)', () => {
    fc.assert(
      fc.property(urlText, fc.constantFrom('"' as const, "'" as const), (url, quote) => {
        expect(escapeStringBody(url, quote)).toBe(escapeStringBodyByChar(url, quote));
      }),
      { numRuns: 20000 },
    );
  });

  it('returns a URL with nothing to escape as it is', () => {
    const url = 'https://example.org/a/b.png?x=1&y=2#f';
    expect(escapeUrlTokenBody(url)).toBe(url);
    expect(escapeStringBody(url, '"')).toBe(url);
    expect(escapeUrlTokenBody('a b')).toBe('a\\20 b');
    expect(escapeStringBody('a"b\'c', '"')).toBe('a\\"b\'c');
  });
});
