/**
 * A newcomer's first hour: option typos, messages that name flags, hints when nothing was rewritten,
 * `--explain` saying which encoding was chosen. The built bin in a child process, as a user runs it.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mailKind } from '../../src/cli/hints.ts';
import { looksLikeCss } from '../../src/kinds/sniff.ts';
import { inFlags } from '../../src/cli/io.ts';
import { nearestFlag } from '../../src/cli/options.ts';
import { PROJECT_DIR as PROJECT_ROOT, runCli } from '../helpers/cli.ts';
import { SHARED_DIR } from '../helpers/shared.ts';

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'absolutize-newcomer-'));
  scratchDirs.push(dir);
  return dir;
};

/** The one line of a usage error (exit 2; `absolutize batch`: 64); fails if there is more than one line or Node's own parseArgs text. */
function usageLine(args: readonly string[], status = 2): string {
  const r = runCli(args);
  expect(r.status).toBe(status);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/To specify a positional argument|argument is ambiguous|ERR_PARSE_ARGS|Unknown option/);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('option typos', () => {
  it('suggest the nearest flag, in one line with a stable code', () => {
    expect(usageLine(['examples/page.html', '--exact-bsae'])).toBe('absolutize: error [ABS_ERR_USAGE] unknown option --exact-bsae; did you mean --exact-base? (see --help)');
    expect(usageLine(['examples/page.html', '--exactBase'])).toContain('did you mean --exact-base?');
    expect(usageLine(['examples/page.html', '--urll', 'http://h/'])).toContain('did you mean --url?');
    expect(usageLine(['--hepl'])).toContain('did you mean --help?');
    expect(usageLine(['https://example.com/', '--max-redirect', '3'])).toContain('did you mean --max-redirects?');
    expect(usageLine(['resolve', '--bsae', 'http://h/', 'x'])).toContain('did you mean --base?');
    expect(usageLine(['batch', 'urls.txt', '--shrads', '2'], 64)).toContain('did you mean --shards?'); // batch: EX_USAGE
  });

  it('a mistyped command is named, not read as an input file', () => {
    expect(usageLine(['bacth', 'manifest.txt', '-o', 'out/'])).toBe('absolutize: error [ABS_ERR_USAGE] "bacth" is neither a file nor a command; did you mean `absolutize batch`? (see --help)');
    expect(usageLine(['resovle', '--base', 'http://h/', 'x'])).toContain('did you mean `absolutize resolve`?');
    expect(usageLine(['batch-reprot', 'out/'])).toContain('did you mean `absolutize batch-report`?');
    // A file of that name is an input as before; a name far from every command says what it always said.
    const dir = scratch();
    writeFileSync(join(dir, 'bacth'), '<a href="x">x</a>');
    const r = runCli(['bacth', '--url', 'https://e.example/d/'], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('<a href="https://e.example/d/x">x</a>');
    expect(usageLine(['zzzzzz', 'yyyyyy'])).not.toContain('did you mean');
  });

  it('say nothing they cannot back: no suggestion for a name far from every flag', () => {
    expect(usageLine(['examples/page.html', '--zzzzzz'])).toBe('absolutize: error [ABS_ERR_USAGE] unknown option --zzzzzz (see --help)');
  });

  it('name the flag whose value is missing or not wanted', () => {
    expect(usageLine(['examples/page.html', '--url'])).toBe('absolutize: error [ABS_ERR_USAGE] -u/--url needs a value');
    expect(usageLine(['examples/page.html', '-o', '--explain'])).toContain('-o/--output needs a value ("--explain" looks like an option; write --output=--explain if it is the value)');
    expect(usageLine(['examples/page.html', '--explain=yes'])).toBe('absolutize: error [ABS_ERR_USAGE] -e/--explain takes no value (given "yes")');
  });

  it('nearestFlag: edit distance with transpositions, a unique prefix, and a bound', () => {
    const known = ['url', 'base', 'output', 'exact-base', 'explain', 'links', 'lazy-load'];
    expect(nearestFlag('ulr', known)).toBe('url');
    expect(nearestFlag('exp', known)).toBe('explain');
    expect(nearestFlag('ex', known)).toBeNull();
    expect(nearestFlag('link', known)).toBe('links');
    expect(nearestFlag('lazyload', known)).toBe('lazy-load');
    expect(nearestFlag('colour', known)).toBeNull();
  });
});

describe('messages name flags, not library options', () => {
  it('a late <base href> says --exact-base', () => {
    const r = runCli(['--url', 'http://h/d/p.html'], { input: '<body><a href="x">x</a><base href="http://late/">' });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('[base-href-after-commit]');
    expect(r.stderr).toContain('--exact-base');
    expect(r.stderr).not.toMatch(/\bexactBase\b/);
  });

  it('inFlags rewrites every library option that has a flag, and nothing else', () => {
    expect(inFlags('more than 5 redirects (limit maxRedirects)')).toBe('more than 5 redirects (--max-redirects)');
    expect(inFlags('limit maxBodyBytes exceeded: 10 bytes')).toBe('--max-body-size exceeded: 10 bytes');
    expect(inFlags('limit maxBodyBytes must be a positive integer, not 0')).toBe('--max-body-size must be a positive integer, not 0');
    expect(inFlags('no response headers within 5 ms (headersTimeoutMs)')).toBe('no response headers within 5 ms (--headers-timeout)');
    expect(inFlags('no complete document within 300 ms (deadlineMs)')).toBe('no complete document within 300 ms (--deadline)');
    expect(inFlags('a line longer than maxMimeLineBytes (998)')).toBe('a line longer than maxMimeLineBytes (998)');
    expect(inFlags('http://h/exactBaseline')).toBe('http://h/exactBaseline');
  });
});

describe('--explain says which encoding was chosen and why', () => {
  const encodingLine = (args: readonly string[], input: string | Buffer): string => {
    const r = runCli([...args, '--explain'], { input });
    expect(r.status).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('absolutize: encoding of '));
    expect(lines).toHaveLength(1);
    return lines[0]!;
  };

  it('HTML: byte order mark, --charset, <meta> prescan, default — in the standard order', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<meta charset=koi8-r><a href=x>')]);
    expect(encodingLine(['--url', 'http://h/', '--charset', 'latin1'], bom)).toBe('absolutize: encoding of -: UTF-8 [bom] (a byte order mark)');
    expect(encodingLine(['--url', 'http://h/', '--charset', 'sjis'], '<meta charset=koi8-r><a href=x>')).toBe('absolutize: encoding of -: Shift_JIS [transport] (--charset)');
    expect(encodingLine(['--url', 'http://h/'], '<meta charset=koi8-r><a href=x>')).toBe('absolutize: encoding of -: KOI8-R [meta] (a charset <meta> in the head (or an XML declaration))');
    expect(encodingLine(['--url', 'http://h/'], '<a href=x>')).toBe('absolutize: encoding of -: windows-1252 [default] (nothing in the document or its transport names one: the default)');
  });

  it('CSS: the @charset rule, or UTF-8 by default', () => {
    expect(encodingLine(['--type', 'css', '--url', 'http://h/'], '@charset "latin1"; a{b:url(x)}')).toBe('absolutize: encoding of -: windows-1252 [charset-rule] (the @charset rule)');
    expect(encodingLine(['--type', 'css', '--url', 'http://h/'], 'a{b:url(x)}')).toBe('absolutize: encoding of -: UTF-8 [default] (nothing in the document or its transport names one: the default)');
  });

  it("MIME: each rewritten part, from the part's Content-Type charset", () => {
    const mail = 'Content-Type: text/html; charset=koi8-r\r\nContent-Location: http://m/\r\n\r\n<a href=x>';
    expect(encodingLine(['--type', 'mime'], mail)).toBe("absolutize: encoding of - part 1: KOI8-R [transport] (the part's Content-Type charset)");
    expect(encodingLine(['--type', 'mbox'], `From a@b Mon Jan  1 00:00:00 2024\n${mail.replaceAll('\r\n', '\n')}\n`)).toBe("absolutize: encoding of - part 1:1: KOI8-R [transport] (the part's Content-Type charset)");
  });
});

describe('a hint, once, when the input was taken for HTML and is something else', () => {
  const MAIL = 'From: a@example.com\r\nSubject: x\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: base64\r\n\r\nPGEgaHJlZj0ieCI+\r\n';

  it('CSS on standard input: nothing rewritten, and why', () => {
    const r = runCli(['--url', 'http://h/'], { input: '/* site */\nbody { background: url(bg.png) }' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('/* site */\nbody { background: url(bg.png) }');
    expect(r.stderr).toBe('absolutize: hint [looks-like-css] nothing was rewritten: - was read as HTML but looks like CSS: give --type css\n');
  });

  it('a mail message or an mbox with no extension', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'message'), MAIL);
    const r = runCli([join(dir, 'message'), '--url', 'http://h/']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(MAIL);
    expect(r.stderr).toBe(`absolutize: hint [looks-like-mail] ${join(dir, 'message')} was read as HTML but looks like a mail message or MHTML file (it starts with header fields): give --type mime\n`);
    const mbox = runCli(['--url', 'http://h/'], { input: `From a@example.com Mon Jan  1 00:00:00 2024\n${MAIL}` });
    expect(mbox.stderr).toMatch(/^absolutize: hint \[looks-like-mbox\] - was read as HTML but looks like an mbox archive .*: give --type mbox\n$/);
  });

  it('a Maildir given without --type mime: its messages are copied, and one hint says so', () => {
    const dir = scratch();
    for (const sub of ['cur', 'new', 'tmp']) mkdirSync(join(dir, 'Maildir', sub), { recursive: true });
    writeFileSync(join(dir, 'Maildir', 'cur', '1700000000.M1P1.host:2,S'), MAIL);
    writeFileSync(join(dir, 'Maildir', 'cur', '1700000001.M2P1.host:2,S'), MAIL);
    writeFileSync(join(dir, 'Maildir', 'new', '1700000002.M3P1.host'), MAIL);
    const r = runCli([join(dir, 'Maildir'), '-o', join(dir, 'out'), '--url', 'http://h/']);
    expect(r.status).toBe(0);
    const hints = r.stderr.split('\n').filter((l) => l.startsWith('absolutize: hint'));
    expect(hints).toEqual([
      `absolutize: hint [looks-like-mail] files with no known extension were copied unchanged, and ${join(dir, 'Maildir', 'cur', '1700000000.M1P1.host:2,S')} looks like a mail message: give --type mime to rewrite every file as one (a Maildir's messages have no extension)`,
    ]);
  });

  it('no hint for what is what it was read as, or was named by --type', () => {
    for (const [args, input] of [
      [['--url', 'http://h/'], '<p>no references</p>'],
      [['--url', 'http://h/'], '<a href="x">x</a>'],
      [['--type', 'css', '--url', 'http://h/'], 'a { b: url(x) }'],
      [['--type', 'html', '--url', 'http://h/'], 'a { b: url(x) }'],
      [['--type', 'html', '--url', 'http://h/'], MAIL],
      [['--type', 'mime'], MAIL],
    ] as const) {
      const r = runCli(args, { input });
      expect(r.stderr, JSON.stringify(args)).not.toContain('hint');
    }
  });

  it('mailKind and looksLikeCss over real files: every message of the mail corpus, no HTML page of the benchmark', () => {
    const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
    const prefix = (p: string): Buffer => readFileSync(p).subarray(0, 1024);
    const messages = walk(join(SHARED_DIR, 'corpus', 'mail')).filter((p) => /\.(eml|mht|mhtml)$/.test(p));
    expect(messages.length).toBeGreaterThan(100);
    expect(messages.filter((p) => mailKind(prefix(p)) === null)).toEqual([]);
    const pages = walk(join(PROJECT_ROOT, 'node_modules', 'htmlparser-benchmark', 'files'));
    expect(pages.length).toBeGreaterThan(200);
    expect(pages.filter((p) => mailKind(prefix(p)) !== null || looksLikeCss(prefix(p)))).toEqual([]);
    expect(looksLikeCss(prefix(join(PROJECT_ROOT, 'fixtures', 'browser', 'assets', 'ext.css')))).toBe(true);
  });
});
