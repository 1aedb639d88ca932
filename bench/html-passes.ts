/**
 * The HTML rewriter core alone over the 258 real pages of htmlparser-benchmark, 5 passes, in 64 KiB writes:
 *   node --max-semi-space-size=4 bench/html-passes.ts [fast|parse5]
 * `parse5` runs it with parse5's own tokenizer (the reference of src/html/fast-tokenizer.ts). Two of these side
 * by side (`node bench/html-passes.ts & node bench/html-passes.ts`) show what a second JavaScript thread costs on
 * a machine (docs/performance.md).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { HtmlRewriteCore } = await import('../dist/html/rewriter.js');
const { IDENTITY_CODEC } = await import('../dist/html/attribute-value.js');
const dir = `${root}node_modules/htmlparser-benchmark/files/`;
const docs = readdirSync(dir).sort().map((f) => readFileSync(dir + f, 'latin1'));
const tokenizer = process.argv[2] === 'parse5' ? 'parse5' : 'fast';
const t0 = performance.now();
let bytes = 0;
for (let pass = 0; pass < 5; pass++) {
  for (const doc of docs) {
    let out = 0;
    const core = new HtmlRewriteCore({ retrieval: { url: 'https://example.com/a/b/page.html' } }, IDENTITY_CODEC, (raw: string) => {
      out += raw.length;
    }, { tokenizer });
    for (let i = 0; i < doc.length; i += 65536) core.write(doc.slice(i, i + 65536));
    core.end();
    bytes += doc.length;
    if (out < doc.length) throw new Error('output shorter than input');
  }
}
const seconds = (performance.now() - t0) / 1000;
process.stdout.write(`${tokenizer}: ${(bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(2)} s, ${(bytes / 1e6 / seconds).toFixed(1)} MB/s\n`);
