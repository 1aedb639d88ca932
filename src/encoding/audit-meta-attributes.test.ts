/**
 * Audit (legacy encodings): a charset `<meta>` read attribute by attribute as Chromium reads it
 * (html_parser_idioms.cc EncodingFromMetaAttributes over the tokenizer's raw attribute list, duplicates
 * included; ExtractCharset for `content`). Every expected encoding below is Chromium's `document.characterSet`
 * for the page (measured with the bundled Chromium; test/browser/audit-encoding-agreement.test.ts measures the
 * same pages again). Each is checked on both scanners (the fast one and parse5's), whole and in random chunks,
 * and through absolutizeHtml with a query whose encoding shows the decision.
 */
import { describe, expect, it } from 'vitest';
import { randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { META_ATTRIBUTE_CASES } from '../../test/helpers/encoding-audit-cases.ts';
import { absolutizeHtml } from '../html/stream.ts';
import { MetaCharsetScanner, TokenizerMetaScanner, extractCharset } from './meta-scan.ts';
import type { MetaScanResult } from './meta-scan.ts';


function scan(scanner: { write(raw: string, last: boolean): MetaScanResult | null }, chunks: readonly string[]): MetaScanResult {
  for (const chunk of chunks) {
    const found = scanner.write(chunk, false);
    if (found !== null) return found;
  }
  return scanner.write('', true)!;
}

// 日 in each encoding's query (percent-encoded), and as an unencodable reference in windows-1252.
const QUERY: Record<string, string> = {
  'Shift_JIS': '%93%FA',
  'EUC-KR': '%EC%ED',
  GBK: '%C8%D5',
  'windows-1252': '%26%2326085%3B',
};

describe('a charset <meta> read attribute by attribute, as Chromium reads it', () => {
  const random = seededRandom(20261203);
  for (const [meta, chromium] of META_ATTRIBUTE_CASES) {
    it(`${JSON.stringify(meta)} → ${chromium}`, async () => {
      const text = `${meta}<a href="x?q=&#26085;">r</a>`;
      const expected = chromium === 'windows-1252' ? null : chromium;
      for (const make of [() => new MetaCharsetScanner(), () => new TokenizerMetaScanner()]) {
        expect(scan(make(), [text]).encoding).toBe(expected);
        for (let r = 0; r < 5; r++) expect(scan(make(), randomChunks(text, random, 1 + Math.floor(random() * 20))).encoding).toBe(expected);
      }
      const result = await absolutizeHtml(Buffer.from(text, 'latin1'), { retrieval: { url: 'http://example.com/d/p.html' } });
      expect(result.encoding).toBe(chromium);
      expect(result.output.toString('latin1')).toContain(`href="http://example.com/d/x?q=${QUERY[chromium]}"`);
    });
  }

  it('extractCharset as Chromium: quotes and control characters end an unquoted label', () => {
    expect(extractCharset(`text/html; charset=shift_jis"x`)).toBe('shift_jis');
    expect(extractCharset(`text/html; charset=shift_jis'`)).toBe('shift_jis');
    expect(extractCharset('charset=\x01euc-kr\x0b;')).toBe('euc-kr');
    expect(extractCharset('charset = "euc-kr')).toBe('');
    expect(extractCharset('charset;charset=gbk')).toBe('gbk');
  });
});
