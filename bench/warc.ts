/**
 * WARC benchmark (issues 12, 23), run by bench.ts (`warcBench`) or alone:
 *   node bench/warc.ts                  generate (once) and compare, printing the lines bench.ts prints: whole
 *                                       processes, as a user runs them — our CLI (`absolutize FILE -o OUT`) against
 *                                       the Python job a crawler user would write (bench/warcio_job.py: warcio's
 *                                       ArchiveIterator and WARCWriter with lxml make_links_absolute, read-only and
 *                                       rewrite-and-write; warcio vendored in bench/vendor/), the same job on a lean
 *                                       stdlib WARC reader (bench/warc_job.py, the stand-in used before warcio could
 *                                       run here) and warcio.js reading; wall and user+sys CPU of each
 *                                       child (/usr/bin/time), BENCH_REPEAT (default 5) alternating rounds, medians
 *                                       of the per-round ratios
 *   node bench/warc.ts generate         write bench/out/bench.warc.gz (deterministic, >= 45 MB)
 *   node bench/warc.ts jobs [FILE]      only the whole-process comparison (the first lines above), and our CLI and
 *                                       the warcio job on a larger crawl (BENCH_WARC_LARGE_MB, default 90; 0 skips)
 *   node bench/warc.ts ours FILE        rewrite FILE end to end (file → rewriter → file); prints a Run
 *   node bench/warc.ts warcio FILE      read FILE with warcio.js (every record, its content read); prints a Run
 *   node bench/warc.ts stream MB FILE   FILE again and again (MB of input) through the rewriter into nothing
 *   node bench/warc.ts budget FILE      the HTML FILE holds (2xx text/html responses, content-decoded), and how
 *                                       fast gzip compresses it at levels 1 (what we write) and 6: docs/performance.md's
 *                                       CPU budget against warcio.js
 *
 * The generated WARC is a crawl of the 258 real pages of htmlparser-benchmark, pass after pass under other
 * hosts: for each page a `request`, its `response` (a third of them gzip-encoded, a fifth stored de-chunked
 * under `Transfer-Encoding: chunked`), `BENCH_WARC_IMAGES` image responses (default 2, 4–40 KB of incompressible
 * bytes each, as a crawl's images are), a stylesheet every tenth page, and from the second pass on a `revisit`
 * of the page as well: one gzip member per record.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { seededRandom } from '../test/helpers/random.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = `${here}out/`;
const images = Number(process.env['BENCH_WARC_IMAGES'] ?? 2);
export const BENCH_WARC = `${outDir}bench-${images}.warc.gz`;
const TARGET_BYTES = 45 * 1_000_000;
/**
 * The larger crawl of the jobs bench (BENCH_WARC_LARGE_MB, default 90; 0 skips): the same generator run on, more
 * passes under more hosts, so that the ratio it gives is less the two processes' start-up and JIT warm-up.
 */
const LARGE_MB = Number(process.env['BENCH_WARC_LARGE_MB'] ?? 90);

interface Run {
  bytes: number;
  seconds: number;
  maxRssKiB: number;
  records?: number;
  /** `ours`: CPU seconds of the thread that reads, dispatches and writes (process.threadCpuUsage). */
  readerThreadCpu?: number;
}

function record(type: string, uri: string, date: string, id: number, block: Buffer, extra: string[] = []): Buffer {
  const contentType = type === 'request' ? 'application/http; msgtype=request' : 'application/http; msgtype=response';
  const head = ['WARC/1.0', `WARC-Type: ${type}`, `WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(id).padStart(12, '0')}>`, `WARC-Date: ${date}`, `WARC-Target-URI: ${uri}`, `Content-Type: ${contentType}`, ...extra, `Content-Length: ${block.length}`, '', ''].join('\r\n');
  return gzipSync(Buffer.concat([Buffer.from(head), block, Buffer.from('\r\n\r\n')]));
}

function http(status: string, headers: string[], body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([`HTTP/1.1 ${status}`, ...headers, '', ''].join('\r\n')), body]);
}

export function generate(targetBytes: number = TARGET_BYTES): string {
  const file = targetBytes === TARGET_BYTES ? BENCH_WARC : `${outDir}bench-${images}-${Math.round(targetBytes / 1e6)}mb.warc.gz`;
  if (existsSync(file)) return file;
  mkdirSync(outDir, { recursive: true });
  const pagesDir = `${root}node_modules/htmlparser-benchmark/files/`;
  const pages = readdirSync(pagesDir).sort().map((f) => ({ name: f.replace(/\.html$/, ''), bytes: readFileSync(pagesDir + f) }));
  const random = seededRandom(45);
  const parts: Buffer[] = [];
  let size = 0;
  let id = 0;
  const push = (b: Buffer): void => {
    parts.push(b);
    size += b.length;
  };
  const css = Buffer.from('body{background:url(../img/bg.png)}\n@import "print.css";\n.logo{background-image:url("/static/logo.svg")}\n'.repeat(20));
  for (let pass = 0; size < targetBytes; pass++) {
    pages.forEach((page, i) => {
      if (size >= targetBytes) return;
      const host = `https://site${pass}-${i % 20}.example`;
      const uri = `${host}/section/${page.name.slice(0, 12)}/index.html`;
      const date = `2024-0${1 + (pass % 9)}-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`;
      push(record('request', uri, date, ++id, Buffer.from(`GET /section/${page.name.slice(0, 12)}/index.html HTTP/1.1\r\nHost: ${host.slice(8)}\r\nUser-Agent: bench\r\n\r\n`)));
      const gz = i % 3 === 0;
      const body = gz ? gzipSync(page.bytes) : page.bytes;
      const headers = ['Content-Type: text/html; charset=utf-8', ...(gz ? ['Content-Encoding: gzip'] : []), ...(i % 5 === 0 ? ['Transfer-Encoding: chunked'] : [`Content-Length: ${body.length}`])];
      push(record('response', uri, date, ++id, http('200 OK', headers, body), ['WARC-IP-Address: 192.0.2.1']));
      if (pass > 0) push(record('revisit', uri, date.replace('T10', 'T11'), ++id, http('200 OK', ['Content-Type: text/html'], Buffer.alloc(0)), [`WARC-Refers-To-Target-URI: ${uri}`, `WARC-Refers-To-Date: ${date}`, 'WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest']));
      for (let k = 0; k < images; k++) {
        const img = Buffer.alloc(4096 + 4 * Math.floor(random() * 9 * 1024));
        for (let b = 0; b < img.length; b += 4) img.writeUInt32LE(Math.floor(random() * 0x100000000), b);
        push(record('response', `${host}/img/${i}-${k}.jpg`, date, ++id, http('200 OK', ['Content-Type: image/jpeg', `Content-Length: ${img.length}`], img)));
      }
      if (i % 10 === 0) push(record('response', `${host}/css/site.css`, date, ++id, http('200 OK', ['Content-Type: text/css'], css)));
    });
  }
  writeFileSync(file, Buffer.concat(parts));
  return file;
}

/**
 * The rewriter's threads as the CLI runs it (one worker thread a core), with V8's heap growth and tiering set as
 * `absolutize crawl.warc.gz` sets them: once the threads have loaded (src/cli/heap-growth.ts).
 */
async function asTheCli(): Promise<{ threads: number; onThreadsLoaded: () => void }> {
  const { limitWarcHeap } = await import('../dist/cli/heap-growth.js');
  const threads = Number(process.env['BENCH_WARC_THREADS'] ?? Math.max(0, availableParallelism() - 1));
  if (threads === 0) limitWarcHeap();
  return { threads, onThreadsLoaded: limitWarcHeap };
}

async function ours(file: string): Promise<Run> {
  const { createWarcRewriter } = await import('../dist/warc/rewriter.js');
  const rewriter = createWarcRewriter(await asTheCli());
  const t0 = performance.now();
  await pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), rewriter, createWriteStream(`${file}.out`));
  const summary = await rewriter.summary;
  const cpu = process.threadCpuUsage();
  return { bytes: statSync(file).size, seconds: (performance.now() - t0) / 1000, maxRssKiB: process.resourceUsage().maxRSS, records: summary.records, readerThreadCpu: (cpu.user + cpu.system) / 1e6 };
}

/** Our reader alone: every unit (gzip member) walked, inflated and parsed, nothing rewritten or written. */
async function read(file: string): Promise<Run> {
  const { readWarc } = await import('../dist/warc/reader.js');
  const { DEFAULT_WARC_LIMITS } = await import('../dist/limits.js');
  const t0 = performance.now();
  let records = 0;
  for await (const unit of readWarc(createReadStream(file, { highWaterMark: 1 << 20 }), DEFAULT_WARC_LIMITS)) records += unit.items.length;
  return { bytes: statSync(file).size, seconds: (performance.now() - t0) / 1000, maxRssKiB: process.resourceUsage().maxRSS, records };
}

async function warcio(file: string): Promise<Run> {
  const { WARCParser } = await import('warcio');
  const t0 = performance.now();
  let records = 0;
  for await (const record of new WARCParser(createReadStream(file, { highWaterMark: 1 << 20 }))) {
    for await (const _chunk of record) {
      // read, nothing else
    }
    records++;
  }
  return { bytes: statSync(file).size, seconds: (performance.now() - t0) / 1000, maxRssKiB: process.resourceUsage().maxRSS, records };
}

/** MB of input: `file` again and again, through the rewriter into nothing. */
async function stream(mb: number, file: string): Promise<Run> {
  const { createWarcRewriter } = await import('../dist/warc/rewriter.js');
  const asCli = await asTheCli();
  const total = mb * 1_000_000;
  async function* source(): AsyncGenerator<Buffer> {
    let produced = 0;
    while (produced < total) {
      for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
        produced += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
    }
  }
  const rewriter = createWarcRewriter(asCli);
  const t0 = performance.now();
  await pipeline(Readable.from(source()), rewriter, new Writable({ write: (_c, _e, cb) => cb() }));
  const summary = await rewriter.summary;
  return { bytes: summary.bytesIn, seconds: (performance.now() - t0) / 1000, maxRssKiB: process.resourceUsage().maxRSS, records: summary.records };
}

/**
 * Wall, user+sys CPU, system CPU, minor page faults and peak RSS of a whole child process, as /usr/bin/time
 * measures them. The system part is printed beside the CPU: on a VM where a page touched for the first time costs
 * ~15 µs it is most of the difference between our run's share of kernel time and Python's.
 */
export interface Proc {
  wall: number;
  cpu: number;
  sys: number;
  faults: number;
  maxRssKiB: number;
}

function timed(command: string, args: string[]): Proc {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S %R %M', command, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  const m = /TIME (\S+) (\S+) (\S+) (\d+) (\d+)\s*$/.exec(r.stderr);
  if (r.status !== 0 || m === null) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), sys: Number(m[3]), faults: Number(m[4]), maxRssKiB: Number(m[5]) };
}

/** The V8 flags of the CLI's `#!/usr/bin/env -S node …` line: the process a user's `absolutize` starts. */
function shebangFlags(): string[] {
  const first = readFileSync(`${root}bin/absolutize.js`, 'utf8').split('\n', 1)[0]!;
  return first.startsWith('#!') ? first.replace(/^.*?\bnode\b/, '').trim().split(/\s+/).filter((f) => f !== '') : [];
}

const PYTHON = process.env['BENCH_PYTHON'] ?? '/usr/bin/python3';

/** The engines compared end to end, each a process of its own. */
export const WARC_ENGINES = {
  /** Our CLI as a user runs it: the crawl rewritten into a new .warc.gz (no link report). */
  absolutize: (file: string): Proc => timed(process.execPath, [...shebangFlags(), `${root}bin/absolutize.js`, file, '-o', `${file}.out.warc.gz`]),
  /** The job on warcio itself writing a new WARC (bench/warcio_job.py rewrite: ArchiveIterator, lxml, WARCWriter). */
  warcioRewrite: (file: string): Proc => timed(PYTHON, [`${here}warcio_job.py`, 'rewrite', file, `${file}.warcio.warc.gz`]),
  /** The job on warcio with links made absolute and nothing written (bench/warcio_job.py read). */
  warcioRead: (file: string): Proc => timed(PYTHON, [`${here}warcio_job.py`, 'read', file]),
  /** The stand-in job writing a new WARC (bench/warc_job.py rewrite: a stdlib reader doing what warcio does). */
  pyRewrite: (file: string): Proc => timed(PYTHON, [`${here}warc_job.py`, 'rewrite', file, `${file}.py.warc.gz`]),
  /** The stand-in job with links made absolute and nothing written (bench/warc_job.py read). */
  pyRead: (file: string): Proc => timed(PYTHON, [`${here}warc_job.py`, 'read', file]),
  /** warcio.js reading every record's content, nothing else (bench/warc-read.js: plain JavaScript, no TypeScript to strip at start). */
  warcioJs: (file: string): Proc => timed(process.execPath, [`${here}warc-read.js`, 'warcio', file]),
  /** Our reader alone: every member inflated and parsed, nothing rewritten or written (bench/warc-read.js, as above). */
  reader: (file: string): Proc => timed(process.execPath, [`${here}warc-read.js`, 'ours', file]),
  /** The stand-in job's reader alone (bench/warc_job.py scan: members inflated, records parsed, nothing else). */
  pyReader: (file: string): Proc => timed(PYTHON, [`${here}warc_job.py`, 'scan', file]),
  /** warcio's reader alone (bench/warcio_job.py scan: every record iterated, nothing read from it). */
  warcioReader: (file: string): Proc => timed(PYTHON, [`${here}warcio_job.py`, 'scan', file]),
} as const;

/** BENCH_WARC_BEFORE=path/to/dist/cli/main.js: another build of the CLI (the code before a change), run alike. */
const BEFORE = process.env['BENCH_WARC_BEFORE'];

/**
 * Alternating rounds of every engine; per-round ratios (theirs ÷ ours) of wall and CPU, their medians printed.
 * BENCH_WARC_ENGINES=absolutize,pyRewrite,… runs only those.
 */
export function warcJobBench(say: (line: string) => void, repeat: number, file: string): Record<string, Proc[]> {
  const engines: Record<string, (file: string) => Proc> = { ...WARC_ENGINES };
  if (BEFORE !== undefined) engines['before'] = (f) => timed(process.execPath, [...shebangFlags(), BEFORE, f, '-o', `${f}.before.warc.gz`]);
  const only = process.env['BENCH_WARC_ENGINES']?.split(',');
  const names = Object.keys(engines).filter((n) => only === undefined || only.includes(n) || n === 'before');
  const runs: Record<string, Proc[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < repeat; r++) for (const n of names) runs[n]!.push(engines[n]!(file));
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = (a: string, b: string, k: 'wall' | 'cpu'): string => (runs[a] === undefined || runs[b] === undefined ? '–' : median(runs[a].map((x, i) => x[k] / runs[b]![i]![k])).toFixed(2));
  say(`\nWARC end to end, whole processes (${(statSync(file).size / 1e6).toFixed(1)} MB .warc.gz; medians of ${repeat} alternating rounds; wall / user+sys CPU seconds / peak RSS)`);
  const line = (label: string, n: string): void => void (runs[n] !== undefined && say(`  ${label.padEnd(44)} ${median(runs[n]!.map((x) => x.wall)).toFixed(2).padStart(6)} s  ${median(runs[n]!.map((x) => x.cpu)).toFixed(2).padStart(6)} s CPU (${median(runs[n]!.map((x) => x.sys)).toFixed(2)} system, ${median(runs[n]!.map((x) => x.faults))} page faults)  ${(Math.max(...runs[n]!.map((x) => x.maxRssKiB)) / 1024).toFixed(0).padStart(4)} MiB`));
  line('absolutize FILE -o OUT (rewritten, written)', 'absolutize');
  line('warcio + lxml job, rewrite-and-write', 'warcioRewrite');
  line('warcio + lxml job, read-only (links absolute)', 'warcioRead');
  line(`stand-in job, rewrite-and-write (level ${process.env['BENCH_WARC_PY_LEVEL'] ?? 9})`, 'pyRewrite');
  line('stand-in job, read-only (links absolute)', 'pyRead');
  line('warcio.js, merely reading', 'warcioJs');
  line("absolutize's reader alone", 'reader');
  line("warcio's reader alone", 'warcioReader');
  line("the stand-in job's reader alone", 'pyReader');
  if (BEFORE !== undefined) {
    line(`before: ${BEFORE}`, 'before');
    say(`  before ÷ now (median of paired rounds): ${ratio('before', 'absolutize', 'wall')}× wall, ${ratio('before', 'absolutize', 'cpu')}× CPU`);
  }
  say(`  ratios (theirs ÷ ours, median of paired rounds): warcio + lxml rewrite-and-write ${ratio('warcioRewrite', 'absolutize', 'wall')}× wall, ${ratio('warcioRewrite', 'absolutize', 'cpu')}× CPU; warcio + lxml read-only ${ratio('warcioRead', 'absolutize', 'wall')}× wall, ${ratio('warcioRead', 'absolutize', 'cpu')}× CPU`);
  say(`    the stand-in job: rewrite-and-write ${ratio('pyRewrite', 'absolutize', 'wall')}× wall, ${ratio('pyRewrite', 'absolutize', 'cpu')}× CPU; read-only ${ratio('pyRead', 'absolutize', 'wall')}× wall, ${ratio('pyRead', 'absolutize', 'cpu')}× CPU; warcio.js reading ${ratio('warcioJs', 'absolutize', 'wall')}× wall`);
  if (LARGE_MB > 0 && only === undefined) largerCrawl(say, repeat);
  say(`  readers alone, theirs ÷ ours: warcio's ${ratio('warcioReader', 'reader', 'wall')}× wall, ${ratio('warcioReader', 'reader', 'cpu')}× CPU; the stand-in's ${ratio('pyReader', 'reader', 'wall')}× wall, ${ratio('pyReader', 'reader', 'cpu')}× CPU`);
  return runs;
}

/**
 * Our CLI and the warcio job (rewrite-and-write) on a larger crawl of the same generator, rounds alternating: what
 * each costs past its start-up and warm-up, which weigh on 45 MB (ours ~1.3 s of CPU, Python's ~0.2 s).
 */
function largerCrawl(say: (line: string) => void, repeat: number): void {
  const file = generate(LARGE_MB * 1_000_000);
  const ours: Proc[] = [];
  const theirs: Proc[] = [];
  for (let r = 0; r < repeat; r++) {
    ours.push(WARC_ENGINES.absolutize(file));
    theirs.push(WARC_ENGINES.warcioRewrite(file));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const paired = (k: 'wall' | 'cpu'): string => median(theirs.map((t, i) => t[k] / ours[i]![k])).toFixed(2);
  say(`  a ${(statSync(file).size / 1e6).toFixed(0)} MB crawl (the same generator, more hosts): absolutize ${median(ours.map((x) => x.wall)).toFixed(2)} s, ${median(ours.map((x) => x.cpu)).toFixed(2)} s CPU (${median(ours.map((x) => x.sys)).toFixed(2)} system), ${(Math.max(...ours.map((x) => x.maxRssKiB)) / 1024).toFixed(0)} MiB; warcio + lxml rewrite-and-write ${median(theirs.map((x) => x.wall)).toFixed(2)} s, ${median(theirs.map((x) => x.cpu)).toFixed(2)} s CPU (${median(theirs.map((x) => x.sys)).toFixed(2)} system); ratios ${paired('wall')}× wall, ${paired('cpu')}× CPU`);
}

function child(args: string[]): Run {
  return JSON.parse(execFileSync(process.execPath, ['--max-semi-space-size=4', `${here}warc.ts`, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 })) as Run;
}

/** The comparison bench.ts prints: rounds alternating, each engine in a process of its own. */
export function warcBench(say: (line: string) => void, repeat: number): void {
  const file = generate();
  warcJobBench(say, Math.max(5, repeat), file);
  const rounds: Array<{ ours: Run; warcio: Run; read: Run }> = [];
  for (let r = 0; r < repeat; r++) rounds.push({ ours: child(['ours', file]), warcio: child(['warcio', file]), read: child(['read', file]) });
  const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratios = rounds.map((r) => r.warcio.seconds / r.ours.seconds);
  const best = (k: 'ours' | 'warcio' | 'read'): Run => rounds.map((r) => r[k]).sort((a, b) => a.seconds - b.seconds)[0]!;
  const mbps = (r: Run): string => (r.bytes / 1e6 / r.seconds).toFixed(1).padStart(6);
  const o = best('ours');
  const w = best('warcio');
  say(`\nWARC (generated ${(o.bytes / 1e6).toFixed(1)} MB .warc.gz, ${o.records} records, ${images} image responses a page; best of ${repeat})`);
  say(`  absolutize, rewritten end to end ${mbps(o)} MB/s   peak RSS ${(Math.max(...rounds.map((r) => r.ours.maxRssKiB)) / 1024).toFixed(0)} MiB`);
  say(`  warcio.js, merely reading        ${mbps(w)} MB/s   peak RSS ${(Math.max(...rounds.map((r) => r.warcio.maxRssKiB)) / 1024).toFixed(0)} MiB (${w.records} records)`);
  say(`  absolutize's reader alone         ${mbps(best('read'))} MB/s   (every member inflated and parsed, nothing written)`);
  say(`  ratio absolutize / warcio.js reading (median of ${repeat} paired rounds): ${median(ratios).toFixed(2)}x; reader alone / warcio.js: ${median(rounds.map((r) => r.warcio.seconds / r.read.seconds)).toFixed(2)}x`);
  const streamMb = Number(process.env['BENCH_WARC_STREAM_MB'] ?? 512);
  if (streamMb > 0) {
    const s = child(['stream', String(streamMb), file]);
    say(`  streaming ${streamMb} MB of WARC.gz (the file again and again): ${mbps(s).trim()} MB/s, ${s.records} records, peak RSS ${(s.maxRssKiB / 1024).toFixed(0)} MiB`);
  }
}

/** The HTML payloads of FILE's 2xx text/html responses (content-decoded), and gzip's speed over them. */
async function budget(file: string): Promise<Record<string, number>> {
  const { readWarc } = await import('../dist/warc/reader.js');
  const { field } = await import('../dist/warc/record.js');
  const { lastHeader, parseHttpHead } = await import('../dist/warc/http-message.js');
  const { DEFAULT_WARC_LIMITS } = await import('../dist/limits.js');
  const bodies: Buffer[] = [];
  for await (const unit of readWarc(createReadStream(file, { highWaterMark: 1 << 20 }), DEFAULT_WARC_LIMITS)) {
    for (const item of unit.items) {
      if (item.kind !== 'record' || field(item.header, 'WARC-Type') !== 'response') continue;
      const block = Buffer.from(item.block);
      const head = parseHttpHead(block);
      if (head === null || head.status < 200 || head.status > 299 || !/^text\/html/i.test(lastHeader(head, 'Content-Type') ?? '')) continue;
      const body = block.subarray(head.length);
      bodies.push(/gzip/i.test(lastHeader(head, 'Content-Encoding') ?? '') ? gunzipSync(body) : body);
    }
  }
  const html = bodies.reduce((n, b) => n + b.length, 0);
  const out: Record<string, number> = { responses: bodies.length, htmlMB: html / 1e6 };
  for (const level of [1, 6]) {
    const t0 = performance.now();
    for (const b of bodies) gzipSync(b, { level });
    out[`gzipLevel${level}MBps`] = html / 1e6 / ((performance.now() - t0) / 1000);
  }
  return out;
}

const [mode, ...args] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}`) {
  if (mode === 'generate') process.stdout.write(`${generate()}\n`);
  else if (mode === 'ours') process.stdout.write(`${JSON.stringify(await ours(args[0]!))}\n`);
  else if (mode === 'read') process.stdout.write(`${JSON.stringify(await read(args[0]!))}\n`);
  else if (mode === 'warcio') process.stdout.write(`${JSON.stringify(await warcio(args[0]!))}\n`);
  else if (mode === 'budget') process.stdout.write(`${JSON.stringify(await budget(args[0]!))}\n`);
  else if (mode === 'jobs') warcJobBench((l) => process.stdout.write(`${l}\n`), Number(process.env['BENCH_REPEAT'] ?? 5), args[0] ?? generate());
  else if (mode === 'stream') process.stdout.write(`${JSON.stringify(await stream(Number(args[0]), args[1]!))}\n`);
  else {
    const lines: string[] = [];
    warcBench((l) => {
      lines.push(l);
      process.stdout.write(`${l}\n`);
    }, Number(process.env['BENCH_REPEAT'] ?? 5));
    writeFileSync(`${outDir}warc-latest.txt`, `${lines.join('\n')}\n`);
  }
}
