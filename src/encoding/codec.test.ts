import { describe, expect, it } from 'vitest';
import { segmentValid } from './codec.ts';

const runs = (bytes: number[], encoding: string): string =>
  segmentValid(Uint8Array.from(bytes), encoding)
    .map((r) => `${r.valid ? 'ok' : 'bad'}:${r.end}`)
    .join(' ');

describe('segmentValid: where a decoder puts U+FFFD (https://encoding.spec.whatwg.org)', () => {
  it('UTF-8: one replacement per maximal subpart; the byte that ends a sequence early starts anew', () => {
    // "a", 中 (E4 B8 AD), E9 cut short by "b", FF, "c", then E4 B8 cut short by the end.
    expect(runs([0x61, 0xe4, 0xb8, 0xad, 0xe9, 0x62, 0xff, 0x63, 0xe4, 0xb8], 'utf-8')).toBe('ok:4 bad:5 ok:6 bad:7 ok:8 bad:10');
  });

  it('GBK and Shift_JIS: a lead byte with a trail byte out of range; the ASCII byte after it is kept', () => {
    expect(runs([0x61, 0xd6, 0xd0, 0xad, 0x20, 0x62], 'gbk')).toBe('ok:3 bad:4 ok:6');
    expect(runs([0x82, 0xa0, 0x81, 0x20, 0x62], 'shift_jis')).toBe('ok:2 bad:3 ok:5');
  });

  it('single-byte encodings: an unmapped byte alone', () => {
    expect(runs([0x61, 0xaa, 0x62], 'windows-1253')).toBe('ok:1 bad:2 ok:3');
  });
});
