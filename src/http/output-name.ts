/**
 * The file a retrieved document is written to in `-o DIR`: named from its final URL, readable, safe on any file
 * system, and unique: `<host>_<port>_<path>.<hash>.<ext>`, where the hash (the first 10 hex digits of SHA-256
 * of the URL without its fragment) tells apart URLs that differ only in characters the name cannot keep
 * (query, case, punctuation). The same URL always gives the same name, so a re-run overwrites.
 */
import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import type { RewriteKind } from './content-type.ts';

// feed, xml, js: the URL's own extension (.atom, .rss, .xml, .js, .mjs), if any.
const KIND_EXTENSIONS: Record<RewriteKind, string | null> = { html: '.html', xhtml: '.xhtml', css: '.css', mime: '.mht', none: null, svg: '.svg', sitemap: '.xml', manifest: '.webmanifest', feed: null, xml: null, js: null };
/** Characters kept of host and path; the rest of the name is the hash and the extension. */
const MAX_STEM_CHARS = 120;

export function outputFileName(finalUrl: string, kind: RewriteKind): string {
  const url = new URL(finalUrl);
  url.hash = '';
  url.username = '';
  url.password = '';
  const hash = createHash('sha256').update(url.href).digest('hex').slice(0, 10);
  let path = url.pathname.endsWith('/') ? `${url.pathname}index` : url.pathname;
  const pathExtension = extname(path).toLowerCase();
  const extension = KIND_EXTENSIONS[kind] ?? (/^\.[a-z0-9]{1,8}$/.test(pathExtension) ? pathExtension : '');
  if (pathExtension !== '' && (pathExtension === extension || (kind === 'html' && pathExtension === '.htm'))) path = path.slice(0, -pathExtension.length);
  const stem = `${url.hostname}${url.port === '' ? '' : `_${url.port}`}${path}`
    .replace(/[^A-Za-z0-9.-]+/g, '_')
    .replace(/^[._-]+|[._-]+$/g, '')
    .slice(0, MAX_STEM_CHARS);
  return `${stem}.${hash}${extension}`;
}
