/**
 * A file's type from its content, as a browser decides it for a resource of unknown type: the files of a wget or
 * HTTrack mirror whose names say nothing (`v.php`, `x.asp`, `p.html?page=2`, `index` with no extension).
 *
 * HTML: the MIME Sniffing standard, "rules for identifying a resource with an unknown MIME type"
 * (https://mimesniff.spec.whatwg.org/#rules-for-identifying-an-unknown-mime-type), its scriptable patterns:
 * after any leading whitespace bytes, `<!DOCTYPE HTML`, `<HTML`, `<HEAD`, `<SCRIPT`, `<IFRAME`, `<H1`, `<DIV`,
 * `<FONT`, `<TABLE`, `<A`, `<STYLE`, `<TITLE`, `<B`, `<BODY`, `<BR`, `<P` or `<!--` (letters in any case),
 * followed by a tag-terminating byte (space or `>`), within the resource header (the first 1445 bytes).
 * NOTE: a UTF-8 byte order mark before the pattern is accepted too (the standard would say text/plain): such a
 * file is HTML to every reader, and rewriting it is what the user of a mirror wants.
 *
 * CSS: no sniffing rule exists for it (a browser takes a stylesheet as one from the link that loads it), so it
 * is CSS by name (`.css`, also before a `?`: `style.css?v=3`) or by content that starts as a stylesheet does
 * (src/kinds/sniff.ts, `looksLikeCss`: an at-rule, or a selector and a declaration block).
 */
import { open } from 'node:fs/promises';
import { RESOURCE_HEADER_BYTES, looksLikeCss, looksLikeText, sniffsAsHtml } from '../kinds/sniff.ts';
import type { FsPath } from './paths.ts';
import { typeOfName } from './document-types.ts';
import type { DocumentType } from './document-types.ts';

export { RESOURCE_HEADER_BYTES } from '../kinds/sniff.ts';

/**
 * Extensions whose files a browser never sniffs as HTML or CSS (their type comes from the name: images, fonts,
 * media, archives, scripts, data, plain text): not opened.
 */
const NOT_SNIFFED = new Set(
  'txt js mjs cjs json map xml svg svgz rss atom csv tsv md pdf png jpg jpeg gif webp avif ico bmp tif tiff woff woff2 ttf otf eot mp3 mp4 m4a m4v webm ogg ogv oga wav flac mov avi mkv zip gz tgz bz2 xz 7z rar tar jar exe dll so dmg iso wasm swf'.split(' '),
);

/** The file name without what wget keeps of a URL's query (`p.html?page=2` → `p.html`). */
export function nameBeforeQuery(name: string): string {
  const slash = name.lastIndexOf('/');
  const q = name.indexOf('?', slash + 1);
  return q === -1 ? name : name.slice(0, q);
}

/** The type a mirror's file name gives, before any query: `.html`, `.css`, `.eml`…, or undefined. */
export function typeOfMirrorName(name: string): DocumentType | undefined {
  return typeOfName(name) ?? typeOfName(nameBeforeQuery(name));
}

/** Whether a file of this name is sniffed (its name says nothing of its type). */
export function isSniffed(name: string): boolean {
  const base = nameBeforeQuery(name).slice(nameBeforeQuery(name).lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 || !NOT_SNIFFED.has(base.slice(dot + 1).toLowerCase());
}

/** The type of the bytes of a file whose name says nothing: `html`, `css`, or null (copied as it is). */
export function sniffDocumentType(header: Uint8Array): 'html' | 'css' | null {
  if (sniffsAsHtml(header, { utf8Bom: true })) return 'html';
  // MIME Sniffing §3: a binary data byte says the bytes are not text.
  if (!looksLikeText(header)) return null;
  if (looksLikeCss(header)) return 'css';
  return null;
}

/** The first `n` bytes of a file (fewer if it is shorter), or null when it cannot be read (the copy says why). */
export async function readFilePrefix(path: FsPath, n: number): Promise<Buffer | null> {
  const prefix = Buffer.alloc(n);
  try {
    const file = await open(path, 'r');
    try {
      return prefix.subarray(0, (await file.read(prefix, 0, n, 0)).bytesRead);
    } finally {
      await file.close();
    }
  } catch {
    return null;
  }
}

/** Reads a file's resource header and sniffs it; null when it is not HTML or CSS, or cannot be read (the copy says why). */
export async function sniffFile(path: FsPath): Promise<'html' | 'css' | null> {
  const header = await readFilePrefix(path, RESOURCE_HEADER_BYTES);
  return header === null ? null : sniffDocumentType(header);
}
