/**
 * `absolutize batch` takes every HTTP option of `absolutize URL...` and applies it to each URL line of the
 * manifest: the address guard, the body and time limits, redirects, error bodies. Loopback servers only.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { html, redirect, runCliAsync, startTestServer } from '../http/http-test-server.ts';
import type { TestServer } from '../http/http-test-server.ts';
import { removeScratch, runAsync, scratchDir, statusLines } from './helpers.ts';

afterAll(removeScratch);

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** A manifest of the given paths on the server, and the batch's output directory. */
function manifestOf(origin: string, paths: readonly string[]): { manifest: string; out: string } {
  const root = scratchDir('abs-batch-http-');
  const manifest = join(root, 'urls.txt');
  writeFileSync(manifest, `# URLs\n${paths.map((p) => `${origin}${p}`).join('\n')}\n`);
  return { manifest, out: join(root, 'out') };
}

/** path → "status code" of each status line, with the output's existence. */
function outcomes(stdout: string, origin: string): Record<string, string> {
  return Object.fromEntries(statusLines(stdout).map((l) => [l.input.slice(origin.length), `${l.status} ${l.code} ${existsSync(l.output) ? 'written' : 'not written'}`]));
}

describe('absolutize batch: the HTTP options reach every URL line', () => {
  it('--refuse-private-addresses: a URL to 127.0.0.1 is refused before any request is sent', async () => {
    server = await startTestServer();
    server.route('/a.html', html('<a href="b.html">b</a>'));
    const { origin } = server;
    const { manifest, out } = manifestOf(origin, ['/a.html']);
    const refused = await runAsync(['batch', manifest, '-o', out, '--refuse-private-addresses']);
    expect(outcomes(refused.stdout, origin)).toEqual({ '/a.html': 'failed ABS_ERR_HTTP_ADDRESS_REFUSED not written' });
    expect(refused.status).toBe(65);
    expect(refused.stderr).toContain('[ABS_ERR_HTTP_ADDRESS_REFUSED]');
    expect(server.requests).toEqual([]);
    // Without the option the same line is retrieved (the server was there to be asked).
    const allowed = await runAsync(['batch', manifest, '-o', out]);
    expect(outcomes(allowed.stdout, origin)).toEqual({ '/a.html': 'done null written' });
    expect(server.requests.map((r) => r.path)).toEqual(['/a.html']);
  });

  it('--refuse-private-addresses in the URL-list path (several URLs, -o DIR) too', async () => {
    server = await startTestServer();
    server.route('/a.html', html('a'));
    server.route('/b.html', html('b'));
    const out = join(scratchDir('abs-batch-http-'), 'out');
    const r = await runCliAsync([`${server.origin}/a.html`, `${server.origin}/b.html`, '-o', out, '--refuse-private-addresses']);
    expect(r.status).toBe(1);
    expect(r.stderr.match(/\[ABS_ERR_HTTP_ADDRESS_REFUSED\]/g)).toHaveLength(2);
    expect(server.requests).toEqual([]);
  });

  it('--max-body-size: a body larger than it fails with ABS_ERR_LIMIT, nothing written; a smaller one is done', async () => {
    server = await startTestServer();
    server.route('/big.html', html(`<a href="x">x</a>${'y'.repeat(10_000)}`));
    server.route('/small.html', html('<a href="s">s</a>'));
    const { origin } = server;
    const { manifest, out } = manifestOf(origin, ['/big.html', '/small.html']);
    const r = await runAsync(['batch', manifest, '-o', out, '--max-body-size', '4096']);
    expect(outcomes(r.stdout, origin)).toEqual({ '/big.html': 'failed ABS_ERR_LIMIT not written', '/small.html': 'done null written' });
    expect(r.stderr).toContain('--max-body-size exceeded: 4096 bytes');
    expect(r.status).toBe(65);
  });

  it('--deadline: a server that never answers fails with ABS_ERR_HTTP_TIMEOUT (exit 75)', async () => {
    server = await startTestServer();
    server.route('/stall.html', () => {}); // never answers
    const { origin } = server;
    const { manifest, out } = manifestOf(origin, ['/stall.html']);
    const r = await runAsync(['batch', manifest, '-o', out, '--deadline', '300', '--headers-timeout', '600000', '--body-timeout', '600000']);
    expect(outcomes(r.stdout, origin)).toEqual({ '/stall.html': 'failed ABS_ERR_HTTP_TIMEOUT not written' });
    expect(r.stderr).toContain('(--deadline)');
    expect(r.status).toBe(75);
  });

  it('--max-redirects and --keep-error-bodies; a transient error body is not kept, so a re-run retries it', async () => {
    server = await startTestServer();
    server.route('/r1', redirect(302, '/r2'));
    server.route('/r2', redirect(302, '/page.html'));
    server.route('/page.html', html('<a href="p">p</a>'));
    server.route('/gone.html', (_req, res) => (res.writeHead(404, { 'content-type': 'text/html' }), res.end('<a href="home">home</a>')));
    server.route('/busy.html', (_req, res) => (res.writeHead(503, { 'content-type': 'text/html' }), res.end('<a href="later">later</a>')));
    const { origin } = server;
    const { manifest, out } = manifestOf(origin, ['/r1', '/gone.html', '/busy.html']);
    const r = await runAsync(['batch', manifest, '-o', out, '--max-redirects', '1', '--keep-error-bodies']);
    expect(outcomes(r.stdout, origin)).toEqual({
      '/r1': 'failed ABS_ERR_LIMIT not written', // more redirects than --max-redirects
      '/gone.html': 'failed ABS_ERR_HTTP_STATUS written',
      '/busy.html': 'failed ABS_ERR_HTTP_STATUS not written',
    });
    expect(readFileSync(statusLines(r.stdout).find((l) => l.input.endsWith('/gone.html'))!.output, 'utf8')).toBe(`<a href="${origin}/home">home</a>`);
    expect(r.status).toBe(75);
    const again = await runAsync(['batch', manifest, '-o', out, '--max-redirects', '1', '--keep-error-bodies']);
    expect(outcomes(again.stdout, origin)).toMatchObject({ '/gone.html': 'skipped null written', '/busy.html': 'failed ABS_ERR_HTTP_STATUS not written' });
    expect(server.requests.filter((q) => q.path === '/busy.html')).toHaveLength(2);
  });

  it('an invalid HTTP option value is a usage error before anything is retrieved', async () => {
    server = await startTestServer();
    server.route('/a.html', html('a'));
    const { manifest, out } = manifestOf(server.origin, ['/a.html']);
    const r = await runAsync(['batch', manifest, '-o', out, '--max-body-size', '0']);
    expect(r.status).toBe(64);
    expect(r.stderr).toBe('absolutize: error [ABS_ERR_INVALID_OPTION] --max-body-size must be a positive integer, not 0\n');
    expect(server.requests).toEqual([]);
  });

  it('batch --help lists the HTTP options', async () => {
    const r = await runAsync(['batch', '--help']);
    for (const flag of ['--refuse-private-addresses', '--deadline MS', '--max-body-size BYTES', '--max-redirects N', '--keep-error-bodies', '--per-host N']) expect(r.stdout).toContain(flag);
  });
});
