/**
 * The HTML microsyntaxes that hold URLs inside an attribute value, parsed to the offsets of each URL so that
 * only those characters are replaced: srcset candidates, the refresh declaration, space- and comma-separated
 * lists. Offsets are into the (decoded) value.
 */

/** [start, end) of one URL inside a value. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

// https://infra.spec.whatwg.org/#ascii-whitespace
function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

export interface SrcsetCandidate {
  /** The URL (trailing commas removed). */
  readonly url: Span;
  /** The descriptors, as written (kept byte for byte). */
  readonly descriptors: Span;
}

/**
 * https://html.spec.whatwg.org/multipage/images.html#parse-a-srcset-attribute, steps 1–9 and the descriptor
 * tokenizer's extent (step 10's states decide where a candidate ends: at a "," outside parentheses).
 * Descriptors are not validated: a candidate a browser would drop still has its URL rewritten, which designates
 * the same resource either way.
 */
export function parseSrcset(value: string): SrcsetCandidate[] {
  const candidates: SrcsetCandidate[] = [];
  scanSrcset(value, (urlStart, urlEnd, descriptorStart, descriptorEnd) => {
    candidates.push({ url: { start: urlStart, end: urlEnd }, descriptors: { start: descriptorStart, end: descriptorEnd } });
  });
  return candidates;
}

/** parseSrcset, each candidate given to `found` as offsets (the rewriter wants the URLs only: no objects for the rest). */
export function scanSrcset(value: string, found: (urlStart: number, urlEnd: number, descriptorStart: number, descriptorEnd: number) => void): void {
  const n = value.length;
  let pos = 0;
  for (;;) {
    // 3. Splitting loop: collect a sequence of code points that are ASCII whitespace or U+002C COMMA.
    while (pos < n && (isWhitespace(value.charCodeAt(pos)) || value.charCodeAt(pos) === 0x2c)) pos++;
    // 4. If position is past the end of input, return candidates.
    if (pos >= n) return;
    // 5. Collect a sequence of code points that are not ASCII whitespace: url.
    const urlStart = pos;
    while (pos < n && !isWhitespace(value.charCodeAt(pos))) pos++;
    let urlEnd = pos;
    // 7. If url ends with U+002C (,), then remove all trailing U+002C COMMA characters from url; (no descriptors).
    if (value.charCodeAt(urlEnd - 1) === 0x2c) {
      while (urlEnd > urlStart && value.charCodeAt(urlEnd - 1) === 0x2c) urlEnd--;
      if (urlEnd > urlStart) found(urlStart, urlEnd, pos, pos);
      continue;
    }
    // 8. Otherwise: tokenize descriptors. The candidate ends at a "," outside parentheses, or at the end.
    const descriptorStart = pos;
    let inParens = false;
    while (pos < n) {
      const c = value.charCodeAt(pos);
      if (c === 0x28) inParens = true;
      else if (c === 0x29) inParens = false;
      else if (c === 0x2c && !inParens) break;
      pos++;
    }
    found(urlStart, urlEnd, descriptorStart, pos);
    if (pos < n) pos++; // the comma
  }
}

/**
 * https://html.spec.whatwg.org/multipage/semantics.html#shared-declarative-refresh-steps, steps 1–11 and 12–20:
 * the span of the URL in a `<meta http-equiv=refresh content>`, or null if the content has none (a plain
 * reload) or is not a refresh declaration.
 */
export function parseMetaRefresh(content: string): { readonly url: Span } | null {
  const n = content.length;
  let pos = 0;
  const skipWhitespace = (): void => {
    while (pos < n && isWhitespace(content.charCodeAt(pos))) pos++;
  };
  const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
  // 2. Skip ASCII whitespace.
  skipWhitespace();
  // 4–5. Collect ASCII digits: timeString; if empty, the next code point must be ".".
  const timeStart = pos;
  while (pos < n && isDigit(content.charCodeAt(pos))) pos++;
  if (pos === timeStart && content.charCodeAt(pos) !== 0x2e) return null;
  // 6. Collect a sequence of code points that are ASCII digits and U+002E FULL STOP (the fraction; ignored).
  while (pos < n && (isDigit(content.charCodeAt(pos)) || content.charCodeAt(pos) === 0x2e)) pos++;
  // 8. If position is not past the end of input: 8.1 the next code point must be ";", "," or whitespace.
  if (pos >= n) return null;
  const c = content.charCodeAt(pos);
  if (c !== 0x3b && c !== 0x2c && !isWhitespace(c)) return null;
  // 8.2 Skip ASCII whitespace. 8.3 If ";" or ",", advance. 8.4 Skip ASCII whitespace.
  skipWhitespace();
  if (content.charCodeAt(pos) === 0x3b || content.charCodeAt(pos) === 0x2c) pos++;
  skipWhitespace();
  // 9–11. If position is past the end: no URL (the document reloads itself).
  if (pos >= n) return null;
  // 11. Let urlString be the rest of input.
  let urlStart = pos;
  const lower = (i: number): number => content.charCodeAt(i) | 0x20;
  // 12–16: an optional "URL" followed by whitespace and "=". Any miss jumps to "parse" with urlString as is,
  // except that a missing "U" jumps to "skip quotes".
  let parseAsIs = false;
  if (lower(pos) === 0x75 /* u */) {
    pos++;
    if (lower(pos) === 0x72 /* r */ && lower(pos + 1) === 0x6c /* l */) {
      pos += 2;
      skipWhitespace();
      if (content.charCodeAt(pos) === 0x3d /* = */) {
        pos++;
        skipWhitespace();
      } else parseAsIs = true;
    } else parseAsIs = true;
  }
  let urlEnd = n;
  if (!parseAsIs) {
    // 17. Skip quotes: a "'" or '"' opens a quoted URL, cut at the same quote.
    const q = content.charCodeAt(pos);
    urlStart = pos;
    if (q === 0x22 || q === 0x27) {
      urlStart = pos + 1;
      const close = content.indexOf(String.fromCharCode(q), urlStart);
      if (close !== -1) urlEnd = close;
    }
  }
  return { url: { start: urlStart, end: urlEnd } };
}

/** Items of a set of space-separated tokens (`ping`, object `archive`, head `profile`). */
export function splitSpaceList(value: string): Span[] {
  const spans: Span[] = [];
  let pos = 0;
  const n = value.length;
  while (pos < n) {
    while (pos < n && isWhitespace(value.charCodeAt(pos))) pos++;
    const start = pos;
    while (pos < n && !isWhitespace(value.charCodeAt(pos))) pos++;
    if (pos > start) spans.push({ start, end: pos });
  }
  return spans;
}

/** Items of a comma-separated list, each without its surrounding whitespace (applet `archive`, HTML 4). */
export function splitCommaList(value: string): Span[] {
  const spans: Span[] = [];
  let start = 0;
  for (let i = 0; i <= value.length; i++) {
    if (i === value.length || value.charCodeAt(i) === 0x2c) {
      let s = start;
      let e = i;
      while (s < e && isWhitespace(value.charCodeAt(s))) s++;
      while (e > s && isWhitespace(value.charCodeAt(e - 1))) e--;
      if (e > s) spans.push({ start: s, end: e });
      start = i + 1;
    }
  }
  return spans;
}
