/**
 * The reference path's shortcuts against the plain path (issue 23): the plain-reference join
 * (src/uri/relative-shortcut.ts) with its prefix insertion (HtmlRewriteCore.spliceValue), references left
 * unresolved when nobody listens, and tags planned as they are tokenized. The same documents are rewritten with
 * the browser resolver and with a resolver that answers the same through the URL parser alone (no shortcut, no
 * prefix); output, statistics, warnings and the references reported must be the same, with and without a
 * listener, in legacy encodings, whole and in random chunks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWithoutShortcut } from '../../test/helpers/url-oracle.ts';
import { browserResolver } from '../uri/browser.ts';
import { stripAsciiWhitespace } from '../uri/reference.ts';
import type { Resolver } from '../uri/types.ts';
import { encodeString } from '../encoding/codec.ts';
import { chunkings } from '../../test/helpers/chunks.ts';
import { createHtmlRewriter, transformWhole } from './stream.ts';
import type { HtmlStreamOptions } from './stream.ts';
import type { ReferenceRecord } from './rewriter.ts';

/** A resolver named "browser" that is not browserResolver: the policy takes no shortcut with it. */
const parserOnly: Resolver = {
  name: 'browser',
  resolve(input, base, options) {
    const r = browserResolver.resolve(input, base, options);
    return r.href === null ? r : { ...r, href: parseWithoutShortcut(stripAsciiWhitespace(input), base, options?.encoding) };
  },
  isValidBase: (value) => browserResolver.isValidBase(value),
};

const REFERENCES = [
  'img/1.png', 'a b', ' x ', '\tpage.html\n', '../up/x.html?x=1&amp;y=2#f', '../../x', './', '.', '..', '/abs/p', '//host/p',
  '?q=1', '#top', '', 'https://absolute.example/x', 'HTTP:rel', 'http:/x', 'mailto:a@b', 'javascript:void(0)', 'x&amp;y',
  '&#x2e;&#x2e;/up', '&amp', 'a&quot;b', "a'b", 'a"b', 'é/ü?q=日', '%2e%2e/x', '%20x', 'a\\b', '\\\\host\\x', 'data:,x',
  'x?a=&lt;b&gt;', '&#0;x', 'x&#128;', 'x#a#b', '?', '#', 'a:b', '1a:b', '&#x1F600;',
];
const reference = fc.oneof(fc.constantFrom(...REFERENCES), fc.array(fc.constantFrom('a', '/', '.', '..', '?', '#', '&amp;', '%', 'é', ' ', ':', "'", '"'), { maxLength: 6 }).map((xs) => xs.join('')));

function quoted(value: string, quote: string): string {
  if (quote === '"') return `"${value.replace(/"/g, '&quot;')}"`;
  if (quote === "'") return `'${value.replace(/'/g, '&#39;')}'`;
  return value === '' || /[\s"'=<>`]/.test(value) ? `"${value.replace(/"/g, '&quot;')}"` : value;
}

// A "/" written as a character reference after leading dots: the edit keeps it as written (keptSuffix), in URL
// attributes as in CSS, so the shortcut splices no cut whose raw text is not its text. (Not in srcdoc: there the
// inner document's edit is escaped anew, and the two paths give different, equivalent bytes: a known gap.)
const slashReference = fc.oneof(reference, fc.constantFrom('..&#47;x', '.&sol;y&sol;z', '..&sol;..&#x2f;z', '..&sol;'));
// In CSS, character references of its delimiters too.
const cssReference = fc.oneof(slashReference, fc.constantFrom('&#x28;x', 'a&#41;b', '&#x27;q'));

const quote = fc.constantFrom('"', "'", '');
const element = fc.oneof(
  fc.tuple(slashReference, quote).map(([r, q]) => `<a href=${quoted(r, q)} rel=nofollow>t</a>`),
  fc.tuple(slashReference, slashReference, quote).map(([r, s, q]) => `<img src=${quoted(r, q)} srcset=${quoted(`${s} 1x, ${r} 2x`, q)}>`),
  fc.tuple(slashReference, quote).map(([r, q]) => `<link rel=stylesheet href=${quoted(r, q)}>`),
  fc.tuple(reference, quote).map(([r, q]) => `<div style=${quoted(`background:url('${r}')`, q)}>x</div>`),
  // CSS in style attributes in every form a URL takes there (spliceCssPrefix): quoted or not, escaped, unclosed.
  fc.tuple(cssReference, fc.constantFrom('url(', 'url( ', 'URL(', 'u\\72l(', 'image-set(', 'url("', 'url(\'', 'src("'), fc.constantFrom(')', ' )', '"', "'", '")', "')", '\\)', ''), quote).map(
    ([r, open, close, q]) => `<p style=${quoted(`background:${open}${r}${close}`, q)}>x</p>`,
  ),
  fc.tuple(cssReference, cssReference).map(([r, s]) => `<svg><rect fill="url(${r})" style="clip-path:url(&quot;${s}&quot;)"/></svg><i style="--a:1;background:url(${r}&#41;">i</i>`),
  fc.tuple(slashReference, slashReference).map(([r, s]) => `<form action="${r}"><input type=image src='${s}'></form>`),
  fc.tuple(slashReference, slashReference).map(([r, s]) => `<a ping="${r} ${s}" href=${quoted(s, '"')}>p</a>`),
  fc.tuple(slashReference).map(([r]) => `<svg><use href="${r}"/><a xlink:href="${r}">s</a></svg>`),
  fc.tuple(slashReference).map(([r]) => `<meta http-equiv=refresh content="0; url=${r}">`),
  fc.tuple(reference).map(([r]) => `<iframe srcdoc="<a href=&quot;${r}&quot;>x</a>"></iframe>`),
  fc.tuple(slashReference, slashReference).map(([r, s]) => `<applet codebase="${r}" code="${s}" archive="${s},${r}"></applet>`),
  fc.tuple(reference).map(([r]) => `<style>a{background:url(${r})}</style>`),
  fc.constantFrom('text', '<p>', '</p>', '<!-- c -->', '<table><tr><td>', '<template>', '</template>', '<frameset>'),
);
const document = fc.tuple(fc.option(reference, { nil: undefined }), fc.array(element, { maxLength: 12 })).map(
  ([baseHref, body]) => `<!doctype html><html><head>${baseHref === undefined ? '' : `<base href="${baseHref}">`}<title>t</title></head><body>${body.join('\n')}</body></html>`,
);
const RETRIEVALS = ['https://example.com/a/b/page.html', "https://example.com/it's(1)/x(", 'https://example.com/d/?q=a)b', 'http://u:p@h.example:8080/x/?q#f', 'https://example.com', 'file:///home/u/x.html', 'foo://h/p/q'];

async function rewrite(chunks: Buffer[], options: HtmlStreamOptions, listen: boolean): Promise<unknown> {
  const warnings: unknown[] = [];
  const references: ReferenceRecord[] = [];
  const stream = createHtmlRewriter({ ...options, onWarning: (w) => warnings.push(w), ...(listen ? { onReference: (r: ReferenceRecord) => references.push(r) } : {}) });
  const out: Buffer[] = [];
  stream.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await done;
  return { output: Buffer.concat(out).toString('latin1'), warnings, references, stats: stream.stats };
}

describe('the reference path: shortcuts against the URL parser alone', () => {
  it('rewrites random documents the same, with and without a listener, in legacy encodings, whole and in chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        document,
        fc.constantFrom(...RETRIEVALS),
        fc.constantFrom('utf-8', 'windows-1252', 'shift_jis'),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 1 << 30 }),
        async (html, url, charset, listen, absolutizeFragments, seed) => {
          const bytes = Buffer.from(encodeString(html, charset, { unencodable: 'html' }));
          const all = chunkings(bytes, 1, seed);
          for (const chunks of [all[0]!, all[2]!]) {
            const options = { retrieval: { url }, charset, absolutizeFragments };
            const fast = await rewrite(chunks, { ...options, resolver: browserResolver }, listen);
            const plain = await rewrite(chunks, { ...options, resolver: parserOnly }, listen);
            expect(fast).toEqual(plain);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('counts unchanged references without resolving them when nobody listens, and the same as with a listener', async () => {
    const html = Buffer.from('<a href="#x">a</a><a href="https://a.example/">b</a><a href="x">c</a><img src="">');
    const stats = async (listen: boolean): Promise<unknown> => {
      const stream = createHtmlRewriter({ retrieval: { url: 'https://example.com/' }, ...(listen ? { onReference: () => {} } : {}) });
      await transformWhole(stream, html);
      return stream.stats;
    };
    expect(await stats(false)).toEqual({ rewritten: 1, unchanged: 2, unresolvable: 0, warnings: 0 });
    expect(await stats(true)).toEqual(await stats(false));
  });
});
