import { TextDecoder } from '@exodus/bytes/encoding.js';
import { createMultibyteEncoder } from '@exodus/bytes/multi-byte.js';
import { describe, expect, it } from 'vitest';
import { chunkings, randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { decodeRawText } from './raw-text.ts';
import { transcoderFor } from './transcode.ts';

const ESC = '\x1b';
const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');
const encodeJp = createMultibyteEncoder('iso-2022-jp', { mode: 'fatal' });

/** Raw text of `bytes` fed in `chunks`, and the bytes the transcoder writes back for it. */
function roundTrip(encoding: string, chunks: readonly Buffer[]): { raw: string; back: Buffer } {
  const t = transcoderFor(encoding);
  let raw = '';
  for (const c of chunks) raw += t.toRaw(c);
  const back = Buffer.concat([t.fromRaw(raw), t.endBytes()]);
  return { raw, back };
}

/** Random ISO-2022-JP-ish bytes: text, escapes (valid, cut, unknown), JIS pairs, stray bytes. */
function randomIso2022Jp(random: () => number): Buffer {
  const pieces = ['<a href="', '">', 'x', '\\', '~', '\n', `${ESC}$B`, `${ESC}$@`, `${ESC}(B`, `${ESC}(J`, `${ESC}(I`, `${ESC}(`, `${ESC}$`, ESC, '4A', ';z', '%"', '1', '\x0e', '\x80', '\xff'];
  let s = '';
  const n = 1 + Math.floor(random() * 40);
  for (let i = 0; i < n; i++) s += pieces[Math.floor(random() * pieces.length)];
  return latin1(s);
}

describe('transcoders: every byte comes back as it came, however the input is cut', () => {
  const random = seededRandom(19);
  it('UTF-16LE and UTF-16BE, odd lengths and lone surrogates too', () => {
    for (const encoding of ['UTF-16LE', 'UTF-16BE']) {
      for (let n = 0; n < 200; n++) {
        const bytes = Buffer.from(Array.from({ length: Math.floor(random() * 50) }, () => Math.floor(random() * 256)));
        for (const chunks of chunkings(bytes, 3)) expect(roundTrip(encoding, chunks).back.equals(bytes)).toBe(true);
      }
      const text = '<a href="x">\u{1F600}\ud800</a>';
      const bytes = Buffer.from(text, 'utf16le');
      if (encoding === 'UTF-16BE') bytes.swap16();
      expect(roundTrip(encoding, [bytes]).raw).toBe(text);
    }
  });

  it('ISO-2022-JP, escapes cut by chunk boundaries included', () => {
    for (let n = 0; n < 500; n++) {
      const bytes = randomIso2022Jp(random);
      const whole = roundTrip('ISO-2022-JP', [bytes]);
      expect(whole.back.equals(bytes)).toBe(true);
      for (const chunks of [Array.from(bytes, (_b, i) => bytes.subarray(i, i + 1)), randomChunks(bytes, random, 5)]) {
        const cut = roundTrip('ISO-2022-JP', chunks);
        expect(cut.back.equals(bytes)).toBe(true);
        expect(cut.raw).toBe(whole.raw);
      }
    }
  });

  it('ISO-2022-JP: markup is seen only where the decoder gives markup characters', () => {
    // "<" inside JIS X 0208 (0x3C is a byte of a two-byte character) is masked; in ASCII and JIS-Roman it is "<".
    const { raw } = roundTrip('ISO-2022-JP', [latin1(`${ESC}$B<a${ESC}(B<b>${ESC}(J<i>\\${ESC}(I<`)]);
    const markup = [...raw].filter((c) => c.charCodeAt(0) < 0x80).join('');
    expect(markup).toBe('<b><i>');
  });

  it('ISO-2022-JP: decoded raw text equals what the decoder gives (WHATWG), with offsets of whole characters', () => {
    const t = transcoderFor('ISO-2022-JP');
    const text = 'a漢字b.html?q=ｱ&x=日本';
    const bytes = Buffer.from(encodeJp(text));
    const raw = t.toRaw(bytes);
    const decoded = decodeRawText(raw, t.codec);
    expect(decoded?.value).toBe(new TextDecoder('iso-2022-jp').decode(bytes));
    // "漢字" (1..3) spans its opening escape; "b" takes the escape back to ASCII with the character before it.
    const value = decoded!.value;
    const kanjiStart = value.indexOf('漢');
    const b = value.indexOf('b');
    expect(raw.slice(decoded!.toRaw(kanjiStart), decoded!.toRaw(b)).length).toBe(3 + 4 + 3);
    expect(Buffer.from(encodeJp(value.slice(kanjiStart, b))).length).toBe(3 + 4 + 3);
  });
});

describe('ISO-2022-JP splices keep the shift state', () => {
  const t = () => transcoderFor('ISO-2022-JP');

  it('in the ASCII state an ASCII replacement is written as it is', () => {
    const tr = t();
    const raw = tr.toRaw(latin1('<a href="'));
    expect(tr.fromRaw(raw + tr.codec.encode('http://h/x', 'html') + '">').toString('latin1')).toBe('<a href="http://h/x">');
  });

  it('in the JIS-Roman state: to ASCII before the replacement, back to JIS-Roman after it', () => {
    const tr = t();
    const out = tr.fromRaw(tr.toRaw(latin1(`${ESC}(J<a href="`)) + tr.codec.encode('http://h/~u\\', 'html') + tr.toRaw(latin1('">\\'))).toString('latin1');
    expect(out).toBe(`${ESC}(J<a href="${ESC}(Bhttp://h/~u\\${ESC}(J">\\`);
    expect(new TextDecoder('iso-2022-jp').decode(latin1(out))).toBe('<a href="http://h/~u\\">¥');
  });

  it('a replacement with JIS X 0208 characters, in the ASCII and JIS-Roman states, never puts two escapes together', () => {
    for (const prefix of ['', `${ESC}(J`]) {
      const tr = t();
      const out = tr.fromRaw(tr.toRaw(latin1(`${prefix}<a href="`)) + tr.codec.encode('漢', 'html') + tr.toRaw(latin1('">'))).toString('latin1');
      const decoded = new TextDecoder('iso-2022-jp').decode(latin1(out));
      expect(decoded).toBe('<a href="漢">');
      expect(out).not.toMatch(/\x1b..\x1b/);
    }
  });

  it('characters ISO-2022-JP cannot hold become character references', () => {
    const tr = t();
    expect(tr.fromRaw(tr.codec.encode('é\u{1F600}', 'html')).toString('latin1')).toBe('&#233;&#128512;');
  });
});
