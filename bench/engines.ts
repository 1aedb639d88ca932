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
 * absolutize is the faster. `warmup` holds the seconds of each engine's first passes (BENCH_WARMUP, default 3),
 * run before the REPEAT rounds and left out of them (they compile the engine's code and grow its heap); `rounds`
 * each round's seconds (SAX, absolutize, htmlparser2, peer). With BENCH_PEER set (a JSON array: the command of the lxml
 * peer, bench/lxml_links.py, up to its REPEAT argument), each round also runs one pass of the peer in a process
 * of its own, and the JSON adds { peer, peerRatio }: its best seconds, and the median over rounds of
 * (peer seconds / absolutize seconds). That process is started once, before the workers, and serves a pass a
 * round (lxml_links.py with REPEAT 0): a process started between rounds is a fork of this one, and a fork
 * write-protects every page of the parent for copy-on-write, so that each engine's next pass faulted again on
 * every heap page it wrote (~10,000 faults, ~15 us each on a 2-vCPU VM: absolutize's passes took 0.44-0.51 s
 * instead of 0.32-0.37; `sleep` started the same way did the same, a timer did not).
 * Each engine runs in a worker thread of its own, and the rounds alternate between them, so that both see the
 * same machine (a shared VM's speed drifts by ±20% over minutes, which a ratio of passes minutes apart would
 * carry) while each keeps V8 state of its own: absolutize adapts
 * parse5's Tokenizer per instance (src/html/tokenizer-driver.ts), and in one V8 isolate, once both kinds of
 * instance have run, the code of the shared Tokenizer methods is slower for both (measured: the SAX floor ~10%
 * slower after absolutize had run), which would skew the ratio one way or the other.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
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

/**
 * The lxml peer as one process serving a pass a round (lxml_links.py with REPEAT 0); `pass` gives null when it
 * cannot run (lxml not installed: the process has ended) or answers with something else than its JSON line.
 */
function peerServer(command: string[] | null): { pass(): Promise<{ seconds: number } | null>; end(): Promise<void> } {
  if (command === null) return { pass: async () => null, end: async () => {} };
  const child = spawn(command[0]!, [...command.slice(1), '0', ...files], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let alive = true;
  child.on('error', () => (alive = false));
  child.stdin.on('error', () => (alive = false));
  return {
    async pass() {
      if (!alive) return null;
      child.stdin.write('pass\n');
      const line = await lines.next();
      if (line.done === true) {
        alive = false;
        return null;
      }
      try {
        return JSON.parse(line.value) as { seconds: number };
      } catch {
        return null;
      }
    },
    async end() {
      child.stdin.end();
      if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('close', resolve));
    },
  };
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
  // The peer's process first, while this one is small (a fork's copy-on-write: above).
  const peer = peerServer(process.env['BENCH_PEER'] === undefined ? null : (JSON.parse(process.env['BENCH_PEER']) as string[]));
  const sax = worker('sax');
  const ours = worker('absolutize');
  const h2 = worker('htmlparser2');
  // Untimed passes of each first, alternating as the rounds do (the peers "at their fastest"): an engine's first
  // pass over the pages compiles its code and grows its heap (absolutize's first took ~4x its later ones, the SAX
  // floor's ~1.5x), and absolutize's heap goes on growing through the next two (~18,000 and ~14,000 page faults,
  // ~15 us each on a 2-vCPU VM; a few hundred at most from the fourth on), so that with one such pass two rounds
  // of five measured start-up, not throughput. Their seconds are printed.
  const warmupPasses = Number(process.env['BENCH_WARMUP'] ?? 3);
  const warmup = { sax: [] as number[], absolutize: [] as number[], htmlparser2: [] as number[] };
  for (let r = 0; r < warmupPasses; r++) {
    warmup.sax.push(await sax());
    warmup.absolutize.push(await ours());
    warmup.htmlparser2.push(await h2());
  }
  const rounds: { sax: number; absolutize: number; htmlparser2: number; peer: { seconds: number } | null }[] = [];
  for (let r = 0; r < repeat; r++) rounds.push({ sax: await sax(), absolutize: await ours(), htmlparser2: await h2(), peer: await peer.pass() });
  await Promise.all([sax.end(), ours.end(), h2.end(), peer.end()]);
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
