/**
 * `Content-Type` of an HTTP response, and the one place that decides which rewriter a response goes to.
 */
import { kindOfContentType } from '../kinds/table.ts';
import type { ContentKind } from '../kinds/table.ts';
import { createRequire } from 'node:module';
import { undici } from './undici.ts';

export interface ContentTypeInfo {
  /** The header value as received, or null when there was none. */
  readonly raw: string | null;
  /** `type/subtype`, lowercased (https://mimesniff.spec.whatwg.org/#mime-type-essence), or null if absent or invalid. */
  readonly essence: string | null;
  /** The `charset` parameter, as written (a label, resolved later by the encoding sniffer). */
  readonly charset: string | undefined;
  /** The `boundary` parameter (multipart). */
  readonly boundary: string | undefined;
}

type ParseMimeType = ReturnType<typeof undici>['parseMIMEType'];
let parseMimeType: ParseMimeType | undefined;

/**
 * undici's `parseMIMEType`, from the one module of undici that defines it (the same function object as
 * `undici().parseMIMEType`): loading all of undici took 70–100 ms of CPU in each thread that parses a
 * Content-Type (a WARC run: the reader's thread and the rewriting worker), this module ~4 ms. All of undici
 * when that module is not where it was.
 */
export function mimeTypeParser(): ParseMimeType {
  if (parseMimeType !== undefined) return parseMimeType;
  try {
    const own = (createRequire(import.meta.url)('undici/lib/web/fetch/data-url.js') as { parseMIMEType?: ParseMimeType }).parseMIMEType;
    if (typeof own === 'function') return (parseMimeType = own);
  } catch {
    // undici's layout changed: the whole package below.
  }
  return (parseMimeType = undici().parseMIMEType);
}

/** https://mimesniff.spec.whatwg.org/#parse-a-mime-type (undici's implementation), tolerant of absence. */
export function parseContentType(value: string | null | undefined): ContentTypeInfo {
  if (value === null || value === undefined) return { raw: null, essence: null, charset: undefined, boundary: undefined };
  const parsed = mimeTypeParser()(value);
  if (parsed === 'failure') return { raw: value, essence: null, charset: undefined, boundary: undefined };
  return { raw: value, essence: parsed.essence, charset: parsed.parameters.get('charset'), boundary: parsed.parameters.get('boundary') };
}

/**
 * https://fetch.spec.whatwg.org/#header-value-get-decode-and-split: a header value split at the commas that are
 * not inside a quoted string, each piece trimmed of spaces and tabs.
 */
export function splitHeaderValue(input: string): string[] {
  const values: string[] = [];
  let position = 0;
  let temporary = '';
  for (;;) {
    while (position < input.length && input[position] !== '"' && input[position] !== ',') temporary += input[position++];
    if (position < input.length && input[position] === '"') {
      // https://fetch.spec.whatwg.org/#collect-an-http-quoted-string, the quotes and escapes kept.
      const start = position++;
      for (;;) {
        while (position < input.length && input[position] !== '"' && input[position] !== '\\') position++;
        if (position >= input.length) break;
        const c = input[position++];
        if (c === '\\') {
          if (position >= input.length) break;
          position++;
        } else break;
      }
      temporary += input.slice(start, position);
      if (position < input.length) continue;
    }
    values.push(temporary.replace(/^[ \t]+|[ \t]+$/g, ''));
    temporary = '';
    if (position >= input.length) return values;
    position++; // the comma
  }
}

/**
 * https://fetch.spec.whatwg.org/#concept-header-extract-mime-type, as browsers read a response's `Content-Type`:
 * every field line (`value` is undici's string, or array for a field sent more than once) split at commas
 * outside quoted strings; each piece that parses as a MIME type and is not `*\/*` replaces the one before (the
 * last wins: `text/plain, text/html` is HTML), keeping the earlier `charset` when the essence is the same and
 * it states none. `raw` is the piece that won (the whole value when none parses).
 */
export function extractContentType(value: string | readonly string[] | null | undefined): ContentTypeInfo {
  if (value === null || value === undefined) return { raw: null, essence: null, charset: undefined, boundary: undefined };
  const joined = typeof value === 'string' ? value : value.join(', ');
  let result: ContentTypeInfo | null = null;
  let charset: string | undefined;
  let essence: string | null = null;
  for (const piece of splitHeaderValue(joined)) {
    const parsed = parseContentType(piece);
    if (parsed.essence === null || parsed.essence === '*/*') continue;
    // Fetch steps 6.4–6.6: another essence drops the charset; a piece that states one sets it for those after it.
    if (parsed.essence !== essence) {
      charset = undefined;
      essence = parsed.essence;
    }
    if (parsed.charset !== undefined) charset = parsed.charset;
    result = parsed.charset === undefined && charset !== undefined ? { ...parsed, charset } : parsed;
  }
  return result ?? { raw: joined, essence: null, charset: undefined, boundary: undefined };
}

/**
 * What is done with a response body:
 * - `html`: the HTML rewriter (default encoding windows-1252, as browsers);
 * - `xhtml`, `svg`, `feed`, `sitemap`, `xml`, `manifest`, `js`: the rewriters of src/kinds (XHTML is parsed as
 *   XML, as browsers do);
 * - `css`: the CSS rewriter;
 * - `mime`: a MIME entity (`message/rfc822`, MHTML as `multipart/related`): for the MIME rewriter;
 * - `none`: anything else, passed through untouched (or skipped in a batch).
 */
export type RewriteKind = 'html' | 'css' | 'mime' | 'none' | ContentKind;

/** The content-type dispatch (SPEC §6): which rewriter a response's media type goes to. */
export function rewriteKindFor(essence: string | null): RewriteKind {
  switch (essence) {
    case 'text/html':
      return 'html';
    case 'application/xhtml+xml':
      return 'xhtml';
    case 'text/css':
      return 'css';
    case 'message/rfc822':
    case 'multipart/related':
    case 'application/x-mimearchive': // Chromium's MHTML type when served
      return 'mime';
    default:
      return kindOfContentType(essence) ?? 'none';
  }
}
