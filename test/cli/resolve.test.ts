/** `absolutize resolve`, run as a user runs it: the built bin in a child process. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('absolutize resolve', () => {
  it('prints one resolved URL per line, in order', () => {
    const r = runCli(['resolve', '--base', 'http://a/b/c/d;p?q', 'g', '../g', '?y', '#s', '', '  //h/x ']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(['http://a/b/c/g', 'http://a/b/g', 'http://a/b/c/d;p?y', 'http://a/b/c/d;p?q#s', 'http://a/b/c/d;p?q', 'http://h/x', ''].join('\n'));
  });

  it('uses the rfc3986 resolver on request (strict: http:g stays http:g)', () => {
    const r = runCli(['resolve', '--resolver', 'rfc3986', '--base', 'http://a/b/c/d;p?q', 'http:g', '../../../g', 'a b']);
    expect(r.stdout).toBe('http:g\nhttp://a/g\nhttp://a/b/c/a b\n');
    expect(r.status).toBe(0);
  });

  it('encodes the query in the given document encoding', () => {
    const r = runCli(['resolve', '--encoding', 'shift_jis', '--base', 'http://example.jp/dir/', '?q=日本']);
    expect(r.stdout).toBe('http://example.jp/dir/?q=%93%FA%96{\n');
  });

  it('prints an unresolvable reference unchanged, warns, and exits 1', () => {
    const r = runCli(['resolve', '--base', 'mailto:someone@example.org', 'x', '#f']);
    expect(r.stdout).toBe('x\nmailto:someone@example.org#f\n');
    expect(r.stderr).toMatch(/^absolutize: warning \[unresolvable-reference\] cannot resolve "x"/);
    expect(r.status).toBe(1);
  });

  it('prints JSON lines with --json', () => {
    const r = runCli(['resolve', '--json', '--base', 'http://a/b', '../x', 'https://y/']);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { reference: '../x', kind: 'relative-path', href: 'http://a/x' },
      { reference: 'https://y/', kind: 'absolute', href: 'https://y/' },
    ]);
  });

  it.each([
    [['resolve', 'x'], /ABS_ERR_USAGE.*--base/],
    [['resolve', '--base', 'not absolute', 'x'], /ABS_ERR_INVALID_BASE/],
    [['resolve', '--resolver', 'nope', '--base', 'http://a/', 'x'], /ABS_ERR_USAGE.*--resolver/],
    [['resolve', '--encoding', 'klingon', '--base', 'http://a/', 'x'], /ABS_ERR_ENCODING_UNSUPPORTED/],
    [['resolve', '--bogus'], /ABS_ERR_USAGE/],
    [['a.html', 'b.html'], /ABS_ERR_USAGE.*several inputs: give -o DIR/],
  ])('usage error %j exits 2 with one line', (args, message) => {
    const r = runCli(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('has --help and --version', () => {
    expect(runCli(['--help'])).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Usage: absolutize/) });
    expect(runCli(['resolve', '--help'])).toMatchObject({ status: 0, stdout: expect.stringMatching(/--resolver/) });
    expect(runCli(['--version'])).toMatchObject({ status: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
  });
});
