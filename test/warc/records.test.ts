/**
 * Per-record dispatch on made-up records: content codings (gzip, deflate, br; unknown and broken ones copied),
 * chunked bodies (only when they really parse as chunked), CSS and MHTML records, statuses, WARC-Truncated,
 * wget's <…> Target-URI, the transport charset, HTTP Content-Location, both output models, gzip in and out.
 */
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { parseHttpHead } from '../../src/warc/http-message.ts';
import { field } from '../../src/warc/record.ts';
import { sha1Digest } from '../../src/warc/writer.ts';
import { readWithWarcio, runWarc, units } from './helpers.ts';

const PAGE = '<!doctype html><html><head><title>t</title></head><body><a href="../b/c.html">x</a> <img src="/i.png"></body></html>';

function record(type: string, target: string, block: Buffer | string, extra: Array<[string, string]> = [], id = `<urn:uuid:${type}-${target.length}-${Buffer.from(block).length}>`): Buffer {
  const body = Buffer.from(block);
  const head = [`WARC/1.1`, `WARC-Type: ${type}`, `WARC-Record-ID: ${id}`, `WARC-Date: 2024-05-01T10:00:00Z`, `WARC-Target-URI: ${target}`, 'Content-Type: application/http; msgtype=response', ...extra.map(([n, v]) => `${n}: ${v}`), `Content-Length: ${body.length}`, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head), body, Buffer.from('\r\n\r\n')]);
}

function response(target: string, headers: Array<[string, string]>, body: Buffer | string, status = '200 OK', extra: Array<[string, string]> = []): Buffer {
  const head = [`HTTP/1.1 ${status}`, ...headers.map(([n, v]) => `${n}: ${v}`), '', ''].join('\r\n');
  return record('response', target, Buffer.concat([Buffer.from(head), Buffer.from(body)]), extra);
}

/** The payload of the one rewritten response in the output. */
async function rewrittenPayload(output: Buffer): Promise<{ head: ReturnType<typeof parseHttpHead>; body: string }> {
  const all = await units(output);
  for (const u of all) {
    for (const i of u.items) {
      if (i.kind === 'record' && field(i.header, 'WARC-Type') === 'response') {
        const head = parseHttpHead(i.block)!;
        return { head, body: i.block.subarray(head.length).toString('latin1') };
      }
    }
  }
  throw new Error('no response');
}

const EXPECTED = PAGE.replace('../b/c.html', 'https://example.com/b/c.html').replace('/i.png', 'https://example.com/i.png');
const URL_ = 'https://example.com/a/page.html';

describe('content codings and transfer coding', () => {
  test.each([
    ['gzip', (b: Buffer) => gzipSync(b)],
    ['deflate', (b: Buffer) => deflateSync(b)],
    ['deflate', (b: Buffer) => deflateRawSync(b)], // raw DEFLATE, as some servers send it
    ['br', (b: Buffer) => brotliCompressSync(b)],
  ] as const)('Content-Encoding: %s is decoded, rewritten, and the header renamed', async (coding, encode) => {
    const body = encode(Buffer.from(PAGE));
    const input = response(URL_, [['Content-Type', 'text/html'], ['Content-Encoding', coding], ['Content-Length', String(body.length)]], body);
    const { output, lines, summary } = await runWarc([input]);
    expect(summary.rewritten).toBe(1);
    const { head, body: out } = await rewrittenPayload(output);
    expect(out).toBe(EXPECTED);
    expect(head!.fields).toEqual([['Content-Type', 'text/html'], ['X-Archive-Orig-Content-Encoding', coding], ['X-Archive-Orig-Content-Length', String(body.length)], ['Content-Length', String(EXPECTED.length)]]);
    expect(lines.find((l) => l.kind === 'record' && l.warcType === 'response')).toMatchObject({ action: 'rewritten', rewritten: 2 });
  });

  test('a body that really is chunked is de-chunked; one stored de-chunked under the same header is read as it is', async () => {
    const chunked = `${(30).toString(16)}\r\n${PAGE.slice(0, 30)}\r\n${(PAGE.length - 30).toString(16)};ext=1\r\n${PAGE.slice(30)}\r\n0\r\n\r\n`;
    for (const body of [chunked, PAGE]) {
      const { output } = await runWarc([response(URL_, [['Content-Type', 'text/html'], ['Transfer-Encoding', 'chunked']], body)]);
      const { head, body: out } = await rewrittenPayload(output);
      expect(out).toBe(EXPECTED);
      expect(head!.fields.map(([n]) => n)).toEqual(['Content-Type', 'X-Archive-Orig-Transfer-Encoding', 'Content-Length']);
    }
  });

  test.each([
    ['compress', Buffer.from([0x1f, 0x9d, 0x90, 0x3c, 0x00, 0x01])],
    ['gzip', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02, 0x03])],
  ])('Content-Encoding %s that cannot be decoded, over a binary body: the record is copied, and the report says why', async (coding, body) => {
    const input = response(URL_, [['Content-Type', 'text/html'], ['Content-Encoding', coding]], body);
    const { output, lines, warnings } = await runWarc([input], { warcinfo: false });
    expect(output.equals(input)).toBe(true);
    const line = lines.find((l) => l.kind === 'record');
    expect(line).toMatchObject({ action: 'copied' });
    expect(line?.kind === 'record' && line.reason).toMatch(/Content-Encoding cannot be decoded/);
    expect(warnings.map((w) => w.code)).toEqual(['warc-record-not-rewritten']);
  });
});

describe('dispatch', () => {
  test('CSS is rewritten by the CSS rewriter', async () => {
    const css = 'a { background: url(../img/x.png) }\n@import "print.css";\n';
    const { output } = await runWarc([response('https://example.com/css/s.css', [['Content-Type', 'text/css']], css)]);
    expect((await rewrittenPayload(output)).body).toBe('a { background: url(https://example.com/img/x.png) }\n@import "https://example.com/css/print.css";\n');
  });

  test('multipart/related (MHTML) goes to the MIME rewriter: each part on its own base, lines name the part', async () => {
    const mhtml = ['--B', 'Content-Type: text/html', 'Content-Location: https://other.example/dir/page.html', '', '<a href="x.html">x</a>', '--B--', ''].join('\r\n');
    const { output, lines } = await runWarc([response(URL_, [['Content-Type', 'multipart/related; boundary="B"']], mhtml)]);
    expect((await rewrittenPayload(output)).body).toContain('<a href="https://other.example/dir/x.html">x</a>');
    expect(lines.find((l) => l.kind === 'reference')).toMatchObject({ part: '1', raw: 'x.html', resolved: 'https://other.example/dir/x.html' });
  });

  test.each([
    ['a redirect with a body', response(URL_, [['Content-Type', 'text/html'], ['Location', '/elsewhere']], PAGE, '301 Moved Permanently'), /HTTP 301/],
    ['an image', response(URL_, [['Content-Type', 'image/png']], 'PNG'), /image\/png/],
    ['WARC-Truncated', response(URL_, [['Content-Type', 'text/html']], PAGE, '200 OK', [['WARC-Truncated', 'length']]), /WARC-Truncated/],
    ['a request', record('request', URL_, 'GET / HTTP/1.1\r\n\r\n'), /request record/],
    ['a page with nothing relative', response(URL_, [['Content-Type', 'text/html']], '<a href="https://x.example/">x</a>'), /nothing to rewrite/],
  ])('%s is copied byte for byte', async (_name, input, reason) => {
    const { output, lines } = await runWarc([input], { warcinfo: false });
    expect(output.equals(input)).toBe(true);
    const line = lines.find((l) => l.kind === 'record');
    expect(line?.kind === 'record' && line.reason).toMatch(reason);
  });

  test("wget's <…> around the Target-URI is stripped", async () => {
    const { output, lines } = await runWarc([response(`<${URL_}>`, [['Content-Type', 'text/html']], PAGE)]);
    expect((await rewrittenPayload(output)).body).toBe(EXPECTED);
    expect(lines[0]).toMatchObject({ targetUri: URL_ });
  });

  test("the HTTP Content-Type charset is the transport charset: it beats the page's <meta>", async () => {
    const page = Buffer.concat([Buffer.from('<meta charset="utf-8"><a href="?q='), Buffer.from([0xe9]), Buffer.from('">x</a>')]);
    const { lines } = await runWarc([response(URL_, [['Content-Type', 'text/html; charset=iso-8859-1']], page)]);
    expect(lines.find((l) => l.kind === 'reference')).toMatchObject({ resolved: 'https://example.com/a/page.html?q=%E9' });
  });

  test('HTTP Content-Location is not a base unless asked (SPEC §2)', async () => {
    const input = response(URL_, [['Content-Type', 'text/html'], ['Content-Location', 'https://cdn.example/x/']], '<a href="y">y</a>');
    expect((await runWarc([input])).lines.find((l) => l.kind === 'reference' && l.element !== null)).toMatchObject({ resolved: 'https://example.com/a/y' });
    expect((await runWarc([input], { honourHttpContentLocation: true })).lines.find((l) => l.kind === 'reference' && l.element !== null)).toMatchObject({ resolved: 'https://cdn.example/x/y' });
  });
});

describe('output models', () => {
  const input = Buffer.concat([record('request', URL_, 'GET /a/page.html HTTP/1.1\r\n\r\n'), response(URL_, [['Content-Type', 'text/html'], ['Server', 'x']], PAGE, '200 OK', [['WARC-IP-Address', '192.0.2.1'], ['WARC-Concurrent-To', '<urn:uuid:req>']])]);

  test('replace: new id and digests, the same date, Target-URI, IP, Concurrent-To; a metadata record naming the original', async () => {
    const { output } = await runWarc([input], { warcinfo: false });
    const records = await readWithWarcio(output);
    expect(records.map((r) => r.type)).toEqual(['request', 'response', 'metadata']);
    const [, replaced, metadata] = records;
    expect(replaced!.id).not.toBe('<urn:uuid:response-31-192>');
    for (const name of ['warc-date', 'warc-target-uri', 'warc-ip-address', 'warc-concurrent-to']) expect(replaced!.headers.get(name)).toBeTruthy();
    expect(replaced!.headers.get('warc-ip-address')).toBe('192.0.2.1');
    expect(replaced!.headers.get('warc-block-digest')).toBe(sha1Digest(replaced!.block));
    expect(metadata!.headers.get('warc-refers-to')).toBe(replaced!.id);
    const text = Buffer.from(metadata!.block).toString('utf8');
    expect(text).toMatch(/^absolutize-original-record-id: <urn:uuid:response-/m);
    expect(text).toContain('absolutize-base: https://example.com/a/page.html\r\n');
    expect(text).toContain('absolutize-base-source: retrieval\r\n');
    expect(text).toContain('absolutize-references-changed: 2\r\n');
  });

  test('conversion: every original byte for byte, followed by a conversion record referring to it', async () => {
    const { output } = await runWarc([input], { warcinfo: false, output: 'conversion' });
    expect(output.subarray(0, input.length).equals(input)).toBe(true);
    const records = await readWithWarcio(output);
    expect(records.map((r) => r.type)).toEqual(['request', 'response', 'conversion']);
    expect(records[2]!.headers.get('warc-refers-to')).toBe(records[1]!.id);
    expect(Buffer.from(records[2]!.block).toString('latin1')).toBe(EXPECTED);
    expect(records[2]!.headers.get('warc-payload-digest')).toBe(sha1Digest(records[2]!.block));
  });

  test('gzip in, gzip out: one member per record, members not rewritten kept as they were', async () => {
    const members = [gzipSync(record('request', URL_, 'GET / HTTP/1.1\r\n\r\n')), gzipSync(response(URL_, [['Content-Type', 'text/html']], PAGE)), gzipSync(record('request', URL_, 'GET /2 HTTP/1.1\r\n\r\n'))];
    const { output } = await runWarc([Buffer.concat(members)]);
    const out = await units(output);
    expect(out.map((u) => u.compressed)).toEqual([true, true, true, true, true]);
    expect(out[1]!.raw.equals(members[0]!)).toBe(true);
    expect(out[4]!.raw.equals(members[2]!)).toBe(true);
    expect(out.map((u) => u.items.length)).toEqual([1, 1, 1, 1, 1]);
  });
});
