/**
 * Every command in README.md and docs/*.md runs as written. Each ```sh block is run, in the order of its file, in
 * a scratch directory of that file (a copy of examples/, package.json, and dist/, node_modules/ and bench/ linked
 * from this checkout), with `absolutize` on PATH as an installed package puts it (bin/absolutize.js run by the `node`
 * first on PATH, Node 24 from node_modules/.bin, as `npm run` has it):
 *
 * - a block with `$ ` lines is a transcript, run in one shell as in a terminal: each `$ COMMAND` (continued by a
 *   trailing `\`) must exit 0 and print (standard output and error together) the lines below it up to the next `$ `; `…` in a line stands for any
 *   text, a line that is only `…` for any number of lines. A command that is meant to fail is written
 *   `COMMAND || echo "exit $?"`, so that its exit code is part of the output.
 * - any other block is a script: run by bash with `set -e`, it must exit 0.
 * - a block whose first line is `# not run by the tests: REASON` is skipped (a public URL, a cluster, minutes).
 *
 * The README's first block is the project's set-up (`.ci/run` runs it): it must stay those two lines, and its
 * `npm run absolutize` command is run here (`npm test` is this suite).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../helpers/cli.ts';

export const SETUP_LINES = [
  'npm ci && npm run absolutize -- examples/page.html --url https://example.com/docs/guide/page.html',
  'npm test',
];
const SKIP = /^# not run by the tests: \S/;

export interface ShBlock {
  file: string;
  line: number; // of the opening fence, 1-based
  lines: string[];
}

/** The ```sh blocks of a markdown file (the info string is exactly `sh`). */
export function shBlocks(file: string, text: string): ShBlock[] {
  const blocks: ShBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(fence)) body.push(lines[j++]!);
    if (open[2]!.trim() === 'sh') blocks.push({ file, line: i + 1, lines: body });
    i = j;
  }
  return blocks;
}

export interface TranscriptStep {
  command: string;
  expected: string[];
}

/** `$ ` commands (with `\` continuations) and the output lines shown under each. */
export function transcript(lines: readonly string[]): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
      steps.push({ command, expected: [] });
    } else if (steps.length > 0) steps.at(-1)!.expected.push(line);
    else throw new Error(`output before the first $ command: ${line}`);
  }
  return steps;
}

/** Whether output matches the lines shown: `…` is any text within a line; a line of only `…`, any lines. */
export function matchesShown(actual: string, shown: readonly string[]): boolean {
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const want = [...shown];
  while (want.length > 0 && want.at(-1)!.trim() === '') want.pop();
  const parts = want.map((l) => (l.trim() === '…' ? '(?:[^\\n]*\\n)*?' : `${l.trimEnd().split('…').map(escape).join('[^\\n]*')}[ \\t]*\\n`));
  const text = actual.replace(/\r\n/g, '\n').replace(/\n*$/, actual.trim() === '' ? '' : '\n');
  return new RegExp(`^${parts.join('')}$`).test(text);
}

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** A scratch copy of what a clone has for the docs' commands, and `absolutize` on PATH. */
function workspace(): { cwd: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), 'absolutize-docs-'));
  scratchDirs.push(root);
  const cwd = join(root, 'work');
  mkdirSync(cwd);
  cpSync(join(PROJECT_DIR, 'examples'), join(cwd, 'examples'), { recursive: true });
  cpSync(join(PROJECT_DIR, 'package.json'), join(cwd, 'package.json'));
  symlinkSync(join(PROJECT_DIR, 'dist'), join(cwd, 'dist'));
  symlinkSync(join(PROJECT_DIR, 'bin'), join(cwd, 'bin'));
  symlinkSync(join(PROJECT_DIR, 'node_modules'), join(cwd, 'node_modules'));
  symlinkSync(join(PROJECT_DIR, 'bench'), join(cwd, 'bench')); // docs/performance.md's quick runs (they write nothing)
  const bin = join(root, 'bin');
  mkdirSync(bin);
  // What npm writes for an installed or linked bin: bin/absolutize.js run by the `node` on PATH, with its #! flags.
  writeFileSync(join(bin, 'absolutize'), `#!/bin/sh\nexec node --max-semi-space-size=4 '${join(PROJECT_DIR, 'bin/absolutize.js')}' "$@"\n`, { mode: 0o755 });
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${join(PROJECT_DIR, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}`, NO_COLOR: '1' };
  delete env['FORCE_COLOR'];
  return { cwd, env };
}

/** bash, background jobs of the script killed when it ends however it ends. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): { status: number | null; output: string } {
  const r = spawnSync('bash', ['-c', `trap 's=$?; kill $(jobs -p) 2>/dev/null || :; exit $s' EXIT\n${script}`], {
    cwd,
    env,
    input: '',
    encoding: 'utf8',
    timeout: 240_000, // a hang guard
  });
  return { status: r.status, output: r.stdout };
}

/**
 * Runs a transcript in one shell, as in a terminal (a server started with & serves the next commands; aliases
 * work): after each command, a NUL-framed marker with its exit status. A command that never ran has status undefined.
 */
function runTranscript(steps: readonly TranscriptStep[], cwd: string, env: NodeJS.ProcessEnv): { output: string; status: string | undefined }[] {
  const r = bash(`shopt -s expand_aliases\nexec 2>&1\n${steps.map((step) => `${step.command}\nprintf '\\0%d\\0' $?\n`).join('')}`, cwd, env);
  const pieces = r.output.split(/\0(\d+)\0/);
  return steps.map((_, k) => ({ output: pieces[2 * k] ?? '', status: pieces[2 * k + 1] }));
}

const docFiles = ['README.md', ...readdirSync(join(PROJECT_DIR, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

describe('the README is a door', () => {
  it('stays within 200 lines and lists every file of docs/', () => {
    const readme = readFileSync(join(PROJECT_DIR, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(201); // 200 lines and the final newline
    for (const file of docFiles.filter((f) => f.startsWith('docs/'))) expect(readme, file).toContain(`](${file})`);
  });
});

describe('the docs harness', () => {
  it('reads transcripts and matches shown output with …', () => {
    expect(transcript(['$ a \\', '  --b', 'out', '$ c'])).toEqual([{ command: 'a --b', expected: ['out'] }, { command: 'c', expected: [] }]);
    expect(matchesShown('x 1.2 s\nend\n', ['x … s', 'end'])).toBe(true);
    expect(matchesShown('a\nb\nc\nd\n', ['a', '…', 'd'])).toBe(true);
    expect(matchesShown('a\nb\n', ['a'])).toBe(false);
    expect(matchesShown('', [])).toBe(true);
    expect(matchesShown('a\n', [])).toBe(false);
  });

  it('runs a transcript in one shell and reports the status and output of each command', () => {
    const { cwd, env } = workspace();
    const results = runTranscript(transcript(['$ x=1; alias say=echo', '$ say "$x" \\', '  two', '1 two', '$ false', '$ printf tail']), cwd, env);
    expect(results).toEqual([
      { output: '', status: '0' },
      { output: '1 two\n', status: '0' },
      { output: '', status: '1' },
      { output: 'tail', status: '0' },
    ]);
  });
});

for (const file of docFiles) {
  const blocks = shBlocks(file, readFileSync(join(PROJECT_DIR, file), 'utf8'));
  describe(`${file}: every sh block runs as written`, () => {
    let ws: { cwd: string; env: NodeJS.ProcessEnv } | undefined;
    const env = (): { cwd: string; env: NodeJS.ProcessEnv } => (ws ??= workspace());

    if (file === 'README.md') {
      it('begins with the set-up commands that .ci/run runs', () => {
        expect(blocks[0]?.line).toBe(1);
        expect(blocks[0]?.lines).toEqual(SETUP_LINES);
        const r = bash(SETUP_LINES[0]!.replace(/^npm ci && /, ''), env().cwd, env().env);
        expect(r.status, r.output).toBe(0);
        expect(r.output).toContain('<base href="https://example.com/docs/guide/">');
      });
    }

    it('says why of each block it does not run, and runs the rest', () => {
      const notRun = blocks.filter((b) => /^# not run/.test(b.lines[0] ?? ''));
      for (const b of notRun) expect(b.lines[0], `${file}:${b.line}`).toMatch(SKIP);
      expect(notRun.length).toBeLessThan(Math.max(blocks.length, 1));
    });

    it('names no output under /dev (were the in-place write of special files to break, the atomic rename would replace /dev/null itself when run as root)', () => {
      for (const b of blocks) expect(b.lines.join('\n'), `${file}:${b.line}`).not.toMatch(/(?:-o|--output|--links)[ =]\/dev\//);
    });

    for (const block of file === 'README.md' ? blocks.slice(1) : blocks) {
      const where = `${file}:${block.line}`;
      if (SKIP.test(block.lines[0] ?? '')) continue; // listed by the test below
      const steps = block.lines.some((l) => l.startsWith('$ ')) ? transcript(block.lines) : null;
      if (/(?:-o|--output|--links)[ =]\/dev\//.test(block.lines.join('\n'))) continue; // never run: see the test above
      it(`${where}: ${(steps?.[0]?.command ?? block.lines.find((l) => l.trim() && !l.startsWith('#')) ?? '').slice(0, 70)}`, () => {
        const { cwd, env: e } = env();
        if (steps === null) {
          const r = bash(`set -e\nexec 2>&1\n${block.lines.join('\n')}`, cwd, e);
          expect(r.status, `${where} exited ${r.status}:\n${r.output}`).toBe(0);
          return;
        }
        const results = runTranscript(steps, cwd, e);
        steps.forEach((step, k) => {
          const { output, status } = results[k]!;
          expect(status, `${where}: \`${step.command}\` exited ${status ?? '(never ran)'}:\n${output}`).toBe('0');
          expect(matchesShown(output, step.expected), `${where}: \`${step.command}\` printed:\n${output}\n— the docs show:\n${step.expected.join('\n')}`).toBe(true);
        });
      });
    }
  });
}
