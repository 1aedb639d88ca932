/**
 * The URL parser alone, as `parseWhatwgUrl` (src/uri/browser.ts) was before the plain-reference shortcut: the
 * oracle the shortcut's property tests compare with. Node's URL for UTF-8 documents and ASCII input, whatwg-url
 * with the document's encoding otherwise (the query's percent-encoding depends on it).
 */
import whatwgUrl from 'whatwg-url';

const UTF8_LABELS = ['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8'];

export function parseWithoutShortcut(input: string, base: string, encoding: string | undefined): string | null {
  const utf8 = encoding === undefined || UTF8_LABELS.includes(encoding.trim().toLowerCase());
  if (utf8 || /^[\x00-\x7f]*$/.test(input)) return URL.parse(input, base)?.href ?? null;
  const baseURL = whatwgUrl.parseURL(base);
  if (baseURL === null) return null;
  const url = whatwgUrl.parseURL(input, { baseURL, encoding: encoding!.trim().toLowerCase() });
  return url === null ? null : whatwgUrl.serializeURL(url);
}
