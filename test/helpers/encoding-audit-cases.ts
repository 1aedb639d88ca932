/**
 * Cases of the legacy-encoding audit, each with what Chromium 153 gave (measured by
 * test/browser/audit-encoding-agreement.test.ts, which checks them again in Chromium; the node tests in
 * src/encoding/audit-*.test.ts hold us to them without a browser).
 */

/** [meta, Chromium's document.characterSet] */
export const META_ATTRIBUTE_CASES: ReadonlyArray<readonly [string, string]> = [
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

/** [document encoding, base, reference, Chromium's a.href]: queries against ws:/wss: bases. */
export const QUERY_SCHEME_CASES: ReadonlyArray<readonly [string, string, string, string]> = [
  ['windows-1252', 'ws://h/d/', '?q=é', 'ws://h/d/?q=%E9'],
  ['windows-1252', 'wss://h/d/', 'x?q=€', 'wss://h/d/x?q=%80'],
  ['windows-1252', 'ws://h/d/', "?q='é", 'ws://h/d/?q=%27%E9'],
  ['windows-1252', 'ws://h/d/', '?q=‾', 'ws://h/d/?q=%26%238254%3B'],
  ['shift_jis', 'ws://h/d/', '日本?q=日本', 'ws://h/d/%E6%97%A5%E6%9C%AC?q=%93%FA%96{'],
  ['gbk', 'wss://h/d/', '?€', 'wss://h/d/?%80'],
  ['euc-kr', 'ws://h/d/', '//x/y?日', 'ws://x/y?%EC%ED'],
  ['iso-2022-jp', 'wss://h/d/', '?日#日', 'wss://h/d/?%1B$BF|%1B(B#%E6%97%A5'],
  ['koi8-r', 'ws://h/d/', ' ?\tж ', 'ws://h/d/?%D6'],
];
