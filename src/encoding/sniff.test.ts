import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResultType, Sniffer } from 'encoding-sniffer/sniffer';
import { PRESCAN_BYTES, resolveLabel, sniffEncoding } from './sniff.ts';

/** sniffEncoding with prescanMeta false as it was before its shortcut: encoding-sniffer over every prefix. */
function walked(prefix: Uint8Array, defaultLabel: string): { encoding: string; source: string } {
  const defaultEncoding = resolveLabel(defaultLabel) ?? 'windows-1252';
  const sniffer = new Sniffer({ maxBytes: PRESCAN_BYTES, defaultEncoding });
  sniffer.write(prefix.subarray(0, PRESCAN_BYTES));
  if (sniffer.resultType !== ResultType.XML_ENCODING) return { encoding: defaultEncoding, source: 'default' };
  return { encoding: resolveLabel(sniffer.encoding) ?? defaultEncoding, source: 'meta' };
}

describe('sniffEncoding without the <meta> prescan: only a leading "<?" is walked', () => {
  // Bytes that steer encoding-sniffer's first states (BOMs, UTF-16 XML prefixes, "<?xml", a <meta>) and others.
  const PIECES = ['<', '?', 'xml', ' ', 'version="1.0"', ' encoding="', 'utf-8', 'shift_jis', 'utf-16', 'x-user-defined', '"', "'", '?>', '\0', '\xef\xbb\xbf', '\xfe\xff', '\xff\xfe', '<meta charset=koi8-r>', 'a', '\n'];
  const bytes = (pieces: string[]): Uint8Array => Buffer.from(pieces.join(''), 'latin1');
  it('gives what encoding-sniffer gives (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }), fc.constantFrom('windows-1252', 'utf-8', 'Shift_JIS'), (pieces, defaultLabel) => {
        const prefix = bytes(pieces);
        const got = sniffEncoding(prefix, { defaultEncoding: defaultLabel, prescanMeta: false });
        if (got.source === 'bom') return; // (the BOM is decided before either)
        expect({ encoding: got.encoding, source: got.source }).toEqual(walked(prefix, defaultLabel));
      }),
      { numRuns: 20000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (prefix) => {
        const got = sniffEncoding(prefix, { prescanMeta: false });
        if (got.source !== 'bom') expect({ encoding: got.encoding, source: got.source }).toEqual(walked(prefix, 'windows-1252'));
      }),
      { numRuns: 20000 },
    );
  });

  it('an XML declaration still decides', () => {
    expect(sniffEncoding(Buffer.from('<?xml version="1.0" encoding="Shift_JIS"?><html>'), { prescanMeta: false })).toEqual({ encoding: 'Shift_JIS', source: 'meta', bomLength: 0 });
    expect(sniffEncoding(Buffer.from(' <?xml version="1.0" encoding="Shift_JIS"?><html>'), { prescanMeta: false })).toEqual({ encoding: 'windows-1252', source: 'default', bomLength: 0 });
  });
});
