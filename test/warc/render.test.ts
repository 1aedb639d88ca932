/**
 * Every HTML a browser would render is rewritten, whatever the record says around it (SPEC §5b): any status with
 * an HTML body, `resource` records, bodies sniffed without a Content-Type, a stale Content-Encoding over a body
 * stored decoded; header values read as UTF-8 first, as Chromium reads them; the WARC headers we write are valid
 * WARC 1.1; `-o -`, offsets for a whole-file gzip, a compressed link report.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.ts';
import { readWithWarcio, runWarc, units } from './helpers.ts';

const URL_ = 'https://example.com/a/page.html';
const PAGE = '<!doctype html><html><body><a href="../b/c.html">x</a></body></html>';

function record(type: string, target: string, block: Buffer | string, contentType = 'application/http; msgtype=response', extra: string[] = []): Buffer {
  const body = Buffer.from(block);
  const head = ['WARC/1.1', `WARC-Type: ${type}`, `WARC-Record-ID: <urn:uuid:${type}-${body.length}>`, 'WARC-Date: 2024-05-01T10:00:00Z', `WARC-Target-URI: ${target}`, ...(contentType === '' ? [] : [`Content-Type: ${contentType}`]), ...extra, `Content-Length: ${body.length}`, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from('\r\n\r\n')]);
}
const response = (status: string, headers: string[], body: Buffer | string): Buffer => record('response', URL_, Buffer.concat([Buffer.from([`HTTP/1.1 ${status}`, ...headers, '', ''].join('\r\n'), 'latin1'), Buffer.from(body)]));

const tmp = mkdtempSync(join(tmpdir(), 'abs-warc-render-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('every HTML a browser would render is rewritten', () => {
  test.each([
    ['a custom 404 page', response('404 Not Found', ['Content-Type: text/html'], PAGE)],
    ['a 500 page', response('500 Internal Server Error', ['Content-Type: text/html'], PAGE)],
    ['a response without Content-Type whose body sniffs as HTML', response('200 OK', [], `\n  ${PAGE.replace('<!doctype html>', '')}`)],
    ['a response of type unknown/unknown', response('200 OK', ['Content-Type: unknown/unknown'], `<HTML>${PAGE}`)],
    ['a resource record holding HTML', record('resource', URL_, PAGE, 'text/html')],
    ['a resource record without Content-Type', record('resource', URL_, `<html>${PAGE}`, '')],
  ])('%s', async (_name, input) => {
    const { output, lines, summary } = await runWarc([input], { warcinfo: false });
    expect(summary.rewritten).toBe(1);
    expect(lines.find((l) => l.kind === 'reference')).toMatchObject({ raw: '../b/c.html', resolved: 'https://example.com/b/c.html', changed: true });
    const records = await readWithWarcio(output);
    expect(records.map((r) => r.type)).toEqual([records[0]!.type, 'metadata']);
    expect(Buffer.from(records[0]!.block).toString('latin1')).toContain('href="https://example.com/b/c.html"');
  });

  test('a body without Content-Type that does not sniff as HTML is copied', async () => {
    const input = response('200 OK', [], 'just some text with href="x.html" in it');
    const { output, lines } = await runWarc([input], { warcinfo: false });
    expect(output.equals(input)).toBe(true);
    expect(lines.find((l) => l.kind === 'record')).toMatchObject({ action: 'copied', reason: expect.stringMatching(/does not sniff as HTML/) });
  });

  test('a stale Content-Encoding: gzip over a body stored decoded is read as decoded, with a warning (as Python warcio falls back)', async () => {
    const input = response('200 OK', ['Content-Type: text/html', 'Content-Encoding: gzip'], PAGE);
    const { output, warnings, summary } = await runWarc([input], { warcinfo: false });
    expect(summary.rewritten).toBe(1);
    expect(warnings.map((w) => w.code)).toEqual(['warc-content-encoding-stale']);
    const block = Buffer.from((await readWithWarcio(output))[0]!.block).toString('latin1');
    expect(block).toContain('X-Archive-Orig-Content-Encoding: gzip');
    expect(block).toContain('href="https://example.com/b/c.html"');
  });
});

describe('header values are read as UTF-8 first, as Chromium reads them', () => {
  test('a raw UTF-8 Location: /café → /caf%C3%A9', async () => {
    const input = response('302 Found', ['Location: /caf\u00c3\u00a9'], '');
    const { lines } = await runWarc([input], { warcinfo: false });
    expect(lines.find((l) => l.kind === 'redirect')).toMatchObject({ raw: '/café', resolved: 'https://example.com/caf%C3%A9' });
  });

  test('a Latin-1 Location that is not UTF-8 is read one character a byte', async () => {
    const input = response('302 Found', ['Location: /caf\u00e9'], '');
    const { lines } = await runWarc([input], { warcinfo: false });
    expect(lines.find((l) => l.kind === 'redirect')).toMatchObject({ raw: '/café', resolved: 'https://example.com/caf%C3%A9' });
  });

  test('a raw UTF-8 Content-Location (with --http-content-location) is the base, read as UTF-8', async () => {
    const input = response('200 OK', ['Content-Type: text/html', 'Content-Location: /d\u00c3\u00a9j\u00c3\u00a0/x.html'], '<a href="y.html">y</a>');
    const { lines } = await runWarc([input], { warcinfo: false, honourHttpContentLocation: true });
    expect(lines.find((l) => l.kind === 'reference' && l.element !== null)).toMatchObject({ resolved: 'https://example.com/d%C3%A9j%C3%A0/y.html' });
  });
});

describe('the WARC headers we write are valid WARC 1.1', () => {
  test('a conversion record never copies a malformed HTTP Content-Type', async () => {
    for (const [contentType, expected] of [
      ['text/html; charset=', 'text/html'],
      ['text/html;charset="utf-8"', 'text/html; charset=utf-8'],
      ['text/html, text/html', 'text/html'],
    ]) {
      const input = response('200 OK', [`Content-Type: ${contentType}`], PAGE);
      const { output } = await runWarc([input], { warcinfo: false, output: 'conversion' });
      const conversion = (await readWithWarcio(output)).find((r) => r.type === 'conversion')!;
      expect(conversion.headers.get('content-type')).toBe(expected);
    }
  });

  test("a replaced record's WARC-Target-URI has no raw space and no <…>", async () => {
    const input = record('response', '<https://example.com/a dir/page.html>', Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n${PAGE}`));
    const { output } = await runWarc([input], { warcinfo: false });
    const records = await readWithWarcio(output);
    expect(records.map((r) => r.headers.get('warc-target-uri'))).toEqual(['https://example.com/a%20dir/page.html', 'https://example.com/a%20dir/page.html']);
  });
});

describe('output and report', () => {
  const crawl = Buffer.concat([response('200 OK', ['Content-Type: text/html'], PAGE), record('request', URL_, 'GET / HTTP/1.1\r\n\r\n', 'application/http; msgtype=request'), response('404 Not Found', ['Content-Type: text/html'], PAGE)]);

  test('-o - writes the WARC to standard output (no file named "-")', async () => {
    const input = join(tmp, 'in.warc');
    writeFileSync(input, crawl);
    const r = spawnSync(process.execPath, [CLI, input, '-o', '-'], { cwd: tmp, maxBuffer: 1 << 24 });
    expect(r.status).toBe(0);
    const records = await readWithWarcio(r.stdout);
    expect(records.map((x) => x.type)).toEqual(['warcinfo', 'response', 'metadata', 'request', 'response', 'metadata']);
    expect(spawnSync('ls', [tmp], { encoding: 'utf8' }).stdout.split('\n')).not.toContain('-');
  });

  test('a whole-file gzip: each record has its offset in the inflated stream, not 0', async () => {
    const { lines } = await runWarc([gzipSync(crawl)]);
    const offsets = lines.filter((l) => l.kind === 'record').map((l) => l.warcOffset);
    const expected = (await units(crawl)).map((u) => u.offset);
    expect(offsets).toEqual(expected);
    expect(new Set(offsets).size).toBe(3);
  });

  test('--links FILE.gz is written gzip-compressed', () => {
    const input = join(tmp, 'in2.warc');
    writeFileSync(input, crawl);
    const links = join(tmp, 'links.jsonl.gz');
    const r = spawnSync(process.execPath, [CLI, input, '-o', join(tmp, 'out2.warc'), '--links', links], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const raw = readFileSync(links);
    expect(raw.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const report = gunzipSync(raw).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string });
    expect(report.filter((l) => l.kind === 'record')).toHaveLength(3);
  });
});
