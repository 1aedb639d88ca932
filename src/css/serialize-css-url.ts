/**
 * Writing a URL back as CSS so that the CSS tokenizer reads back exactly that URL.
 * https://drafts.csswg.org/css-syntax-3/#consume-url-token
 * https://drafts.csswg.org/css-syntax-3/#consume-string-token
 * https://drafts.csswg.org/css-syntax-3/#consume-escaped-code-point
 */

/** How a URL is written in CSS: `null` for an unquoted url-token `url(foo)`, else the quote of a string token. */
export type CssUrlQuote = '"' | "'" | null;

/**
 * CSS-serializes `url` in the given quoting style: `url(…)` for `null`, a string token `"…"` / `'…'` otherwise.
 * Unquoted: escapes what a url-token cannot contain (whitespace, quotes, parentheses, backslash,
 * non-printable code points). Quoted: escapes the quote, backslash and newlines.
 *
 * NOTE: CSS cannot represent U+0000 (https://drafts.csswg.org/css-syntax-3/#input-preprocessing turns it into
 * U+FFFD, and so does the escape `\0`), so U+0000 is written as U+FFFD, as CSSOM "serialize a string" does. A lone
 * surrogate (never produced by decoding a document or by the URL serializer) is written as-is; the tokenizer
 * reads it as U+FFFD.
 */
export function serializeCssUrl(url: string, quote: CssUrlQuote): string {
  return quote === null ? `url(${escapeUrlTokenBody(url)})` : quote + escapeStringBody(url, quote) + quote;
}

/**
 * @internal The text between `url(` and `)` of an unquoted url-token whose value is `url`. The text between
 * escapes is copied as slices, and a URL with nothing to escape (most of them) is returned as it is.
 */
export function escapeUrlTokenBody(url: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    // Every code unit that needs escaping is at most ')' (0x29), a backslash (0x5c) or DEL (0x7f).
    if (c > 0x29 && c !== 0x5c && c !== 0x7f) continue;
    const escaped = urlTokenEscape(c, url[i]!);
    if (escaped === null) continue;
    out += url.slice(copied, i) + escaped;
    copied = i + 1;
  }
  return copied === 0 ? url : out + url.slice(copied);
}

/** How code unit `c` (the string `ch`) is written in a url-token's body, or null if as itself. */
function urlTokenEscape(c: number, ch: string): string | null {
  if (c === 0) return '\uFFFD';
  // consume-url-token: whitespace (only allowed trailing) and non-printables make a bad-url token.
  if (isWhitespace(c) || isNonPrintable(c)) return hexEscape(c);
  // consume-url-token: '"', "'" and '(' make a bad-url token; ')' ends it; '\' starts an escape.
  if (c === 0x22 || c === 0x27 || c === 0x28 || c === 0x29 || c === 0x5c) return '\\' + ch;
  return null;
}

/**
 * @internal The text between the quotes of a string token whose value is `url`. The text between escapes is
 * copied as slices, and a URL with nothing to escape (most of them) is returned as it is.
 */
export function escapeStringBody(url: string, quote: '"' | "'"): string {
  const q = quote.charCodeAt(0);
  let out = '';
  let copied = 0;
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    let escaped: string;
    if (c === 0) escaped = '\uFFFD';
    // consume-string-token: a newline makes a bad-string token.
    else if (c === 0x0a || c === 0x0c || c === 0x0d) escaped = hexEscape(c);
    else if (c === q || c === 0x5c) escaped = '\\' + url[i];
    else continue;
    out += url.slice(copied, i) + escaped;
    copied = i + 1;
  }
  return copied === 0 ? url : out + url.slice(copied);
}

/** @internal https://drafts.csswg.org/css-syntax-3/#whitespace (before preprocessing, so CR and FF count too). */
export function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

// https://drafts.csswg.org/css-syntax-3/#non-printable-code-point
function isNonPrintable(c: number): boolean {
  return c <= 0x08 || c === 0x0b || (c >= 0x0e && c <= 0x1f) || c === 0x7f;
}

// An escape ends at the first whitespace after its hex digits; always writing one keeps a following hex digit
// or whitespace out of the escape.
function hexEscape(c: number): string {
  return `\\${c.toString(16)} `;
}
