/**
 * One engine over a set of files, in its own process (so that peak memory is its own):
 *   node bench/engines.ts sax|absolutize|htmlparser2 REPEAT FILE...
 * Prints JSON: { bytes, seconds (best of REPEAT), maxRssKiB }.
 * Or all three in one process (the issue's "run in the same process": the ratios):
 *   node bench/engines.ts both REPEAT FILE...
 * Prints JSON: { bytes, sax, absolutize, htmlparser2, ratio, htmlparser2Ratio, warmup }: `sax`, `absolutize` and
 * `htmlparser2` are the best seconds of each (htmlparser2: the forty-line link rewriter a user would write,
 * bench/htmlparser2-rewriter.ts); `ratio` is the median over REPEAT rounds of (SAX seconds / absolutize seconds)
 * of one round, `htmlparser2Ratio` the median of (htmlparser2 rewriter seconds / absolutize seconds): above 1,
 * absolutize is the faster. `warmup` holds the seconds of each engine's first pass, run before the REPEAT rounds
 * and left out of them (it compiles the engine's code and grows its heap); `rounds` each round's seconds (SAX,
 * absolutize, htmlparser2, peer). With BENCH_PEER set (a JSON array: the command of the lxml
 * peer, bench/lxml_links.py, up to its REPEAT argument), each round also runs one pass of the peer in its own
 * process, and the JSON adds { peer, peerRatio }: its best seconds, and the median over rounds of
 * (peer seconds / absolutize seconds). Each engine runs in a worker thread of its own, and the rounds
 * alternate between them, so that both see the same machine (a shared VM's speed drifts by ±20% over minutes,
 * which a ratio of passes minutes apart would carry) while each keeps V8 state of its own: absolutize adapts
 * parse5's Tokenizer per instance (src/html/tokenizer-driver.ts), and in one V8 isolate, once both kinds of
 * instance have run, the code of the shared Tokenizer methods is slower for both (measured: the SAX floor ~10%
 * slower after absolutize had run), which would skew the ratio one way or the other.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { SAXParser } from 'parse5-sax-parser';
import { createHtmlRewriter } from '../dist/html/stream.js';
import { htmlparser2Rewrite } from './htmlparser2-rewriter.ts';
import { BENCH_BASE, rewritePass } from './rewrite-pass.ts';

const [engine, repeatArg, ...files] = isMainThread ? process.argv.slice(2) : (workerData as string[]);
const repeat = Number(repeatArg);
const docs = files.map((f) => readFileSync(f));
const total = docs.reduce((n, d) => n + d.length, 0);

/** The floor of a parse5 design: its SAX parser with no listeners, on the decoded text. */
async function saxPass(doc: Buffer): Promise<void> {
  const parser = new SAXParser();
  await new Promise<void>((resolve, reject) => {
    parser.on('finish', resolve);
    parser.on('error', reject);
    parser.end(doc.toString('utf8'));
  });
}

/** The peer a user would write: htmlparser2's Parser, URL attributes made absolute, the document serialized again. */
function htmlparser2Pass(doc: Buffer): void {
  htmlparser2Rewrite(doc.toString('utf8'), BENCH_BASE);
}

async function pass(engine: string): Promise<number> {
  const t0 = performance.now();
  for (const doc of docs) {
    if (engine === 'sax') await saxPass(doc);
    else if (engine === 'htmlparser2') htmlparser2Pass(doc);
    else await rewritePass(createHtmlRewriter, doc);
  }
  return (performance.now() - t0) / 1000;
}

/** One pass of `name` in a worker thread of its own: seconds. */
function worker(name: string): (() => Promise<number>) & { end(): Promise<number> } {
  const w = new Worker(new URL(import.meta.url), { workerData: [name, '1', ...files] });
  const run = (): Promise<number> =>
    new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
      w.postMessage('pass');
    });
  return Object.assign(run, { end: () => w.terminate() });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

if (!isMainThread) {
  parentPort!.on('message', () => {
    void pass(engine!).then((seconds) => parentPort!.postMessage(seconds));
  });
} else if (engine === 'both') {
  const sax = worker('sax');
  const ours = worker('absolutize');
  const h2 = worker('htmlparser2');
  const peerCommand = process.env['BENCH_PEER'] === undefined ? null : (JSON.parse(process.env['BENCH_PEER']) as string[]);
  /** One pass of the peer, or null when it cannot run (lxml not installed). */
  const peer = (): { seconds: number } | null => {
    if (peerCommand === null) return null;
    try {
      return JSON.parse(execFileSync(peerCommand[0]!, [...peerCommand.slice(1), '1', ...files], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'pipe'] })) as { seconds: number };
    } catch {
      return null;
    }
  };
  // One untimed pass of each first (the peers "at their fastest"): a first pass over the pages compiles each
  // engine's code and grows its heap (absolutize's first pass took ~4x its later ones, the SAX floor's ~1.5x, and
  // absolutize's next two paid ~20,000 and ~8,000 page faults of heap growth, ~15 us each on a 2-vCPU VM), which
  // would put two rounds of five in the median that measure start-up, not throughput. Its seconds are printed.
  const warmup = { sax: await sax(), absolutize: await ours(), htmlparser2: await h2() };
  const rounds: { sax: number; absolutize: number; htmlparser2: number; peer: { seconds: number } | null }[] = [];
  for (let r = 0; r < repeat; r++) rounds.push({ sax: await sax(), absolutize: await ours(), htmlparser2: await h2(), peer: peer() });
  await Promise.all([sax.end(), ours.end(), h2.end()]);
  const best = (k: 'sax' | 'absolutize' | 'htmlparser2'): number => Math.min(...rounds.map((x) => x[k]));
  const ratio = median(rounds.map((x) => x.sax / x.absolutize));
  const htmlparser2Ratio = median(rounds.map((x) => x.htmlparser2 / x.absolutize));
  const withPeer = rounds.filter((x) => x.peer !== null);
  const peerFields =
    withPeer.length === 0
      ? {}
      : {
          peer: Math.min(...withPeer.map((x) => x.peer!.seconds)),
          peerRatio: median(withPeer.map((x) => x.peer!.seconds / x.absolutize)),
        };
  process.stdout.write(`${JSON.stringify({ bytes: total, sax: best('sax'), absolutize: best('absolutize'), htmlparser2: best('htmlparser2'), ratio, htmlparser2Ratio, warmup, ...peerFields, rounds: rounds.map((x) => [x.sax, x.absolutize, x.htmlparser2, x.peer?.seconds ?? null]) })}\n`);
} else {
  let best = Infinity;
  for (let r = 0; r < repeat; r++) best = Math.min(best, await pass(engine!));
  process.stdout.write(`${JSON.stringify({ bytes: total, seconds: best, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
}
