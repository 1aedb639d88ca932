/** `absolutize DIR -o OUTDIR`: a tree in, the same tree out, documents rewritten on a pool of workers. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** A mirrored site: HTML at several depths, CSS, a message, a binary, a name with a space and a non-ASCII letter. */
function site(): { root: string; input: string } {
  const root = mkdtempSync(join(tmpdir(), 'absolutize-dir-'));
  scratchDirs.push(root);
  const input = join(root, 'site');
  const files: Record<string, string | Buffer> = {
    'index.html': '<a href="docs/">docs</a><img src="img/logo.png">',
    'docs/index.html': '<a href="sub/x.html">x</a><a href="#top">top</a><img src="../img/logo.png">',
    'docs/sub/x.html': '<base href="/elsewhere/"><a href="y.html">y</a>',
    'css/s.css': 'body { background: url(bg.png) }',
    'mail/m.eml': 'Content-Type: text/html\r\n\r\n<a href="reply.html">r</a>\r\n',
    'img/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]),
    'a b/é.html': '<a href="c.html">c</a>',
    'notes.txt': 'href="not-a-document.html"',
  };
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(join(input, rel, '..'), { recursive: true });
    writeFileSync(join(input, rel), body);
  }
  return { root, input };
}

/** Standard error without the summary line that ends every batch (checked to be there, and last). */
const SUMMARY = /^absolutize: \d+ rewritten, \d+ unchanged, \d+ copied, (?:\d+ skipped, )?\d+ failed, \d+ warnings? in \d+\.\d s$/;
function reports(stderr: string): string {
  const lines = stderr.split('\n');
  expect(lines.pop()).toBe('');
  expect(lines.pop()).toMatch(SUMMARY);
  return lines.map((l) => `${l}\n`).join('');
}

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out[relative(dir, join(d, e.name))] = readFileSync(join(d, e.name), 'latin1');
    }
  };
  walk(dir);
  return out;
}

describe('absolutize DIR -o OUTDIR', () => {
  it('rewrites every document by its extension against its URL below --url, and copies every other file as it is', () => {
    const { root, input } = site();
    const out = join(root, 'out');
    const r = runCli([input, '--url', 'https://example.com/', '-o', out, '--links', join(root, 'links.jsonl')]);
    expect(reports(r.stderr)).toBe('');
    expect(r.stderr).toMatch(/^absolutize: 6 rewritten, 0 unchanged, 2 copied, 0 failed, 0 warnings in /);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const original = tree(input);
    expect(tree(out)).toEqual({
      ...original,
      'index.html': '<a href="https://example.com/docs/">docs</a><img src="https://example.com/img/logo.png">',
      'docs/index.html': '<a href="https://example.com/docs/sub/x.html">x</a><a href="#top">top</a><img src="https://example.com/img/logo.png">',
      'docs/sub/x.html': '<base href="https://example.com/elsewhere/"><a href="https://example.com/elsewhere/y.html">y</a>',
      'css/s.css': 'body { background: url(https://example.com/css/bg.png) }',
      'mail/m.eml': 'Content-Type: text/html\r\n\r\n<a href="https://example.com/mail/reply.html">r</a>\r\n',
      // The file's URL is its path below the directory, percent-encoded as a browser would request it.
      'a b/é.html': '<a href="https://example.com/a%20b/c.html">c</a>',
    });
    expect(tree(out)['img/logo.png']).toBe(original['img/logo.png']);
    // One report, in path order, whatever order the workers finished in.
    const links = readFileSync(join(root, 'links.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { document: string; raw: string; base: string });
    expect(links.map((l) => `${relative(input, l.document)} ${l.raw}`)).toEqual([
      'a b/é.html c.html',
      'css/s.css bg.png',
      'docs/index.html sub/x.html',
      'docs/index.html #top',
      'docs/index.html ../img/logo.png',
      'docs/sub/x.html /elsewhere/',
      'docs/sub/x.html y.html',
      'index.html docs/',
      'index.html img/logo.png',
      'mail/m.eml reply.html',
    ]);
    expect(links[0]!.base).toBe('https://example.com/a%20b/%C3%A9.html');
  });

  it('gives the same tree with one worker as with several', () => {
    const { root, input } = site();
    expect(runCli([input, '--base', 'https://example.org/', '-o', join(root, 'one'), '--jobs', '1']).status).toBe(0);
    expect(runCli([input, '--base', 'https://example.org/', '-o', join(root, 'four'), '--jobs', '4']).status).toBe(0);
    expect(tree(join(root, 'four'))).toEqual(tree(join(root, 'one')));
    expect(tree(join(root, 'one'))['index.html']).toBe('<a href="https://example.org/docs/">docs</a><img src="https://example.org/img/logo.png">');
  });

  it('a file that cannot be written fails alone: the others are written, and the exit code is 1', () => {
    const { root, input } = site();
    const out = join(root, 'out');
    mkdirSync(join(out, 'docs', 'index.html'), { recursive: true }); // a directory where a file must go
    const r = runCli([input, '--base', 'https://example.org/', '-o', out, '--explain']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/absolutize: error \[ABS_ERR_OUTPUT\] .*docs[/\\]index\.html: EISDIR/);
    expect(r.stderr).toMatch(/, 1 failed, /);
    expect(readFileSync(join(out, 'docs/sub/x.html'), 'utf8')).toBe('<base href="https://example.org/elsewhere/"><a href="https://example.org/elsewhere/y.html">y</a>');
    // --explain: one decision per document, in path order.
    const bases = r.stderr.split('\n').filter((l) => l.startsWith('absolutize: base of ')).map((l) => relative(input, l.slice('absolutize: base of '.length).split(':')[0]!));
    expect(bases).toEqual(['a b/é.html', 'css/s.css', 'docs/index.html', 'docs/sub/x.html', 'index.html', 'mail/m.eml part 1 (text/html)']);
  });

  it('an -o that is a file: one line, exit 1', () => {
    const { root, input } = site();
    writeFileSync(join(root, 'file'), 'x');
    const r = runCli([input, '-o', join(root, 'file')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_OUTPUT\] .*file: [^\n]*\n$/);
  });

  it('skips symbolic links with a warning', () => {
    const { root, input } = site();
    symlinkSync(join(input, 'css'), join(input, 'docs', 'loop'));
    const r = runCli([input, '--base', 'https://example.org/', '-o', join(root, 'out')]);
    expect(r.status).toBe(0);
    expect(reports(r.stderr)).toMatch(/^absolutize: warning \[not-a-regular-file\] .*loop: a symbolic link or special file, not followed or copied\n$/);
    expect(existsSync(join(root, 'out', 'docs', 'loop'))).toBe(false);
  });

  it('with --type, every file is of that type: a Maildir, whose messages have no extension', () => {
    const root = mkdtempSync(join(tmpdir(), 'absolutize-maildir-'));
    scratchDirs.push(root);
    const message = (n: number): string => `Content-Base: https://list.example/${n}/\r\nContent-Type: text/html\r\n\r\n<a href="thread.html">t</a>\r\n`;
    for (const [dir, name, n] of [['cur', '1700000000.M1P2.host,S=90:2,S', 1], ['new', '1700000001.M3P4.host', 2]] as const) {
      mkdirSync(join(root, 'Maildir', dir), { recursive: true });
      writeFileSync(join(root, 'Maildir', dir, name), message(n));
    }
    mkdirSync(join(root, 'Maildir', 'tmp'));
    const r = runCli([join(root, 'Maildir'), '--type', 'mime', '-o', join(root, 'out')]);
    expect(reports(r.stderr)).toBe('');
    expect(r.status).toBe(0);
    expect(tree(join(root, 'out'))).toEqual({
      'cur/1700000000.M1P2.host,S=90:2,S': message(1).replace('"thread.html"', '"https://list.example/1/thread.html"'),
      'new/1700000001.M3P4.host': message(2).replace('"thread.html"', '"https://list.example/2/thread.html"'),
    });
    expect(existsSync(join(root, 'out', 'tmp'))).toBe(true); // empty directories are part of the tree
  });

  it('refuses, with exit 2 and nothing written: no -o, -o inside the input or around it, --jobs 0', () => {
    const { root, input } = site();
    for (const args of [[input], [input, '-o', join(input, 'out')], [input, '-o', join(input, '..out')], [input, '-o', root], [input, '-o', join(root, 'o'), '--type', 'pdf'], [input, '-o', join(root, 'o'), '--jobs', '0']]) {
      const r = runCli(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(existsSync(join(input, 'out'))).toBe(false);
    expect(existsSync(join(input, '..out'))).toBe(false);
    expect(existsSync(join(root, 'o'))).toBe(false);
  });
});
