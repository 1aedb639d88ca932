/**
 * Batch benchmarks (issue 13, issue 11 item 4), run from bench.ts or alone (`node bench/batch.ts`, after
 * `npm run build`):
 * - `absolutize batch` on one machine: a manifest of many inputs (BENCH_BATCH_FILES generated pages, default 400
 *   of about 64 KiB, plus the corpus WARCs when this build rewrites them) with --jobs = cores against --jobs 1:
 *   throughput and the per-task peak RSS (the process with its worker threads: what `sbatch --mem` must allow);
 * - the URL list: a list of BENCH_URLS lines (default 1,000,000) against a loopback server: the time from start
 *   to the first request the server sees, and the peak RSS (VmHWM, the kernel's high-water mark) over the whole
 *   list (about 7 minutes on 2 cores), or until BENCH_URL_REQUESTS requests or BENCH_URL_SECONDS when either is
 *   set lower, when the run is stopped. BENCH_NODE_FLAGS: extra V8 flags for that run.
 * Each measured run is a process of its own. BENCH_BATCH=urls runs the URL list alone, BENCH_BATCH=files the manifest alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'bench', 'out', 'batch');
const cli = join(root, 'dist', 'cli', 'main.js');

interface Measured {
  seconds: number;
  maxRssKiB: number;
  status: number | null;
}

/** One CLI run in a process of its own, its peak RSS (with its worker threads) as it reports it. */
function measure(args: string[]): Measured {
  // A small driver: runs the CLI's run() in-process, then prints its own resource usage.
  const driver = `const t=performance.now();const {run}=await import(${JSON.stringify(join(root, 'dist', 'cli', 'run.js'))});` +
    `const {Writable}=await import('node:stream');const sink=new Writable({write:(c,e,cb)=>cb()});` +
    `const code=await run(${JSON.stringify(args)},{stdin:process.stdin,stdout:sink,stderr:sink});` +
    `process.stdout.write(JSON.stringify({status:code,seconds:(performance.now()-t)/1000,maxRssKiB:process.resourceUsage().maxRSS}));`;
  const script = join(out, 'driver.mjs');
  writeFileSync(script, driver);
  const r = spawnSync(process.execPath, ['--max-semi-space-size=4', script], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`bench driver failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Measured;
}

function page(i: number): string {
  const row = (j: number): string => `<p><a href="../s${j % 17}/p${i}-${j}.html?x=${j}">link ${j}</a> <img src="img/${j}.png" srcset="img/${j}.png 1x, img/${j}@2x.png 2x"> text text text text</p>\n`;
  let s = `<!doctype html><html><head><link rel="stylesheet" href="css/${i}.css"></head><body>\n`;
  for (let j = 0; s.length < 64 << 10; j++) s += row(j);
  return `${s}</body></html>\n`;
}

export async function batchBench(say: (line: string) => void): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'in'), { recursive: true });
  // BENCH_BATCH=urls: the URL list alone.
  if (process.env['BENCH_BATCH'] === 'urls') return urlListBench(say);
  const files = Number(process.env['BENCH_BATCH_FILES'] ?? 400);
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    const body = page(i);
    writeFileSync(join(out, 'in', `p${i}.html`), body);
    lines.push(`in/p${i}.html`);
    bytes += body.length;
  }
  const { STREAM_REWRITERS } = await import('../dist/batch/rewriters.js');
  let warcs = 0;
  if (STREAM_REWRITERS.warc !== undefined) {
    const dir = join(root, '..', 'shared', 'corpus', 'warc', 'pywb');
    for (const f of ['example.warc.gz', 'example.arc', 'iana.warc.gz', 'example.arc.gz']) {
      if (!existsSync(join(dir, f))) continue;
      lines.push(join(dir, f));
      bytes += readFileSync(join(dir, f)).length;
      warcs++;
    }
  }
  const manifest = join(out, 'manifest.txt');
  writeFileSync(manifest, `${lines.join('\n')}\n`);
  const cores = availableParallelism();
  say(`\nabsolutize batch: ${lines.length} inputs (${files} generated pages${warcs > 0 ? `, ${warcs} corpus WARC/ARC files` : ''}), ${(bytes / 1e6).toFixed(1)} MB`);
  for (const jobs of [1, cores]) {
    const r = measure(['batch', manifest, '-o', join(out, `o${jobs}`), '--base', 'https://example.com/a/', '--jobs', String(jobs), '--force']);
    say(`  --jobs ${String(jobs).padEnd(3)} ${(bytes / 1e6 / r.seconds).toFixed(1).padStart(6)} MB/s   ${r.seconds.toFixed(2)} s   peak RSS per task ${(r.maxRssKiB / 1024).toFixed(0)} MiB   exit ${r.status}`);
  }
  if (process.env['BENCH_BATCH'] !== 'files') await urlListBench(say);
}

/** The URL list as the CLI runs it (BENCH_NODE_FLAGS: extra V8 flags, e.g. `--max-old-space-size=64` to see what is live). */
async function urlListBench(say: (line: string) => void): Promise<void> {
  await urlListRun(say, (process.env['BENCH_NODE_FLAGS'] ?? '').split(' ').filter(Boolean));
}

async function urlListRun(say: (line: string) => void, flags: string[]): Promise<void> {
  const count = Number(process.env['BENCH_URLS'] ?? 1_000_000);
  // The whole list by default: "stays under" is a claim about the whole run, not its first seconds.
  const stopAfter = Number(process.env['BENCH_URL_REQUESTS'] ?? count);
  let requests = 0;
  let firstAt = 0;
  const server = createServer((_req, res) => {
    if (requests++ === 0) firstAt = performance.now();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<a href="next.html">n</a>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const list = join(out, 'urls.txt');
  const w = createWriteStream(list);
  // 1,000 hosts' worth of keys (one server: the names differ by query, the host key by a userinfo-free port… so
  // one host: the per-host limit holds every URL but --per-host at once, the worst case for a scheduler).
  for (let i = 0; i < count; i++) if (!w.write(`${origin}/p/${i}?q=${i % 997}\n`)) await once(w, 'drain');
  w.end();
  await once(w, 'finish');
  const started = performance.now();
  const child = spawn(process.execPath, [...flags, '--max-semi-space-size=4', cli, '--input-list', list, '--links', '-', '--concurrency', '8', '--per-host', '8'], { cwd: root, stdio: ['ignore', 'ignore', 'ignore'] });
  let peakKiB = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m !== null) peakKiB = Math.max(peakKiB, Number(m[1]));
    } catch {
      // ended
    }
  }, 50);
  const deadline = Date.now() + Number(process.env['BENCH_URL_SECONDS'] ?? 1800) * 1000;
  while (requests < stopAfter && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
  clearInterval(poll);
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  if (m !== null) peakKiB = Math.max(peakKiB, Number(m[1]));
  const seconds = (performance.now() - started) / 1000;
  child.kill('SIGTERM');
  await once(child, 'close');
  server.close();
  say(`\nURL list of ${count.toLocaleString('en')} lines (loopback server, --concurrency 8${flags.length > 0 ? `, node ${flags.join(' ')}` : ''}): first request ${((firstAt - started) / 1000).toFixed(2)} s after start; ${requests} requests in ${seconds.toFixed(1)} s (${Math.round(requests / seconds)}/s); peak RSS ${(peakKiB / 1024).toFixed(0)} MiB${requests < count ? ' (then stopped)' : ''}`);
  rmSync(list, { force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await batchBench((l) => process.stdout.write(`${l}\n`));
