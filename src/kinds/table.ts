/**
 * Which kind a document beyond HTML, CSS and MIME is: SVG, XHTML, Atom/RSS feeds, sitemaps, other XML (the root
 * element decides), web app manifests and JavaScript modules. One decision, for the CLI (`--type`, file
 * extensions), HTTP responses and WARC records (`Content-Type`, then the first bytes), and the MIME rewriter. It
 * loads no rewriter, so that a thread that only reads (the WARC reader, through src/http/content-type.ts) does not
 * load them all (~100 ms of CPU a thread); the rewriter for a kind is ./index.ts's.
 *
 * Content types: https://www.iana.org/assignments/media-types (image/svg+xml, application/xhtml+xml,
 * application/atom+xml, application/rss+xml, application/manifest+json, text/javascript and its legacy aliases
 * from https://mimesniff.spec.whatwg.org/#javascript-mime-type). Sniffing: https://mimesniff.spec.whatwg.org/#sniffing-a-mislabeled-feed
 * (a feed served as text/html) and the XML root element, read past the XML declaration, comments,
 * processing instructions and a doctype, as a browser's XML parser would reach it.
 */
import type { XmlDialect } from '../xml/rewriter.ts';

/** The kinds this module rewrites. `xml`: XML whose root element decides (or that passes through). */
export type ContentKind = XmlDialect | 'xml' | 'manifest' | 'js';

export const CONTENT_KINDS: readonly ContentKind[] = ['svg', 'xhtml', 'feed', 'sitemap', 'xml', 'manifest', 'js'];

// https://mimesniff.spec.whatwg.org/#javascript-mime-type
const JAVASCRIPT_TYPES = new Set([
  'application/ecmascript', 'application/javascript', 'application/x-ecmascript', 'application/x-javascript',
  'text/ecmascript', 'text/javascript', 'text/javascript1.0', 'text/javascript1.1', 'text/javascript1.2',
  'text/javascript1.3', 'text/javascript1.4', 'text/javascript1.5', 'text/jscript', 'text/livescript',
  'text/x-ecmascript', 'text/x-javascript',
]);

/** The kind a media type essence names (lowercase `type/subtype`), or null. */
export function kindOfContentType(essence: string | null): ContentKind | null {
  if (essence === null) return null;
  switch (essence) {
    case 'image/svg+xml':
      return 'svg';
    case 'application/xhtml+xml':
      return 'xhtml';
    case 'application/atom+xml':
    case 'application/rss+xml':
    case 'application/rdf+xml':
      return 'feed';
    case 'application/manifest+json':
      return 'manifest';
    case 'text/xml':
    case 'application/xml':
      return 'xml';
    default:
      if (JAVASCRIPT_TYPES.has(essence)) return 'js';
      // https://mimesniff.spec.whatwg.org/#xml-mime-type: any +xml type is XML; the root decides.
      return essence.endsWith('+xml') ? 'xml' : null;
  }
}

/** File extensions of the kinds (a `.xml` file: the root element decides). */
export const KIND_EXTENSIONS: ReadonlyArray<readonly [string, ContentKind]> = [
  ['.svg', 'svg'],
  ['.xhtml', 'xhtml'],
  ['.xht', 'xhtml'],
  ['.atom', 'feed'],
  ['.rss', 'feed'],
  ['.xml', 'xml'],
  ['.webmanifest', 'manifest'],
  ['.mjs', 'js'],
  ['.js', 'js'],
];

/** The kind a file name's extension names, or null. */
export function kindOfName(name: string): ContentKind | null {
  const lower = name.toLowerCase();
  for (const [ext, kind] of KIND_EXTENSIONS) if (lower.endsWith(ext)) return kind;
  return null;
}

/** Bytes `sniffKind` looks at (mimesniff's resource header is 1445 bytes). */
export const KIND_SNIFF_BYTES = 1445;

/**
 * The XML kind the first bytes show, or null: skips a BOM, whitespace, the XML declaration, processing
 * instructions, comments and a doctype, then reads the root element's name. `svg` → svg; `html` with the XHTML
 * namespace declared → xhtml; `feed`, `rss`, `rdf:RDF` → feed (mimesniff's mislabeled-feed rule looks for the
 * same roots); `urlset`, `sitemapindex` → sitemap.
 */
export function sniffKind(head: Uint8Array): ContentKind | null {
  let s = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, KIND_SNIFF_BYTES)).toString('latin1');
  if (s.startsWith('\xef\xbb\xbf')) s = s.slice(3);
  let i = 0;
  for (;;) {
    while (i < s.length && ' \t\r\n'.includes(s[i]!)) i++;
    if (s.startsWith('<?', i)) {
      const end = s.indexOf('?>', i);
      if (end === -1) return null;
      i = end + 2;
    } else if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 4);
      if (end === -1) return null;
      i = end + 3;
    } else if (s.startsWith('<!', i)) {
      // A doctype, possibly with an internal subset.
      let depth = 0;
      let j = i + 2;
      for (; j < s.length; j++) {
        if (s[j] === '[') depth++;
        else if (s[j] === ']') depth--;
        else if (s[j] === '>' && depth <= 0) break;
      }
      if (j >= s.length) return null;
      i = j + 1;
    } else break;
  }
  if (s[i] !== '<') return null;
  const m = /^<([A-Za-z_][-A-Za-z0-9._]*(?::[A-Za-z_][-A-Za-z0-9._]*)?)[\s/>]/.exec(s.slice(i, i + 200));
  if (m === null) return null;
  const name = m[1]!;
  const local = name.includes(':') ? name.slice(name.indexOf(':') + 1) : name;
  if (local === 'svg') return 'svg';
  if (name === 'html') return s.slice(i, i + 1000).includes('http://www.w3.org/1999/xhtml') ? 'xhtml' : null;
  if (name === 'feed' || name === 'rss' || name === 'rdf:RDF') return 'feed';
  if (local === 'urlset' || local === 'sitemapindex') return 'sitemap';
  return null;
}

/**
 * The kind of a document: the content type (or the user's `--type`) first; for generic XML and for a body with
 * no content type, the first bytes; else by file name.
 */
export function detectKind(input: { readonly essence?: string | null; readonly name?: string | null; readonly head?: Uint8Array | null }): ContentKind | null {
  const byType = kindOfContentType(input.essence ?? null);
  if (byType !== null && byType !== 'xml') return byType;
  const sniffed = input.head == null ? null : sniffKind(input.head);
  if (byType === 'xml') return sniffed ?? 'xml';
  if (input.essence == null && sniffed !== null) return sniffed;
  return input.name == null ? null : kindOfName(input.name);
}
