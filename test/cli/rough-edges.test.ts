/** Issue 21 item 6: the rough edges a newcomer met, each run as a user runs the CLI (a child process). */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { removeScratch, scratchDir } from '../batch/helpers.ts';

afterAll(removeScratch);
const scratch = (): string => scratchDir('absolutize-edges-');

describe('-o DIR/ for one input', () => {
  it('a trailing slash means a directory: DIR/NAME is written, DIR made', () => {
    const root = scratch();
    writeFileSync(join(root, 'page.html'), '<a href="x.html">x</a>');
    const r = runCli(['page.html', '-o', 'newdir/', '-u', 'https://example.com/d/page.html'], { cwd: root });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(root, 'newdir', 'page.html'), 'utf8')).toBe('<a href="https://example.com/d/x.html">x</a>');
    // An existing directory, without the slash, is a directory too (as for cp).
    const again = runCli(['page.html', '-o', 'newdir', '-b', 'https://example.org/'], { cwd: root });
    expect(again.status).toBe(0);
    expect(readFileSync(join(root, 'newdir', 'page.html'), 'utf8')).toBe('<a href="https://example.org/x.html">x</a>');
  });

  it('a missing input makes no directory; standard input has no name to write under', () => {
    const root = scratch();
    const missing = runCli(['nothere.html', '-o', 'made/'], { cwd: root });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^absolutize: error \[ABS_ERR_INPUT\] nothere\.html: ENOENT/);
    expect(existsSync(join(root, 'made'))).toBe(false);
    const stdin = runCli(['-o', 'out/'], { cwd: root, input: '<a href="x">' });
    expect(stdin.status).toBe(2);
    expect(stdin.stderr).toMatch(/standard input has no name to write under; give -o FILE/);
  });
});

describe('batch-report', () => {
  it('--help prints its help (not "scandir --help/.absolutize"); an unknown option is a usage error', () => {
    const help = runCli(['batch-report', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: absolutize batch-report OUTDIR\n/);
    expect(runCli(['batch-report', '-h']).stdout).toBe(help.stdout);
    const bad = runCli(['batch-report', '--frobnicate']);
    expect(bad.status).toBe(64);
    expect(bad.stderr).toMatch(/unknown option --frobnicate/);
  });

  it('a missing input left over: 65 (fix it), not 75 (retry); an input not run yet: 75', () => {
    const root = scratch();
    mkdirSync(join(root, 'in'));
    writeFileSync(join(root, 'in', 'a.html'), '<a href="x">');
    writeFileSync(join(root, 'manifest.txt'), 'in/a.html\nin/missing.html\n');
    const out = join(root, 'out');
    const batch = runCli(['batch', join(root, 'manifest.txt'), '-o', out, '-b', 'https://example.com/']);
    expect(batch.status).toBe(65);
    // The status line says why it failed: an input that fails again as it is.
    expect(batch.stdout).toContain('"input":"in/missing.html","output"');
    expect(batch.stdout).toMatch(/"status":"failed","code":"ABS_ERR_INPUT","kind":"input"/);
    const report = runCli(['batch-report', out]);
    expect(report.status).toBe(65);
    expect(report.stdout).toContain('in/missing.html (ABS_ERR_INPUT)');
    // Shard 0 of 2 of a longer manifest: the other shard's inputs are not run yet, so a re-submit is due.
    writeFileSync(join(root, 'm2.txt'), 'in/a.html\nin/b.html\n');
    writeFileSync(join(root, 'in', 'b.html'), '<a href="y">');
    const out2 = join(root, 'out2');
    expect(runCli(['batch', join(root, 'm2.txt'), '-o', out2, '--shard', '0/2', '-b', 'https://example.com/']).status).toBe(0);
    const half = runCli(['batch-report', out2]);
    expect(half.stdout).toContain('in/b.html (not run)');
    expect(half.status).toBe(75);
  });
});

describe('resolve --help', () => {
  it('every example runs when pasted into a shell', () => {
    const help = runCli(['resolve', '--help']).stdout;
    const examples = help.split('\n').filter((l) => /^ {2}absolutize resolve /.test(l));
    expect(examples.length).toBeGreaterThanOrEqual(3);
    const bin = join(scratch(), 'bin');
    mkdirSync(bin);
    // `absolutize` on PATH as the installed bin is: the built CLI under this Node.
    writeFileSync(join(bin, 'absolutize'), `#!/bin/sh\nexec "${process.execPath}" "${join(import.meta.dirname, '../../bin/absolutize.js')}" "$@"\n`, { mode: 0o755 });
    for (const example of examples) {
      const stdout = execFileSync('/bin/sh', ['-c', example.trim()], { env: { ...process.env, PATH: `${bin}:${process.env['PATH']}` }, encoding: 'utf8' });
      expect(stdout.trim().split('\n').length, example).toBeGreaterThanOrEqual(1);
    }
    // The first: RFC 3986 §5.4's base, whole (an unquoted ";" ended the command there).
    const first = execFileSync('/bin/sh', ['-c', examples[0]!.trim()], { env: { ...process.env, PATH: `${bin}:${process.env['PATH']}` }, encoding: 'utf8' });
    expect(first).toBe('http://a/b/g\nhttp://a/b/c/d;p?y\nhttp://a/b/c/d;p?q#s\n');
  });
});

describe('-o -', () => {
  it('is standard output for HTML and mail alike, never a file named "-"', () => {
    const root = scratch();
    writeFileSync(join(root, 'page.html'), '<a href="x.html">x</a>');
    writeFileSync(join(root, 'm.eml'), 'Content-Type: text/html\r\nContent-Location: https://example.com/d/\r\n\r\n<a href="x">x</a>\r\n');
    const html = runCli(['page.html', '-o', '-', '-u', 'https://example.com/d/page.html'], { cwd: root });
    expect(html.status).toBe(0);
    expect(html.stdout).toBe('<a href="https://example.com/d/x.html">x</a>');
    const mail = runCli(['m.eml', '-o', '-'], { cwd: root });
    expect(mail.status).toBe(0);
    expect(mail.stdout).toContain('<a href="https://example.com/d/x">x</a>');
    expect(existsSync(join(root, '-'))).toBe(false);
    const both = runCli(['page.html', '-o', '-', '--links', '-'], { cwd: root });
    expect(both.status).toBe(2);
  });
});

describe('--type', () => {
  it('the error names every type, warc too, whatever the input', () => {
    for (const args of [['x.html', '--type', 'foo'], ['-t', 'foo'], ['a.html', 'b.html', '-o', 'o/', '--type', 'xmlx']]) {
      const r = runCli(args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_USAGE\] --type must be html, css, mime, mbox, warc, svg, xhtml, feed, sitemap, xml, manifest, js or auto, not "\w+"\n$/);
    }
  });
});

describe('the Maildir hint', () => {
  it('fires for a message in new/ (no ":2," flags yet), as for one in cur/', () => {
    const root = scratch();
    for (const sub of ['tmp', 'new', 'cur']) mkdirSync(join(root, 'Maildir', sub), { recursive: true });
    writeFileSync(join(root, 'Maildir', 'new', '1700000000.M1P1.host'), 'From: a@example.com\r\nSubject: hi\r\nContent-Type: text/html\r\n\r\n<a href="x.html">x</a>\r\n');
    const r = runCli([join(root, 'Maildir'), '-o', join(root, 'out')]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^absolutize: hint \[looks-like-mail\] files with no known extension were copied unchanged, and \S+new\/1700000000\.M1P1\.host looks like a mail message: give --type mime/m);
  });
});

describe('the link report of a CSS mail part', () => {
  it('names the base layer --explain names (content-location), not "encapsulating"', () => {
    const root = scratch();
    const eml = join(root, 'm.eml');
    writeFileSync(
      eml,
      'MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="b"\r\n\r\n--b\r\nContent-Type: text/html\r\nContent-Location: http://example.com/dir/page.html\r\n\r\n<link rel=stylesheet href="s.css">\r\n--b\r\nContent-Type: text/css\r\nContent-Location: http://example.com/css/s.css\r\n\r\nbody{background:url(bg.png)}\r\n--b--\r\n',
    );
    const r = runCli([eml, '-l', '-', '-e']);
    expect(r.status).toBe(0);
    const css = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { part: string; base: string; baseSource: string }).find((l) => l.part === '2')!;
    expect(css).toMatchObject({ base: 'http://example.com/css/s.css', baseSource: 'content-location' });
    expect(r.stderr).toContain('part 2 (text/css): http://example.com/css/s.css [content-location]');
  });
});

describe('--help', () => {
  it('each command has its own, every line at most 80 columns', () => {
    const helps = [['--help'], ['-h'], ['resolve', '--help'], ['batch', '--help'], ['batch-report', '--help']].map((args) => runCli(args));
    for (const h of helps) {
      expect(h.status).toBe(0);
      const wide = h.stdout.split('\n').filter((l) => [...l].length > 80);
      expect(wide).toEqual([]);
    }
    expect(helps[2]!.stdout).toMatch(/^Usage: absolutize resolve/);
    expect(helps[3]!.stdout).toMatch(/^Usage: absolutize batch MANIFEST/);
    expect(helps[4]!.stdout).toMatch(/^Usage: absolutize batch-report OUTDIR/);
  });

  it('short options for the common flags: -u -b -o -t -l -e -q -j', () => {
    const root = scratch();
    writeFileSync(join(root, 'a.css'), 'p { background: url(i.png) }');
    const r = runCli(['a.css', '-t', 'css', '-u', 'https://example.com/c/a.css', '-b', 'https://unused.example/', '-o', join(root, 'o.css'), '-l', join(root, 'l.jsonl'), '-e', '-q'], { cwd: root });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(''); // -q: errors only, so not even -e's lines
    expect(readFileSync(join(root, 'o.css'), 'utf8')).toBe('p { background: url(https://example.com/c/i.png) }');
    expect(readFileSync(join(root, 'l.jsonl'), 'utf8')).toContain('"resolved":"https://example.com/c/i.png"');
    const explained = runCli(['a.css', '-t', 'css', '-u', 'https://example.com/c/a.css', '-e'], { cwd: root });
    expect(explained.stderr).toMatch(/^absolutize: base of a\.css: https:\/\/example\.com\/c\/a\.css \[retrieval\]/m);
    const jobs = runCli(['a.css', 'a.css', '-j', '1'], { cwd: root });
    expect(jobs.stderr).toMatch(/several inputs: give -o DIR/);
    expect(runCli(['resolve', '-b', 'https://example.com/a/b', '../c']).stdout).toBe('https://example.com/c\n');
  });
});
