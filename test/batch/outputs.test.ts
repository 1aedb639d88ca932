/**
 * Outputs and signals (issue 11 item 3), each defect named there: outputs checked against inputs and each other
 * before anything is written, random temporary names, SIGINT/SIGTERM leaving no temporary file and saying how far
 * the run got, ABS_ERR_OUTPUT for output paths, file names that are not UTF-8; and the batch conveniences of
 * issue 11 item 5: several file inputs, --host-dirs, the summary line.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAtomicFile } from '../../src/cli/atomic-file.ts';
import { runCli } from '../helpers/cli.ts';
import { removeScratch, runAsync, scratchDir, tree } from './helpers.ts';

afterAll(removeScratch);

const SUMMARY = /^absolutize: \d+ rewritten, \d+ unchanged, \d+ copied, \d+ failed, \d+ warnings? in \d+\.\d s$/m;

/** A document big enough that rewriting it takes a while (to be interrupted while its temporary file exists). */
function bigHtml(path: string, mib: number): void {
  const row = '<p><a href="a/b.html">link</a> <img src="c.png"> text text text text text text text</p>\n';
  writeFileSync(path, row.repeat(Math.ceil((mib << 20) / row.length)));
}

/** Polls until a file whose name ends in .tmp exists below `dir` (recursively). */
async function waitForTemp(dir: string, timeoutMs = 30_000): Promise<string> {
  const start = Date.now();
  for (;;) {
    const found = existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('.tmp')) : undefined;
    if (found !== undefined) return found;
    if (Date.now() - start > timeoutMs) throw new Error(`no temporary file appeared in ${dir}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('outputs are checked before anything is written', () => {
  it('--links FILE where FILE is the input: exit 2, the input untouched', () => {
    const root = scratchDir('abs-out-');
    const input = join(root, 'page.html');
    writeFileSync(input, '<a href="x.html">x</a>');
    const r = runCli([input, '--base', 'https://example.com/', '--links', input]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_USAGE\] --links .* is the input[^\n]*\n$/);
    expect(readFileSync(input, 'utf8')).toBe('<a href="x.html">x</a>');
  });

  it('--links X -o X: exit 2, one line (no stack trace), nothing written', () => {
    const root = scratchDir('abs-out-');
    const input = join(root, 'page.html');
    writeFileSync(input, '<a href="x.html">x</a>');
    const r = runCli([input, '--base', 'https://example.com/', '--links', join(root, 'x'), '-o', join(root, 'x')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_USAGE\] --links .* and -o .* are one file[^\n]*\n$/);
    expect(readdirSync(root)).toEqual(['page.html']);
  });

  it('-o into a missing directory is ABS_ERR_OUTPUT, one line', () => {
    const root = scratchDir('abs-out-');
    writeFileSync(join(root, 'page.html'), '<a href="x.html">x</a>');
    const r = runCli([join(root, 'page.html'), '--base', 'https://example.com/', '-o', join(root, 'missing', 'out.html')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_OUTPUT\] -o .*missing[/\\]out\.html: the directory .* does not exist\n$/);
  });

  it('several inputs: two with one name, or one whose output is another input, are refused before anything is written', () => {
    const root = scratchDir('abs-out-');
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'a', 'p.html'), '<a href="x">x</a>');
    writeFileSync(join(root, 'b', 'p.html'), '<a href="y">y</a>');
    const same = runCli([join(root, 'a', 'p.html'), join(root, 'b', 'p.html'), '-o', join(root, 'out')]);
    expect(same.status).toBe(2);
    expect(same.stderr).toMatch(/^absolutize: error \[ABS_ERR_USAGE\] .* would both be written to [^\n]*\n$/);
    const over = runCli([join(root, 'a', 'p.html'), join(root, 'b', 'p.html'), '-o', join(root, 'b')]);
    expect(over.status).toBe(2);
    expect(over.stderr).toMatch(/would be written over the input/);
    expect(existsSync(join(root, 'out'))).toBe(false);
    expect(readFileSync(join(root, 'b', 'p.html'), 'utf8')).toBe('<a href="y">y</a>');
  });
});

describe('temporary names', () => {
  it('two outputs to one path opened in the same millisecond get two temporary files; both commit, the last wins', async () => {
    const root = scratchDir('abs-tmp-');
    const target = join(root, 'out.html');
    // The same millisecond for both (pid + millisecond named both the same: the second open failed, EEXIST).
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
    try {
      const a = createAtomicFile(target);
      await once(a.stream, 'open');
      const b = createAtomicFile(target);
      a.stream.end('first');
      b.stream.end('second');
      await a.commit();
      await b.commit();
    } finally {
      now.mockRestore();
    }
    expect(readFileSync(target, 'utf8')).toBe('second');
    expect(readdirSync(root)).toEqual(['out.html']);
  });
});

describe('URL batches', () => {
  it('two URLs that reach one final URL at once both succeed (temporary names are random, not pid + time)', async () => {
    const root = scratchDir('abs-out-');
    let waiting: Array<() => void> = [];
    const server = createServer((req, res) => {
      if (req.url === '/final') {
        // Answer both requests together, so that both outputs are opened in the same millisecond.
        waiting.push(() => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<a href="x.html">x</a>');
        });
        if (waiting.length === 2) {
          for (const w of waiting) w();
          waiting = [];
        }
        return;
      }
      res.writeHead(302, { location: '/final' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await runAsync([`${origin}/one`, `${origin}/two`, '-o', join(root, 'out')]);
      expect(r.stderr).toMatch(/^absolutize: 2 rewritten, 0 unchanged, 0 copied, 0 failed, 0 warnings in /);
      expect(r.status).toBe(0);
      expect(readdirSync(join(root, 'out'))).toHaveLength(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('--links into a missing directory: ABS_ERR_OUTPUT, one line, before anything is fetched', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="x">x</a>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const root = scratchDir('abs-out-');
      const r = await runAsync([`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, '--links', join(root, 'missing', 'l.jsonl')]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_OUTPUT\] --links [^\n]*does not exist\n$/);
      expect(requests).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('signals', () => {
  it('SIGTERM during a directory run: no temporary file left, one line saying how far it got, ended by the signal', async () => {
    const root = scratchDir('abs-sig-');
    const input = join(root, 'site');
    mkdirSync(input);
    for (let i = 0; i < 4; i++) bigHtml(join(input, `big${i}.html`), 24);
    const out = join(root, 'out');
    let child: ChildProcess | null = null;
    const running = runAsync([input, '-o', out, '--base', 'https://example.com/', '--jobs', '2'], { onStart: (c) => (child = c) });
    await waitForTemp(out);
    child!.kill('SIGTERM');
    const r = await running;
    expect(r.signal).toBe('SIGTERM');
    expect(r.stderr).toMatch(/^absolutize: interrupted: \d+ of \d+ written$/m);
    expect(readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('SIGINT during a one-file run with -o and --links: neither temporary file is left; 0 of 1 written', async () => {
    const root = scratchDir('abs-sig-');
    bigHtml(join(root, 'big.html'), 48);
    const outDir = join(root, 'o');
    mkdirSync(outDir);
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../helpers/cli.ts');
    const child = spawn(process.execPath, [CLI, join(root, 'big.html'), '-o', join(outDir, 'big.html'), '--links', join(outDir, 'links.jsonl'), '--base', 'https://example.com/']);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_c, s) => r(s)));
    await waitForTemp(outDir);
    child.kill('SIGINT');
    expect(await closed).toBe('SIGINT');
    expect(stderr).toBe('absolutize: interrupted: 0 of 1 written\n');
    expect(readdirSync(outDir)).toEqual([]);
  });
});

describe('several inputs, mirrors, names as bytes', () => {
  it('absolutize a.html b.css -o out/: each into out/ under its own name, a summary line at the end', () => {
    const root = scratchDir('abs-many-');
    writeFileSync(join(root, 'a.html'), '<a href="x.html">x</a>');
    writeFileSync(join(root, 'b.css'), 'p { background: url(bg.png) }');
    writeFileSync(join(root, 'c.html'), '<a href="https://abs.example/">abs</a>');
    const r = runCli([join(root, 'a.html'), join(root, 'b.css'), join(root, 'c.html'), '--base', 'https://example.com/d/', '-o', join(root, 'out')]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(SUMMARY);
    expect(r.stderr).toMatch(/^absolutize: 2 rewritten, 1 unchanged, 0 copied, 0 failed, 0 warnings in /);
    expect(tree(join(root, 'out'))).toEqual({
      'a.html': '<a href="https://example.com/d/x.html">x</a>',
      'b.css': 'p { background: url(https://example.com/d/bg.png) }',
      'c.html': '<a href="https://abs.example/">abs</a>',
    });
  });

  it('--host-dirs: the first directory is the host; a ? in a wget file name starts the query, its bytes kept (not UTF-8: caf\\xe9)', () => {
    const root = scratchDir('abs-mirror-');
    const mirror = join(root, 'mirror');
    mkdirSync(join(mirror, 'example.com', 'docs'), { recursive: true });
    mkdirSync(join(mirror, 'cdn.example.net'), { recursive: true });
    writeFileSync(join(mirror, 'example.com', 'docs', 'page.html'), '<a href="next.html">n</a><img src="/logo.png">');
    writeFileSync(join(mirror, 'cdn.example.net', 'style.css'), 'p { background: url(i/bg.png) }');
    // wget's name for https://example.com/search.php?q=caf%E9 (a Latin-1 query): the raw byte 0xE9 in the name.
    const latin1 = Buffer.concat([Buffer.from(join(mirror, 'example.com', 'search.php?q=caf')), Buffer.from([0xe9])]);
    writeFileSync(latin1, '<a href="?page=2">2</a>');
    writeFileSync(join(mirror, 'example.com', 'index.html'), '<a href="docs/page.html">d</a>');
    const out = join(root, 'out');
    const r = runCli([mirror, '--host-dirs', '--type', 'html', '-o', out, '--links', join(root, 'links.jsonl')]);
    // --type html: the .css file too is read as HTML (and has nothing to rewrite as such).
    expect(r.stderr).toMatch(/^absolutize: 3 rewritten, 1 unchanged, 0 copied, 0 failed, 0 warnings in /);
    expect(r.status).toBe(0);
    expect(readFileSync(join(out, 'example.com', 'docs', 'page.html'), 'utf8')).toBe('<a href="https://example.com/docs/next.html">n</a><img src="https://example.com/logo.png">');
    // The file whose name is not UTF-8 was listed, found and rewritten, under the same bytes.
    const outLatin1 = Buffer.concat([Buffer.from(join(out, 'example.com', 'search.php?q=caf')), Buffer.from([0xe9])]);
    expect(readFileSync(outLatin1, 'utf8')).toBe('<a href="https://example.com/search.php?page=2">2</a>');
    const bases = readFileSync(join(root, 'links.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { base: string }).base);
    expect(bases).toContain('https://example.com/search.php?q=caf%E9');
    const http = runCli([mirror, '--host-dirs', '--scheme', 'http', '-o', join(root, 'out-http')]);
    expect(http.status).toBe(0);
    expect(readFileSync(join(root, 'out-http', 'example.com', 'index.html'), 'utf8')).toBe('<a href="http://example.com/docs/page.html">d</a>');
    expect(readFileSync(join(root, 'out-http', 'cdn.example.net', 'style.css'), 'utf8')).toBe('p { background: url(http://cdn.example.net/i/bg.png) }');
    // Without --type, a name with no document extension is typed by its content (issue 21): search.php?q=café is HTML.
    expect(http.stderr).toMatch(/^absolutize: 4 rewritten, 0 unchanged, 0 copied, /);
  });
});
