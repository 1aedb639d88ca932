/**
 * The WARC command sets its V8 flags (src/cli/heap-growth.ts limitWarcHeap) once the rewriting threads have
 * loaded, not before they start: a flag set before a thread starts changes the hash V8 checks code caches
 * against, and the thread then compiled Node's own modules from source (151 rejected code caches on a crawl
 * rewritten on a worker). Node says which caches it took and which it rejected under NODE_DEBUG_NATIVE=CODE_CACHE.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { INLINE_BELOW_BYTES } from '../../src/cli/warc-command.ts';
import { CLI, PROJECT_DIR } from '../helpers/cli.ts';
import { runWarc } from './helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'abs-threads-loaded-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('onThreadsLoaded is called once, when the worker has loaded, and never without threads', async () => {
  const crawl = readFileSync(join(PROJECT_DIR, 'examples', 'crawl.warc.gz'));
  let calls = 0;
  const worker = await runWarc([crawl], { warcinfo: false, threads: 1, onThreadsLoaded: () => calls++ });
  expect(worker.summary.rewritten).toBeGreaterThan(0);
  expect(calls).toBe(1);
  const inline = await runWarc([crawl], { warcinfo: false, threads: 0, onThreadsLoaded: () => calls++ });
  expect(inline.summary.rewritten).toBe(worker.summary.rewritten);
  expect(calls).toBe(1);
});

test('a crawl rewritten on a worker thread: Node\'s own modules load from their code caches in both threads', () => {
  // INLINE_BELOW_BYTES or more: rewritten on worker threads (as test/package/pack.test.ts builds it).
  const crawl = readFileSync(join(PROJECT_DIR, 'examples', 'crawl.warc.gz'));
  const big = join(work, 'big.warc.gz');
  writeFileSync(big, Buffer.concat(Array.from({ length: Math.ceil(INLINE_BELOW_BYTES / crawl.length) + 1 }, () => crawl)));
  const r = spawnSync(process.execPath, [CLI, big, '-o', join(work, 'out.warc.gz')], { cwd: PROJECT_DIR, encoding: 'utf8', env: { ...process.env, NODE_DEBUG_NATIVE: 'CODE_CACHE' }, timeout: 300_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/ \d+ rewritten/);
  const accepted = r.stderr.match(/^Code cache of \S+ \(\w+\) is accepted$/gm) ?? [];
  const rejected = r.stderr.match(/^Code cache of \S+ \(\w+\) is rejected$/gm) ?? [];
  // Both threads' bootstraps and the worker's imports (~230 accepted); the few rejected are modules the reader's
  // thread loads after the flags are set.
  expect(accepted.length).toBeGreaterThan(150);
  expect(rejected.length, rejected.join('\n')).toBeLessThan(30);
});
