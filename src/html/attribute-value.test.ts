import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteCodec } from '../encoding/byte-codec.ts';
import { IDENTITY_CODEC } from '../encoding/raw-text.ts';
import type { RawCodec } from '../encoding/raw-text.ts';
import { decodeAttributeValue } from './attribute-value.ts';

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

  it('maps each unit of a reference to its "&", and the text after it one to one', () => {
    const d = decodeAttributeValue('a&amp;b&#x1F600;c', IDENTITY_CODEC)!;
    expect(d.value).toBe('a&b\u{1F600}c');
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => d.toRaw(i))).toEqual([0, 1, 6, 7, 7, 16, 17]);
  });
});
