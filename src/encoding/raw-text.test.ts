import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { byteCodec } from './byte-codec.ts';
import { appendDecodedRun, decodeRawText, holdsUndecodable, IDENTITY_CODEC } from './raw-text.ts';
import type { RawCodec } from './raw-text.ts';

/** The raw offset of every UTF-16 boundary, one code point at a time (what the ASCII fast path must equal). */
function offsetsByCodePoint(text: string, codec: RawCodec): number[] {
  const at: number[] = [];
  let r = 0;
  for (const ch of text) {
    for (let k = 0; k < ch.length; k++) at.push(r);
    r += codec.rawLength(ch);
  }
  at.push(r);
  return at;
}

/** A codec whose characters take two raw units each, ASCII too (UTF-16-like): no fast path applies. */
const TWO_UNITS: RawCodec = {
  decode: (raw) => (raw.length % 2 === 0 ? Buffer.from(raw, 'latin1').toString('utf16le') : null),
  encode: (text) => Buffer.from(text, 'utf16le').toString('latin1'),
  rawLength: (ch) => 2 * ch.length,
};

describe('appendDecodedRun: the raw offset of each boundary', () => {
  const random = seededRandom(77);
  const units = ['a', '<', ' ', '\n', '\u00e9', '\u3042', '\u20ac', '\ud83d\ude00', '\ud800', '\udc00'];
  const texts = Array.from({ length: 500 }, () => Array.from({ length: Math.floor(random() * 30) + 1 }, () => units[Math.floor(random() * units.length)]).join(''));
  // Longer texts, mostly ASCII with long runs (isAscii and asciiRunOffsets search those natively past 64 units).
  const ascii = ['a', '<', ' ', '\n', 'url(x);', 'a'.repeat(70)];
  for (let n = 0; n < 300; n++) {
    const rare = n % 3 === 0 ? 0 : 0.05;
    texts.push(Array.from({ length: Math.floor(random() * 60) + 1 }, () => (random() < rare ? units[Math.floor(random() * units.length)] : ascii[Math.floor(random() * ascii.length)])).join(''));
  }

  for (const [name, codec, encodeRaw] of [
    ['utf-8', byteCodec('utf-8'), (t: string) => Buffer.from(t, 'utf8').toString('latin1')],
    ['shift_jis', byteCodec('shift_jis'), null],
    ['text (identity)', IDENTITY_CODEC, (t: string) => t],
    ['two units a character', TWO_UNITS, (t: string) => Buffer.from(t, 'utf16le').toString('latin1')],
  ] as const) {
    it(`in ${name}`, () => {
      let checked = 0;
      for (const t of texts) {
        // Text the encoding cannot hold (or lone surrogates in UTF-8) is left out: it has no raw form to map.
        const text = name === 'shift_jis' ? t.replace(/[^a< \n\u3042]/g, '') : name === 'utf-8' ? t.replace(/[\ud800-\udfff]/g, '') : t;
        const raw = encodeRaw === null ? codec.encode(text, 'html') : encodeRaw(text);
        const rawAt: number[] = [];
        expect(appendDecodedRun(raw, 0, raw.length, codec, '', rawAt, [])).toBe(text);
        expect([...rawAt, raw.length], JSON.stringify(text)).toEqual(offsetsByCodePoint(text, codec));
        if (codec.asciiIsOneUnit === true) {
          // decodeRawText keeps offsets only where runs start: the same offset for every boundary.
          const decoded = decodeRawText(raw, codec);
          expect(decoded?.value).toBe(text);
          expect(Array.from({ length: text.length + 1 }, (_, i) => decoded!.toRaw(i)), JSON.stringify(text)).toEqual(offsetsByCodePoint(text, codec));
        }
        checked++;
      }
      expect(checked).toBe(texts.length);
    });
  }
});

describe('holdsUndecodable', () => {
  it('finds an undecodable offset in [start, end) as a scan of all of them does', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 200 }), { maxLength: 40 }), fc.nat({ max: 210 }), fc.nat({ max: 30 }), (offsets, start, length) => {
        const undecodable = [...offsets].sort((a, b) => a - b);
        const decoded = { value: '', toRaw: (i: number) => i, undecodable };
        const end = start + length;
        expect(holdsUndecodable(decoded, start, end)).toBe(undecodable.some((i) => i >= start && i < end));
      }),
      { numRuns: 5000 },
    );
  });
});
