/**
 * Issue 21 items 2 and 3, run as a user runs the CLI: wget mirrors of dynamic sites (pages saved as `v.php`,
 * `p.html?page=2`, `post?id=1`, `run.cgi`, and with `-E` as `v.php.html`, `p.html?page=2.html`) rewritten with
 * --host-dirs — every HTML file rewritten, none copied as it was — and several inputs behaving as a directory run.
 *
 * The trees are named as wget 1.21 names them: checked by hand with `wget -m -p` (and `-E`) of a local site served
 * on 127.0.0.1 with these pages (the names below are what it saved).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { removeScratch, scratchDir } from '../batch/helpers.ts';

afterAll(removeScratch);
const scratch = (): string => scratchDir('absolutize-mirror-');

const HOST = '127.0.0.1:18765';
const PNG = '\x89PNG\r\n\x1a\n';

/** The site: each URL path (with query) → [the Content-Type it was served with, body]. */
const SITE: Record<string, [string, string]> = {
  '/': ['text/html', '<!DOCTYPE html><html><head><link rel="stylesheet" href="style.php?v=2"></head><body><a href="p.html?page=2">p2</a> <a href="v.php">v</a> <a href="x.asp?id=7">x</a> <a href="blog/">blog</a> <a href="cgi-bin/run.cgi">cgi</a><img src="logo.png"></body></html>'],
  '/p.html?page=2': ['text/html', '<html><body><a href="?page=3">next</a> <a href="v.php">v</a></body></html>'],
  '/p.html?page=3': ['text/html', '<html><body><a href="?page=4">next</a></body></html>'],
  '/v.php': ['text/html', '\n\n<HTML><body><a href="sub/deep.php?a=1&amp;b=2">deep</a></body></HTML>'],
  '/x.asp?id=7': ['text/html', '<!-- asp page -->\n<p><a href="../x.asp?id=8">again</a></p>'],
  '/blog/': ['text/html', '<html><a href="post?id=1">post</a><a href="../">home</a></html>'],
  '/blog/post?id=1': ['text/html', '<div class=post><a href="/">home</a><img src="img/p.png"></div>'],
  '/cgi-bin/run.cgi': ['text/html', '<title>cgi</title><a href="../v.php">v</a>'],
  '/sub/deep.php?a=1&b=2': ['text/html', '\ufeff<html><a href="../p.html?page=2">back</a></html>'],
  '/style.php?v=2': ['text/css', '/* site */ body { background: url(img/bg.png) }'],
  '/logo.png': ['image/png', PNG],
  '/img/bg.png': ['image/png', PNG],
  '/blog/img/p.png': ['image/png', PNG],
  '/robots.txt': ['text/plain', 'User-agent: *\n'],
};

/**
 * The file wget saves a URL path as: a directory URL as DIR/index.html; the query kept in the name after "?";
 * with -E (--adjust-extension), ".html" added to an HTML file (".css" to CSS) whose name does not end so
 * (the whole name, query included: `p.html?page=2` becomes `p.html?page=2.html`).
 */
function wgetName(path: string, type: string, adjustExtension: boolean): string {
  let name = path.endsWith('/') ? `${path}index.html` : path;
  if (adjustExtension && type === 'text/html' && !/\.html?$/i.test(name)) name += '.html';
  if (adjustExtension && type === 'text/css' && !/\.css$/i.test(name)) name += '.css';
  return `${HOST}${name}`;
}

function wgetMirror(adjustExtension: boolean): { root: string; mirror: string; names: Record<string, string> } {
  const root = scratch();
  const mirror = join(root, 'mirror');
  const names: Record<string, string> = {};
  for (const [path, [type, body]] of Object.entries(SITE)) {
    const name = wgetName(path, type, adjustExtension);
    names[path] = name;
    mkdirSync(join(mirror, name, '..'), { recursive: true });
    writeFileSync(join(mirror, name), Buffer.from(body, 'utf8'));
  }
  return { root, mirror, names };
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('a wget mirror of a dynamic site, rewritten with --host-dirs', () => {
  for (const adjustExtension of [false, true]) {
    it(`every HTML and CSS file is rewritten, none copied as it was (wget -m -p${adjustExtension ? ' -E' : ''})`, () => {
      const { root, mirror, names } = wgetMirror(adjustExtension);
      const out = join(root, 'out');
      const r = runCli([mirror, '--host-dirs', '--scheme', 'http', '-o', out, '-l', join(root, 'links.jsonl')]);
      expect(r.status).toBe(0);
      // 9 pages and the stylesheet rewritten; the three images and robots.txt copied.
      expect(r.stderr).toMatch(/^absolutize: 10 rewritten, 0 unchanged, 4 copied, 0 failed, 0 warnings in /m);
      expect(files(out)).toEqual(Object.values(names).sort());
      for (const [path, [type, body]] of Object.entries(SITE)) {
        const written = readFileSync(join(out, names[path]!), 'utf8');
        if (type === 'text/html' || type === 'text/css') {
          // Every reference of every document is absolute now: none of the relative ones is left.
          expect(written, names[path]).not.toBe(body);
          expect(written.match(/(?:href|src)="(?!http:\/\/127\.0\.0\.1:18765\/)[^"]*"/g), names[path]).toBeNull();
        } else expect(written, names[path]).toBe(body);
      }
      const page2 = readFileSync(join(out, names['/p.html?page=2']!), 'utf8');
      // "?page=3" replaces the page's query.
      expect(page2).toContain('<a href="http://127.0.0.1:18765/p.html?page=3">next</a>');
      expect(readFileSync(join(out, names['/style.php?v=2']!), 'utf8')).toBe('/* site */ body { background: url(http://127.0.0.1:18765/img/bg.png) }');
      expect(readFileSync(join(out, names['/sub/deep.php?a=1&b=2']!), 'utf8')).toBe('\ufeff<html><a href="http://127.0.0.1:18765/p.html?page=2">back</a></html>');
      const bases = new Set(readFileSync(join(root, 'links.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { base: string }).base));
      // The page's own URL has the query of its name (with -E, the name's ".html" is in the query: see the docs).
      expect(bases).toContain(`http://127.0.0.1:18765/p.html?page=2${adjustExtension ? '.html' : ''}`);
      if (!adjustExtension) {
        expect(bases).toContain('http://127.0.0.1:18765/p.html?page=2');
        expect(bases).toContain('http://127.0.0.1:18765/sub/deep.php?a=1&b=2');
        expect(bases).toContain('http://127.0.0.1:18765/blog/post?id=1');
      }
    });
  }

  it('--host-dirs on the host folder itself is refused, with the --url to give instead', () => {
    const { root, mirror } = wgetMirror(false);
    const r = runCli([join(mirror, HOST), '--host-dirs', '-o', join(root, 'out')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_USAGE\] --host-dirs: \S+ holds blog\/, cgi-bin\/, img\/ and 1 more, not host names; \S+ looks like a host folder itself: give it with --url https:\/\/127\.0\.0\.1:18765\/ instead of --host-dirs/);
    // As the hint says: the host folder with --url gives the same URLs (a "?" in a name starts the query here too).
    const ok = runCli([join(mirror, HOST), '-u', `http://${HOST}/`, '-o', join(root, 'out2')]);
    expect(ok.status).toBe(0);
    expect(readFileSync(join(root, 'out2', 'p.html?page=2'), 'utf8')).toContain(`<a href="http://${HOST}/p.html?page=3">next</a>`);
    // A folder of plain folders, no host names and no hint to give its own name.
    mkdirSync(join(root, 'plain', 'docs'), { recursive: true });
    const plain = runCli([join(root, 'plain'), '--host-dirs', '-o', join(root, 'out3')]);
    expect(plain.stderr).toMatch(/holds docs\/, not host names; give the folder that holds the host folders/);
    expect(plain.status).toBe(2);
  });

  /**
   * An HTTrack project as httrack 3.49 writes it (`httrack http://127.0.0.1:18765/ -O proj -K4`, checked by hand):
   * the host folder with the port after "_", pages renamed (`/p.html?page=2` → `p4658.html`), and the log
   * hts-cache/new.txt that says which URL each file came from.
   */
  function httrackProject(command: string, pages: Record<string, [string, string, string]>): string {
    const root = scratch();
    const project = join(root, 'proj');
    mkdirSync(join(project, 'hts-cache'), { recursive: true });
    writeFileSync(join(project, 'hts-cache', 'doit.log'), `${command}\nFile generated automatically on Thu, 26 Nov 2026 14:21:00, do NOT edit\n`);
    const log = ['date\tsize\'/\'remotesize\tflags(request:Update,Range state:File response:Modified,Chunked,gZipped)\tstatuscode\tstatus (\'servermsg\')\tMIME\tEtag|Date\tURL\tlocalfile\t(from URL)'];
    for (const [file, [url, type, body]] of Object.entries(pages)) {
      mkdirSync(join(project, file, '..'), { recursive: true });
      writeFileSync(join(project, file), body);
      log.push(`14:21:03\t${body.length}/${body.length}\t---M--\t200\tadded ('OK')\t${type}\tdate:Thu,%2026%20Nov%202026%2014:21:03%20GMT\t${url}\tproj/${file}\t(from http://127.0.0.1:18765/)`);
    }
    writeFileSync(join(project, 'hts-cache', 'new.txt'), `${log.join('\n')}\n`);
    writeFileSync(join(project, 'index.html'), '<html><a href="127.0.0.1_18765/index.html">127.0.0.1:18765</a></html>');
    writeFileSync(join(project, 'hts-log.txt'), 'HTTrack3.49-4 launched\n');
    return project;
  }

  it('HTTrack projects: each file\'s URL from hts-cache/new.txt (pages renamed), hts-cache no host, the port after "_"', () => {
    const project = httrackProject('http://127.0.0.1:18765/ -O proj -q -%v0 -K4', {
      '127.0.0.1_18765/index.html': ['http://127.0.0.1:18765/', 'text/html', '<a href="p.html?page=2">p2</a>'],
      '127.0.0.1_18765/p4658.html': ['http://127.0.0.1:18765/p.html?page=2', 'text/html', '<a href="?page=3">next</a> <a href="v.php">v</a>'],
      '127.0.0.1_18765/v.html': ['http://127.0.0.1:18765/v.php', 'text/html', '<a href="sub/">sub</a>'],
    });
    const out = join(project, '..', 'out');
    const r = runCli([project, '--host-dirs', '--scheme', 'http', '-o', out]);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toContain('hint');
    expect(readFileSync(join(out, '127.0.0.1_18765', 'p4658.html'), 'utf8')).toBe('<a href="http://127.0.0.1:18765/p.html?page=3">next</a> <a href="http://127.0.0.1:18765/v.php">v</a>');
    expect(readFileSync(join(out, '127.0.0.1_18765', 'index.html'), 'utf8')).toBe('<a href="http://127.0.0.1:18765/p.html?page=2">p2</a>');
    // A file not in the log: its name below the host folder (the port after "_").
    writeFileSync(join(project, '127.0.0.1_18765', 'extra.html'), '<a href="x.html">x</a>');
    const again = runCli([project, '--host-dirs', '-o', join(project, '..', 'out2')]);
    expect(readFileSync(join(project, '..', 'out2', '127.0.0.1_18765', 'extra.html'), 'utf8')).toBe('<a href="https://127.0.0.1:18765/x.html">x</a>');
    expect(again.status).toBe(0);
  });

  it('an HTTrack project made without -K4 (links rewritten to its file names): a hint says so', () => {
    const project = httrackProject('http://127.0.0.1:18765/ -O proj -q -%v0', {
      '127.0.0.1_18765/p4658.html': ['http://127.0.0.1:18765/p.html?page=2', 'text/html', '<a href="p9ba9.html?page=3">next</a>'],
    });
    const r = runCli([project, '--host-dirs', '-o', join(project, '..', 'out')]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^absolutize: hint \[httrack-local-links\] \S+proj is an HTTrack project made without -K4: .* mirror again with httrack -K4/m);
  });
});

describe('a directory run types a file by its content where its name says nothing', () => {
  it('HTML by the MIME Sniffing patterns, CSS by its start; text, scripts, images and look-alikes copied', () => {
    const root = scratch();
    const dir = join(root, 'site');
    const docs: Record<string, string> = {
      'noext': '<!doctype html><a href="a">a</a>',
      'page.aspx': '  <table><tr><td><a href="a">a</a></table>',
      'x.jsp': '<script>1</script><a href="a">a</a>',
      'feed.cgi': '<p>para <a href="a">a</a>',
      'theme.php': '@import url(base.css);',
    };
    const copied: Record<string, string> = {
      'notes.txt': '<html><a href="a">a</a>',
      'data': 'plain text <a href="a">a</a>',
      'tag.php': '<htmlx><a href="a">a</a>', // "<HTML" must be followed by a space or ">"
      'blob': '\x00\x01body { color: red }',
    };
    for (const [name, body] of Object.entries({ ...docs, ...copied })) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), body, 'latin1');
    }
    // A .js file is a JavaScript document by its name (docs/html.md: other kinds): read, nothing to rewrite here.
    writeFileSync(join(dir, 'app.js'), '<!-- x --> document.write("<a href=a>")', 'latin1');
    const r = runCli([dir, '-u', 'https://example.com/d/', '-o', join(root, 'out')]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^absolutize: 5 rewritten, 1 unchanged, 4 copied, 0 failed/m);
    expect(readFileSync(join(root, 'out', 'app.js'), 'latin1')).toBe('<!-- x --> document.write("<a href=a>")');
    for (const [name, body] of Object.entries(docs)) expect(readFileSync(join(root, 'out', name), 'latin1'), name).not.toBe(body);
    expect(readFileSync(join(root, 'out', 'theme.php'), 'utf8')).toBe('@import url(https://example.com/d/base.css);');
    for (const [name, body] of Object.entries(copied)) expect(readFileSync(join(root, 'out', name), 'latin1'), name).toBe(body);
  });
});

describe('several inputs behave like a directory run (--url ending in "/")', () => {
  it('each file\'s URL is --url plus its path below the current directory, its output that path below OUTDIR', () => {
    const root = scratch();
    mkdirSync(join(root, 'site', 'dir'), { recursive: true });
    writeFileSync(join(root, 'site', 'a.html'), '<a href="?page=2">2</a>');
    writeFileSync(join(root, 'site', 'dir', 'index.html'), '<a href="?page=2">2</a><a href="x.html">x</a>');
    const dirRun = runCli([join(root, 'site'), '-u', 'https://example.com/', '-o', join(root, 'dir-out')]);
    expect(dirRun.status).toBe(0);
    // The same files named one by one, from the site's folder: the same outputs as the directory run.
    const several = runCli(['a.html', 'dir/index.html', '-u', 'https://example.com/', '-o', join(root, 'several-out')], { cwd: join(root, 'site') });
    expect(several.status).toBe(0);
    expect(several.stderr).toMatch(/^absolutize: 2 rewritten, 0 unchanged, 0 copied, 0 failed/m);
    for (const name of ['a.html', 'dir/index.html']) {
      expect(readFileSync(join(root, 'several-out', name), 'utf8')).toBe(readFileSync(join(root, 'dir-out', name), 'utf8'));
    }
    expect(readFileSync(join(root, 'several-out', 'a.html'), 'utf8')).toBe('<a href="https://example.com/a.html?page=2">2</a>');
    expect(readFileSync(join(root, 'several-out', 'dir/index.html'), 'utf8')).toBe('<a href="https://example.com/dir/index.html?page=2">2</a><a href="https://example.com/dir/x.html">x</a>');
    // --root DIR: the paths below DIR, from anywhere.
    const rooted = runCli([join(root, 'site', 'a.html'), join(root, 'site', 'dir', 'index.html'), '-u', 'https://example.com/', '--root', join(root, 'site'), '-o', join(root, 'rooted-out')]);
    expect(rooted.status).toBe(0);
    expect(readFileSync(join(root, 'rooted-out', 'dir', 'index.html'), 'utf8')).toBe(readFileSync(join(root, 'dir-out', 'dir', 'index.html'), 'utf8'));
    // A file outside --root is a usage error that says which.
    const outside = runCli([join(root, 'site', 'a.html'), join(root, 'site', 'dir', 'index.html'), '-u', 'https://example.com/', '--root', join(root, 'site', 'dir'), '-o', join(root, 'x')]);
    expect(outside.status).toBe(2);
    expect(outside.stderr).toMatch(/a\.html is not below .*dir: give --root DIR/);
  });
});
