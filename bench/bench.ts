/**
 * `npm run bench`: HTML rewriting throughput as ratios measured in one run (SPEC §8), and peak memory.
 * - floor: a no-op pass of parse5's SAX parser (parse5-sax-parser, no listeners) over the same pages;
 * - peers: the forty-line htmlparser2 link rewriter a user would write (bench/htmlparser2-rewriter.ts, not
 *   byte-faithful), and lxml `make_links_absolute` + serialize (Debian python3-lxml);
 * - corpora: the 258 real pages of htmlparser-benchmark, and one generated link-dense document;
 * - streaming: a generated document of BENCH_STREAM_MB (default 1024) through the stream, peak RSS.
 * The SAX floor, absolutize and the htmlparser2 rewriter run in one process, a worker thread each, rounds
 * alternating (a ratio: the median of the rounds' ratios; see engines.ts), and each round also runs one lxml pass in
 * Python (one process started before the engines, serving a pass a round), so that its ratio is paired too; each
 * engine also runs once in a process of its own for its peak memory. A throughput is the best of BENCH_REPEAT rounds
 * (default 5), after BENCH_WARMUP untimed passes of each engine (default 3; their times printed: start-up and heap
 * growth, not throughput).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { warcBench } from './warc.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const repeat = Number(process.env['BENCH_REPEAT'] ?? 5);
const streamMb = Number(process.env['BENCH_STREAM_MB'] ?? 1024);
const outDir = `${here}out/`;
mkdirSync(outDir, { recursive: true });

interface Run {
  bytes: number;
  seconds: number;
  maxRssKiB: number;
  messages?: number;
}

function node(args: string[]): Run {
  return JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 })) as Run;
}

// Debian's python3-lxml lives with Debian's interpreter, which may not be the first python3 on PATH.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function lxml(files: string[], passes = repeat): Run | null {
  try {
    return JSON.parse(execFileSync(PYTHON, [`${here}lxml_links.py`, 'https://example.com/a/b/page.html', String(passes), ...files], { encoding: 'utf8', maxBuffer: 1 << 24 })) as Run;
  } catch (err) {
    process.stderr.write(`lxml peer unavailable (apt-get install python3-lxml): ${(err as Error).message.split('\n')[0]}\n`);
    return null;
  }
}

/** A link-dense page: every line a reference of another kind. */
function linkDense(targetBytes: number): string {
  const rows = [
    '<a href="../section/page{i}.html?x={i}&amp;y=2#f">link {i}</a>',
    '<img src="img/{i}.png" srcset="img/{i}.png 1x, img/{i}@2x.png 2x" alt="">',
    '<link rel="stylesheet" href="css/{i}.css">',
    '<div style="background:url(\'bg/{i}.jpg\')">x</div>',
    '<form action="/post/{i}"><input type="image" src="btn{i}.gif"></form>',
    '<a href="#top">top</a> <a href="https://absolute.example/{i}">abs</a>',
  ];
  let out = '<!doctype html><html><head><meta charset="utf-8"><title>links</title></head><body>\n';
  for (let i = 0; out.length < targetBytes; i++) out += `${rows[i % rows.length]!.replaceAll('{i}', String(i))}\n`;
  return `${out}</body></html>\n`;
}

function mbps(r: Run): number {
  return r.bytes / 1e6 / r.seconds;
}

const pagesDir = `${root}node_modules/htmlparser-benchmark/files/`;
const pages = readdirSync(pagesDir).map((f) => pagesDir + f);
const dense = `${outDir}link-dense.html`;
writeFileSync(dense, linkDense(8 << 20));

const lines: string[] = [];
const say = (s: string): void => {
  lines.push(s);
  process.stdout.write(`${s}\n`);
};
say(`node ${process.version}, best of ${repeat}`);
for (const [name, files] of [['htmlparser-benchmark (258 real pages)', pages], ['link-dense (8 MiB, generated)', [dense]]] as const) {
  // Throughput: both engines in one process, rounds alternating; peak memory: each in a process of its own.
  const env = { ...process.env, BENCH_PEER: JSON.stringify([PYTHON, `${here}lxml_links.py`, 'https://example.com/a/b/page.html']) };
  const both = JSON.parse(execFileSync(process.execPath, [`${here}engines.ts`, 'both', String(repeat), ...files], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24, env })) as {
    bytes: number;
    sax: number;
    absolutize: number;
    htmlparser2: number;
    ratio: number;
    htmlparser2Ratio: number;
    peer?: number;
    peerRatio?: number;
    warmup: { sax: number[]; absolutize: number[]; htmlparser2: number[] };
  };
  const sax = { ...node([`${here}engines.ts`, 'sax', '1', ...files]), seconds: both.sax };
  const ours = { ...node([`${here}engines.ts`, 'absolutize', '1', ...files]), seconds: both.absolutize };
  const h2 = { ...node([`${here}engines.ts`, 'htmlparser2', '1', ...files]), seconds: both.htmlparser2 };
  // lxml's peak memory from a run of its own, started from this small process: a child's peak RSS as Linux
  // reports it can include what the process that started it had mapped.
  const lxmlAlone = lxml([...files], 1);
  const peer = lxmlAlone === null ? null : { ...lxmlAlone, seconds: both.peer ?? lxmlAlone.seconds };
  say(`\n${name}: ${(ours.bytes / 1e6).toFixed(1)} MB`);
  say(`  parse5 SAX no-op     ${mbps(sax).toFixed(1).padStart(7)} MB/s   peak RSS ${(sax.maxRssKiB / 1024).toFixed(0)} MiB`);
  say(`  absolutize           ${mbps(ours).toFixed(1).padStart(7)} MB/s   peak RSS ${(ours.maxRssKiB / 1024).toFixed(0)} MiB`);
  say(`  htmlparser2 rewriter ${mbps(h2).toFixed(1).padStart(7)} MB/s   peak RSS ${(h2.maxRssKiB / 1024).toFixed(0)} MiB`);
  if (peer !== null) say(`  lxml links+serialize ${mbps(peer).toFixed(1).padStart(7)} MB/s   peak RSS ${(peer.maxRssKiB / 1024).toFixed(0)} MiB`);
  say(`  ratio absolutize / SAX no-op (same process, median of ${repeat} paired rounds): ${both.ratio.toFixed(2)}x`);
  say(`  ratio absolutize / htmlparser2 rewriter (median of the same ${repeat} rounds): ${both.htmlparser2Ratio.toFixed(2)}x`);
  if (both.peerRatio !== undefined) say(`  ratio absolutize / lxml (median of the same ${repeat} rounds, lxml a pass in its own process): ${both.peerRatio.toFixed(2)}x`);
  const w = both.warmup;
  const secs = (xs: number[]): string => xs.map((x) => x.toFixed(2)).join(', ');
  say(`  first passes of each, before the rounds and not in the ratios: SAX ${secs(w.sax)} s; absolutize ${secs(w.absolutize)} s; htmlparser2 ${secs(w.htmlparser2)} s`);
}

// MIME and mbox next to Python's email (issue 10): bench/mime.ts.
await (await import('./mime.ts')).mimeBench(say, repeat);

if (streamMb > 0) {
  // With the CLI's V8 flag (src/cli/main.ts), then with Node's defaults (what a library user gets).
  const r = node(['--max-semi-space-size=4', `${here}stream-memory.ts`, String(streamMb)]);
  const plain = node([`${here}stream-memory.ts`, String(streamMb)]);
  say(`\nstreaming ${streamMb} MiB of generated HTML: ${mbps(r).toFixed(1)} MB/s, peak RSS ${(r.maxRssKiB / 1024).toFixed(0)} MiB as the CLI runs (--max-semi-space-size=4); ${(plain.maxRssKiB / 1024).toFixed(0)} MiB with Node's default V8 heap settings`);
  // One run of text with no tag in it: parse5 alone would hold it all (src/html/tokenizer-driver.ts, skipRun).
  const runMb = Math.min(streamMb, 128);
  const one = node(['--max-semi-space-size=4', `${here}stream-memory.ts`, String(runMb), 'one-run']);
  say(`one ${runMb} MiB run of text in a <pre>: ${mbps(one).toFixed(1)} MB/s, peak RSS ${(one.maxRssKiB / 1024).toFixed(0)} MiB as the CLI runs`);
}
// Batch (issue 13) and the URL list (issue 11): bench/batch.ts.
await (await import('./batch.ts')).batchBench(say);
// WARC and ARC (bench/warc.ts): a generated crawl rewritten end to end against warcio.js reading it.
warcBench(say, repeat);
writeFileSync(`${outDir}latest.txt`, `${lines.join('\n')}\n`);
