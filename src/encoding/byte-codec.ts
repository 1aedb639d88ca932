/** The RawCodec of a byte document in an ASCII-safe encoding: raw text is latin1, one unit per byte. */
import { decodeStrict, encodeString, mapDecoded, segmentValid } from './codec.ts';
import type { RawCodec } from './raw-text.ts';
import { isAscii } from './raw-text.ts';

export function byteCodec(encoding: string): RawCodec {
  const lengths = new Map<string, number>();
  return {
    decode: (raw) => decodeStrict(Buffer.from(raw, 'latin1'), encoding),
    decodeBytes: (bytes) => decodeStrict(bytes, encoding),
    segment: (raw) => segmentValid(Buffer.from(raw, 'latin1'), encoding),
    mapValid: (raw) => mapDecoded(Buffer.from(raw, 'latin1'), encoding),
    encode: (text, unencodable) => (isAscii(text) ? text : Buffer.from(encodeString(text, encoding, { unencodable })).toString('latin1')),
    asciiIsOneUnit: true,
    rawLength: (ch) => {
      if (ch.charCodeAt(0) < 0x80) return 1;
      let n = lengths.get(ch);
      if (n === undefined) {
        n = encodeString(ch, encoding, { unencodable: 'html' }).length;
        lengths.set(ch, n);
      }
      return n;
    },
  };
}
