/**
 * Issue 11, HTTP edges, against loopback servers (raw TCP where no HTTP library would send the bytes):
 * credentials that do not parse, server text with escape sequences, redirect bodies that never end, the
 * whole-document deadline, status 000, 100 Continue, empty coded bodies; every failure one line with a code.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError } from '../../src/errors.ts';
import { createFetchAgent, fetchDocument, httpStatusError } from '../../src/http/fetch.ts';
import { absolutizeUrl } from '../../src/http/response-rewriter.ts';
import { skipInterimContinue } from '../../src/http/interim-responses.ts';
import { resolveHttpLimits } from '../../src/limits.ts';
import { Agent, buildConnector } from 'undici';
import { failure, runCliAsync, startRawServer, startSelfSignedHttpsServer, startTestServer } from './http-test-server.ts';
import type { RawServer, TestServer } from './http-test-server.ts';

/** What a terminal or a bidi-aware viewer would act on. */
const ACTIVE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const PAGE = '<a href="next.html">n</a>';
const ok = (body = PAGE, extra = ''): string => `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** Raw responses by path; a function gets the socket (to stall, split or answer twice). */
const RAW: Record<string, string | ((socket: Socket) => void)> = {
  '/status-000': 'HTTP/1.1 000 Weird\r\nContent-Length: 2\r\n\r\nhi',
  '/status-099': 'HTTP/1.1 099 Low\r\nContent-Length: 2\r\n\r\nhi',
  '/status-1000': 'HTTP/1.1 1000 High\r\nContent-Length: 2\r\n\r\nhi',
  '/status-abc': 'HTTP/1.1 abc What\r\nContent-Length: 2\r\n\r\nhi',
  '/not-http': 'hello\r\n\r\n',
  '/reason-escapes': 'HTTP/1.1 404 \x1b[31mRED\x1b]0;pwned\x07 \xc2\x9b2J \xe2\x80\xaetxt.exe\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi',
  '/location-bidi': 'HTTP/1.1 302 \xe2\x80\xaeFound\r\nLocation: /page\xe2\x80\xae\xc2\x9b\r\nContent-Length: 0\r\n\r\n',
  '/location-invalid': 'HTTP/1.1 302 Found\r\nLocation: http://\xc2\x9b[2J\xe2\x80\xae:x/\r\nContent-Length: 0\r\n\r\n',
  '/type-bidi': ok(PAGE, 'X-Note: x\r\n').replace('text/html', 'text/html; x="\xe2\x80\xae\xc2\x9b"'),
  '/encoding-escapes': 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: \xc2\x9b2J\xe2\x80\xae\r\nContent-Length: 2\r\n\r\nhi',
  '/continue': `HTTP/1.1 100 Continue\r\n\r\n${ok()}`,
  '/continue-twice': `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\nX-A: b\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n${ok()}`,
  '/continue-split': (socket) => {
    socket.setNoDelay(true);
    const bytes = Buffer.from(`HTTP/1.1 100 Continue\r\n\r\n${ok()}`);
    let i = 0;
    const next = (): void => {
      if (i >= bytes.length) return;
      socket.write(bytes.subarray(i, i + 3));
      i += 3;
      setTimeout(next, 1);
    };
    next();
  },
  '/gzip-empty': 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\n\r\n',
  '/br-empty-chunked': 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: br\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  '/stall-body': 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n\r\n<a href="x">',
  '/stall-headers': () => {},
  '/redirect-then-stall': 'HTTP/1.1 302 Found\r\nLocation: /stall-headers\r\nContent-Length: 0\r\n\r\n',
};

let raw: RawServer;
let r: string;
let server: TestServer;
let o: string;
/** Redirect responses whose body never ended, and whether the client closed each one. */
const stalledRedirects: Array<{ closedByClient: boolean }> = [];

beforeAll(async () => {
  raw = await startRawServer((path, socket) => {
    const answer = RAW[path.split('?')[0]!] ?? RAW[path];
    if (answer === undefined) socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    else if (typeof answer === 'string') socket.write(Buffer.from(answer, 'latin1'));
    else answer(socket);
  });
  r = raw.origin;
  server = await startTestServer();
  o = server.origin;
  // /hop/0 → /hop/1 → … → /hop/20 → the page: each redirect promises 1000 bytes of body and sends 10.
  for (let i = 0; i < 20; i++) {
    server.route(`/hop/${i}`, (_req, res) => {
      const record = { closedByClient: false };
      stalledRedirects.push(record);
      res.on('close', () => (record.closedByClient = !res.writableFinished));
      res.writeHead(302, { location: `/hop/${i + 1}`, 'content-type': 'text/html', 'content-length': '1000' });
      res.write('<p>moved</p>');
    });
  }
  server.route('/hop/20', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
});
afterAll(async () => {
  await raw.close();
  await server.close();
});

function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l !== '');
}

describe('credentials that do not parse, or parse wrong, are never printed', () => {
  it('in the error line and the link report', async () => {
    const port = new URL(o).port;
    for (const url of [
      `http://u:SE/CRET@127.0.0.1:${port}/x`, // does not parse: port "SE"
      `http://u:SE?CRET@127.0.0.1:${port}/x`,
      `http://u:SE#CRET@127.0.0.1:${port}/x`,
      `http://127.0.0.1:1/SECRET@127.0.0.1:${port}/x`, // parses: host 127.0.0.1, port 1 (refused), path /SECRET@…
    ]) {
      const result = await runCliAsync([url, '--links', '-', '--explain']);
      expect(result.status).toBe(1);
      expect(errorLines(result.stderr)).toHaveLength(1);
      expect(result.stderr).toMatch(/^absolutize: error \[ABS_ERR_(INPUT|HTTP_CONNECT)\] /);
      expect(result.stderr).not.toContain('CRET');
      expect(result.stdout).not.toContain('CRET');
      expect(JSON.parse(result.stdout)).toMatchObject({ document: `http://127.0.0.1:${port}/x` });
    }
  });

  it('nor in a redirect to such a URL', async () => {
    server.route('/to-secret', (_req, res) => void res.writeHead(302, { location: `http://u:SE/CRET@127.0.0.1:${new URL(o).port}/y`, 'content-length': '0' }).end());
    const result = await runCliAsync([`${o}/to-secret`, '--links', '-']);
    expect(result.stderr).toMatch(/^absolutize: error \[ABS_ERR_HTTP_REDIRECT\] .*invalid URL "http:\/\/127\.0\.0\.1:\d+\/y"\n$/);
    expect(result.stdout).not.toContain('CRET');
    const err = await failure(fetchDocument(`${o}/to-secret`));
    expect(err.message).not.toContain('CRET');
    expect(JSON.stringify(err.chain)).not.toContain('CRET');
  });
});

describe('server text is escaped before it reaches a terminal or a report', () => {
  it('a reason phrase with escape sequences, C1 controls and a bidi override', async () => {
    const document = await fetchDocument(`${r}/reason-escapes`);
    document.body.destroy();
    const err = httpStatusError(document)!;
    expect(err.message).toBe(`${r}/reason-escapes: HTTP 404 \\x1b[31mRED\\x1b]0;pwned\\x07 \\x9b2J \\u{202e}txt.exe`);
    const result = await runCliAsync([`${r}/reason-escapes`, '--links', '-']);
    expect(errorLines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain('HTTP 404 \\x1b[31mRED');
    expect(ACTIVE.test(result.stderr)).toBe(false);
    expect(ACTIVE.test(result.stdout.trimEnd())).toBe(false);
    expect((JSON.parse(result.stdout) as { message: string }).message).toContain('\\x1b[31mRED');
  });

  it('a Location and a Content-Type in --explain, and the link report of the page', async () => {
    RAW['/page\u202e\u009b'.replace(/[^\x00-\x7f]/g, (c) => encodeURIComponent(c))] = ok();
    const result = await runCliAsync([`${r}/location-bidi`, '--explain', '--links', '-']);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('302 ' + `${r}/location-bidi -> Location: /page\\u{202e}\\x9b`);
    expect(ACTIVE.test(result.stderr.replace(/\n/g, ''))).toBe(false);
    for (const line of result.stdout.trim().split('\n')) {
      expect(ACTIVE.test(line)).toBe(false);
      expect((JSON.parse(line) as { redirects: Array<{ location: string }> }).redirects[0]!.location).toBe('/page\u202e\u009b');
    }
    const typed = await runCliAsync([`${r}/type-bidi`, '--explain']);
    // Header values are read one character per byte (latin1): the C1 bytes among them are shown escaped.
    expect(typed.stderr).toContain('text/html; x="\u00e2\\x80\u00ae\u00c2\\x9b"');
    expect(ACTIVE.test(typed.stderr.replace(/\n/g, ''))).toBe(false);
  });

  it('a redirect to an invalid URL, and an unknown Content-Encoding: library messages too', async () => {
    for (const path of ['/location-invalid', '/encoding-escapes']) {
      const err = await failure(absolutizeUrl(`${r}${path}`));
      expect(err.code).toMatch(/^ABS_ERR_HTTP_(REDIRECT|CONTENT_ENCODING)$/);
      expect(ACTIVE.test(err.message)).toBe(false);
      const result = await runCliAsync([`${r}${path}`]);
      expect(errorLines(result.stderr)).toHaveLength(1);
      expect(ACTIVE.test(result.stderr.trimEnd())).toBe(false);
    }
  });
});

describe('redirect bodies are discarded at once', () => {
  it('20 redirects whose bodies never end: each is closed, not waited for', { timeout: 20_000 }, async () => {
    stalledRedirects.length = 0;
    // With the body awaited, each hop would wait the whole body timeout (here 10 minutes).
    const result = await absolutizeUrl(`${o}/hop/0`, { httpLimits: { bodyTimeoutMs: 600_000 } });
    expect(result.chain).toHaveLength(20);
    expect(result.output.toString()).toBe(`<a href="${o}/hop/next.html">n</a>`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stalledRedirects).toHaveLength(20);
    expect(stalledRedirects.every((s) => s.closedByClient)).toBe(true);
  });
});

describe('deadlineMs: the whole retrieval', () => {
  it('stops a body that trickles within the body timeout', async () => {
    const err = await failure(absolutizeUrl(`${r}/stall-body`, { httpLimits: { bodyTimeoutMs: 600_000, deadlineMs: 300 } }));
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('ABS_ERR_HTTP_TIMEOUT');
    expect(err.message).toBe(`${r}/stall-body: timeout: no complete document within 300 ms (deadlineMs)`);
  });

  it('covers redirects and headers: the chain so far is reported', async () => {
    const err = await failure(fetchDocument(`${r}/redirect-then-stall`, { httpLimits: { headersTimeoutMs: 600_000, deadlineMs: 300 } }));
    expect(err.code).toBe('ABS_ERR_HTTP_TIMEOUT');
    expect(err.message).toContain('(deadlineMs)');
    expect(err.chain.map((h) => h.location)).toEqual(['/stall-headers']);
  });

  it('--deadline MS on the command line; a bad value is a usage error; the default is none', async () => {
    const result = await runCliAsync([`${r}/stall-body`, '--deadline', '300', '--body-timeout', '600000', '-o', '/dev/null']);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`absolutize: error [ABS_ERR_HTTP_TIMEOUT] ${r}/stall-body: timeout: no complete document within 300 ms (--deadline)\n`);
    const bad = await runCliAsync([`${r}/continue`, '--deadline', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^absolutize: error \[ABS_ERR_INVALID_OPTION\] .*--deadline/); // the flag, not the library's deadlineMs
    expect(resolveHttpLimits(undefined).deadlineMs).toBe(Infinity);
    expect(resolveHttpLimits({ deadlineMs: Infinity }).deadlineMs).toBe(Infinity);
    expect(() => resolveHttpLimits({ maxRedirects: Infinity })).toThrow(/positive integer/);
    // A document that arrives in time is unaffected.
    expect((await absolutizeUrl(`${r}/continue`, { httpLimits: { deadlineMs: 60_000 } })).output.toString()).toBe(`<a href="${r}/next.html">n</a>`);
  });
});

describe('named oddities', () => {
  it.each([
    ['/status-000', 'status 000 is not an HTTP status (100–999): not an HTTP response'],
    ['/status-099', 'status 099 is not an HTTP status (100–999): not an HTTP response'],
    ['/status-1000', 'not a valid HTTP/1.1 response (Invalid response status)'],
    ['/status-abc', 'not a valid HTTP/1.1 response (Invalid status code)'],
    ['/not-http', 'not a valid HTTP/1.1 response (Expected HTTP/, RTSP/ or ICE/)'],
  ])('%s: one clean line with ABS_ERR_HTTP_PROTOCOL', async (path, text) => {
    const err = await failure(fetchDocument(`${r}${path}`));
    expect(err.code).toBe('ABS_ERR_HTTP_PROTOCOL');
    expect(err.message).toBe(`${r}${path}: ${text}`);
    const result = await runCliAsync([`${r}${path}`]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`absolutize: error [ABS_ERR_HTTP_PROTOCOL] ${r}${path}: ${text}\n`);
  });

  it.each(['/continue', '/continue-twice', '/continue-split'])('%s: 1xx responses before the real one are skipped', async (path) => {
    const result = await absolutizeUrl(`${r}${path}`);
    expect(result.status).toBe(200);
    expect(result.output.toString()).toBe(`<a href="${r}/next.html">n</a>`);
  });

  it('100 Continue before each response on one kept-alive connection', async () => {
    const agent = createFetchAgent({ httpLimits: { maxConnectionsPerOrigin: 1 } });
    const before = raw.connections;
    try {
      for (let i = 0; i < 3; i++) {
        const result = await absolutizeUrl(`${r}/continue?${i}`, { dispatcher: agent });
        expect(result.output.toString()).toBe(`<a href="${r}/next.html">n</a>`);
      }
    } finally {
      await agent.close();
    }
    expect(raw.connections - before).toBe(1);
  });

  it('100 Continue from a Node server (res.writeContinue), over http and over TLS', async () => {
    const continued = (_req: unknown, res: import('node:http').ServerResponse): void => {
      res.writeContinue();
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    };
    server.route('/continued', continued);
    expect((await absolutizeUrl(`${o}/continued`)).output.toString()).toBe(`<a href="${o}/next.html">n</a>`);
    // TLS: the filter sits on a TLSSocket. The certificate is self-signed, so this agent does not verify it.
    const tls = await startSelfSignedHttpsServer();
    tls.route('/continued', continued);
    const connect = buildConnector({ rejectUnauthorized: false });
    const agent = new Agent({ connect: (opts, callback) => connect(opts, (err, socket) => (err === null ? callback(null, skipInterimContinue(socket as Socket)) : callback(err, null))) });
    try {
      const result = await absolutizeUrl(`${tls.origin}/continued`, { dispatcher: agent });
      expect(result.output.toString()).toBe(`<a href="${tls.origin}/next.html">n</a>`);
    } finally {
      await agent.close();
      await tls.close();
    }
  });

  it.each(['/gzip-empty', '/br-empty-chunked'])('%s: an empty coded body is an empty document', async (path) => {
    const result = await absolutizeUrl(`${r}${path}`);
    expect(result.output.length).toBe(0);
    const cli = await runCliAsync([`${r}${path}`]);
    expect(cli.status).toBe(0);
    expect(cli.stdoutBytes.length).toBe(0);
    expect(cli.stderr).toBe('');
  });
});
