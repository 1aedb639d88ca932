/**
 * HTTP header references in a crawl (issue 22 item 1): `Link` (every target and `anchor`), `Refresh` and
 * `Content-Location` of response records, reported in the link report and rewritten in the heads of records that
 * are rewritten (and, with `rewriteHeaderReferences` / `--warc-header-references`, of records otherwise copied).
 * The crawl is written here by hand (digests computed with node:crypto, not with our writer); the output is read
 * back by npm warcio and by the tests' own Python reader (warc_read.py).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { PYTHON } from '../mime/differential/harness.ts';
import { readWithWarcio, response, record, runWarc, sha1 } from './helpers.ts';
import type { RunResult } from './helpers.ts';
import type { WarcLinkLine } from '../../src/warc/rewriter.ts';

const SCRIPT = fileURLToPath(new URL('warc_read.py', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'abs-warc-hdr-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PAGE_ID = '<urn:uuid:11111111-1111-4111-8111-111111111111>';
const PLAIN_ID = '<urn:uuid:22222222-2222-4222-8222-222222222222>';
const IMAGE_ID = '<urn:uuid:33333333-3333-4333-8333-333333333333>';
const REQUEST_ID = '<urn:uuid:44444444-4444-4444-8444-444444444444>';

const pageBody = '<!DOCTYPE html><title>t</title><a href="next.html">next</a>\n';
const chunked = `${pageBody.length.toString(16)}\r\n${pageBody}\r\n0\r\n\r\n`;
/** An HTML page, chunked, the references after the framing header (so offsets move when it is renamed). */
const PAGE = response(
  PAGE_ID,
  'http://example.com/dir/page.html',
  'HTTP/1.1 200 OK\nContent-Type: text/html\nTransfer-Encoding: chunked\nLink: <../style.css>; rel=preload; as=style, <next.html>; rel="next"; anchor="#top"\nRefresh: 5; url=/moved\nContent-Location: page.html.en\nLink: <https://cdn.example.net/a.js>; rel=preload\nX-Other: <../untouched>\n',
  Buffer.from(chunked),
  Buffer.from(pageBody),
);
/** An HTML page with nothing to rewrite in its body, and a relative Link. */
const PLAIN = response(PLAIN_ID, 'http://example.com/plain.html', 'HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\nLink: </ünï.css>; rel=stylesheet\n', Buffer.from('<p><a href="http://example.com/">home</a>\n'));
const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201c9e7d2660000000049454e44ae426082', 'hex');
/** An image: copied for its payload; its Link is a reference all the same. */
const IMAGE = response(IMAGE_ID, 'http://example.com/img/a.png', 'HTTP/1.1 200 OK\nContent-Type: image/png\nContent-Length: ' + png.length + '\nLink: <../x>; rel=preload\n', png);
/** The request for the image, naming its response. */
const REQUEST = record([['WARC-Type', 'request'], ['WARC-Record-ID', REQUEST_ID], ['WARC-Date', '2026-01-02T03:04:05Z'], ['WARC-Target-URI', 'http://example.com/img/a.png'], ['WARC-Concurrent-To', IMAGE_ID], ['Content-Type', 'application/http; msgtype=request'], ['WARC-Block-Digest', sha1(Buffer.from('GET /img/a.png HTTP/1.1\r\nHost: example.com\r\n\r\n'))]], Buffer.from('GET /img/a.png HTTP/1.1\r\nHost: example.com\r\n\r\n'));
const CRAWL = Buffer.concat([PAGE, PLAIN, IMAGE, REQUEST]);

/** Python's reading of a WARC: one object per record. */
function readWithPython(bytes: Buffer): Array<{ id: string | null; type: string | null; whole: boolean; block: boolean | null; payload: boolean | null }> {
  const path = join(tmp, `${createHash('sha1').update(bytes).digest('hex')}.warc`);
  writeFileSync(path, bytes);
  const lines = execFileSync(PYTHON, [SCRIPT, path], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  lines.pop();
  return lines as never;
}

/** The records of an output as npm warcio reads them, with their blocks as text. */
async function records(run: RunResult): Promise<Array<{ type: string | undefined; id: string | null; headers: Map<string, string>; text: string }>> {
  return (await readWithWarcio(run.output)).map((r) => ({ type: r.type, id: r.id, headers: r.headers, text: Buffer.from(r.block).toString('latin1') }));
}

/**
 * Every record reads whole and its block digest holds (Python); so does the payload digest of every record we
 * wrote (the input's chunked page has its payload digest over the de-chunked body, which the reader does not
 * undo).
 */
function digestsHold(run: RunResult): void {
  for (const r of readWithPython(run.output)) {
    expect({ id: r.id, whole: r.whole, block: r.block }).toEqual({ id: r.id, whole: true, block: true });
    if (r.payload !== null && r.id !== PAGE_ID) expect({ id: r.id, payload: r.payload }).toEqual({ id: r.id, payload: true });
  }
}

const headerLines = (run: RunResult): unknown[] => run.lines.filter((l) => l.kind === 'reference' && l.element === null && l.attribute !== null && ['Link', 'Refresh', 'Content-Location'].includes(l.attribute));

const chunkings = (bytes: Buffer): Array<[string, Buffer[]]> => {
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = 1 + Math.floor(random() * 97);
    pieces.push(bytes.subarray(at, at + n));
    at += n;
  }
  return [['whole', [bytes]], ['random chunks', pieces]];
};

describe('HTTP header references in WARC response records', () => {
  test.each(chunkings(CRAWL))('replace: reported everywhere, rewritten in the rewritten page (%s)', async (_name, chunks) => {
    const run = await runWarc(chunks);
    // Report: the page's header references first, before its body's; the image's and the plain page's too, not changed.
    const lines = headerLines(run);
    const context = (id: string, uri: string) => ({ document: '-', warcRecordId: id, warcOffset: expect.any(Number), targetUri: uri, warcDate: '2026-01-02T03:04:05Z', kind: 'reference', part: null, element: null, base: uri, baseSource: 'retrieval', line: null, column: null });
    const page = context(PAGE_ID, 'http://example.com/dir/page.html');
    expect(lines).toEqual([
      { ...page, attribute: 'Link', rel: 'preload', raw: '../style.css', resolved: 'http://example.com/style.css', changed: true },
      { ...page, attribute: 'Link', rel: 'next', raw: 'next.html', resolved: 'http://example.com/dir/next.html', changed: true },
      { ...page, attribute: 'Link', rel: 'next', parameter: 'anchor', raw: '#top', resolved: 'http://example.com/dir/page.html#top', changed: false },
      { ...page, attribute: 'Refresh', raw: '/moved', resolved: 'http://example.com/moved', changed: true },
      { ...page, attribute: 'Content-Location', raw: 'page.html.en', resolved: 'http://example.com/dir/page.html.en', changed: true },
      { ...page, attribute: 'Link', rel: 'preload', raw: 'https://cdn.example.net/a.js', resolved: 'https://cdn.example.net/a.js', changed: false },
      { ...context(PLAIN_ID, 'http://example.com/plain.html'), attribute: 'Link', rel: 'stylesheet', raw: '/ünï.css', resolved: 'http://example.com/%C3%BCn%C3%AF.css', changed: false },
      { ...context(IMAGE_ID, 'http://example.com/img/a.png'), attribute: 'Link', rel: 'preload', raw: '../x', resolved: 'http://example.com/x', changed: false },
    ]);
    const pageLines = run.lines.filter((l) => l.warcRecordId === PAGE_ID);
    expect(pageLines.map((l) => (l.kind === 'reference' ? l.attribute : l.kind))).toEqual(['Link', 'Link', 'Link', 'Refresh', 'Content-Location', 'Link', 'href', 'record']);
    const pageRecord = pageLines.at(-1)!;
    expect(pageRecord).toMatchObject({ kind: 'record', action: 'rewritten', rewritten: 5, unchanged: 2 });
    expect(run.lines.find((l) => l.kind === 'record' && l.warcRecordId === IMAGE_ID)).toMatchObject({ action: 'copied', rewritten: 0, unchanged: 1, newRecordId: null });
    expect(run.summary).toMatchObject({ rewritten: 1, references: 5 });

    // The rewritten page's head: the framing renamed, the references absolute, every other byte as it was.
    const out = await records(run);
    const replaced = out.find((r) => r.headers.get('warc-target-uri') === 'http://example.com/dir/page.html' && r.type === 'response')!;
    expect(replaced.id).not.toBe(PAGE_ID);
    expect(replaced.text).toBe(
      'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Archive-Orig-Transfer-Encoding: chunked\r\n' +
        'Link: <http://example.com/style.css>; rel=preload; as=style, <http://example.com/dir/next.html>; rel="next"; anchor="#top"\r\n' +
        'Refresh: 5; url=http://example.com/moved\r\nContent-Location: http://example.com/dir/page.html.en\r\nLink: <https://cdn.example.net/a.js>; rel=preload\r\nX-Other: <../untouched>\r\n' +
        `Content-Length: ${pageBody.length + 'http://example.com/dir/'.length}\r\n\r\n` +
        pageBody.replace('next.html', 'http://example.com/dir/next.html'),
    );
    // Records not rewritten: byte for byte.
    for (const original of [PLAIN, IMAGE, REQUEST]) expect(run.output.includes(original)).toBe(true);
    digestsHold(run);
  });

  test('conversion: header references reported, none changed (the conversion record holds the payload only)', async () => {
    const run = await runWarc([CRAWL], { output: 'conversion' });
    const lines = headerLines(run) as Array<{ changed: boolean; warcRecordId: string }>;
    expect(lines).toHaveLength(8);
    expect(lines.every((l) => !l.changed)).toBe(true);
    const conversion = (await records(run)).find((r) => r.type === 'conversion')!;
    expect(conversion.text).toBe(pageBody.replace('next.html', 'http://example.com/dir/next.html'));
    for (const original of [PAGE, PLAIN, IMAGE, REQUEST]) expect(run.output.includes(original)).toBe(true);
    // Even with the option: a conversion output keeps every original as it was.
    const withOption = await runWarc([CRAWL], { output: 'conversion', rewriteHeaderReferences: true });
    expect(withOption.output.equals(run.output)).toBe(true);
    digestsHold(run);
  });

  test.each(chunkings(CRAWL))('rewriteHeaderReferences: records copied for their payload are replaced for their head (%s)', async (_name, chunks) => {
    const run = await runWarc(chunks, { rewriteHeaderReferences: true });
    const out = await records(run);
    // The image: a new id, its head's Link absolute, the payload (and its digest) as they were.
    const image = out.find((r) => r.type === 'response' && r.headers.get('warc-target-uri') === 'http://example.com/img/a.png')!;
    expect(image.id).not.toBe(IMAGE_ID);
    expect(image.text).toBe(`HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: ${png.length}\r\nLink: <http://example.com/x>; rel=preload\r\n\r\n${png.toString('latin1')}`);
    expect(image.headers.get('warc-payload-digest')).toBe(sha1(png));
    // Its metadata record names it and the original.
    const meta = out.find((r) => r.type === 'metadata' && r.headers.get('warc-refers-to') === image.id)!;
    expect(meta.text).toContain(`absolutize-original-record-id: ${IMAGE_ID}`);
    // The request that named the original names the replacement.
    const request = out.find((r) => r.type === 'request')!;
    expect(request.id).toBe(REQUEST_ID);
    expect(request.headers.get('warc-concurrent-to')).toBe(image.id);
    // The plain page: its Link in UTF-8, rewritten as UTF-8.
    const plain = out.find((r) => r.type === 'response' && r.headers.get('warc-target-uri') === 'http://example.com/plain.html')!;
    expect(Buffer.from(plain.text, 'latin1').toString('utf8')).toContain('Link: <http://example.com/%C3%BCn%C3%AF.css>; rel=stylesheet\r\n');
    expect(plain.id).not.toBe(PLAIN_ID);
    // Report: changed where the bytes were, record lines say so.
    expect(run.lines.find((l) => l.kind === 'reference' && l.warcRecordId === IMAGE_ID)).toMatchObject({ attribute: 'Link', changed: true, resolved: 'http://example.com/x' });
    expect(run.lines.find((l) => l.kind === 'record' && l.warcRecordId === IMAGE_ID)).toMatchObject({ action: 'rewritten', rewritten: 1, newRecordId: image.id });
    expect(run.summary).toMatchObject({ rewritten: 3, references: 5 + 1 + 1 });
    digestsHold(run);
  });

  test('without the option, a copied record with a relative Link comes out byte for byte', async () => {
    const run = await runWarc([Buffer.concat([IMAGE, REQUEST])]);
    expect(run.output.subarray(run.output.indexOf('WARC/1.0', 10)).equals(Buffer.concat([IMAGE, REQUEST]))).toBe(true);
  });

  test.each([false, true])('on a worker thread (rewriteHeaderReferences %s): the same bytes and lines as inline', async (option) => {
    const inline = await runWarc([CRAWL], { rewriteHeaderReferences: option });
    const threaded = await runWarc([CRAWL], { rewriteHeaderReferences: option, threads: 1 });
    expect(threaded.output.equals(inline.output)).toBe(true);
    expect(threaded.lines).toEqual(inline.lines);
  });

  test('the command line: --links reports them, --warc-header-references rewrites the image record', async () => {
    const input = join(tmp, 'crawl.warc');
    writeFileSync(input, CRAWL);
    const plain = runCli([input, '-o', join(tmp, 'a.warc'), '--links', join(tmp, 'a.jsonl')]);
    expect(plain.status, plain.stderr).toBe(0);
    const report = (name: string): WarcLinkLine[] => readFileSync(join(tmp, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as WarcLinkLine);
    const imageLink = (name: string): WarcLinkLine | undefined => report(name).find((l) => l.kind === 'reference' && l.warcRecordId === IMAGE_ID);
    expect(imageLink('a.jsonl')).toMatchObject({ element: null, attribute: 'Link', rel: 'preload', raw: '../x', resolved: 'http://example.com/x', changed: false });
    expect(readFileSync(join(tmp, 'a.warc')).includes(IMAGE)).toBe(true);
    const option = runCli([input, '-o', join(tmp, 'b.warc'), '--links', join(tmp, 'b.jsonl'), '--warc-header-references']);
    expect(option.status, option.stderr).toBe(0);
    expect(imageLink('b.jsonl')).toMatchObject({ attribute: 'Link', changed: true });
    const out = readFileSync(join(tmp, 'b.warc'));
    expect(out.includes(IMAGE)).toBe(false);
    expect(out.includes('Link: <http://example.com/x>; rel=preload')).toBe(true);
    expect((await readWithWarcio(out)).filter((r) => r.type === 'response')).toHaveLength(3);
  });

  test('gzip in (a member a record), gzip out: the replaced image a member of its own, digests that hold', async () => {
    const input = Buffer.concat([PAGE, PLAIN, IMAGE, REQUEST].map((r) => gzipSync(r)));
    const run = await runWarc([input], { rewriteHeaderReferences: true });
    expect(run.output.subarray(0, 2).toString('hex')).toBe('1f8b');
    // The request (not replaced, its Concurrent-To renamed) and every new record: one gzip member each, read back.
    const out = await records(run);
    expect(out.map((r) => r.type)).toEqual(['warcinfo', 'response', 'metadata', 'response', 'metadata', 'response', 'metadata', 'request']);
    expect(out[5]!.text).toContain('Link: <http://example.com/x>; rel=preload\r\n');
    digestsHold(run);
  });
});
