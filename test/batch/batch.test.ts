/**
 * `absolutize batch MANIFEST -o OUTDIR` (issue 13): shards that add up to a single run byte for byte, idempotent
 * re-runs, a killed run that a re-run completes with no temporary file left, transient failures that exit 75,
 * status lines, batch-report. The built CLI in child processes, as a scheduler runs it.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveShard } from '../../src/batch/batch-command.ts';
import { PROJECT_DIR, inputs, removeScratch, runAsync, scratchDir, statusLines, temporaryFiles, tree } from './helpers.ts';
import { sharedPath } from '../helpers/shared.ts';

afterAll(removeScratch);

const BASE = ['--base', 'https://example.org/root/'];

describe('absolutize batch', () => {
  it('three shards write exactly what one run writes, byte for byte; every line has the status fields', async () => {
    const root = scratchDir('abs-batch-');
    const manifest = inputs(root, 24);
    const single = await runAsync(['batch', manifest, '-o', join(root, 'single'), ...BASE, '--links']);
    expect(single.stderr).toMatch(/^absolutize: 24 rewritten, 0 unchanged, 0 copied, 0 failed, 0 warnings in /m);
    expect(single.status).toBe(0);
    const sha = createHash('sha256').update(readFileSync(manifest)).digest('hex');
    const lines = statusLines(single.stdout);
    expect(lines).toHaveLength(24);
    for (const l of lines) {
      expect(Object.keys(l).sort()).toEqual(['bytesIn', 'bytesOut', 'code', 'input', 'manifest', 'ms', 'output', 'records', 'rewritten', 'shard', 'status'].sort());
      expect(l).toMatchObject({ status: 'done', code: null, manifest: sha, shard: '0/1' });
      expect(l.rewritten).toBeGreaterThan(0);
      expect(l.output).toBe(join(root, 'single', l.input));
      expect(l.bytesOut).toBe(statSync(l.output).size);
    }
    expect(lines.find((l) => l.input.endsWith('.mbox'))!.records).toBe(2);
    // The outputs really are rewritten, and links sit next to them.
    expect(readFileSync(join(root, 'single/in/d0/f0.html'), 'utf8')).toContain('href="https://example.org/root/p0.html"');
    expect(readFileSync(join(root, 'single/in/d2/f2.eml'), 'utf8')).toContain('href="https://list.example/2/t2.html"');
    expect(readFileSync(join(root, 'single/in/d0/f0.html.links.jsonl'), 'utf8')).toContain('"raw":"p0.html"');

    const sharded = join(root, 'sharded');
    const shards = await Promise.all([0, 1, 2].map((i) => runAsync(['batch', manifest, '-o', sharded, ...BASE, '--links', '--shard', `${i}/3`, '--jobs', '1'])));
    const seen: string[] = [];
    shards.forEach((r, i) => {
      expect(r.status).toBe(0);
      const ls = statusLines(r.stdout);
      expect(ls.length).toBe(8);
      for (const l of ls) expect(l.shard).toBe(`${i}/3`);
      seen.push(...ls.map((l) => l.input));
    });
    expect(seen.sort()).toEqual(lines.map((l) => l.input).sort());
    expect(tree(sharded)).toEqual(tree(join(root, 'single')));
    expect(temporaryFiles(sharded)).toEqual([]);
  });

  it('a re-run is all skipped and rewrites nothing; --force redoes', async () => {
    const root = scratchDir('abs-batch-');
    const manifest = inputs(root, 8);
    const out = join(root, 'out');
    expect((await runAsync(['batch', manifest, '-o', out, ...BASE])).status).toBe(0);
    const before = new Map(Object.keys(tree(out)).map((p) => [p, statSync(join(out, p)).mtimeMs]));
    const again = await runAsync(['batch', manifest, '-o', out, ...BASE]);
    expect(again.status).toBe(0);
    expect(statusLines(again.stdout).map((l) => l.status)).toEqual(Array(8).fill('skipped'));
    expect(again.stderr).toMatch(/^absolutize: 0 rewritten, 0 unchanged, 0 copied, 8 skipped, 0 failed/m);
    for (const [p, mtime] of before) expect(statSync(join(out, p)).mtimeMs, p).toBe(mtime);
    const forced = await runAsync(['batch', manifest, '-o', out, ...BASE, '--force']);
    expect(statusLines(forced.stdout).map((l) => l.status)).toEqual(Array(8).fill('done'));
  });

  it('a run killed with SIGKILL and re-run ends identical to an uninterrupted one, with no temporary file left', async () => {
    const root = scratchDir('abs-batch-');
    const manifest = inputs(root, 120);
    const reference = join(root, 'reference');
    expect((await runAsync(['batch', manifest, '-o', reference, ...BASE, '--links'])).status).toBe(0);
    const out = join(root, 'out');
    const killed = await runAsync(['batch', manifest, '-o', out, ...BASE, '--links', '--jobs', '1'], {
      onStdout: (text, child) => {
        if (text.split('\n').length > 5) child.kill('SIGKILL');
      },
    });
    expect(killed.signal).toBe('SIGKILL');
    const partial = statusLines(killed.stdout.slice(0, killed.stdout.lastIndexOf('\n') + 1)).length;
    expect(partial).toBeLessThan(120);
    const rerun = await runAsync(['batch', manifest, '-o', out, ...BASE, '--links']);
    expect(rerun.status).toBe(0);
    const statuses = statusLines(rerun.stdout);
    expect(statuses.filter((l) => l.status === 'skipped').length).toBeGreaterThanOrEqual(partial);
    expect(statuses.filter((l) => l.status === 'done').length).toBeGreaterThan(0);
    expect(tree(out)).toEqual(tree(reference));
    expect(temporaryFiles(out)).toEqual([]);
  });

  it('a server that drops connections: exit 75 (retry); a re-run after it recovers finishes, skipping what was done', async () => {
    const root = scratchDir('abs-batch-');
    let healthy = false;
    const sockets = new Set<Socket>();
    const server: Server = createServer((req, res) => {
      if (!healthy && req.url === '/b.html') {
        req.socket.destroy(); // the connection drops with no response
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<a href="next${req.url}">n</a>`);
    });
    server.on('connection', (s: Socket) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const manifest = join(root, 'urls.txt');
      writeFileSync(manifest, `${origin}/a.html\n${origin}/b.html\n${origin}/dir/c.html\n`);
      const out = join(root, 'out');
      const first = await runAsync(['batch', manifest, '-o', out, '--links']);
      expect(first.status).toBe(75);
      const s1 = statusLines(first.stdout);
      expect(s1.map((l) => `${l.input.slice(origin.length)} ${l.status} ${l.code}`).sort()).toEqual(['/a.html done null', '/b.html failed ABS_ERR_HTTP_NETWORK', '/dir/c.html done null']);
      expect(first.stderr).toMatch(/absolutize: error \[ABS_ERR_HTTP_NETWORK\]/);
      healthy = true;
      const second = await runAsync(['batch', manifest, '-o', out, '--links']);
      expect(second.status).toBe(0);
      expect(statusLines(second.stdout).map((l) => `${l.input.slice(origin.length)} ${l.status}`).sort()).toEqual(['/a.html skipped', '/b.html done', '/dir/c.html skipped']);
      const b = statusLines(second.stdout).find((l) => l.input.endsWith('/b.html'))!;
      expect(readFileSync(b.output, 'utf8')).toBe(`<a href="${origin}/next/b.html">n</a>`);
      expect(readFileSync(`${b.output}.links.jsonl`, 'utf8')).toContain(`"resolved":"${origin}/next/b.html"`);
      // The merge step: nothing left.
      const report = await runAsync(['batch-report', out]);
      expect(report.status).toBe(0);
      expect(report.stdout).toContain('nothing left');
      expect(temporaryFiles(out)).toEqual([]);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it('exit codes: 65 for an unreadable input (the others done), 74 for an output that cannot be written; batch-report lists what is left', async () => {
    const root = scratchDir('abs-batch-');
    const manifest = inputs(root, 4);
    writeFileSync(manifest, `${readFileSync(manifest, 'utf8')}in/missing.html\n`);
    const out = join(root, 'out');
    const r = await runAsync(['batch', manifest, '-o', out, ...BASE]);
    expect(r.status).toBe(65);
    expect(statusLines(r.stdout).filter((l) => l.status === 'done')).toHaveLength(4);
    expect(statusLines(r.stdout).find((l) => l.input === 'in/missing.html')).toMatchObject({ status: 'failed', code: 'ABS_ERR_INPUT' });
    // What is left fails again as it is (the input is missing): 65, not 75 (a re-submit would not help; issue 21).
    const report = await runAsync(['batch-report', out]);
    expect(report.status).toBe(65);
    expect(report.stdout).toMatch(/fails again as it is: fix the inputs listed/);
    expect(report.stdout).toMatch(/4 done, 0 skipped, 1 failed \(ABS_ERR_INPUT 1\)/);
    expect(report.stdout).toMatch(/1 left:\n {4}in\/missing\.html \(ABS_ERR_INPUT\)/);

    // A file where an output's directory must go: that output cannot be written.
    writeFileSync(join(root, 'x.txt'), 'in/d1/f1.css\n');
    const b3 = join(root, 'b3');
    mkdirSync(b3);
    writeFileSync(join(b3, 'in'), 'a file in the way');
    const r74 = await runAsync(['batch', join(root, 'x.txt'), '-o', b3, ...BASE]);
    expect(r74.status).toBe(74);
    expect(statusLines(r74.stdout)[0]).toMatchObject({ status: 'failed', code: 'ABS_ERR_OUTPUT' });
  });

  it('reads the manifest from standard input (a Spark pipe / Hadoop Streaming filter), relative to the working directory', async () => {
    const root = scratchDir('abs-batch-');
    const manifest = inputs(root, 4);
    const r = await runAsync(['batch', '-', '-o', join(root, 'out'), ...BASE], { input: readFileSync(manifest, 'utf8'), cwd: root });
    expect(r.status).toBe(0);
    const lines = statusLines(r.stdout);
    expect(lines).toHaveLength(4);
    expect(lines[0]!.manifest).toBe(createHash('sha256').update(readFileSync(manifest)).digest('hex'));
    expect(tree(join(root, 'out'))['in/d0/f0.html']).toContain('https://example.org/root/p0.html');
  });

  it('takes the shard from the scheduler: Slurm array (index − min, count), Kubernetes and AWS Batch with --shards; usage errors exit 64', async () => {
    expect(resolveShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_COUNT: '3' })).toEqual({ index: 2, count: 3 });
    expect(resolveShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '5', SLURM_ARRAY_TASK_MIN: '4', SLURM_ARRAY_TASK_COUNT: '3' })).toEqual({ index: 1, count: 3 });
    expect(resolveShard(undefined, '4', { JOB_COMPLETION_INDEX: '3' })).toEqual({ index: 3, count: 4 });
    expect(resolveShard(undefined, '10', { AWS_BATCH_JOB_ARRAY_INDEX: '9' })).toEqual({ index: 9, count: 10 });
    expect(resolveShard('1/2', undefined, { SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_COUNT: '3' })).toEqual({ index: 1, count: 2 });
    expect(resolveShard(undefined, undefined, {})).toEqual({ index: 0, count: 1 });
    expect(() => resolveShard(undefined, undefined, { JOB_COMPLETION_INDEX: '3' })).toThrow(/--shards/);
    expect(() => resolveShard('3/3', undefined, {})).toThrow(/0 ≤ I < N/);
    const root = scratchDir('abs-batch-');
    const manifest = inputs(root, 2);
    for (const args of [['batch', manifest], ['batch', manifest, '-o', join(root, 'o'), '--shard', 'x'], ['batch', '-o', join(root, 'o')], ['batch', manifest, '-o', join(root, 'o'), '--bogus']]) {
      const r = await runAsync(args);
      expect(r.status, args.join(' ')).toBe(64);
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
    }
    const env = await runAsync(['batch', manifest, '-o', join(root, 'o')], { env: { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '2' } });
    expect(statusLines(env.stdout).map((l) => [l.input, l.shard])).toEqual([['in/d1/f1.css', '1/2']]);
  });
});

describe('absolutize batch over crawl files', () => {
  it('WARC and ARC inputs (by extension, and by first bytes with none): records counted, and the same bytes from two shardings', async () => {
    const root = scratchDir('abs-batch-warc-');
    const pywb = sharedPath('corpus/warc/pywb');
    copyFileSync(join(pywb, 'example.warc.gz'), join(root, 'a.warc.gz'));
    copyFileSync(join(pywb, 'example.arc'), join(root, 'b.arc'));
    copyFileSync(join(pywb, 'example.warc.gz'), join(root, 'crawl-no-extension'));
    const manifest = join(root, 'm.txt');
    writeFileSync(manifest, 'a.warc.gz\nb.arc\ncrawl-no-extension\n');
    const one = await runAsync(['batch', manifest, '-o', join(root, 'one'), '--links']);
    expect(one.status, one.stderr).toBe(0);
    const lines = statusLines(one.stdout);
    expect(lines.map((l) => l.status)).toEqual(['done', 'done', 'done']);
    for (const l of lines) expect(l.records, l.input).toBeGreaterThan(1);
    // The same input, the same bytes: record ids and the warcinfo date come from the input, not chance or clock.
    const shards = await Promise.all([0, 1].map((i) => runAsync(['batch', manifest, '-o', join(root, 'two'), '--links', '--shard', `${i}/2`])));
    for (const r of shards) expect(r.status).toBe(0);
    expect(tree(join(root, 'two'))).toEqual(tree(join(root, 'one')));
    const out = readFileSync(join(root, 'one', 'crawl-no-extension'));
    expect(out.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip in, gzip out: read as WARC, not HTML
    expect(readFileSync(join(root, 'one', 'crawl-no-extension.links.jsonl'), 'utf8')).toContain('"kind":"record"');
  });
});
