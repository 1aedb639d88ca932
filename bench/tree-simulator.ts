/**
 * The tree simulator (src/html/tree-simulator.ts) against parse5's tree builder alone, paired in one process:
 *   node bench/tree-simulator.ts [ROUNDS]
 * Each round runs, over the 258 real pages of htmlparser-benchmark, the fast tokenizer with the tree builder
 * (a handler that does nothing) and then the whole rewriter core, once with `StackBuilder.simulate` off and once
 * on, in alternating order. Prints JSON: the median over rounds of (time off / time on) for each, and the best
 * times. (The same process runs both: the ratio of one round is what a shared VM's drifting speed leaves alone.)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { StackBuilder } = await import('../dist/html/tokenizer-driver.js');
const { FastTokenizerDriver } = await import('../dist/html/fast-tokenizer.js');
const { HtmlRewriteCore } = await import('../dist/html/rewriter.js');
const { IDENTITY_CODEC } = await import('../dist/html/attribute-value.js');
const dir = `${root}node_modules/htmlparser-benchmark/files/`;
const docs = readdirSync(dir).sort().map((f) => readFileSync(dir + f, 'latin1'));
const rounds = Number(process.argv[2] ?? 9);
const noop = (): void => {};
const handler = { onStartTag: noop, onEndTag: noop, onText: noop, onComment: noop, onDoctype: noop, onEof: noop };

function builderPass(): number {
  const t0 = performance.now();
  for (const doc of docs) {
    const driver = new FastTokenizerDriver(handler);
    driver.write(doc, false);
    driver.write('', true);
  }
  return performance.now() - t0;
}

function corePass(): number {
  const t0 = performance.now();
  for (const doc of docs) {
    let out = 0;
    const core = new HtmlRewriteCore({ retrieval: { url: 'https://example.com/a/b/page.html' } }, IDENTITY_CODEC, (raw: string) => {
      out += raw.length;
    }, { tokenizer: 'fast' });
    core.write(doc);
    core.end();
    if (out < doc.length) throw new Error('output shorter than input');
  }
  return performance.now() - t0;
}

const times = { builderOff: [] as number[], builderOn: [] as number[], coreOff: [] as number[], coreOn: [] as number[] };
for (let r = 0; r < rounds; r++) {
  for (const on of r % 2 === 0 ? [false, true] : [true, false]) {
    StackBuilder.simulate = on;
    (on ? times.builderOn : times.builderOff).push(builderPass());
    (on ? times.coreOn : times.coreOff).push(corePass());
  }
}
StackBuilder.simulate = true;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const ratio = (off: number[], on: number[]): number => Number(median(off.map((x, i) => x / on[i]!)).toFixed(3));
console.log(
  JSON.stringify({
    builderSpeedup: ratio(times.builderOff, times.builderOn),
    coreSpeedup: ratio(times.coreOff, times.coreOn),
    bestMs: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(Math.min(...v))])),
  }),
);
