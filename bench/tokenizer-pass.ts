/**
 * The fast tokenizer with parse5's tree builder, no rewriter, over the 258 real pages of htmlparser-benchmark
 * (latin1, 64 KiB writes), or the whole stream (`createHtmlRewriter`, output collected):
 *   node bench/tokenizer-pass.ts [tokenizer|stream] [PASSES]
 * Prints the best main-thread CPU seconds of PASSES passes (thread CPU, not wall: a shared machine's load moves
 * wall time by ±30%). DIST=path/to/other/dist/ runs an older build: A/B in alternating processes.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rewritePass } from './rewrite-pass.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = process.env['DIST'] ?? `${root}dist/`;
const what = process.argv[2] === 'stream' ? 'stream' : 'tokenizer';
const passes = Number(process.argv[3] ?? 3);
const dir = `${root}node_modules/htmlparser-benchmark/files/`;
const files = readdirSync(dir).sort().map((f) => readFileSync(dir + f));
const cpu = (): number => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1e6;
};

type Handler = Record<string, (...args: never[]) => void>;
const { FastTokenizerDriver } = (await import(`${dist}html/fast-tokenizer.js`)) as { FastTokenizerDriver: new (h: Handler) => { write(s: string, last: boolean): void } };
const { createHtmlRewriter } = (await import(`${dist}html/stream.js`)) as typeof import('../dist/html/stream.js');
const docs = files.map((b) => b.toString('latin1'));
let sink = 0;
const handler: Handler = {
  onStartTag: (t: { location: { endOffset: number } }) => {
    sink += t.location.endOffset;
  },
  onEndTag() {},
  onText() {},
  onComment() {},
  onDoctype() {},
  onEof() {},
};

async function pass(): Promise<void> {
  if (what === 'tokenizer') {
    for (const doc of docs) {
      const driver = new FastTokenizerDriver(handler);
      for (let i = 0; i < doc.length; i += 65536) driver.write(doc.slice(i, i + 65536), i + 65536 >= doc.length);
    }
    return;
  }
  for (const doc of files) await rewritePass(createHtmlRewriter, doc);
}

let best = Infinity;
for (let p = 0; p < passes; p++) {
  const t0 = cpu();
  await pass();
  best = Math.min(best, cpu() - t0);
}
process.stdout.write(`${JSON.stringify({ what, seconds: Number(best.toFixed(3)), sink: sink > 0 })}\n`);
