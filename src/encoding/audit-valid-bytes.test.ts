/**
 * Audit (legacy encodings): byte sequences that are valid in the document's encoding but are not what its
 * encoder writes for their characters (Shift_JIS F0 40 is U+E000, which Shift_JIS cannot encode; a GBK four-byte
 * sequence; EUC-JP's JIS X 0212) were taken for undecodable bytes (their re-encoded lengths did not add up), and
 * the reference holding them was left relative, with undecodable-value. Chromium reads them as characters and
 * resolves the reference; the expected URLs are Chromium's `a.href` (bundled Chromium;
 * test/browser/audit-encoding-agreement.test.ts measures them again). Big5's two-character sequences (88 62…)
 * stay undecodable: Chromium decodes them to a lone surrogate and does not parse such a URL.
 */
import { describe, expect, it } from 'vitest';
import { createCssRewriter } from '../css/stream.ts';
import { absolutizeHtml, transformWhole } from '../html/stream.ts';
import { chunkings } from '../../test/helpers/chunks.ts';

const page = (charset: string, ref: number[]): Buffer =>
  Buffer.concat([Buffer.from(`<meta charset="${charset}"><p>`, 'latin1'), Buffer.from(ref), Buffer.from('</p><a href="?', 'latin1'), Buffer.from(ref), Buffer.from('">x</a>\n', 'latin1')]);

// [charset, bytes, Chromium's a.href for href="?<bytes>" in http://example.com/d/p.html]
const VALID_CASES: ReadonlyArray<readonly [string, number[], string]> = [
  ['shift_jis', [0xf0, 0x40, 0x87, 0x40, 0xed, 0x40, 0xfa, 0x40, 0x5c, 0x7e, 0x81, 0x5f], 'http://example.com/d/p.html?%26%2357344%3B%87@%FA\\%FA@\\~%81_'],
  ['gbk', [0x81, 0x30, 0x81, 0x30, 0x80, 0xa2, 0xe3], 'http://example.com/d/p.html?%26%23128%3B%80%80'],
  ['euc-jp', [0x8f, 0xb0, 0xa1, 0x8e, 0xb1, 0xa1, 0xc0], 'http://example.com/d/p.html?%26%2319970%3B%8E%B1%A1%C0'],
];

describe('valid bytes that do not encode back the same are read as characters, as Chromium reads them', () => {
  for (const [charset, ref, chromium] of VALID_CASES) {
    it(`${charset} ${Buffer.from(ref).toString('hex')}`, async () => {
      const input = page(charset, ref);
      const r = await absolutizeHtml(input, { retrieval: { url: 'http://example.com/d/p.html' } });
      expect(r.warnings.map((w) => w.code)).toEqual([]);
      const expected = Buffer.concat([Buffer.from(`<meta charset="${charset}"><p>`, 'latin1'), Buffer.from(ref), Buffer.from(`</p><a href="${chromium}">x</a>\n`, 'latin1')]);
      expect(r.output).toEqual(expected);
      for (const chunks of chunkings(input, 10)) {
        const again = await absolutizeHtml(Buffer.concat(chunks), { retrieval: { url: 'http://example.com/d/p.html' } });
        expect(again.output).toEqual(expected);
      }
    });
  }

  it('in a path, in a style attribute and in a stylesheet too', async () => {
    const input = Buffer.concat([Buffer.from('<meta charset="shift_jis"><a href="', 'latin1'), Buffer.from([0xf0, 0x40]), Buffer.from('/x" style="background:url(', 'latin1'), Buffer.from([0xf0, 0x40]), Buffer.from('.png)">x</a>', 'latin1')]);
    const r = await absolutizeHtml(input, { retrieval: { url: 'http://example.com/d/p.html' } });
    expect(r.warnings).toEqual([]);
    expect(r.output.toString('latin1')).toBe('<meta charset="shift_jis"><a href="http://example.com/d/%EE%80%80/x" style="background:url(http://example.com/d/%EE%80%80.png)">x</a>');
    const sheet = Buffer.concat([Buffer.from('a { background: url(', 'latin1'), Buffer.from([0x81, 0x30, 0x81, 0x30]), Buffer.from('?', 'latin1'), Buffer.from([0x81, 0x30, 0x81, 0x30]), Buffer.from(') }', 'latin1')]);
    const css = await transformWhole(createCssRewriter({ retrieval: { url: 'http://example.com/s/a.css' }, charset: 'gbk' }), sheet);
    expect(css.toString('latin1')).toBe('a { background: url(http://example.com/s/%C2%80?%26%23128%3B) }');
  });

  it('Big5 two-character sequences stay undecodable (Chromium does not parse such a URL)', async () => {
    const input = page('big5', [0x88, 0x62]);
    const r = await absolutizeHtml(input, { retrieval: { url: 'http://example.com/d/p.html' } });
    expect(r.output).toEqual(input);
    expect(r.warnings.map((w) => w.code)).toEqual(['undecodable-value']);
  });
});
