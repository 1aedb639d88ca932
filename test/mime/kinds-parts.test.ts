/**
 * MIME and MHTML parts of the kinds beyond HTML and CSS (issue 22): `image/svg+xml`, `application/xhtml+xml`
 * (parsed as XML, as a browser parses XHTML), Atom feeds and JavaScript modules go to their rewriters
 * (src/kinds), each against its part's base (Content-Location, RFC 2557 §5); other parts are copied. Whole,
 * byte by byte and in random chunks, with the transfer encodings kept.
 */
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { createMimeRewriter } from '../../src/mime/stream.ts';
import type { MimeRewriteOptions } from '../../src/mime/rewriter.ts';
import { chunkings } from '../helpers/chunks.ts';
import { resolveLimits } from '../../src/limits.ts';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg"\r\n xmlns:xlink="http://www.w3.org/1999/xlink">\r\n<image href="a.png"/>\r\n<use xlink:href="sprites.svg#i"/>\r\n<rect fill="url(#g)"/></svg>';
const XHTML = '<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><a href="next.xhtml">n</a><img src="/logo.png"/></body></html>';
const FEED = '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><link href="/"/><entry><link href="entry-1"/></entry></feed>';
const MODULE = "import { a } from './lib/a.js';\nexport * from '../b.js';\nconst u = new URL('./c.wasm', import.meta.url);\n";
/** Quoted-printable of lines shorter than 76 characters, rewritten or not (RFC 2045 §6.7: no soft line breaks). */
const quotedPrintable = (s: string): string => s.replace(/=/g, '=3D');
const base64 = (s: string): string => (Buffer.from(s).toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');

/** An MHTML file: the page, then a part of each kind (the XHTML one in base64), and an image that is copied. */
function mhtml(svg: string, xhtml: string, feed: string, module: string): string {
  return [
    'From: <Saved by Blink>',
    'Snapshot-Content-Location: http://example.com/dir/page.html',
    'MIME-Version: 1.0',
    'Content-Type: multipart/related; type="text/html"; boundary="B"',
    '',
    '--B',
    'Content-Type: text/html',
    'Content-Location: http://example.com/dir/page.html',
    '',
    '<img src="img/icon.svg">',
    '--B',
    'Content-Type: image/svg+xml',
    'Content-Transfer-Encoding: quoted-printable',
    'Content-Location: http://example.com/dir/img/icon.svg',
    '',
    quotedPrintable(svg),
    '--B',
    'Content-Type: application/xhtml+xml',
    'Content-Transfer-Encoding: base64',
    'Content-Location: http://example.com/x/doc.xhtml',
    '',
    base64(xhtml),
    '--B',
    'Content-Type: application/atom+xml',
    'Content-Location: feeds/atom.xml',
    '',
    feed,
    '--B',
    'Content-Type: text/javascript',
    'Content-Location: http://example.com/js/main.mjs',
    '',
    module,
    '--B',
    'Content-Type: image/png',
    'Content-Transfer-Encoding: base64',
    'Content-Location: http://example.com/dir/a.png',
    '',
    'iVBORw0KGgo=',
    '--B--',
    '',
  ].join('\r\n');
}

const INPUT = Buffer.from(mhtml(SVG, XHTML, FEED, MODULE));
const EXPECTED = Buffer.from(
  mhtml(
    SVG.replace('href="a.png"', 'href="http://example.com/dir/img/a.png"').replace('xlink:href="sprites.svg#i"', 'xlink:href="http://example.com/dir/img/sprites.svg#i"'),
    XHTML.replace('href="next.xhtml"', 'href="http://example.com/x/next.xhtml"').replace('src="/logo.png"', 'src="http://example.com/logo.png"'),
    FEED.replace('href="/"', 'href="http://example.com/"').replace('href="entry-1"', 'href="http://example.com/dir/feeds/entry-1"'),
    MODULE.replace("'./lib/a.js'", "'http://example.com/js/lib/a.js'").replace("'../b.js'", "'http://example.com/b.js'").replace("'./c.wasm'", "'http://example.com/js/c.wasm'"),
  ).replace('<img src="img/icon.svg">', '<img src="http://example.com/dir/img/icon.svg">'),
);

async function run(chunks: readonly Buffer[], options: MimeRewriteOptions = {}): Promise<{ output: Buffer; refs: Array<{ part: string; raw: string; resolved: string | null; changed: boolean }> }> {
  const refs: Array<{ part: string; raw: string; resolved: string | null; changed: boolean }> = [];
  const out: Buffer[] = [];
  const stream = createMimeRewriter({ ...options, onReference: (r, part) => refs.push({ part, raw: r.raw, resolved: r.resolved, changed: r.changed }) });
  for await (const c of Readable.from(chunks, { objectMode: false }).pipe(stream)) out.push(c as Buffer);
  return { output: Buffer.concat(out), refs };
}

describe('MIME parts of the kinds SVG, XHTML, feeds and JavaScript modules', () => {
  test('each part through its kind, against its own Content-Location, every other byte as it was', async () => {
    const { output, refs } = await run([INPUT]);
    expect(output.toString('latin1')).toBe(EXPECTED.toString('latin1'));
    expect(refs.filter((r) => r.changed).map((r) => [r.part, r.resolved])).toEqual([
      ['1', 'http://example.com/dir/img/icon.svg'],
      ['2', 'http://example.com/dir/img/a.png'],
      ['2', 'http://example.com/dir/img/sprites.svg#i'],
      ['3', 'http://example.com/x/next.xhtml'],
      ['3', 'http://example.com/logo.png'],
      ['4', 'http://example.com/'],
      ['4', 'http://example.com/dir/feeds/entry-1'],
      ['5', 'http://example.com/js/lib/a.js'],
      ['5', 'http://example.com/b.js'],
      ['5', 'http://example.com/js/c.wasm'],
    ]);
  });

  test.each(chunkings(INPUT, 4).map((c, i) => [i, c] as const))('chunking %i (whole, byte by byte, random) gives the same bytes', async (_i, chunks) => {
    expect((await run(chunks)).output.equals(EXPECTED)).toBe(true);
  });

  test('parts larger than maxMimePartBytes are rewritten as they stream, to the same bytes', async () => {
    const limits = resolveLimits({ maxMimePartBytes: 64 });
    for (const chunks of chunkings(INPUT, 2)) expect((await run(chunks, { limits })).output.toString('latin1')).toBe(EXPECTED.toString('latin1'));
  });
});
