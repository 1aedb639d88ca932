/** `absolutize [INPUT]`, run as a user runs it: the built bin in a child process. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, PROJECT_DIR, runCli } from '../helpers/cli.ts';

const URL_ = 'https://example.com/docs/guide/page.html';
const scratchDirs: string[] = [];
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'absolutize-cli-'));
  scratchDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

describe('absolutize INPUT', () => {
  it('rewrites the bundled example (the README command) to standard output', () => {
    const r = runCli(['examples/page.html', '--url', URL_]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('<base href="https://example.com/docs/guide/">');
    expect(r.stdout).toContain(`content="300; URL='https://example.com/docs/archive/index.html'"`);
    expect(r.stdout).toContain(`url( 'https://example.com/docs/guide/img/paper.png' )`);
    expect(r.stdout).toContain('<a href="#top">Top</a>');
    expect(r.stdout).toContain('<textarea><a href="not-a-link.html"></textarea>');
    expect(r.stdout).toContain('<rect fill="url(#grad)"/>');
  });

  it('is a filter: standard input to standard output', () => {
    const r = runCli(['--url', 'http://h/a/b.html'], { input: '<a href="../c">x</a>' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('<a href="http://h/c">x</a>');
  });

  it('rewrites CSS with --type css or a .css name', () => {
    const r = runCli(['--type', 'css', '--url', 'http://h/css/s.css'], { input: '@import "a.css"; p{background:url(../i.png)}' });
    expect(r.stdout).toBe('@import "http://h/css/a.css"; p{background:url(http://h/i.png)}');
    expect(r.status).toBe(0);
  });

  it('uses --base only as the fallback, and the document encoding from --charset', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'p.html'), Buffer.from([...Buffer.from('<a href="x?q='), 0xe9, ...Buffer.from('">')]));
    const r = runCli([join(dir, 'p.html'), '--base', 'http://fallback/d/', '--charset', 'latin1']);
    expect(r.stdout).toBe('<a href="http://fallback/d/x?q=%E9">');
  });

  it('writes -o atomically, and leaves no partial file when the input cannot be read', () => {
    const dir = scratch();
    const out = join(dir, 'out.html');
    expect(runCli(['examples/page.html', '--url', URL_, '-o', out]).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('https://example.com/docs/guide/css/site.css');
    writeFileSync(out, 'previous');
    const r = runCli([join(dir, 'missing.html'), '--url', URL_, '-o', out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_INPUT\] .*missing\.html/m);
    expect(readFileSync(out, 'utf8')).toBe('previous');
    expect(readdirSync(dir).sort()).toEqual(['out.html']);
  });

  it('--links - prints only the report: one JSON line per reference, with exactly the documented fields', () => {
    const r = runCli(['examples/page.html', '--url', URL_, '--links', '-']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const l of lines) {
      // `rel` only where the element has one that governs the reference (<link rel="stylesheet" href>).
      const rel = l['element'] === 'link' && l['attribute'] === 'href' ? ['rel'] : [];
      expect(Object.keys(l)).toEqual(['document', 'part', 'element', 'attribute', ...rel, 'raw', 'resolved', 'base', 'baseSource', 'line', 'column', 'changed']);
    }
    expect(lines).toContainEqual({
      document: 'examples/page.html', part: null, element: 'link', attribute: 'href', rel: 'stylesheet', raw: 'css/site.css',
      resolved: 'https://example.com/docs/guide/css/site.css', base: 'https://example.com/docs/guide/', baseSource: 'embedded',
      line: 7, column: 26, changed: true, // the attribute's position
    });
    expect(lines).toContainEqual(expect.objectContaining({ raw: '#top', resolved: 'https://example.com/docs/guide/#top', changed: false }));
    expect(lines.find((l) => l['element'] === 'base')).toMatchObject({ raw: '../guide/', base: URL_, changed: true });
  });

  it('--links FILE with -o writes both', () => {
    const dir = scratch();
    const r = runCli(['examples/page.html', '--url', URL_, '-o', join(dir, 'o.html'), '--links', join(dir, 'l.jsonl')]);
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'l.jsonl'), 'utf8').split('\n').length).toBeGreaterThan(15);
    expect(existsSync(join(dir, 'o.html'))).toBe(true);
  });

  it('--explain prints the base decision and its chain to standard error', () => {
    const r = runCli(['examples/page.html', '--url', URL_, '--explain']);
    expect(r.stderr).toBe(
      'absolutize: encoding of examples/page.html: UTF-8 [meta] (a charset <meta> in the head (or an XML declaration))\n' +
        'absolutize: base of examples/page.html: https://example.com/docs/guide/ [embedded]\n' +
        '  embedded: https://example.com/docs/guide/ (written "../guide/")\n' +
        `  retrieval: ${URL_}\n`,
    );
  });

  it('warns with a stable code, and still writes the document', () => {
    const r = runCli(['--url', 'http://h/'], { input: '<a href="//[bad/">x</a><a href="y">' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('<a href="//[bad/">x</a><a href="http://h/y">');
    expect(r.stderr).toMatch(/^absolutize: warning \[unresolvable-reference\]/m);
  });

  it('rewrites mail and MHTML by extension, with part paths in --links and the chain per part in --explain', () => {
    const eml = '../shared/conformance/rfc2557/rfc2557-9.3-outer-content-location.eml';
    const r = runCli([eml, '--links', '-', '--explain']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l['part'], l['resolved']])).toEqual([
      ['1', 'http://www.ietf.cnri.reston.va.us/images/ietflogo1.gif'],
      ['1', 'http://www.ietf.cnri.reston.va.us/images/ietflogo2.gif'],
      ['1', 'http://www.ietf.cnri.reston.va.us/images/ietflogo3.gif'],
    ]);
    expect(r.stderr).toContain(`absolutize: base of ${eml} part 1 (text/html): http://www.ietf.cnri.reston.va.us/ [encapsulating]`);
    expect(r.stderr).toContain('  content-location: http://www.ietf.cnri.reston.va.us/images/ietflogo2.gif (written "images/ietflogo2.gif")');
  });

  it('rewrites an mbox from standard input with --type mbox; --links parts are MESSAGE:PART', () => {
    const mbox = 'From a@b Sat Nov 21 10:00:00 2026\nContent-Type: text/html\n\n<a href="x">x</a>\n\nFrom a@b Sat Nov 21 10:01:00 2026\nContent-Type: text/plain\n\nplain\n';
    const r = runCli(['--type', 'mbox', '--base', 'thismessage:/'], { input: mbox });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(mbox.replace('href="x"', 'href="thismessage:/x"'));
    const links = runCli(['--type', 'mbox', '--base', 'thismessage:/', '--links', '-'], { input: mbox });
    expect(JSON.parse(links.stdout)).toMatchObject({ part: '1:1', raw: 'x', resolved: 'thismessage:/x', baseSource: 'fallback' });
  });

  it('on a Node.js older than `engines` allows, says so in one line and exits 2 (no stack trace from an import)', () => {
    // The version is what the running Node reports; a preload makes this Node report 20's and 22.18's.
    // The least version is package.json's `engines`.
    const preload = (version: string): string => `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`;
    for (const version of ['20.20.2', '22.18.9', '21.99.0']) {
      const r = spawnSync(process.execPath, ['--import', preload(version), CLI, 'examples/page.html', '--url', 'https://example.com/'], { cwd: PROJECT_DIR, encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`absolutize: error [ABS_ERR_UNSUPPORTED_NODE] Node.js ${version} is too old: absolutize needs Node.js 22.19.0 or later\n`);
      expect(r.stdout).toBe('');
    }
    // Versions from the least one on run (the real work is done by this process's own Node).
    for (const version of ['22.19.0', '22.20.0', '23.0.0']) {
      const r = spawnSync(process.execPath, ['--import', preload(version), CLI, '--version'], { cwd: PROJECT_DIR, encoding: 'utf8' });
      expect(r.status, version).toBe(0);
    }
  });

  it('exits 2 on usage errors, with one line', () => {
    for (const args of [['--nope'], ['--url', 'relative/x'], ['examples/page.html', '-o', 'examples/page.html'], ['--type', 'pdf'], ['a.html', 'b.html']]) {
      const r = runCli(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trimEnd().split('\n')[0]).toMatch(/^absolutize: /);
      expect(r.stdout).toBe('');
    }
  });
});
