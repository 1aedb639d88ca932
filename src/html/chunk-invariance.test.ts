/**
 * Output identical whole, in 1-byte chunks and in random chunks (issue 19 item 4): over the Chromium
 * differential's corpus (test/helpers/tree-differential.ts: html5lib inputs with injected snippets, grammar
 * documents, token soup), with and without exactBase; and token limits measured on tokens, never on chunk
 * boundaries. `CHUNK_DOCS=n` checks more documents (default 600).
 */
import { describe, expect, it } from 'vitest';
import { CHUNK_SEED, feedChunks, fixedChunks, randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { differentialCorpus } from '../../test/helpers/tree-differential.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import { createHtmlRewriter, transformWhole } from './stream.ts';
import type { HtmlStreamOptions } from './stream.ts';

const DOCS = Number(process.env['CHUNK_DOCS'] ?? 600);

async function run(chunks: Buffer[], options: HtmlStreamOptions): Promise<{ output: string; warnings: string[] }> {
  const warnings: string[] = [];
  const output = await feedChunks(chunks, { ...options, onWarning: (w) => warnings.push(w.code) });
  return { output: output.toString('latin1'), warnings };
}

/** The document rewritten whole, without the stream (transformWhole: what the WARC worker and MIME parts use). */
async function runWhole(doc: Buffer, options: HtmlStreamOptions): Promise<{ output: string; warnings: string[] }> {
  const warnings: string[] = [];
  const output = await transformWhole(createHtmlRewriter({ ...options, onWarning: (w) => warnings.push(w.code) }), doc);
  return { output: output.toString('latin1'), warnings };
}

describe('chunk invariance', () => {
  it(`${DOCS} differential documents: the same output and warnings whole, byte by byte and in random chunks (seed ${CHUNK_SEED})`, async () => {
    const random = seededRandom(CHUNK_SEED);
    const docs = differentialCorpus(DOCS, CHUNK_SEED);
    let checked = 0;
    for (const [i, text] of docs.entries()) {
      const doc = Buffer.from(text, 'utf8');
      const options: HtmlStreamOptions = { retrieval: { url: 'http://absolutize.test/a/b/page.html' }, charset: 'utf-8', exactBase: i % 2 === 0 };
      const whole = await run([doc], options);
      const bytes = await run(fixedChunks(doc, 1), options);
      const randomly = await run(randomChunks(doc, random, 1 + Math.floor(random() * 40)), options);
      expect(bytes, `1-byte chunks of ${JSON.stringify(text)}`).toEqual(whole);
      expect(randomly, `random chunks of ${JSON.stringify(text)}`).toEqual(whole);
      expect(await runWhole(doc, options), `transformWhole of ${JSON.stringify(text)}`).toEqual(whole);
      checked++;
    }
    expect(checked).toBe(DOCS);
  }, 600_000);

  it('token-limit fires on a token over the limit, never on held bytes: three comments under the limit, each followed by a link', async () => {
    const limits = { ...DEFAULT_LIMITS, maxTokenBytes: 1 << 20 };
    const comment = (n: number): string => `<!--${'x'.repeat(n)}-->`;
    const options: HtmlStreamOptions = { retrieval: { url: 'http://h/d/p.html' }, limits };
    const under = Buffer.from(`<p>${comment(600_000)}<a href="a1">${comment(600_000)}<a href="a2">${comment(600_000)}<a href="a3">`);
    const random = seededRandom(CHUNK_SEED);
    const runs = [[under], fixedChunks(under, 65536), fixedChunks(under, 10_000), fixedChunks(under, 4096), randomChunks(under, random, 5000)];
    const underResults = [await runWhole(under, options)];
    for (const chunks of runs) underResults.push(await run(chunks, options));
    for (const r of underResults) {
      expect(r.warnings).toEqual([]);
      expect(r.output.match(/http:\/\/h\/d\/a\d/g)).toEqual(['http://h/d/a1', 'http://h/d/a2', 'http://h/d/a3']);
    }
    // One comment over the limit: rewriting stops at it, whatever the chunks.
    const over = Buffer.from(`<p>${comment(600_000)}<a href="a1">${comment(1_200_000)}<a href="a2">${comment(600_000)}<a href="a3">`);
    const overRuns = [[over], fixedChunks(over, 65536), fixedChunks(over, 10_000), fixedChunks(over, 777)];
    const overResults = [await runWhole(over, options)];
    for (const chunks of overRuns) overResults.push(await run(chunks, options));
    for (const r of overResults) {
      expect(r.warnings).toEqual(['token-limit']);
      expect(r.output.match(/http:\/\/h\/d\/a\d/g)).toEqual(['http://h/d/a1']);
      expect(r.output.length).toBe(over.length + 'http://h/d/'.length);
    }
  }, 300_000);

  it('the shape of issue 19 at the default limit (16 MiB): three 9 MiB comments each followed by a link, whole and in 64 KiB and 10,000-byte chunks', async () => {
    const comment = `<!--${'c'.repeat(9 << 20)}-->`;
    const doc = Buffer.from(`${comment}<a href="l1">${comment}<a href="l2">${comment}<a href="l3">`);
    const outputs = new Set<string>();
    for (const chunks of [[doc], fixedChunks(doc, 65536), fixedChunks(doc, 10_000)]) {
      const r = await run(chunks, { retrieval: { url: 'http://h/d/p.html' } });
      // (The comments push the charset <meta> scan and the base lookahead past their limits: those warnings, not
      // token-limit.)
      expect(r.warnings).toEqual(['charset-lookahead-limit', 'base-lookahead-limit']);
      expect(r.output.match(/http:\/\/h\/d\/l\d/g)).toEqual(['http://h/d/l1', 'http://h/d/l2', 'http://h/d/l3']);
      outputs.add(r.output);
    }
    expect(outputs.size).toBe(1);
  }, 300_000);
});
