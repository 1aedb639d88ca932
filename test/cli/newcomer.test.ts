/**
 * A newcomer's first hour: option typos, messages that name flags, hints when nothing was rewritten,
 * `--explain` saying which encoding was chosen. The built bin in a child process, as a user runs it.
 */
import { describe, expect, it } from 'vitest';
import { inFlags } from '../../src/cli/io.ts';
import { nearestFlag } from '../../src/cli/options.ts';
import { runCli } from '../helpers/cli.ts';

/** The one line of a usage error; fails if there is more than one line or Node's own parseArgs text. */
function usageLine(args: readonly string[]): string {
  const r = runCli(args);
  expect(r.status).toBe(2);
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
  });

  it('say nothing they cannot back: no suggestion for a name far from every flag', () => {
    expect(usageLine(['examples/page.html', '--zzzzzz'])).toBe('absolutize: error [ABS_ERR_USAGE] unknown option --zzzzzz (see --help)');
  });

  it('name the flag whose value is missing or not wanted', () => {
    expect(usageLine(['examples/page.html', '--url'])).toBe('absolutize: error [ABS_ERR_USAGE] --url needs a value');
    expect(usageLine(['examples/page.html', '-o', '--explain'])).toContain('-o/--output needs a value ("--explain" looks like an option; write --output=--explain if it is the value)');
    expect(usageLine(['examples/page.html', '--explain=yes'])).toBe('absolutize: error [ABS_ERR_USAGE] --explain takes no value (given "yes")');
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
    expect(inFlags('more than 5 redirects (limit maxRedirects)')).toBe('more than 5 redirects (limit --max-redirects)');
    expect(inFlags('limit maxBodyBytes exceeded: 10 bytes')).toBe('limit --max-body-size exceeded: 10 bytes');
    expect(inFlags('no response headers within 5 ms (headersTimeoutMs)')).toBe('no response headers within 5 ms (--headers-timeout)');
    expect(inFlags('a line longer than maxMimeLineBytes (998)')).toBe('a line longer than maxMimeLineBytes (998)');
    expect(inFlags('http://h/exactBaseline')).toBe('http://h/exactBaseline');
  });
});
