/**
 * sniffEncoding without the `<meta>` prescan (`prescanMeta: false`, as src/html/stream.ts calls it) skips
 * encoding-sniffer unless the document starts with "<?" (issue 23): the same decision as running the prescan and
 * keeping only an XML declaration, on random prefixes built from what the prescan reads (BOMs, XML declarations
 * in UTF-8 and UTF-16, metas, comments, NUL bytes, text).
 */
import { ResultType, Sniffer } from 'encoding-sniffer/sniffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRESCAN_BYTES, resolveLabel, sniffEncoding } from './sniff.ts';
import type { SniffedEncoding } from './sniff.ts';

/** sniffEncoding before the shortcut: the prescan always run, an XML declaration taken, a `<meta>` not. */
function byPrescan(prefix: Uint8Array, transportCharset: string | undefined, defaultLabel: string | undefined): SniffedEncoding {
  const whole = sniffEncoding(prefix, { transportCharset, defaultEncoding: defaultLabel });
  if (whole.source === 'bom' || whole.source === 'transport') return whole;
  const defaultEncoding = resolveLabel(defaultLabel ?? 'windows-1252') ?? 'windows-1252';
  const sniffer = new Sniffer({ maxBytes: PRESCAN_BYTES, defaultEncoding });
  sniffer.write(prefix.subarray(0, PRESCAN_BYTES));
  if (sniffer.resultType !== ResultType.XML_ENCODING) return { encoding: defaultEncoding, source: 'default', bomLength: 0 };
  return { encoding: resolveLabel(sniffer.encoding) ?? defaultEncoding, source: 'meta', bomLength: 0 };
}

const PIECES = [
  '<?xml version="1.0" encoding="shift_jis"?>',
  "<?xml encoding='utf-16'?>",
  '<?xml version="1.0"?>',
  '<?',
  '<?php echo 1; ?>',
  '<',
  '?',
  '<meta charset="koi8-r">',
  '<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">',
  '<!-- <?xml encoding="big5"?> -->',
  '<html><head>',
  '\ufeff',
  ' ',
  '\n',
  'text',
];
const LATIN1 = ['\x00', '\xef\xbb\xbf', '\xfe\xff', '\xff\xfe', '<\x00?\x00x\x00', '\x00<\x00?\x00x'];

const prefix = fc
  .array(fc.oneof(fc.constantFrom(...PIECES).map((s) => Buffer.from(s, 'utf8')), fc.constantFrom(...LATIN1).map((s) => Buffer.from(s, 'latin1')), fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b))), { maxLength: 12 })
  .map((parts) => Buffer.concat(parts));

describe('sniffEncoding without the meta prescan', () => {
  it('decides as the prescan keeping only an XML declaration', () => {
    fc.assert(
      fc.property(prefix, fc.constantFrom(undefined, 'utf-8', 'bogus'), fc.constantFrom(undefined, 'windows-1252', 'utf-8', 'shift_jis'), (bytes, transport, defaultLabel) => {
        const fast = sniffEncoding(bytes, { transportCharset: transport, defaultEncoding: defaultLabel, prescanMeta: false });
        expect(fast).toEqual(byPrescan(bytes, transport, defaultLabel));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads an XML declaration at the start, and no other', () => {
    expect(sniffEncoding(Buffer.from('<?xml version="1.0" encoding="shift_jis"?><p>'), { prescanMeta: false })).toEqual({ encoding: 'Shift_JIS', source: 'meta', bomLength: 0 });
    expect(sniffEncoding(Buffer.from(' <?xml version="1.0" encoding="shift_jis"?><p>'), { prescanMeta: false })).toEqual({ encoding: 'windows-1252', source: 'default', bomLength: 0 });
    expect(sniffEncoding(Buffer.from('<meta charset="koi8-r">'), { prescanMeta: false })).toEqual({ encoding: 'windows-1252', source: 'default', bomLength: 0 });
  });
});
