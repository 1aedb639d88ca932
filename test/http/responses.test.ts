/**
 * Issue 5: response handling and the limits and errors of a real HTTP client, against real servers on
 * 127.0.0.1 — charsets, content codings and bombs, chunked transfer, timeouts (set small; no timing asserted),
 * oversized bodies, error statuses, Content-Location, DNS, refused connections, TLS, private addresses.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Transform } from 'node:stream';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, LimitExceededError } from '../../src/errors.ts';
import { fetchDocument } from '../../src/http/fetch.ts';
import { absolutizeUrl } from '../../src/http/response-rewriter.ts';
import { html, redirect, startSelfSignedHttpsServer, startTestServer } from './http-test-server.ts';
import type { TestServer } from './http-test-server.ts';

let server: TestServer;
let o: string;
beforeAll(async () => {
  server = await startTestServer();
  o = server.origin;
});
afterAll(() => server.close());

/** `bytes` zero bytes through `compressor`, without holding them in memory. */
async function compressZeros(compressor: Transform, bytes: number): Promise<Buffer> {
  const chunk = Buffer.alloc(1 << 16);
  const source = Readable.from((function* () {
    for (let n = 0; n < bytes; n += chunk.length) yield chunk;
  })());
  const out: Buffer[] = [];
  compressor.on('data', (c: Buffer) => out.push(c));
  await new Promise<void>((resolve, reject) => {
    compressor.on('end', resolve).on('error', reject);
    source.pipe(compressor);
  });
  return Buffer.concat(out);
}

async function failure(p: Promise<unknown>): Promise<FetchError & LimitExceededError> {
  const err = await p.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as FetchError & LimitExceededError;
}

describe('charset: Content-Type beats <meta>', () => {
  // "é" is 0xE9 in windows-1252 and C3 A9 in UTF-8; a query is encoded in the document's encoding.
  const page = Buffer.concat([Buffer.from('<meta charset="utf-8"><a href="?q='), Buffer.from([0xe9]), Buffer.from('">x</a>')]);

  it('the header charset is the transport charset', async () => {
    server.route('/cs/header', html(page, 'text/html; charset=windows-1252'));
    server.route('/cs/hop', redirect(302, '/cs/header'));
    const r = await absolutizeUrl(`${o}/cs/hop`);
    expect(r.encoding).toBe('windows-1252');
    expect(r.references[0]?.resolved).toBe(`${o}/cs/header?q=%E9`);
    expect(r.chain.map((h) => h.url)).toEqual([`${o}/cs/hop`]);
    // Only the reference changed; the byte 0xE9 elsewhere is untouched.
    expect(r.output.equals(Buffer.concat([Buffer.from(`<meta charset="utf-8"><a href="${o}/cs/header?q=%E9">x</a>`)]))).toBe(true);
  });

  it('without a header charset, <meta> decides', async () => {
    const sjis = Buffer.concat([Buffer.from('<meta charset="shift_jis"><a href="?q='), Buffer.from([0x93, 0xfa]), Buffer.from('">x</a>')]); // 日
    server.route('/cs/meta', html(sjis, 'text/html'));
    const r = await absolutizeUrl(`${o}/cs/meta`);
    expect(r.encoding).toBe('Shift_JIS');
    expect(r.references[0]?.resolved).toBe(`${o}/cs/meta?q=%93%FA`);
    expect(r.chain).toEqual([]);
  });

  it('the user\'s charset beats the header', async () => {
    const r = await absolutizeUrl(`${o}/cs/header`, { charset: 'utf-8' });
    expect(r.encoding).toBe('UTF-8');
  });

  it('application/xhtml+xml defaults to UTF-8, text/css is rewritten as CSS', async () => {
    server.route('/x.xhtml', html('<html xmlns="http://www.w3.org/1999/xhtml"><a href="a?é">a</a></html>', 'application/xhtml+xml'));
    server.route('/s/style.css', html('a { background: url(../img/b.png) }', 'text/css'));
    const x = await absolutizeUrl(`${o}/x.xhtml`);
    expect(x.kind).toBe('xhtml');
    expect(x.references[0]?.resolved).toBe(`${o}/a?%C3%A9`);
    const c = await absolutizeUrl(`${o}/s/style.css`);
    expect(c.kind).toBe('css');
    expect(c.output.toString()).toBe(`a { background: url(${o}/img/b.png) }`);
  });

  it('MIME over HTTP is rewritten part by part (message/rfc822 whole; a multipart body under the response Content-Type); other types pass through', async () => {
    const message = 'Content-Type: text/html\r\nContent-Location: http://example.com/d/\r\n\r\n<a href="x">x</a>';
    const related = '--b\r\nContent-Type: text/html\r\n\r\n<a href="x">x</a>\r\n--b\r\nContent-Type: text/css\r\nContent-Location: css/s.css\r\n\r\na{b:url(../i.png)}\r\n--b--\r\n';
    server.route('/mail.eml', html(message, 'message/rfc822'));
    server.route('/dir/page.mht', html(related, 'multipart/related; boundary="b"'));
    server.route('/img.png', html(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x3c, 0x61]), 'image/png'));
    const mail = await absolutizeUrl(`${o}/mail.eml`);
    expect([mail.kind, mail.rewritten, mail.warnings]).toEqual(['mime', true, []]);
    expect(mail.output.toString()).toBe(message.replace('"x"', '"http://example.com/d/x"'));
    const page = await absolutizeUrl(`${o}/dir/page.mht`);
    expect(page.output.toString()).toBe(related.replace('"x"', `"${o}/dir/x"`).replace('../i.png', `${o}/dir/i.png`));
    expect(page.references.map((r) => r.resolved)).toEqual([`${o}/dir/x`, `${o}/dir/i.png`]);
    const img = await absolutizeUrl(`${o}/img.png`);
    expect([img.kind, img.rewritten]).toEqual(['none', false]);
    expect(img.warnings.map((w) => w.code)).toEqual(['content-type-not-rewritten']);
    expect(img.output.equals((await (await fetch(`${o}/img.png`)).bytes()) as Uint8Array)).toBe(true);
  });
});

describe('content codings', () => {
  const page = `<a href="rel/x.html">x</a>${'<p>filler text</p>'.repeat(500)}`;
  const coded = (encoding: string, bytes: Buffer) => html(bytes, 'text/html; charset=utf-8', { 'content-encoding': encoding });

  for (const [encoding, encode] of [
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
    ['deflate', deflateSync],
  ] as const) {
    it(`${encoding} is decoded`, async () => {
      server.route(`/enc/${encoding}/page`, coded(encoding, encode(Buffer.from(page))));
      const r = await absolutizeUrl(`${o}/enc/${encoding}/page`);
      expect(r.output.toString()).toBe(page.replace('rel/x.html', `${o}/enc/${encoding}/rel/x.html`));
      expect(server.requests.at(-1)?.headers['accept-encoding']).toBe('gzip, deflate, br');
    });
  }

  it('raw DEFLATE sent as "deflate" and two codings one over another are decoded', async () => {
    server.route('/enc/raw', coded('deflate', deflateRawSync(Buffer.from(page))));
    expect((await absolutizeUrl(`${o}/enc/raw`)).output.toString()).toContain(`${o}/enc/rel/x.html`);
    server.route('/enc/two', coded('gzip, br', brotliCompressSync(gzipSync(Buffer.from(page)))));
    expect((await absolutizeUrl(`${o}/enc/two`)).output.toString()).toContain(`${o}/enc/rel/x.html`);
  });

  it('a decompression bomb stops at maxDecompressedBytes (limit and limit+1)', async () => {
    const size = 1 << 20;
    const bomb = gzipSync(Buffer.alloc(size, 0x20));
    server.route('/bomb', coded('gzip', bomb));
    expect(bomb.length).toBeLessThan(size / 500);
    expect((await absolutizeUrl(`${o}/bomb`, { httpLimits: { maxDecompressedBytes: size } })).output.length).toBe(size);
    const err = await failure(absolutizeUrl(`${o}/bomb`, { httpLimits: { maxDecompressedBytes: size - 1 } }));
    expect(err).toBeInstanceOf(LimitExceededError);
    expect(err.code).toBe('ABS_ERR_LIMIT');
    expect(err.limit).toBe('maxDecompressedBytes');
    // A brotli bomb: 64 MiB from a few hundred bytes on the wire, stopped at a limit of 1 MiB.
    const big = await compressZeros(createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }), 1 << 26);
    expect(big.length).toBeLessThan(1 << 16);
    server.route('/bomb.br', coded('br', big));
    const errBr = await failure(absolutizeUrl(`${o}/bomb.br`, { httpLimits: { maxDecompressedBytes: 1 << 20 } }));
    expect(errBr.limit).toBe('maxDecompressedBytes');
  });

  it('the default maxDecompressedBytes (256 MiB) stops a gzip bomb of 320 MiB', async () => {
    const big = await compressZeros(createGzip({ level: 1 }), 320 << 20);
    expect(big.length).toBeLessThan(2 << 20);
    server.route('/bomb.gz', html(big, 'application/octet-stream', { 'content-encoding': 'gzip' }));
    const document = await fetchDocument(`${o}/bomb.gz`);
    let decoded = 0;
    const err = await failure(pipeline(document.body, new Writable({ write: (c: Buffer, _e, cb) => ((decoded += c.length), cb()) })));
    expect(decoded).toBe(256 << 20);
    expect(err.limit).toBe('maxDecompressedBytes');
    expect(err.value).toBe(256 << 20);
  });

  it('corrupt gzip data and an unknown coding are reported', async () => {
    server.route('/enc/corrupt', coded('gzip', Buffer.from('this is not gzip at all')));
    const e1 = await failure(absolutizeUrl(`${o}/enc/corrupt`));
    expect(e1.code).toBe('ABS_ERR_HTTP_CONTENT_ENCODING');
    server.route('/enc/zzz', coded('compress', Buffer.from('x')));
    const e2 = await failure(absolutizeUrl(`${o}/enc/zzz`));
    expect(e2.code).toBe('ABS_ERR_HTTP_CONTENT_ENCODING');
    expect(e2.message).toContain('"compress" is not supported');
  });
});

describe('chunked transfer', () => {
  it('a body in many chunks, split inside tags, attribute values and a multi-byte character', async () => {
    const page = Buffer.from('<html><head><title>ü</title></head><body><a href="deep/link.html">ü</a><img srcset="a.png 1x, b.png 2x"></body></html>');
    server.route('/chunked/page', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); // no Content-Length: chunked
      let at = 0;
      const step = (): void => {
        if (at >= page.length) return void res.end();
        res.write(page.subarray(at, at + 7));
        at += 7;
        setImmediate(step);
      };
      step();
    });
    const r = await absolutizeUrl(`${o}/chunked/page`);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(r.output.toString()).toBe(page.toString().replace('deep/link.html', `${o}/chunked/deep/link.html`).replace('a.png 1x, b.png 2x', `${o}/chunked/a.png 1x, ${o}/chunked/b.png 2x`));
    expect(r.stats?.rewritten).toBe(3);
  });
});

describe('timeouts fire (small limits; no timing asserted)', () => {
  it('headers that never come: headersTimeoutMs', async () => {
    server.route('/slow-headers', () => {}); // never answers
    const err = await failure(absolutizeUrl(`${o}/slow-headers`, { httpLimits: { headersTimeoutMs: 200 } }));
    expect(err.code).toBe('ABS_ERR_HTTP_TIMEOUT');
    expect(err.message).toContain('no response headers within 200 ms (headersTimeoutMs)');
  });

  it('a body that stalls: bodyTimeoutMs; the document is incomplete', async () => {
    server.route('/stall', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
      res.write('<a href="x">');
    });
    server.route('/stall-hop', redirect(301, '/stall'));
    const err = await failure(absolutizeUrl(`${o}/stall-hop`, { httpLimits: { bodyTimeoutMs: 200 } }));
    expect(err.code).toBe('ABS_ERR_HTTP_TIMEOUT');
    expect(err.message).toContain('the body stalled for 200 ms (bodyTimeoutMs)');
    expect(err.chain.map((h) => h.url)).toEqual([`${o}/stall-hop`]);
  });
});

describe('maxBodyBytes', () => {
  it('limit-1 and limit pass; limit+1 fails and the rest is not downloaded', async () => {
    const limit = 4096;
    for (const n of [limit - 1, limit, limit + 1]) server.route(`/size/${n}`, html(`<a href="x">${'y'.repeat(n - 16)}</a>`));
    expect((await absolutizeUrl(`${o}/size/${limit - 1}`, { httpLimits: { maxBodyBytes: limit } })).references).toHaveLength(1);
    expect((await absolutizeUrl(`${o}/size/${limit}`, { httpLimits: { maxBodyBytes: limit } })).references).toHaveLength(1);
    const err = await failure(absolutizeUrl(`${o}/size/${limit + 1}`, { httpLimits: { maxBodyBytes: limit } }));
    expect(err).toBeInstanceOf(LimitExceededError);
    expect(err.limit).toBe('maxBodyBytes');
  });

  it('an endless body is cut off', async () => {
    let sent = 0;
    let closed = false;
    let onClosed: () => void = () => {};
    const socketClosed = new Promise<void>((resolve) => (onClosed = resolve));
    server.route('/endless', (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(1 << 16, 0x61);
      const pump = (): void => {
        while (!closed && res.write(chunk)) sent += chunk.length;
        if (!closed) res.once('drain', pump);
      };
      req.socket.on('close', () => {
        closed = true;
        onClosed();
      });
      pump();
    });
    const err = await failure(absolutizeUrl(`${o}/endless`, { httpLimits: { maxBodyBytes: 1 << 20 } }));
    expect(err.limit).toBe('maxBodyBytes');
    await socketClosed; // the client hung up: the rest is not downloaded
    expect(closed).toBe(true);
    // What was sent is bounded by the limit and socket buffers, not by the server's patience.
    expect(sent).toBeLessThan(1 << 26);
  });
});

describe('HTTP error statuses', () => {
  for (const status of [404, 500]) {
    it(`${status}: reported with the status; the body is not the document unless kept`, async () => {
      server.route(`/status/${status}`, (_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end('<p>error page <a href="help">help</a></p>');
      });
      server.route(`/status/hop-${status}`, redirect(302, `/status/${status}`));
      const err = await failure(absolutizeUrl(`${o}/status/hop-${status}`));
      expect(err).toBeInstanceOf(FetchError);
      expect(err.code).toBe('ABS_ERR_HTTP_STATUS');
      expect(err.status).toBe(status);
      expect(err.message).toBe(`${o}/status/${status}: HTTP ${status} ${status === 404 ? 'Not Found' : 'Internal Server Error'}`);
      expect(err.chain.map((h) => h.url)).toEqual([`${o}/status/hop-${status}`]);
      const kept = await absolutizeUrl(`${o}/status/hop-${status}`, { keepErrorBodies: true });
      expect(kept.status).toBe(status);
      expect(kept.error?.code).toBe('ABS_ERR_HTTP_STATUS');
      expect(kept.references[0]?.resolved).toBe(`${o}/status/help`);
    });
  }
});

describe('Content-Location on the response', () => {
  it('is ignored by default, and honoured with the option', async () => {
    server.route('/cl/page', html('<a href="x.html">x</a>', 'text/html', { 'content-location': '/cl/other/page.en.html' }));
    server.route('/cl/hop', redirect(303, '/cl/page'));
    const ignored = await absolutizeUrl(`${o}/cl/hop`);
    expect(ignored.references[0]?.resolved).toBe(`${o}/cl/x.html`);
    expect(ignored.base?.source).toBe('retrieval');
    expect(ignored.base?.ignored).toEqual([{ source: 'content-location', raw: '/cl/other/page.en.html', reason: expect.stringContaining('RFC 9110'), byRule: true }]);
    expect(ignored.warnings.map((w) => w.code)).not.toContain('invalid-base-layer');
    const honoured = await absolutizeUrl(`${o}/cl/hop`, { honourHttpContentLocation: true });
    expect(honoured.references[0]?.resolved).toBe(`${o}/cl/other/x.html`);
    expect(honoured.base?.source).toBe('content-location');
    // Relative, it is resolved against the final URL — the retrieval layer beneath it, with the chain.
    expect(honoured.base?.below?.source).toBe('retrieval');
    expect(honoured.base?.below?.url).toBe(`${o}/cl/page`);
    expect(honoured.base?.below?.redirects).toEqual([`${o}/cl/hop`]);
  });

  it('Content-Base beats Content-Location when honoured', async () => {
    server.route('/cb/page', html('<a href="x">x</a>', 'text/html', { 'content-location': '/loc/', 'content-base': `${o}/base/` }));
    expect((await absolutizeUrl(`${o}/cb/page`, { honourHttpContentLocation: true })).references[0]?.resolved).toBe(`${o}/base/x`);
    expect((await absolutizeUrl(`${o}/cb/page`)).references[0]?.resolved).toBe(`${o}/cb/x`);
  });
});

describe('network failures: one FetchError code each', () => {
  it('DNS failure (a name under .invalid resolves nowhere)', async () => {
    const err = await failure(absolutizeUrl('http://no-such-host.invalid/page'));
    expect(err.code).toBe('ABS_ERR_HTTP_DNS');
    expect(err.message).toMatch(/^http:\/\/no-such-host\.invalid\/page: cannot resolve host no-such-host\.invalid \(E[A-Z_]+\)$/);
  });

  it('a refused connection, also at the end of a redirect chain', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const err = await failure(absolutizeUrl(`http://127.0.0.1:${port}/`));
    expect(err.code).toBe('ABS_ERR_HTTP_CONNECT');
    expect(err.message).toContain('connection refused (ECONNREFUSED)');
    server.route('/to-closed', redirect(302, `http://127.0.0.1:${port}/x`));
    const viaRedirect = await failure(absolutizeUrl(`${o}/to-closed`));
    expect(viaRedirect.code).toBe('ABS_ERR_HTTP_CONNECT');
    expect(viaRedirect.url).toBe(`http://127.0.0.1:${port}/x`);
    expect(viaRedirect.chain.map((h) => h.url)).toEqual([`${o}/to-closed`]);
  });

  it('a TLS error (self-signed certificate)', async () => {
    const tls = await startSelfSignedHttpsServer();
    try {
      tls.route('/', html('<a href="x">x</a>'));
      const err = await failure(absolutizeUrl(`${tls.origin}/`));
      expect(err.code).toBe('ABS_ERR_HTTP_TLS');
      expect(err.message).toMatch(/TLS error: .*self[- ]signed/i);
      expect(tls.requests).toEqual([]);
    } finally {
      await tls.close();
    }
  });

  it('private and loopback addresses are refused on request (IP literal and a name)', async () => {
    server.route('/private', html('<a href="x">x</a>'));
    expect((await absolutizeUrl(`${o}/private`)).references).toHaveLength(1); // off by default
    const before = server.requests.length;
    const literal = await failure(absolutizeUrl(`${o}/private`, { refusePrivateAddresses: true }));
    expect(literal.code).toBe('ABS_ERR_HTTP_ADDRESS_REFUSED');
    const named = await failure(absolutizeUrl(`http://localhost:${new URL(o).port}/private`, { refusePrivateAddresses: true }));
    expect(named.code).toBe('ABS_ERR_HTTP_ADDRESS_REFUSED');
    expect(named.message).toMatch(/localhost is a private or loopback address \((127\.0\.0\.1|::1)\): refused/);
    expect(server.requests.length).toBe(before);
  });
});

describe('credentials in URLs', () => {
  it('are sent as Basic authentication to the URL that carries them and never reported', async () => {
    server.route('/auth/start', redirect(302, 'page'));
    server.route('/auth/page', html('<a href="x">x</a>'));
    const r = await absolutizeUrl(`http://alice:s3cret@${new URL(o).host}/auth/start`);
    const sent = server.requests.filter((q) => q.path.startsWith('/auth/')).map((q) => q.headers.authorization);
    expect(sent).toEqual([`Basic ${Buffer.from('alice:s3cret').toString('base64')}`, `Basic ${Buffer.from('alice:s3cret').toString('base64')}`]);
    const everything = JSON.stringify({ url: r.url, chain: r.chain, base: r.base, refs: r.references, out: r.output.toString() });
    expect(everything).not.toContain('s3cret');
    expect(everything).not.toContain('alice');
    expect(r.url).toBe(`${o}/auth/page`);
    server.route('/auth/404', (_req, res) => void res.writeHead(404).end());
    const err = await failure(absolutizeUrl(`http://alice:s3cret@${new URL(o).host}/auth/404`));
    expect(err.message).not.toContain('s3cret');
    const dns = await failure(absolutizeUrl('http://alice:s3cret@nowhere.invalid/'));
    expect(dns.message).not.toContain('s3cret');
  });
});
