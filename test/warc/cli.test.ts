/** The command line on WARC and ARC input, and the streaming library API. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, test } from 'vitest';
import { createWarcRewriter } from '../../src/index.ts';
import type { WarcLinkLine } from '../../src/index.ts';
import { CLI, runCli } from '../helpers/cli.ts';
import { CORPUS_DIR, readCorpus, readWithWarcio } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'abs-warc-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const IANA = `${CORPUS_DIR}pywb/iana.warc.gz`;

describe('absolutize on crawl files', () => {
  test('--links - without -o: the report only, one JSON line per reference, redirect and record', () => {
    // spawnSync itself: the report (3.5 MB) is more than runCli's default buffer.
    const r = spawnSync(process.execPath, [CLI, IANA, '--links', '-', '--link-keys'], { encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 26 });
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as WarcLinkLine);
    expect(lines.filter((l) => l.kind === 'record')).toHaveLength(343);
    expect(lines.filter((l) => l.kind === 'redirect')).toHaveLength(4);
    const keys = (rel: string[]): string[] => ['kind', 'document', 'warcRecordId', 'warcOffset', 'targetUri', 'warcDate', 'part', 'element', 'attribute', ...rel, 'raw', 'resolved', 'base', 'baseSource', 'line', 'column', 'changed', 'surt', 'normalized'];
    const references = lines.filter((l) => l.kind === 'reference');
    expect(Object.keys(references.find((l) => l.element === 'img')!)).toEqual(keys([]));
    // iana.org's pages link their stylesheets and icons with <link rel=…>: those lines carry it.
    const linked = references.find((l) => l.element === 'link' && 'rel' in l)!;
    expect(Object.keys(linked)).toEqual(keys(['rel']));
  });

  test('-o out.warc.gz: gzip in, gzip out, read back by warcio; --warc-output conversion keeps every original', () => {
    for (const model of ['replace', 'conversion']) {
      const out = join(tmp, `iana-${model}.warc.gz`);
      const r = runCli([IANA, '-o', out, '--warc-output', model]);
      expect(r.status).toBe(0);
      expect(readFileSync(out).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    }
    expect(runCli([IANA, '-o', join(tmp, 'x.warc.gz'), '--warc-output', 'other']).stderr).toContain('[ABS_ERR_USAGE]');
  });

  test('a crawl is never written over: -o or --links naming the input or each other, or in a missing folder, is refused before anything is written', () => {
    const input = join(tmp, 'guarded.warc');
    copyFileSync(`${CORPUS_DIR}pywb/example.warc`, input);
    const before = readFileSync(input);
    const refused = (args: string[], code: string, status: number): void => {
      const r = runCli([input, ...args]);
      expect(r.status, args.join(' ')).toBe(status);
      expect(r.stderr).toContain(`[${code}]`);
      expect(readFileSync(input)).toEqual(before);
    };
    refused(['-o', input], 'ABS_ERR_USAGE', 2);
    refused(['-o', join(tmp, 'guarded-out.warc'), '--links', input], 'ABS_ERR_USAGE', 2);
    refused(['-o', join(tmp, 'same.warc'), '--links', join(tmp, 'same.warc')], 'ABS_ERR_USAGE', 2);
    refused(['-o', join(tmp, 'missing', 'o.warc')], 'ABS_ERR_OUTPUT', 1);
    refused(['-o', join(tmp, 'guarded-out.warc'), '--links', join(tmp, 'missing', 'l.jsonl')], 'ABS_ERR_OUTPUT', 1);
    expect(existsSync(join(tmp, 'guarded-out.warc'))).toBe(false);
    expect(existsSync(join(tmp, 'same.warc'))).toBe(false);
  });

  test('ARC in, WARC out', async () => {
    const out = join(tmp, 'example.warc.gz');
    expect(runCli([`${CORPUS_DIR}pywb/example.arc.gz`, '-o', out]).status).toBe(0);
    const records = await readWithWarcio(readFileSync(out));
    expect(records.map((r) => r.type)).toEqual(['warcinfo', 'warcinfo', 'response']);
    expect(records[2]!.targetUri).toBe('http://example.com/');
    // The ARC's filedesc record as a warcinfo: its name as WARC-Filename; no WARC-Target-URI or WARC-IP-Address,
    // which WARC 1.1 does not allow on a warcinfo (jwarc's `validate` rejected the file that had them).
    const filedesc = records[1]!.headers;
    expect(filedesc.get('warc-filename')).toBe('live-web-example.arc.gz');
    expect(filedesc.has('warc-target-uri')).toBe(false);
    expect(filedesc.has('warc-ip-address')).toBe(false);
  });

  test('a WARC is known by its first bytes whatever its name', async () => {
    const path = join(tmp, 'crawl.dat');
    copyFileSync(`${CORPUS_DIR}warcio-py/example-iana.org-chunked.warc`, path);
    const r = runCli([path, '-o', join(tmp, 'crawl.out')]);
    expect(r.status).toBe(0);
    const records = await readWithWarcio(readFileSync(join(tmp, 'crawl.out')));
    expect(records.map((x) => x.type)).toEqual(['warcinfo', 'warcinfo', 'response', 'metadata', 'request']);
  });

  test('a directory of crawl files with --jobs: each rewritten, other files copied, reports in path order', () => {
    const dir = join(tmp, 'crawls');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    copyFileSync(IANA, join(dir, 'a.warc.gz'));
    // (Not pywb/example.warc: its Content-Length is 7 bytes short, a damaged crawl — a failed input of the run.)
    copyFileSync(`${CORPUS_DIR}warcio-py/example-iana.org-chunked.warc`, join(dir, 'sub', 'b.warc'));
    writeFileSync(join(dir, 'notes.txt'), 'not a crawl');
    const out = join(tmp, 'crawls-out');
    const r = runCli([dir, '-o', out, '--jobs', '2', '--links', join(tmp, 'dir.jsonl')]);
    expect(r.status).toBe(0);
    expect(existsSync(join(out, 'a.warc.gz')) && existsSync(join(out, 'sub', 'b.warc'))).toBe(true);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('not a crawl');
    const docs = readFileSync(join(tmp, 'dir.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { document: string }).document);
    expect([...new Set(docs)]).toEqual([join(dir, 'a.warc.gz'), join(dir, 'sub', 'b.warc')]);
  });
});

describe('createWarcRewriter', () => {
  test('a Node Duplex: bytes in, WARC out, a summary when done', async () => {
    const lines: WarcLinkLine[] = [];
    const stream = createWarcRewriter({ onLink: (l) => lines.push(l) });
    const out: Buffer[] = [];
    await pipeline(Readable.from([readCorpus('jwarc/cc.warc.gz')]), stream, new Writable({ write: (c: Buffer, _e, cb) => (out.push(c), cb()) }));
    const summary = await stream.summary;
    expect(summary).toMatchObject({ format: 'warc', compressed: true, records: 1, rewritten: 1, references: 11 });
    expect(summary.bytesOut).toBe(Buffer.concat(out).length);
    expect((await readWithWarcio(Buffer.concat(out))).map((r) => r.type)).toEqual(['warcinfo', 'response', 'metadata']);
    expect(lines.filter((l) => l.kind === 'reference' && l.raw.startsWith('//'))).toHaveLength(8);
  });
});
