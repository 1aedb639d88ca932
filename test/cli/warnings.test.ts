/**
 * Issue 21 item 5: warnings a person can read, through the one reporter every command uses — the first 5 of each
 * code in full, then one line per code with its count; --quiet (errors only); --warnings FILE (every warning as a
 * JSON line). Run as a user runs the CLI: one document (an mbox), a directory (worker threads), a batch, a WARC.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { removeScratch, scratchDir } from '../batch/helpers.ts';

afterAll(removeScratch);
const scratch = (): string => scratchDir('absolutize-warn-');

/** An mbox of `n` messages, each with an HTML part in an unknown charset (one mime-unknown-charset warning each). */
function mbox(n: number): string {
  let text = '';
  for (let i = 1; i <= n; i++) {
    text += `From a@example.com Mon Jan  1 00:00:00 2024\nFrom: a@example.com\nSubject: m${i}\nContent-Type: text/html; charset=x-nothing\nContent-Location: https://example.com/m${i}/\n\n<a href="x${i}.html">x</a>\n\n`;
  }
  return text;
}

interface WarningLine {
  document: string | null;
  part: string | null;
  code: string;
  message: string;
  line: number | null;
  column: number | null;
}
const jsonl = (path: string): WarningLine[] => readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as WarningLine);

describe('warnings of one code: 5 in full, then a count', () => {
  it('an mbox of 40 messages with one warning each: 5 lines, a count line, a summary', () => {
    const root = scratch();
    writeFileSync(join(root, 'a.mbox'), mbox(40));
    const r = runCli(['a.mbox', '-o', 'out.mbox'], { cwd: root });
    expect(r.status).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('absolutize: warning [mime-unknown-charset] part 1: unknown charset "x-nothing"'))).toHaveLength(5);
    expect(lines.slice(5)).toEqual([
      expect.stringMatching(/^absolutize: 40 messages, 40 references rewritten, 40 warnings in \d+\.\d s$/),
      'absolutize: [mime-unknown-charset] 40 warnings, the first 5 shown',
      'absolutize: 40 warnings in all (--warnings FILE writes every one)',
    ]);
  });

  it('--warnings FILE: every warning as a JSON line, with its document and part; --quiet: nothing on standard error', () => {
    const root = scratch();
    writeFileSync(join(root, 'a.mbox'), mbox(40));
    const r = runCli(['a.mbox', '-o', 'out.mbox', '--warnings', 'w.jsonl'], { cwd: root });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^absolutize: 40 warnings in all \(every one is in w\.jsonl\)$/m);
    const all = jsonl(join(root, 'w.jsonl'));
    expect(all).toHaveLength(40);
    expect(all[39]).toEqual({ document: 'a.mbox', part: '40:1', code: 'mime-unknown-charset', message: 'part 1: unknown charset "x-nothing": the encoding is sniffed from the content', line: null, column: null });
    const quiet = runCli(['a.mbox', '-o', 'out2.mbox', '-q', '--warnings', 'w2.jsonl'], { cwd: root });
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(jsonl(join(root, 'w2.jsonl'))).toEqual(all);
    // Errors still show under --quiet.
    const failed = runCli(['missing.mbox', '-q'], { cwd: root });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/^absolutize: error \[ABS_ERR_INPUT\] missing\.mbox: ENOENT/);
  });

  it('a directory run: warnings of its worker threads counted by the same reporter, in path order', () => {
    const root = scratch();
    mkdirSync(join(root, 'site'));
    for (let i = 0; i < 12; i++) writeFileSync(join(root, 'site', `p${String(i).padStart(2, '0')}.html`), '<a href="x.html">x</a><img src="y.png">');
    const r = runCli(['site', '-o', 'out', '--warnings', 'w.jsonl', '-j', '2'], { cwd: root });
    expect(r.status).toBe(0);
    const shown = r.stderr.split('\n').filter((l) => l.startsWith('absolutize: warning [no-base]'));
    expect(shown).toHaveLength(5);
    expect(shown[0]).toMatch(/\(site\/p00\.html:1:4\)$/);
    expect(r.stderr).toContain('absolutize: [no-base] 12 warnings, the first 5 shown\n');
    const all = jsonl(join(root, 'w.jsonl'));
    expect(all.map((w) => w.document)).toEqual(Array.from({ length: 12 }, (_, i) => `site/p${String(i).padStart(2, '0')}.html`));
    expect(all[0]).toMatchObject({ code: 'no-base', line: 1, column: 4, part: null });
    // Never into the input.
    const inside = runCli(['site', '-o', 'out2', '--warnings', 'site/w.jsonl'], { cwd: root });
    expect(inside.status).toBe(2);
    expect(inside.stderr).toMatch(/--warnings site\/w\.jsonl is inside the input site/);
  });

  it('a batch: the same, and --quiet leaves the status lines alone', () => {
    const root = scratch();
    mkdirSync(join(root, 'in'));
    const names: string[] = [];
    for (let i = 0; i < 8; i++) {
      writeFileSync(join(root, 'in', `b${i}.html`), '<a href="x.html">x</a>');
      names.push(`in/b${i}.html`);
    }
    writeFileSync(join(root, 'manifest.txt'), `${names.join('\n')}\n`);
    const r = runCli(['batch', 'manifest.txt', '-o', 'out', '--warnings', 'w.jsonl'], { cwd: root });
    expect(r.status).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('absolutize: warning [no-base]'))).toHaveLength(5);
    expect(r.stderr).toContain('absolutize: [no-base] 8 warnings, the first 5 shown\n');
    expect(jsonl(join(root, 'w.jsonl'))).toHaveLength(8);
    const quiet = runCli(['batch', 'manifest.txt', '-o', 'out2', '-q'], { cwd: root });
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout.trim().split('\n')).toHaveLength(8);
  });

  it('a WARC: its warnings through the same reporter', () => {
    const root = scratch();
    const records: Buffer[] = [];
    for (let i = 0; i < 7; i++) {
      // A text body that says gzip and is not (the crawler stored it decoded): read as decoded, with a warning.
      const http = `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n<a href="p${i}.html">p</a>`;
      const head = `WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.com/d/${i}.html\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000000${i}>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${Buffer.byteLength(http)}\r\n\r\n`;
      records.push(gzipSync(Buffer.from(`${head}${http}\r\n\r\n`)));
    }
    writeFileSync(join(root, 'c.warc.gz'), Buffer.concat(records));
    const r = runCli(['c.warc.gz', '-o', 'o.warc.gz', '--warnings', 'w.jsonl'], { cwd: root });
    expect(r.status).toBe(0);
    const all = jsonl(join(root, 'w.jsonl'));
    expect(all.filter((w) => w.code === 'warc-content-encoding-stale')).toHaveLength(7);
    const codes = new Map<string, number>();
    for (const w of all) codes.set(w.code, (codes.get(w.code) ?? 0) + 1);
    for (const [code, n] of codes) {
      expect(r.stderr.split('\n').filter((l) => l.startsWith(`absolutize: warning [${code}]`))).toHaveLength(Math.min(n, 5));
    }
    // A WARC of more than one record ends with a summary line.
    expect(r.stderr).toMatch(/^absolutize: c\.warc\.gz: \d+ records, /m);
  });
});
