/**
 * Issue 5 through the command line, as a user runs it (the built bin in a child process): `absolutize URL...`,
 * --explain and --links showing the chain, -o FILE and -o DIR written atomically, one clear line per failure,
 * exit 1 if any URL failed while the others are still processed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputFileName } from '../../src/http/output-name.ts';
import { html, redirect, runCliAsync, startTestServer } from './http-test-server.ts';
import type { Handler, TestServer } from './http-test-server.ts';

let server: TestServer;
let other: TestServer;
let o: string;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  other = await startTestServer();
  o = server.origin;
  dir = mkdtempSync(join(tmpdir(), 'abs-cli-http-'));
  server.route('/docs/page.html', html('<a href="next.html">n</a><img src="/logo.png">', 'text/html; charset=utf-8', { 'content-location': '/docs/en/page.html' }));
  server.route('/start', redirect(301, 'docs/page.html', '<p>REDIRECT BODY</p>'));
  server.route('/hop', redirect(302, '/start'));
  server.route('/missing', (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<p>gone <a href="home">home</a></p>'));
  server.route('/big', html(`<a href="x">${'y'.repeat(10_000)}</a>`));
  server.route('/stall', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': '5000' });
    res.write('<a href="x">x</a>');
  });
  server.route('/to-file', redirect(302, 'file:///etc/passwd'));
  server.route('/image.png', html(Buffer.from('\x89PNG'), 'image/png'));
  server.route('/style.css', html('p { background: url(bg.png) }', 'text/css'));
});
afterAll(async () => {
  await server.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('absolutize: error'));
}

describe('one URL', () => {
  it('writes the rewritten document to standard output, never the redirect bodies', async () => {
    const r = await runCliAsync([`${o}/hop`]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`<a href="${o}/docs/next.html">n</a><img src="${o}/logo.png">`);
  });

  it('--explain shows the chain with statuses, the base and the ignored Content-Location', async () => {
    const r = await runCliAsync([`${o}/hop`, '--explain']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      [
        `absolutize: retrieved ${o}/docs/page.html (HTTP 200, text/html; charset=utf-8)`,
        `  302 ${o}/hop -> Location: /start`,
        `  301 ${o}/start -> Location: docs/page.html`,
        `absolutize: encoding of ${o}/docs/page.html: UTF-8 [transport] (the response's Content-Type charset)`,
        `absolutize: base of ${o}/docs/page.html: ${o}/docs/page.html [retrieval]`,
        `  retrieval: ${o}/docs/page.html`,
        `    redirected from ${o}/hop`,
        `    redirected from ${o}/start`,
        `  ignored content-location "/docs/en/page.html": HTTP response header: not a base (RFC 9110 §8.7) unless honoured by option`,
        '',
      ].join('\n'),
    );
  });

  it('--http-content-location honours the response header', async () => {
    const r = await runCliAsync([`${o}/hop`, '--http-content-location', '--explain']);
    expect(r.stdout).toBe(`<a href="${o}/docs/en/next.html">n</a><img src="${o}/logo.png">`);
    expect(r.stderr).toContain(`base of ${o}/docs/page.html: ${o}/docs/en/page.html [content-location]`);
  });

  it('--links - prints the report with the chain on every line', async () => {
    const r = await runCliAsync([`${o}/hop`, '--links', '-']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // The response's Content-Location header first (issue 22: element null, attribute the field), then the body's.
    expect(lines.map((l) => l['resolved'])).toEqual([`${o}/docs/en/page.html`, `${o}/docs/next.html`, `${o}/logo.png`]);
    expect(lines.map((l) => [l['element'], l['attribute']])).toEqual([[null, 'Content-Location'], ['a', 'href'], ['img', 'src']]);
    for (const l of lines) {
      expect(l['document']).toBe(`${o}/docs/page.html`);
      expect(l['base']).toBe(`${o}/docs/page.html`);
      expect(l['baseSource']).toBe('retrieval');
      expect(l['redirects']).toEqual([
        { url: `${o}/hop`, status: 302, location: '/start' },
        { url: `${o}/start`, status: 301, location: 'docs/page.html' },
      ]);
    }
  });

  it('-o FILE is written atomically; CSS by its Content-Type', async () => {
    const out = join(dir, 'one.css');
    const r = await runCliAsync([`${o}/style.css`, '-o', out]);
    expect(r.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`p { background: url(${o}/bg.png) }`);
  });

  it('a 404 is one line, exit 1, and no output unless --keep-error-bodies', async () => {
    const out = join(dir, 'missing.html');
    const r = await runCliAsync([`${o}/missing`, '-o', out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`absolutize: error [ABS_ERR_HTTP_STATUS] ${o}/missing: HTTP 404 Not Found (body not written; --keep-error-bodies keeps it)\n`);
    expect(existsSync(out)).toBe(false);
    const kept = await runCliAsync([`${o}/missing`, '-o', out, '--keep-error-bodies']);
    expect(kept.status).toBe(1);
    expect(errorLines(kept.stderr)).toEqual([`absolutize: error [ABS_ERR_HTTP_STATUS] ${o}/missing: HTTP 404 Not Found`]);
    expect(readFileSync(out, 'utf8')).toBe(`<p>gone <a href="${o}/home">home</a></p>`);
  });

  it('an oversized body: -o is not written (no temporary file left), standard output is marked incomplete', async () => {
    const out = join(dir, 'big.html');
    const r = await runCliAsync([`${o}/big`, '-o', out, '--max-body-size', '4096']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`absolutize: error [ABS_ERR_LIMIT] ${o}/big: --max-body-size exceeded: 4096 bytes: the document is incomplete; not written\n`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('big'))).toEqual([]);
    const toStdout = await runCliAsync([`${o}/big`, '--max-body-size', '4096']);
    expect(toStdout.status).toBe(1);
    expect(toStdout.stderr).toContain('the document is incomplete; the output above stops there');
    expect(toStdout.stdout.length).toBeLessThanOrEqual(4096 + o.length + 1);
    expect(toStdout.stdout.startsWith(`<a href="${o}/x">yyy`)).toBe(true);
  });

  it('a stalled body times out; -o is not written', async () => {
    const out = join(dir, 'stall.html');
    const r = await runCliAsync([`${o}/stall`, '-o', out, '--body-timeout', '200']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`absolutize: error [ABS_ERR_HTTP_TIMEOUT] ${o}/stall: timeout: the body stalled for 200 ms (--body-timeout); the document is incomplete\n`);
    expect(existsSync(out)).toBe(false);
  });

  it('a redirect to file:, a DNS failure and a refused address: one clear line each', async () => {
    const r = await runCliAsync([`${o}/to-file`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`absolutize: error [ABS_ERR_HTTP_REDIRECT] ${o}/to-file: redirect to file: refused (file:///etc/passwd): only http and https are followed\n`);
    const dns = await runCliAsync(['http://nowhere.invalid/']);
    expect(dns.stderr).toMatch(/^absolutize: error \[ABS_ERR_HTTP_DNS\] http:\/\/nowhere\.invalid\/: cannot resolve host nowhere\.invalid \([A-Z_]+\)\n$/);
    const refused = await runCliAsync([`${o}/hop`, '--refuse-private-addresses']);
    expect(refused.stderr).toBe(`absolutize: error [ABS_ERR_HTTP_ADDRESS_REFUSED] ${o}/hop: 127.0.0.1 is a private or loopback address (127.0.0.1): refused\n`);
  });

  it('other types pass through untouched, with a warning', async () => {
    const r = await runCliAsync([`${o}/image.png`]);
    expect(r.status).toBe(0);
    expect(r.stdoutBytes.equals(Buffer.from('\x89PNG'))).toBe(true);
    expect(r.stderr).toBe(`absolutize: warning [content-type-not-rewritten] ${o}/image.png: Content-Type image/png is not rewritten: passed through untouched\n`);
  });

  it('credentials never appear in reports, --explain or --links', async () => {
    const auth = `http://bob:hunter2@${new URL(o).host}`;
    const r = await runCliAsync([`${auth}/hop`, '--explain', '--links', '-']);
    expect(r.status).toBe(0);
    const failed = await runCliAsync([`${auth}/missing`, '--explain', '--links', '-']);
    for (const text of [r.stdout, r.stderr, failed.stdout, failed.stderr]) {
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('bob');
    }
    expect(failed.stdout).toContain('"error":"ABS_ERR_HTTP_STATUS"');
  });

  it('usage errors: several URLs need -o DIR; --url does not apply; bad limits', async () => {
    expect((await runCliAsync([`${o}/hop`, `${o}/start`])).status).toBe(2);
    const url = await runCliAsync([`${o}/hop`, '--url', 'http://example.com/']);
    expect(url.status).toBe(2);
    expect(url.stderr).toContain('[ABS_ERR_USAGE] --url states the retrieval URL of a file');
    const bad = await runCliAsync([`${o}/hop`, '--max-body-size', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('absolutize: error [ABS_ERR_INVALID_OPTION] --max-body-size must be a positive integer, not 0\n');
    expect((await runCliAsync([`${o}/hop`, 'page.html'])).stderr).toContain('URLs and files cannot be mixed');
  });
});

describe('many URLs', () => {
  it('-o DIR: one file per URL named from its final URL; failures reported, the others written; exit 1', async () => {
    const out = join(dir, 'batch');
    const links = join(dir, 'batch.jsonl');
    const urls = [`${o}/hop`, `${o}/missing`, `${o}/style.css`, `${o}/image.png`, `${o}/to-file`];
    const r = await runCliAsync([...urls, '-o', out, '--links', links]);
    expect(r.status).toBe(1);
    expect(errorLines(r.stderr).sort()).toEqual([
      `absolutize: error [ABS_ERR_HTTP_REDIRECT] ${o}/to-file: redirect to file: refused (file:///etc/passwd): only http and https are followed`,
      `absolutize: error [ABS_ERR_HTTP_STATUS] ${o}/missing: HTTP 404 Not Found (body not written; --keep-error-bodies keeps it)`,
    ]);
    expect(r.stderr).toContain(`absolutize: warning [content-type-not-rewritten] ${o}/image.png: Content-Type image/png is not rewritten: skipped`);
    const page = outputFileName(`${o}/docs/page.html`, 'html');
    const css = outputFileName(`${o}/style.css`, 'css');
    expect(page).toMatch(/^127\.0\.0\.1_\d+_docs_page\.[0-9a-f]{10}\.html$/);
    expect(readdirSync(out).sort()).toEqual([page, css].sort());
    expect(readFileSync(join(out, page), 'utf8')).toBe(`<a href="${o}/docs/next.html">n</a><img src="${o}/logo.png">`);
    const report = readFileSync(links, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(report.filter((l) => l['error'] !== undefined).map((l) => [l['document'], l['error']]).sort()).toEqual([
      [`${o}/missing`, 'ABS_ERR_HTTP_STATUS'],
      [`${o}/to-file`, 'ABS_ERR_HTTP_REDIRECT'],
    ]);
    expect(report.find((l) => l['error'] === 'ABS_ERR_HTTP_REDIRECT')?.['redirects']).toEqual([{ url: `${o}/to-file`, status: 302, location: 'file:///etc/passwd' }]);
    // The page's two references and its Content-Location header, and the stylesheet's one.
    expect(report.filter((l) => l['resolved'] !== undefined)).toHaveLength(4);
    // A re-run writes the same names.
    expect((await runCliAsync([`${o}/hop`, `${o}/style.css`, '-o', out])).status).toBe(0);
    expect(readdirSync(out).sort()).toEqual([page, css].sort());
  });

  it('--input-list; bounded concurrency with a per-host limit', async () => {
    const inFlight = new Map<string, number>();
    const most = new Map<string, number>();
    let total = 0;
    let mostTotal = 0;
    const slow = (name: string): Handler => (_req, res) => {
      inFlight.set(name, (inFlight.get(name) ?? 0) + 1);
      most.set(name, Math.max(most.get(name) ?? 0, inFlight.get(name)!));
      mostTotal = Math.max(mostTotal, ++total);
      setTimeout(() => {
        inFlight.set(name, inFlight.get(name)! - 1);
        total--;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<a href="x">x</a>');
      }, 30);
    };
    const list: string[] = ['# two hosts, six pages each', ''];
    for (let i = 0; i < 6; i++) {
      server.route(`/p/${i}`, slow('a'));
      other.route(`/p/${i}`, slow('b'));
      list.push(`${o}/p/${i}`, `${other.origin}/p/${i}`);
    }
    const listFile = join(dir, 'urls.txt');
    writeFileSync(listFile, `${list.join('\n')}\n`);
    const out = join(dir, 'conc');
    const r = await runCliAsync(['--input-list', listFile, '-o', out, '--concurrency', '3', '--per-host', '2']);
    // The batch ends with its summary line, and says nothing else.
    expect(r.stderr).toMatch(/^absolutize: 12 rewritten, 0 unchanged, 0 copied, 0 failed, 0 warnings in \d+\.\d s\n$/);
    expect(r.status).toBe(0);
    expect(readdirSync(out)).toHaveLength(12);
    expect(most.get('a')).toBeLessThanOrEqual(2);
    expect(most.get('b')).toBeLessThanOrEqual(2);
    expect(mostTotal).toBeLessThanOrEqual(3);
    // No progress line when standard error is not a terminal.
    expect(r.stderr).not.toContain('\r');
  });

  it('--links - without -o: only the link report, for many URLs', async () => {
    const r = await runCliAsync([`${o}/hop`, `${o}/style.css`, '--links', '-']);
    expect(r.status).toBe(0);
    const docs = new Set(r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { document: string }).document));
    expect([...docs].sort()).toEqual([`${o}/docs/page.html`, `${o}/style.css`]);
  });
});
