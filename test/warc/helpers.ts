/** Shared by the WARC tests: the corpus files, running our rewriter in-process, reading with npm warcio. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { WARCParser } from 'warcio';
import { rewriteWarcChunks } from '../../src/warc/rewriter.ts';
import type { WarcLinkLine, WarcRewriteOptions, WarcSummary, WarcWarning } from '../../src/warc/rewriter.ts';
import { readWarc } from '../../src/warc/reader.ts';
import type { WarcUnit } from '../../src/warc/reader.ts';
import { DEFAULT_WARC_LIMITS } from '../../src/limits.ts';
import { sharedPath } from '../helpers/shared.ts';

export const CORPUS_DIR: string = sharedPath('corpus/warc/');

/** Every corpus file, as `folder/name`. */
export function corpusFiles(): string[] {
  return readdirSync(CORPUS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(CORPUS_DIR + d.name).map((f) => `${d.name}/${f}`))
    .sort();
}

export function readCorpus(name: string): Buffer {
  return readFileSync(CORPUS_DIR + name);
}

export interface RunResult {
  readonly output: Buffer;
  readonly summary: WarcSummary;
  readonly lines: WarcLinkLine[];
  readonly warnings: WarcWarning[];
}

/** Deterministic ids and date, so that two runs can be compared byte for byte. */
export function deterministic(): Pick<WarcRewriteOptions, 'newRecordId' | 'now'> {
  let n = 0;
  return { newRecordId: () => `<urn:uuid:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}>`, now: '2026-01-01T00:00:00Z' };
}

/** Our rewriter over `chunks`, everything collected. */
export async function runWarc(chunks: Iterable<Buffer>, options: WarcRewriteOptions = {}): Promise<RunResult> {
  const lines: WarcLinkLine[] = [];
  const warnings: WarcWarning[] = [];
  async function* source(): AsyncGenerator<Buffer> {
    yield* chunks;
  }
  const out: Buffer[] = [];
  const gen = rewriteWarcChunks(source(), { ...deterministic(), ...options, onLink: (l) => lines.push(l), onWarning: (w) => warnings.push(w) });
  for (;;) {
    const r = await gen.next();
    if (r.done === true) return { output: Buffer.concat(out), summary: r.value, lines, warnings };
    out.push(r.value);
  }
}

/** Our reader's units of a buffer. */
export async function units(bytes: Buffer): Promise<WarcUnit[]> {
  const out: WarcUnit[] = [];
  async function* one(): AsyncGenerator<Buffer> {
    yield bytes;
  }
  for await (const u of readWarc(one(), DEFAULT_WARC_LIMITS)) out.push(u);
  return out;
}

export interface WarcioRecord {
  readonly type: string | undefined;
  readonly id: string | null;
  readonly targetUri: string | null | undefined;
  readonly headers: Map<string, string>;
  /** The block as warcio reads it (raw, nothing decoded). */
  readonly block: Uint8Array;
}

/** npm warcio (the independent reader): every record, its block read raw. */
export async function readWithWarcio(bytes: Buffer): Promise<WarcioRecord[]> {
  const parser = new WARCParser([bytes], { parseHttp: false });
  const out: WarcioRecord[] = [];
  for await (const record of parser) {
    const block = await record.readFully(false);
    const headers = new Map<string, string>();
    for (const [k, v] of record.warcHeaders.headers as unknown as Iterable<[string, string]>) headers.set(k.toLowerCase(), v);
    out.push({ type: record.warcType ?? undefined, id: headers.get('warc-record-id') ?? null, targetUri: record.warcTargetURI, headers, block });
  }
  return out;
}

/** gunzip that takes several members (a whole .warc.gz). */
export function inflateAll(bytes: Buffer): Buffer {
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
}

/** RFC 4648 base32, as WARC digests are written. */
const b32 = (bytes: Buffer): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
};
export const sha1 = (b: Buffer): string => `sha1:${b32(createHash('sha1').update(b).digest())}`;

/** A WARC/1.0 record, as crawlers write them (digests computed with node:crypto, not with our writer). */
export function record(fields: Array<[string, string]>, block: Buffer): Buffer {
  const head = [`WARC/1.0`, ...fields.map(([n, v]) => `${n}: ${v}`), `Content-Length: ${block.length}`, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), block, Buffer.from('\r\n\r\n')]);
}

/** A response record holding an HTTP response (`head` with LF line ends, turned into CRLF). */
export function response(id: string, uri: string, head: string, body: Buffer, payload = body): Buffer {
  const block = Buffer.concat([Buffer.from(head.replace(/\n/g, '\r\n') + '\r\n', 'latin1'), body]);
  return record([['WARC-Type', 'response'], ['WARC-Record-ID', id], ['WARC-Date', '2026-01-02T03:04:05Z'], ['WARC-Target-URI', uri], ['Content-Type', 'application/http; msgtype=response'], ['WARC-Block-Digest', sha1(block)], ['WARC-Payload-Digest', sha1(payload)]], block);
}


/**
 * What a Python WARC reader of the tests prints for FILE (warc_read.py, warcio_check.py): one JSON line a record,
 * then a summary line whose `records` is their count (checked here).
 */
export function pythonRecords<R, S extends { records: number }>(python: string, script: string, file: string): { records: R[]; summary: S } {
  const lines = execFileSync(python, [script, file], { encoding: 'utf8', maxBuffer: 1 << 28 }).trim().split('\n').map((l) => JSON.parse(l) as unknown);
  const summary = lines.pop() as S;
  const records = lines as R[];
  expect(records).toHaveLength(summary.records);
  return { records, summary };
}
