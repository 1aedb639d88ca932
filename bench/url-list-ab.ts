/**
 * Alternating runs of two or more builds of the command over one URL list against one loopback server: the
 * median wall time and process CPU (user + system, /usr/bin/time) of each, and of each build after the first the
 * median of its per-round ratios to the first. For a change on the fetch path (docs/performance.md, URL list).
 *
 *   node bench/url-list-ab.ts URLS ROUNDS OLD/bin/absolutize.js bin/absolutize.js
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [count, rounds, ...clis] = process.argv.slice(2);
if (count === undefined || rounds === undefined || clis.length === 0) throw new Error('usage: node bench/url-list-ab.ts URLS ROUNDS CLI...');
let requests = 0;
const server = createServer((_req, res) => {
  requests++;
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<a href="next.html">n</a>');
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const list = join(tmpdir(), `absolutize-url-ab-${process.pid}.txt`);
let text = '';
for (let i = 0; i < Number(count); i++) text += `${origin}/p/${i}?q=${i % 997}\n`;
writeFileSync(list, text);
const runs: Array<Array<{ wall: number; cpu: number }>> = clis.map(() => []);
for (let r = 0; r < Number(rounds); r++) {
  for (const [k, cli] of clis.entries()) {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S', process.execPath, '--max-semi-space-size=4', cli, '--input-list', list, '--links', '-', '--concurrency', '8', '--per-host', '8'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await once(child, 'close');
    const [user, system] = err.trim().split('\n').pop()!.split(' ').map(Number);
    runs[k]!.push({ wall: (performance.now() - started) / 1000, cpu: user! + system! });
  }
}
server.close();
const median = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [k, cli] of clis.entries()) {
  const mine = runs[k]!;
  const ratios = k === 0 ? '' : `  ratio to the first: cpu ${median(mine.map((x, i) => x.cpu / runs[0]![i]!.cpu)).toFixed(3)} wall ${median(mine.map((x, i) => x.wall / runs[0]![i]!.wall)).toFixed(3)}`;
  console.log(`${cli}: wall ${median(mine.map((x) => x.wall)).toFixed(2)} s, cpu ${median(mine.map((x) => x.cpu)).toFixed(2)} s${ratios}`);
}
console.log(`requests: ${requests}`);
