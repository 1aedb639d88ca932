/**
 * The 258 real pages of htmlparser-benchmark rewritten as the WARC worker rewrites a payload (transformWhole with
 * room around the output), PASSES times (default 5) in one thread; prints each pass's wall and CPU seconds and
 * page faults: the JIT warm-up and heap growth of the rewriting thread (docs/performance.md, WARC). With the
 * flags the command line sets for a crawl:
 *   node --max-semi-space-size=4 --efficiency-mode --no-single-threaded-gc-in-background \
 *     --heap-growing-percent=200 bench/whole-passes.ts [PASSES]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { createHtmlRewriter, transformWhole } = await import('../dist/html/stream.js');
const dir = `${root}node_modules/htmlparser-benchmark/files/`;
const docs = readdirSync(dir).sort().map((f) => readFileSync(dir + f));
const passes = Number(process.argv[2] ?? 5);
for (let p = 0; p < passes; p++) {
  const cpu0 = process.cpuUsage();
  const faults0 = process.resourceUsage().minorPageFault;
  const t0 = performance.now();
  for (const doc of docs) await transformWhole(createHtmlRewriter({ retrieval: { url: 'https://example.com/a/b/page.html' } }), doc, { before: 2048, after: 4 });
  const cpu = process.cpuUsage(cpu0);
  console.log(`pass ${p + 1}: ${((performance.now() - t0) / 1000).toFixed(3)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(3)} s CPU, ${process.resourceUsage().minorPageFault - faults0} page faults`);
}
