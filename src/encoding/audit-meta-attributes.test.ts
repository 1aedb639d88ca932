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
import { absolutizeHtml } from '../html/stream.ts';
import { MetaCharsetScanner, TokenizerMetaScanner, extractCharset } from './meta-scan.ts';
import type { MetaScanResult } from './meta-scan.ts';

/** [meta, Chromium's document.characterSet] */
const META_ATTRIBUTE_CASES: ReadonlyArray<readonly [string, string]> = [
  // Duplicate charset attributes: the last one counts (the DOM keeps the first).
  ['<meta charset="shift_jis" charset="euc-kr">', 'EUC-KR'],
  ['<meta charset="euc-kr" charset="shift_jis">', 'Shift_JIS'],
  ['<meta charset="shift_jis" CHARSET="euc-kr">', 'EUC-KR'],
  ['<meta charset="shift_jis" charset="euc-kr" charset="gbk">', 'GBK'],
  ['<meta charset="shift_jis" charset="bogus">', 'windows-1252'],
  ['<meta charset="bogus" charset="shift_jis">', 'Shift_JIS'],
  ['<meta charset="" charset="shift_jis">', 'Shift_JIS'],
  ['<meta charset="shift_jis" charset="euc-kr" title="&amp;">', 'EUC-KR'],
  ['<meta charset="euc-kr"\r charset="shift_jis">', 'Shift_JIS'],
  // charset beats content wherever it stands; of several contents the last counts.
  ['<meta charset="shift_jis" content="text/html; charset=euc-kr" http-equiv="content-type">', 'Shift_JIS'],
  ['<meta content="text/html; charset=euc-kr" charset="shift_jis" http-equiv="content-type">', 'Shift_JIS'],
  ['<meta content="text/html; charset=euc-kr" content="text/html; charset=shift_jis" http-equiv="content-type">', 'Shift_JIS'],
  ['<meta content="text/html" content="text/html; charset=shift_jis" http-equiv="content-type">', 'Shift_JIS'],
  ['<meta content="text/html; charset=euc-kr" content="text/html" http-equiv="content-type">', 'windows-1252'],
  // Any http-equiv="content-type" makes content count.
  ['<meta http-equiv="x" http-equiv="content-type" content="text/html; charset=shift_jis">', 'Shift_JIS'],
  ['<meta http-equiv="content-type" http-equiv="x" content="text/html; charset=shift_jis">', 'Shift_JIS'],
  // ExtractCharset: a quote ends an unquoted label; every control character is whitespace.
  [`<meta http-equiv="content-type" content='text/html; charset=shift_jis"x'>`, 'Shift_JIS'],
  [`<meta http-equiv="content-type" content="text/html; charset=shift_jis'">`, 'Shift_JIS'],
  ['<meta http-equiv="content-type" content="text/html; charset=shift_jis\x0bx">', 'Shift_JIS'],
  ['<meta http-equiv="content-type" content="text/html; charset\x0b=\x01shift_jis">', 'Shift_JIS'],
];

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
