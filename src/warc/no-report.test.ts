/**
 * Without a link report (no `onLink`) a rewrite job counts references from the rewriter's statistics instead of
 * a listener (record-job.ts): the changed count, the output and every summary figure must be what they are with
 * one (unchanged and unresolvable are figures of the report's record lines only).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { DEFAULT_WARC_LIMITS } from '../limits.ts';
import { sharedPath } from '../../test/helpers/shared.ts';
import { runRewriteJob } from './record-job.ts';
import type { JobOptions, RewriteJob } from './record-job.ts';
import { rewriteWarcChunks } from './rewriter.ts';
import type { WarcRewriteOptions } from './rewriter.ts';

const OPTIONS: JobOptions = { output: 'replace', resolver: 'browser', fallback: null, honourHttpContentLocation: false, exactBase: false, absolutizeFragments: false, lazyLoad: false, limits: undefined, maxRecordBytes: DEFAULT_WARC_LIMITS.maxWarcRecordBytes, references: true };

function job(block: Buffer, kind: RewriteJob['kind'], contentType: string, references: boolean, targetUri = 'https://example.com/a/b/page.html'): RewriteJob {
  return { block, protocol: 'WARC/1.0', fields: [['WARC-Type', 'response']], targetUri, id: '<urn:uuid:1>', date: '2024-01-01T00:00:00Z', kind, http: true, contentType, newIds: ['<urn:uuid:2>', '<urn:uuid:3>'], compressed: true, options: { ...OPTIONS, references } };
}

async function both(block: Buffer, kind: RewriteJob['kind'], contentType: string, targetUri?: string): Promise<void> {
  const heard = await runRewriteJob(job(block, kind, contentType, true, targetUri));
  const counted = await runRewriteJob(job(block, kind, contentType, false, targetUri));
  expect(counted.counts.rewritten).toBe(heard.counts.rewritten);
  expect(counted.action).toBe(heard.action);
  expect(counted.references).toEqual([]);
  expect(counted.replacement === null ? null : Buffer.from(counted.replacement)).toEqual(heard.replacement === null ? null : Buffer.from(heard.replacement));
  expect(counted.after.map((b) => Buffer.from(b))).toEqual(heard.after.map((b) => Buffer.from(b)));
}

const http = (contentType: string, body: Buffer | string): Buffer => Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: ${contentType}\r\nLink: <style.css>; rel=stylesheet\r\n\r\n`), Buffer.from(body)]);

describe('the changed count from the statistics equals the count heard', () => {
  const pagesDir = new URL('../../node_modules/htmlparser-benchmark/files/', import.meta.url);
  const pages = readdirSync(pagesDir).sort();
  test(`the ${pages.length} real pages of htmlparser-benchmark (HTML)`, async () => {
    for (const page of pages) await both(http('text/html; charset=utf-8', readFileSync(new URL(page, pagesDir))), 'html', 'text/html; charset=utf-8');
  });

  test.each([
    ['html', 'text/html', '<base href="../x/"><a href="a">a</a><a href="#f">f</a><a href="http://[bad">u</a><img srcset="a.png 1x, b.png 2x"><iframe srcdoc="<a href=c>c</a>"></iframe><svg><image href="i.svg"/></svg><style>p{background:url(bg.png)}</style><p style="background:url(s.png)">'],
    ['html', 'text/html', '<a href="https://other.example/">absolute</a><a href="mailto:x@y">m</a>'],
    ['sniff', null, '<!doctype html><a href="sniffed">s</a>'],
    ['css', 'text/css', '@import "a.css"; p { background: url(../b.png) } q { background: url("http://[bad") }'],
    ['svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="a.png"/><use href="#x"/></svg>'],
    ['mime', 'message/rfc822', 'Content-Type: text/html\r\nContent-Location: https://example.org/m/\r\n\r\n<a href="rel">r</a><a href="#x">x</a>'],
  ] as const)('%s: %s', async (kind, contentType, body) => {
    await both(http(contentType ?? '', body), kind, contentType ?? '');
  });

  test('no base at all (unresolvable and unchanged only)', async () => {
    await both(http('text/html', '<a href="rel">r</a><a href="http://x/">x</a>'), 'html', 'text/html', null as unknown as string);
  });
});

describe('the corpus rewritten with and without a report: the same bytes and summary', () => {
  const dir = sharedPath('corpus/warc/');
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(dir + d.name).map((f) => `${d.name}/${f}`))
    .sort();
  const run = async (bytes: Buffer, options: WarcRewriteOptions): Promise<{ output: Buffer; summary: unknown }> => {
    let n = 0;
    const out: Buffer[] = [];
    const gen = rewriteWarcChunks((async function* () {
      yield bytes;
    })(), { newRecordId: () => `<urn:uuid:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}>`, now: '2026-01-01T00:00:00Z', ...options });
    for (;;) {
      const r = await gen.next();
      if (r.done === true) return { output: Buffer.concat(out), summary: r.value };
      out.push(r.value);
    }
  };
  test.each(files)('%s', async (name) => {
    const bytes = readFileSync(dir + name);
    const silent = await run(bytes, {});
    const reported = await run(bytes, { onLink: () => {} });
    expect(silent.summary).toEqual(reported.summary);
    expect(silent.output.equals(reported.output)).toBe(true);
  });
});

/** A small crawl as bench/warc.ts generates one: responses (some gzip-encoded, some chunked), requests, images. */
function crawl(pages: number): Buffer {
  const dir = new URL('../../node_modules/htmlparser-benchmark/files/', import.meta.url);
  const names = readdirSync(dir).sort().slice(0, pages);
  const parts: Buffer[] = [];
  let id = 0;
  const record = (type: string, uri: string, block: Buffer): void => {
    const head = `WARC/1.0\r\nWARC-Type: ${type}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-9000-${String(++id).padStart(12, '0')}>\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: ${uri}\r\nContent-Type: application/http; msgtype=${type}\r\nContent-Length: ${block.length}\r\n\r\n`;
    parts.push(gzipSync(Buffer.concat([Buffer.from(head), block, Buffer.from('\r\n\r\n')])));
  };
  names.forEach((name, i) => {
    const uri = `https://site${i % 3}.example/s/${name.slice(0, 12)}/index.html`;
    record('request', uri, Buffer.from(`GET /s/ HTTP/1.1\r\nHost: example\r\n\r\n`));
    const page = readFileSync(new URL(name, dir));
    const body = i % 3 === 0 ? gzipSync(page) : page;
    const headers = ['Content-Type: text/html; charset=utf-8', ...(i % 3 === 0 ? ['Content-Encoding: gzip'] : []), `Content-Length: ${body.length}`];
    record('response', uri, Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\n${headers.join('\r\n')}\r\n\r\n`), body]));
    record('response', `${uri}.png`, Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n'), Buffer.alloc(2000 + i, i)]));
  });
  return Buffer.concat(parts);
}

describe('a crawl with and without a report, in this thread and on a worker: the same bytes and summary', () => {
  const bytes = crawl(40);
  const run = async (options: WarcRewriteOptions): Promise<{ output: Buffer; summary: unknown }> => {
    let n = 0;
    const out: Buffer[] = [];
    // In pieces of 64 KiB, as a file is read.
    const gen = rewriteWarcChunks((async function* () {
      for (let i = 0; i < bytes.length; i += 65536) yield bytes.subarray(i, i + 65536);
    })(), { newRecordId: () => `<urn:uuid:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}>`, now: '2026-01-01T00:00:00Z', ...options });
    for (;;) {
      const r = await gen.next();
      if (r.done === true) return { output: Buffer.concat(out), summary: r.value };
      out.push(r.value);
    }
  };
  test('threads 0 and 1, onLink or none', async () => {
    const reference = await run({ onLink: () => {} });
    expect((reference.summary as { rewritten: number }).rewritten).toBeGreaterThan(30);
    for (const options of [{}, { threads: 1 }, { threads: 1, onLink: () => {} }, { threads: 2 }] as WarcRewriteOptions[]) {
      const other = await run(options);
      expect(other.summary).toEqual(reference.summary);
      expect(other.output.equals(reference.output)).toBe(true);
    }
  }, 120_000);
});

describe('a block lent to a worker (its member holds it alone) comes back for what the reader thread still does', () => {
  // Pages twice the size of Buffer's pool (64 KiB in Node 24), so that their blocks are lent (rewriter.ts); half have nothing to rewrite
  // (copied: the returned block's HTTP head is then read for its Link header), half have a relative link.
  const parts: Buffer[] = [];
  for (let i = 0; i < 24; i++) {
    const links = i % 2 === 0 ? '<a href="https://example.org/abs">a</a>' : '<a href="rel/page.html">r</a>';
    const html = Buffer.from(`<!doctype html><title>t${i}</title>${links}<p>${'filler text '.repeat(Math.ceil((2 * Buffer.poolSize) / 12) + i)}</p>`);
    const block = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nLink: <style${i}.css>; rel=stylesheet\r\nContent-Length: ${html.length}\r\n\r\n`), html]);
    const head = `WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-9000-${String(i).padStart(12, '0')}>\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: https://example.com/d${i}/index.html\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${block.length}\r\n\r\n`;
    parts.push(gzipSync(Buffer.concat([Buffer.from(head), block, Buffer.from('\r\n\r\n')])));
  }
  const bytes = Buffer.concat(parts);
  const run = async (options: WarcRewriteOptions): Promise<{ output: Buffer; summary: unknown; lines: unknown[] }> => {
    let n = 0;
    const out: Buffer[] = [];
    const lines: unknown[] = [];
    const gen = rewriteWarcChunks((async function* () {
      for (let i = 0; i < bytes.length; i += 65536) yield bytes.subarray(i, i + 65536);
    })(), { newRecordId: () => `<urn:uuid:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}>`, now: '2026-01-01T00:00:00Z', onLink: (l) => lines.push(l), ...options });
    for (;;) {
      const r = await gen.next();
      if (r.done === true) return { output: Buffer.concat(out), summary: r.value, lines };
      out.push(r.value);
    }
  };
  test.each([{}, { rewriteHeaderReferences: true }, { output: 'conversion' }] as WarcRewriteOptions[])('%j: the same bytes, summary and lines on a worker as in this thread', async (options) => {
    const inline = await run(options);
    expect((inline.summary as { rewritten: number }).rewritten).toBeGreaterThan(10);
    const threaded = await run({ ...options, threads: 1 });
    // New record ids are made in another order on a worker (a job's when it starts, a header pass's when its
    // record is written), so they are numbered by where they first appear.
    const numbered = (text: string): string => {
      const ids = new Map<string, number>();
      return text.replace(/<urn:uuid:[0-9a-f-]+>/g, (id) => `<id ${ids.get(id) ?? ids.set(id, ids.size).size - 1}>`);
    };
    const { bytesOut: _inlineOut, ...inlineSummary } = inline.summary as { bytesOut: number };
    const { bytesOut: _threadedOut, ...threadedSummary } = threaded.summary as { bytesOut: number };
    expect(threadedSummary).toEqual(inlineSummary);
    expect(numbered(JSON.stringify(threaded.lines))).toBe(numbered(JSON.stringify(inline.lines)));
    expect(numbered(gunzipSync(threaded.output).toString('latin1'))).toBe(numbered(gunzipSync(inline.output).toString('latin1')));
  }, 60_000);
});
