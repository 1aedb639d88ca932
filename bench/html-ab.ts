/**
 * Two builds of the HTML rewriter side by side, for a change's A/B on a shared machine:
 *   node bench/html-ab.ts PAIRS stream|core OTHER_DIST/ [FILE...]
 * Each pair is a fresh worker thread for each build (OTHER_DIST, then this checkout's dist/), two warm-up passes
 * and three timed passes each, alternating, the order turned every pair; a pass is the 258 real pages of
 * htmlparser-benchmark (or FILEs) through the stream (`stream`, output collected) or through HtmlRewriteCore in
 * 64 KiB writes (`core`), timed in thread CPU. Prints the medians of the best pass of each side and of the pairs'
 * ratios (OTHER / this: above 1, this build is the faster). Fresh isolates a pair, because one isolate's JIT
 * decisions move a pass by a few percent either way (an A/A run of this gives 1.00 ± 0.03 a pair).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { BENCH_BASE, rewritePass } from './rewrite-pass.ts';

interface Job {
  readonly dist: string;
  readonly mode: string;
  readonly files: readonly string[];
}

if (!isMainThread) {
  const { dist, mode, files } = workerData as Job;
  const { HtmlRewriteCore } = (await import(`${dist}html/rewriter.js`)) as typeof import('../dist/html/rewriter.js');
  const { createHtmlRewriter } = (await import(`${dist}html/stream.js`)) as typeof import('../dist/html/stream.js');
  const { IDENTITY_CODEC } = (await import(`${dist}html/attribute-value.js`)) as typeof import('../dist/html/attribute-value.js');
  const buffers = files.map((f) => readFileSync(f));
  const docs = buffers.map((b) => b.toString('latin1'));
  parentPort!.on('message', () => {
    void (async () => {
      const t0 = process.threadCpuUsage();
      if (mode === 'stream') for (const b of buffers) await rewritePass(createHtmlRewriter, b);
      else {
        for (const doc of docs) {
          const core = new HtmlRewriteCore({ retrieval: { url: BENCH_BASE } }, IDENTITY_CODEC, () => {});
          for (let i = 0; i < doc.length; i += 65536) core.write(doc.slice(i, i + 65536));
          core.end();
        }
      }
      const t = process.threadCpuUsage(t0);
      parentPort!.postMessage((t.user + t.system) / 1e6);
    })();
  });
} else {
  const [pairsArg, mode, other, ...rest] = process.argv.slice(2);
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dir = `${root}node_modules/htmlparser-benchmark/files/`;
  const files = rest.length > 0 ? rest : readdirSync(dir).sort().map((f) => dir + f);
  const side = (dist: string): { pass: () => Promise<number>; end: () => Promise<number> } => {
    const w = new Worker(new URL(import.meta.url), { workerData: { dist, mode, files } satisfies Job });
    return {
      pass: () =>
        new Promise((resolve, reject) => {
          w.once('message', resolve);
          w.once('error', reject);
          w.postMessage(0);
        }),
      end: () => w.terminate(),
    };
  };
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const others: number[] = [];
  const ours: number[] = [];
  const ratios: number[] = [];
  for (let p = 0; p < Number(pairsArg); p++) {
    const a = side(other!);
    const b = side(`${root}dist/`);
    const order = p % 2 === 0 ? [a, b] : [b, a];
    for (let k = 0; k < 2; k++) for (const s of order) await s.pass();
    let x = Infinity;
    let y = Infinity;
    for (let k = 0; k < 3; k++) {
      for (const s of order) {
        const seconds = await s.pass();
        if (s === a) x = Math.min(x, seconds);
        else y = Math.min(y, seconds);
      }
    }
    others.push(x);
    ours.push(y);
    ratios.push(x / y);
    await Promise.all([a.end(), b.end()]);
  }
  process.stdout.write(`${JSON.stringify({ other: median(others), ours: median(ours), ratio: median(ratios), ratios: ratios.map((r) => Number(r.toFixed(3))) })}\n`);
}
