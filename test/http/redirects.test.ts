/**
 * Issue 5: redirects followed by hand; the final URL is the retrieval base; the chain is recorded.
 * Every redirect status with absolute, path-relative, scheme-relative and fragment-carrying Location values,
 * against a real server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError } from '../../src/errors.ts';
import { absolutizeUrl } from '../../src/http/response-rewriter.ts';
import { html, redirect, startTestServer } from './http-test-server.ts';
import type { TestServer } from './http-test-server.ts';

let server: TestServer;
let o: string;
const PAGE = '<!doctype html><a href="next.html">n</a><img src="../img/a.png"><a href="/root">r</a><a href="?q=1">q</a>';

beforeAll(async () => {
  server = await startTestServer();
  o = server.origin;
  server.route('/docs/guide/final.html', html(PAGE));
  server.route('/other/place/page', html(PAGE));
});
afterAll(() => server.close());

/** The links of PAGE resolved against `base`. */
function expectedLinks(base: string): string[] {
  return ['next.html', '../img/a.png', '/root', '?q=1'].map((r) => new URL(r, base).href);
}

const STATUSES = [301, 302, 303, 307, 308] as const;
const FORMS = ['absolute', 'relative', 'scheme-relative', 'fragment'] as const;

describe('every redirect status with every kind of Location', () => {
  for (const status of STATUSES) {
    for (const form of FORMS) {
      it(`${status} with ${form} Location`, async () => {
        const start = `/start/${status}/${form}/here`;
        const location = {
          absolute: `${o}/docs/guide/final.html`,
          relative: '../../../docs/guide/final.html', // against /start/<status>/<form>/here
          'scheme-relative': `//${new URL(o).host}/docs/guide/final.html`,
          fragment: '/docs/guide/final.html#section-2',
        }[form];
        server.route(start, redirect(status, location, '<p>REDIRECT BODY <a href="never">x</a></p>'));
        const r = await absolutizeUrl(o + start);
        const final = `${o}/docs/guide/final.html${form === 'fragment' ? '#section-2' : ''}`;
        expect(r.url).toBe(final);
        expect(r.chain).toEqual([{ url: o + start, status, location }]);
        expect(r.base?.source).toBe('retrieval');
        expect(r.base?.url).toBe(final);
        expect(r.base?.redirects).toEqual([o + start]);
        expect(r.references.map((x) => x.resolved)).toEqual(expectedLinks(final));
        // The redirect response's own body is never output.
        expect(r.output.toString()).not.toContain('REDIRECT BODY');
        expect(r.output.toString()).toBe(PAGE.replace('next.html', `${o}/docs/guide/next.html`).replace('../img/a.png', `${o}/docs/img/a.png`).replace('"/root"', `"${o}/root"`).replace('"?q=1"', `"${o}/docs/guide/final.html?q=1"`));
      });
    }
  }

  it('a chain of all five statuses, each Location relative to the hop that sent it', async () => {
    server.route('/c/1', redirect(301, '/c/a/2'));
    server.route('/c/a/2', redirect(302, '3')); // → /c/a/3
    server.route('/c/a/3', redirect(303, `//${new URL(o).host}/c/b/4?x=1`));
    server.route('/c/b/4', redirect(307, '../d/5#frag'));
    server.route('/c/d/5', redirect(308, `${o}/other/place/page`));
    const r = await absolutizeUrl(`${o}/c/1`);
    expect(r.chain.map((h) => [h.status, h.url])).toEqual([
      [301, `${o}/c/1`],
      [302, `${o}/c/a/2`],
      [303, `${o}/c/a/3`],
      [307, `${o}/c/b/4?x=1`],
      [308, `${o}/c/d/5#frag`],
    ]);
    // A Location without a fragment keeps the fragment of the URL that redirected (Fetch standard).
    expect(r.url).toBe(`${o}/other/place/page#frag`);
    expect(r.references.map((x) => x.resolved)).toEqual(expectedLinks(`${o}/other/place/page`));
    // Fragments are never sent.
    expect(server.requests.some((q) => q.path.includes('#'))).toBe(false);
  });

  it('the first URL\'s fragment is carried through a Location without one, and replaced by one with one', async () => {
    server.route('/frag/a', redirect(302, '/frag/b'));
    server.route('/frag/b', redirect(302, '/docs/guide/final.html#new'));
    const r = await absolutizeUrl(`${o}/frag/a#orig`);
    expect(r.chain.map((h) => h.url)).toEqual([`${o}/frag/a#orig`, `${o}/frag/b#orig`]);
    expect(r.url).toBe(`${o}/docs/guide/final.html#new`);
  });

  it('a Location that is valid UTF-8 is read as UTF-8', async () => {
    server.route('/utf8', (_req, res) => {
      res.writeHead(302, { location: Buffer.from('/caf\u00e9/', 'utf8').toString('latin1') });
      res.end();
    });
    server.route('/caf%C3%A9/', html('<a href="x">x</a>'));
    const r = await absolutizeUrl(`${o}/utf8`);
    expect(r.url).toBe(`${o}/caf%C3%A9/`);
    expect(r.references[0]?.resolved).toBe(`${o}/caf%C3%A9/x`);
  });
});

describe('redirects that are refused', () => {
  it('a loop', async () => {
    server.route('/loop/a', redirect(302, '/loop/b'));
    server.route('/loop/b', redirect(301, '/loop/a'));
    const err = await absolutizeUrl(`${o}/loop/a`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).code).toBe('ABS_ERR_HTTP_REDIRECT');
    expect((err as FetchError).message).toMatch(/redirect loop: .*\/loop\/a was already requested/);
    expect((err as FetchError).chain.map((h) => [h.status, h.url, h.location])).toEqual([
      [302, `${o}/loop/a`, '/loop/b'],
      [301, `${o}/loop/b`, '/loop/a'],
    ]);
  });

  it('a redirect to itself', async () => {
    server.route('/self', redirect(307, '/self'));
    const err = (await absolutizeUrl(`${o}/self`).catch((e: unknown) => e)) as FetchError;
    expect(err.code).toBe('ABS_ERR_HTTP_REDIRECT');
    expect(err.chain).toEqual([{ url: `${o}/self`, status: 307, location: '/self' }]);
  });

  it('a redirect to file: (and other schemes)', async () => {
    server.route('/to-file', redirect(302, 'file:///etc/passwd'));
    server.route('/hop-to-file', redirect(301, '/to-file'));
    const err = (await absolutizeUrl(`${o}/hop-to-file`).catch((e: unknown) => e)) as FetchError;
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('ABS_ERR_HTTP_REDIRECT');
    expect(err.message).toContain('redirect to file: refused');
    expect(err.chain).toEqual([
      { url: `${o}/hop-to-file`, status: 301, location: '/to-file' },
      { url: `${o}/to-file`, status: 302, location: 'file:///etc/passwd' },
    ]);
    expect(server.requests.some((q) => q.path.includes('passwd'))).toBe(false);
    server.route('/to-ftp', redirect(302, 'ftp://example.invalid/x'));
    expect(((await absolutizeUrl(`${o}/to-ftp`).catch((e: unknown) => e)) as FetchError).message).toContain('redirect to ftp: refused');
  });

  it('maxRedirects: limit-1 and limit followed, limit+1 refused', async () => {
    for (let i = 0; i < 5; i++) server.route(`/n/${i}`, i === 0 ? html('<a href="z">z</a>') : redirect(302, `/n/${i - 1}`));
    // /n/k needs k redirects.
    expect((await absolutizeUrl(`${o}/n/2`, { httpLimits: { maxRedirects: 3 } })).chain).toHaveLength(2);
    expect((await absolutizeUrl(`${o}/n/3`, { httpLimits: { maxRedirects: 3 } })).chain).toHaveLength(3);
    const err = (await absolutizeUrl(`${o}/n/4`, { httpLimits: { maxRedirects: 3 } }).catch((e: unknown) => e)) as FetchError;
    expect(err.code).toBe('ABS_ERR_LIMIT');
    expect(err.message).toContain('more than 3 redirects (limit maxRedirects)');
    expect(err.chain).toHaveLength(3);
  });

  it('the default limit is 20 redirects', async () => {
    for (let i = 0; i <= 21; i++) server.route(`/m/${i}`, i === 0 ? html('ok') : redirect(301, `/m/${i - 1}`));
    expect((await absolutizeUrl(`${o}/m/20`)).chain).toHaveLength(20);
    expect(((await absolutizeUrl(`${o}/m/21`).catch((e: unknown) => e)) as FetchError).code).toBe('ABS_ERR_LIMIT');
  });

  it('a 3xx without Location is the response: reported with its status', async () => {
    server.route('/no-location', (_req, res) => {
      res.writeHead(302);
      res.end();
    });
    const err = (await absolutizeUrl(`${o}/no-location`).catch((e: unknown) => e)) as FetchError;
    expect(err.code).toBe('ABS_ERR_HTTP_STATUS');
    expect(err.status).toBe(302);
  });
});
