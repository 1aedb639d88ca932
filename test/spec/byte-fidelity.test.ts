/**
 * Byte fidelity (issue "HTML and CSS", Done when): over the browser corpus and the 258 real pages of the
 * htmlparser-benchmark package,
 * - with no base (nothing can be rewritten) the output is the input, byte for byte;
 * - with a base, the only differences are values of URL-bearing attributes and URL tokens of <style> text or
 *   JSON scripts: parse5's SAX parser sees the same tokens, names and text everywhere else, and a changed
 *   single-URL attribute designates the same URL as before;
 * - the output is the same whether the input arrives whole, one byte at a time, or in seeded random chunks.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { SAXParser } from 'parse5-sax-parser';
import { describe, expect, it } from 'vitest';
import { absolutizeHtml } from '../../src/html/stream.ts';
import { CHUNK_SEED, chunkings, feedChunks, randomChunks, seededRandom } from '../helpers/chunks.ts';
import { loadCorpus } from '../helpers/corpus.ts';

const require = createRequire(import.meta.url);
const benchmarkDir = `${dirname(require.resolve('htmlparser-benchmark/package.json'))}/files/`;

interface Page {
  readonly name: string;
  readonly body: Buffer;
  readonly charset?: string | undefined;
}

const pages: Page[] = [
  ...loadCorpus().map((p) => ({ name: p.name, body: p.body, charset: /charset=([^;]+)/i.exec(p.contentType)?.[1] })),
  ...readdirSync(benchmarkDir)
    .filter((f) => f.endsWith('.html'))
    .sort()
    .map((f) => ({ name: f.slice(0, 12), body: readFileSync(benchmarkDir + f) })),
];

const RETRIEVAL_URL = 'https://example.com/dir/sub/page.html';

const URL_ATTRIBUTES_WITH_ONE_URL = new Set([
  'href', 'src', 'action', 'formaction', 'cite', 'data', 'poster', 'background', 'longdesc', 'lowsrc', 'dynsrc',
  'codebase', 'classid', 'manifest', 'icon', 'itemid', 'xlink:href', 'datasrc', 'code', 'object', 'altimg',
  'definitionurl', 'pluginspage', 'pluginurl', 'about', 'resource', 'vocab', 'value',
]);
const URL_ATTRIBUTES_OTHER = new Set(['srcset', 'imagesrcset', 'ping', 'archive', 'profile', 'style', 'content', 'srcdoc', 'fill', 'stroke', 'clip-path', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end', 'cursor']);

type SaxToken =
  | { t: 'start'; name: string; attrs: ReadonlyArray<{ name: string; value: string }> }
  | { t: 'end'; name: string }
  | { t: 'text'; text: string; inside: string | null }
  | { t: 'comment'; text: string }
  | { t: 'doctype'; text: string };

/** The token stream parse5's SAX parser sees in a document (bytes read as latin1, one char per byte). */
function saxTokens(bytes: Buffer | string): SaxToken[] {
  const tokens: SaxToken[] = [];
  let open: string | null = null;
  const parser = new SAXParser();
  parser.on('startTag', (t) => {
    tokens.push({ t: 'start', name: t.tagName, attrs: t.attrs.map((a) => ({ name: a.prefix ? `${a.prefix}:${a.name}` : a.name, value: a.value })) });
    open = t.tagName === 'style' || t.tagName === 'script' || t.tagName === 'noscript' ? t.tagName : null;
  });
  parser.on('endTag', (t) => {
    tokens.push({ t: 'end', name: t.tagName });
    open = null;
  });
  parser.on('text', (t) => {
    const last = tokens.at(-1);
    if (last?.t === 'text') last.text += t.text;
    else tokens.push({ t: 'text', text: t.text, inside: open });
  });
  parser.on('comment', (t) => tokens.push({ t: 'comment', text: t.text }));
  parser.on('doctype', (t) => tokens.push({ t: 'doctype', text: `${t.name} ${t.publicId} ${t.systemId}` }));
  parser.end(typeof bytes === 'string' ? bytes : bytes.toString('latin1'));
  return tokens;
}

/** Differences between two token streams that are not rewritten URL values. */
function unexplainedDifferences(before: SaxToken[], after: SaxToken[], base: string | null): string[] {
  const out: string[] = [];
  if (before.length !== after.length) return [`token count ${before.length} → ${after.length}`];
  for (let i = 0; i < before.length && out.length < 5; i++) {
    const a = before[i]!;
    const b = after[i]!;
    if (a.t !== b.t) {
      out.push(`token ${i}: ${a.t} → ${b.t}`);
    } else if (a.t === 'start' && b.t === 'start') {
      if (a.name !== b.name || a.attrs.length !== b.attrs.length) {
        out.push(`token ${i}: <${a.name}> → <${b.name}>`);
        continue;
      }
      a.attrs.forEach((attr, k) => {
        const other = b.attrs[k]!;
        if (attr.name !== other.name) out.push(`<${a.name}> attribute ${attr.name} → ${other.name}`);
        else if (attr.value !== other.value) {
          const name = attr.name.toLowerCase();
          if (URL_ATTRIBUTES_WITH_ONE_URL.has(name)) {
            // Non-ASCII bytes are read as latin1 here: the page's own encoding decides those; skip the identity check.
            const ascii = /^[\x00-\x7f]*$/.test(attr.value);
            // A <base href> resolves against the document's URL; applet code/object against its codebase.
            const against = a.name === 'base' ? RETRIEVAL_URL : base;
            if (a.name === 'applet') return;
            const designated = against === null ? null : URL.parse(attr.value.trim(), against)?.href;
            const now = URL.parse(other.value.trim())?.href;
            if (ascii && designated !== now && !(name === 'href' && other.value.startsWith('#'))) {
              out.push(`<${a.name} ${name}> ${JSON.stringify(attr.value)} → ${JSON.stringify(other.value)} designates ${now}, not ${designated}`);
            }
          } else if (!URL_ATTRIBUTES_OTHER.has(name)) {
            out.push(`<${a.name} ${name}> is not URL-bearing but changed: ${JSON.stringify(attr.value)} → ${JSON.stringify(other.value)}`);
          }
        }
      });
    } else if (a.t === 'text' && b.t === 'text') {
      if (a.text === b.text || a.inside === 'style' || a.inside === 'script') continue;
      // parse5's SAX parser runs with scripting on, so <noscript> content is text to it; the rewriter reads it
      // as markup (what a crawler or a reader without scripts sees). Compare it as markup.
      if (a.inside === 'noscript') out.push(...unexplainedDifferences(saxTokens(a.text), saxTokens(b.text), base));
      else out.push(`text changed: ${JSON.stringify(a.text.slice(0, 80))}`);
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.push(`token ${i} changed: ${JSON.stringify(a).slice(0, 120)}`);
    }
  }
  return out;
}

describe('byte fidelity', () => {
  it(`has the corpus (${pages.length} pages)`, () => {
    expect(pages.length).toBeGreaterThan(258);
  });

  it('with no base, every page comes out byte-identical (a page with an absolute <base> of its own has one)', async () => {
    const changed: string[] = [];
    let withoutBase = 0;
    for (const page of pages) {
      const r = await absolutizeHtml(page.body, { charset: page.charset });
      if (r.base?.url != null) {
        expect(r.base.source, page.name).toBe('embedded');
        continue;
      }
      withoutBase++;
      if (!r.output.equals(page.body)) changed.push(page.name);
    }
    expect(changed).toEqual([]);
    expect(withoutBase).toBeGreaterThan(240);
  });

  it('with a base, only URL values change, and each still designates the same URL', async () => {
    const problems: string[] = [];
    let rewritten = 0;
    for (const page of pages) {
      const r = await absolutizeHtml(page.body, { charset: page.charset, retrieval: { url: RETRIEVAL_URL } });
      rewritten += r.stats.rewritten;
      // parse5's SAX parser ends foreign content and reads <select> content by a simplified rule (issue 11): it
      // misreads this page, made to show it. src/html/foreign-content.test.ts checks it against parse5 trees.
      if (page.name === 'foreign-content.html') continue;
      const found = unexplainedDifferences(saxTokens(page.body), saxTokens(r.output), r.base?.url ?? null);
      if (found.length > 0) problems.push(`${page.name}: ${found.join('; ')}`);
    }
    expect(problems).toEqual([]);
    expect(rewritten).toBeGreaterThan(10_000);
  });

  it(`is the same whole, in random chunks and byte by byte (seed ${CHUNK_SEED})`, async () => {
    const options = { retrieval: { url: RETRIEVAL_URL } };
    const random = seededRandom(CHUNK_SEED);
    const differing: string[] = [];
    for (const [i, page] of pages.entries()) {
      const whole = await feedChunks([page.body], { ...options, charset: page.charset });
      const runs = i % 16 === 0 ? chunkings(page.body, 1) : [randomChunks(page.body, random, 1 + Math.floor(random() * 4096))];
      for (const chunks of runs) {
        const out = await feedChunks(chunks, { ...options, charset: page.charset });
        if (!out.equals(whole)) differing.push(`${page.name} (${chunks.length} chunks)`);
      }
    }
    expect(differing).toEqual([]);
  });
});
