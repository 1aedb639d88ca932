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

/** @internal The text between `url(` and `)` of an unquoted url-token whose value is `url`. */
export function escapeUrlTokenBody(url: string): string {
  let out = '';
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0) out += '\uFFFD';
    // consume-url-token: whitespace (only allowed trailing) and non-printables make a bad-url token.
    else if (isWhitespace(c) || isNonPrintable(c)) out += hexEscape(c);
    // consume-url-token: '"', "'" and '(' make a bad-url token; ')' ends it; '\' starts an escape.
    else if (c === 0x22 || c === 0x27 || c === 0x28 || c === 0x29 || c === 0x5c) out += '\\' + url[i];
    else out += url[i];
  }
  return out;
}

/** @internal The text between the quotes of a string token whose value is `url`. */
export function escapeStringBody(url: string, quote: '"' | "'"): string {
  let out = '';
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0) out += '\uFFFD';
    // consume-string-token: a newline makes a bad-string token.
    else if (c === 0x0a || c === 0x0c || c === 0x0d) out += hexEscape(c);
    else if (url[i] === quote || c === 0x5c) out += '\\' + url[i];
    else out += url[i];
  }
  return out;
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
