import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteCodec } from '../encoding/byte-codec.ts';
import { IDENTITY_CODEC } from '../encoding/raw-text.ts';
import type { RawCodec } from '../encoding/raw-text.ts';
import { attributeValueEnd, attributeValueStart, decodeAttributeValue, isPlainAscii, locateAttributeValue, quoteBefore } from './attribute-value.ts';

// ASCII values with character references take a path of their own (decodeAsciiWithReferences) in encodings
// where ASCII is one raw unit; the same codec without `asciiIsOneUnit` takes the general path. Both must give
// the same value, the same raw offset for every boundary, and the same undecodable list.
const CODECS: Array<[string, RawCodec]> = [
  ['identity', IDENTITY_CODEC],
  ['utf-8', byteCodec('utf-8')],
  ['windows-1252', byteCodec('windows-1252')],
  ['shift_jis', byteCodec('shift_jis')],
];

const PIECES = [
  'a', 'img/1.png', '?x=1', '&', '&amp;', '&amp', '&ampx', '&amp=', '&lt;', '&gt', '&quot;', '&#38;', '&#x26;', '&#0;',
  '&#x1F600;', '&#xD800;', '&#128;', '&eacute;', '&eacute', '&notin;', '&notit;', '&nbsp;', '&;', '&#;', '&#x;', '&#',
  '&Aacute;', '&AElig', '&lang;', '&NotNestedGreaterGreater;', '&acE;', ' ', '\0', '#', '=', ';', 'x',
  // (The references decodeAsciiWithReferences reads itself, and their near misses.)
  '&gt;', '&lt', '&quot', '&quo;', '&am;', '&amp;;', '&lta;', '&gta;', '&l', '&q', '&AMP;', '&LT;', '&GT;',
];
const value = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 4 })), { maxLength: 10 }).map((xs) => xs.join(''));

function general(codec: RawCodec): RawCodec {
  const { asciiIsOneUnit: _, ...rest } = codec;
  return rest;
}

function described(raw: string, codec: RawCodec): unknown {
  const d = decodeAttributeValue(raw, codec);
  if (d === null) return null;
  const offsets: number[] = [];
  for (let i = -1; i <= d.value.length + 1; i++) offsets.push(d.toRaw(i));
  return { value: d.value, offsets, undecodable: [...d.undecodable] };
}

describe('decodeAttributeValue: ASCII values with character references', () => {
  it.each(CODECS)('%s: the same value and raw offsets as the general path', (_name, codec) => {
    fc.assert(
      fc.property(value, (raw) => {
        expect(described(raw, codec)).toEqual(described(raw, general(codec)));
      }),
      { numRuns: 3000 },
    );
  });

  it('takes a value as it is exactly when it is ASCII without "&" or U+0000 (isPlainAscii, a regular expression)', () => {
    const unit = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.constantFrom(0x26, 0, 0x80, 0xff, 0x100, 0xd800, 0xfffd)).map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (s) => {
        let plain = true;
        for (let i = 0; i < s.length; i++) {
          const c = s.charCodeAt(i);
          if (c >= 0x80 || c === 0x26 || c === 0) plain = false;
        }
        expect(isPlainAscii(s)).toBe(plain);
      }),
      { numRuns: 3000 },
    );
  });

  it('maps each unit of a reference to its "&", and the text after it one to one', () => {
    const d = decodeAttributeValue('a&amp;b&#x1F600;c', IDENTITY_CODEC)!;
    expect(d.value).toBe('a&b\u{1F600}c');
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => d.toRaw(i))).toEqual([0, 1, 6, 7, 7, 16, 17]);
  });
});

// The rewriter locates a value inside its whole buffer (attributeValueStart, attributeValueEnd, quoteBefore),
// not in a slice of the attribute: the text around the attribute must never be read. The reference is
// locateAttributeValue as it was written before on a slice
// (https://html.spec.whatwg.org/multipage/parsing.html#after-attribute-name-state).
function locateInSlice(raw: string): { start: number; end: number; quote: string } | null {
  const ws = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
  let i = 1;
  const n = raw.length;
  while (i < n && raw.charCodeAt(i) !== 0x3d && !ws(raw.charCodeAt(i))) i++;
  while (i < n && ws(raw.charCodeAt(i))) i++;
  if (i >= n || raw.charCodeAt(i) !== 0x3d) return null;
  i++;
  while (i < n && ws(raw.charCodeAt(i))) i++;
  const q = raw.charCodeAt(i);
  if (q === 0x22 || q === 0x27) {
    const closed = n - 1 > i && raw.charCodeAt(n - 1) === q;
    return { start: i + 1, end: closed ? n - 1 : n, quote: q === 0x22 ? '"' : "'" };
  }
  return { start: i, end: n, quote: '' };
}

describe('locating a value inside a larger string', () => {
  const text = fc.array(fc.constantFrom('a', 'h', '=', ' ', '\t', '\n', '"', "'", '>', '/', '&', 'é'), { maxLength: 12 }).map((cs) => cs.join(''));
  it('agrees with locating it in a slice of the attribute, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.constantFrom('h', '=', 'a'), text, text, text, (first, attribute, before, after) => {
        const raw = first + attribute;
        const expected = locateInSlice(raw);
        expect(locateAttributeValue(raw)).toEqual(expected);
        const buf = before + raw + after;
        const from = before.length;
        const start = attributeValueStart(buf, from, from + raw.length);
        if (expected === null) {
          expect(start).toBe(-1);
        } else {
          expect(start - from).toBe(expected.start);
          expect(attributeValueEnd(buf, start, from + raw.length) - from).toBe(expected.end);
          expect(quoteBefore(buf, start)).toBe(expected.quote);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
