/**
 * `rel` on `--links` lines (issue 12 §4: "`rel` where the element has one"): the element's link types go on the
 * lines of the URLs they describe (`a`/`area`/`link` `href`, a `link`'s `imagesrcset`, a `form`'s `action`), from
 * every writer of the report: files, MIME parts, WARC records and retrieved URLs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { html, runCliAsync, startTestServer } from '../http/http-test-server.ts';
import type { TestServer } from '../http/http-test-server.ts';

type Line = Record<string, unknown>;

const PAGE = [
  '<meta charset="utf-8">',
  '<link href="s.css" rel="stylesheet">', // rel after the URL attribute
  '<link rel="preload" as="image" imagesrcset="a.png 1x, b.png 2x" href="a.png">',
  '<a rel="nofollow  noopener" href="x.html" ping="p" style="background:url(bg.png)">x</a>',
  '<a rel="caf\u00e9 &amp; me" href="y.html">y</a>', // character references decoded, UTF-8 decoded
  '<a href="z.html">z</a>', // no rel: no field
  '<map><area rel="help" href="h.html"></map>',
  '<form rel="next" action="post.php"></form>',
  '<img rel="x" src="i.png">', // rel on an element whose URL it does not describe
  '<svg><a rel="x" href="s.html"/></svg>', // SVG's <a>: not an HTML link type
].join('\n');

const tmp = mkdtempSync(join(tmpdir(), 'abs-rel-'));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  server.route('/d/page.html', html(PAGE));
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

function lines(stdout: string): Line[] {
  return stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Line).filter((l) => l['kind'] === undefined || l['kind'] === 'reference');
}

/** `raw → rel` (null where the line has no `rel` field), and the field's place: right after `attribute`. */
function relsOf(found: Line[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const l of found) {
    const keys = Object.keys(l);
    if ('rel' in l) expect(keys[keys.indexOf('attribute') + 1]).toBe('rel');
    out[`${String(l['element'])} ${String(l['attribute'])} ${String(l['raw'])}`] = 'rel' in l ? (l['rel'] as string) : null;
  }
  return out;
}

const EXPECTED = {
  'link href s.css': 'stylesheet',
  'link imagesrcset a.png': 'preload',
  'link imagesrcset b.png': 'preload',
  'link href a.png': 'preload',
  'a href x.html': 'nofollow  noopener',
  'a ping p': null,
  'a style bg.png': null,
  'a href y.html': 'caf\u00e9 & me',
  'a href z.html': null,
  'area href h.html': 'help',
  'form action post.php': 'next',
  'img src i.png': null,
  'a href s.html': null,
};

describe('rel on --links lines', () => {
  it('an HTML file', () => {
    const file = join(tmp, 'page.html');
    writeFileSync(file, PAGE);
    const r = runCli([file, '--url', 'https://e.example/d/page.html', '--links', '-']);
    expect(r.status).toBe(0);
    expect(relsOf(lines(r.stdout))).toEqual(EXPECTED);
  });

  it('an HTML part of a MIME message', () => {
    const file = join(tmp, 'm.eml');
    writeFileSync(file, `MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=B\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\n<a rel="x" href="t.html">\r\n--B\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${PAGE}\r\n--B--\r\n`);
    const r = runCli([file, '--base', 'https://e.example/d/', '--links', '-']);
    expect(r.status).toBe(0);
    const found = lines(r.stdout);
    expect(found.every((l) => l['part'] === '2')).toBe(true);
    expect(relsOf(found)).toEqual(EXPECTED);
  });

  it('an HTML response in a WARC', () => {
    const http = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${PAGE}`);
    const head = `WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: https://e.example/d/page.html\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n`;
    const file = join(tmp, 'c.warc');
    writeFileSync(file, Buffer.concat([Buffer.from(head), http, Buffer.from('\r\n\r\n')]));
    const r = runCli([file, '--links', '-']);
    expect(r.status).toBe(0);
    const found = lines(r.stdout);
    expect(found.every((l) => l['warcRecordId'] === '<urn:uuid:00000000-0000-4000-8000-000000000001>')).toBe(true);
    expect(relsOf(found)).toEqual(EXPECTED);
  });

  it('a retrieved URL', async () => {
    const r = await runCliAsync([`${server.origin}/d/page.html`, '--links', '-']);
    expect(r.status).toBe(0);
    expect(relsOf(lines(r.stdout))).toEqual(EXPECTED);
  });
});
