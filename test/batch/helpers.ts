/** Shared by the batch tests: a scratch tree of inputs, a manifest, tree snapshots, the CLI as a child process. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CLI, PROJECT_DIR } from '../helpers/cli.ts';

const scratch: string[] = [];
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}
export function removeScratch(): void {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** N small inputs of every rewritable kind, and a manifest naming them (with a blank line and a comment). */
export function inputs(root: string, n: number): string {
  const kinds: Array<[string, (i: number) => string]> = [
    ['html', (i) => `<!doctype html><a href="p${i}.html">p</a><img src="../img/${i}.png"><p>${'text '.repeat(i % 50)}</p>`],
    ['css', (i) => `a { background: url(bg${i}.png) } b { background: url("/abs${i}.png") }`],
    ['eml', (i) => `Content-Base: https://list.example/${i}/\r\nContent-Type: text/html\r\n\r\n<a href="t${i}.html">t</a>\r\n`],
    ['mbox', (i) => `From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href="m${i}">m</a>\n\nFrom a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/plain\n\nplain\n`],
  ];
  const lines = ['# a manifest', ''];
  for (let i = 0; i < n; i++) {
    const [ext, body] = kinds[i % kinds.length]!;
    const rel = `in/d${i % 5}/f${i}.${ext}`;
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), body(i));
    lines.push(rel);
  }
  const manifest = join(root, 'manifest.txt');
  writeFileSync(manifest, `${lines.join('\n')}\n`);
  return manifest;
}

/** Every file below `dir` (but the batch's own state directory), path → bytes as latin1. */
export function tree(dir: string, options: { withState?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.absolutize' && options.withState !== true) continue;
      if (e.isDirectory()) walk(join(d, e.name));
      else out[relative(dir, join(d, e.name))] = readFileSync(join(d, e.name), 'latin1');
    }
  };
  walk(dir);
  return out;
}

/** Every temporary file below `dir` (random names end in .tmp). */
export function temporaryFiles(dir: string): string[] {
  // Temporaries are `.NAME.<hex>.tmp` beside an output, or files in OUTDIR/.absolutize/tmp/ (batch-command.ts); a
  // `tmp` directory elsewhere in a path (an input under /tmp, kept as @root/tmp/…) is not one.
  return Object.keys(tree(dir, { withState: true })).filter((p) => /\.tmp$|^\.absolutize[/\\]tmp[/\\]./.test(p));
}

export interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The built CLI in a child process; `onStdout` sees standard output as it comes (to kill it mid-run). */
export function runAsync(args: readonly string[], options: { env?: NodeJS.ProcessEnv; input?: string; onStdout?: (text: string, child: ChildProcess) => void; onStart?: (child: ChildProcess) => void; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? PROJECT_DIR, env: { ...process.env, ...options.env } });
    options.onStart?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      options.onStdout?.(stdout, child);
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export interface Status {
  input: string;
  output: string;
  status: 'done' | 'skipped' | 'failed';
  code: string | null;
  records: number;
  rewritten: number;
  bytesIn: number;
  bytesOut: number;
  ms: number;
  manifest: string;
  shard: string;
}

export function statusLines(stdout: string): Status[] {
  return stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Status);
}

export { PROJECT_DIR };
