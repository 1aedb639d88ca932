/**
 * Our WARC output read by a second reader that shares no code with us, in another language: warc_read.py (Python's
 * zlib, hashlib and base64, doing what warcio's `check` and jwarc's `validate` do for framing and digests; jwarc
 * cannot be installed on a fresh machine here, and warcio itself reads the same outputs in warcio-python.test.ts).
 * For every corpus file we rewrite:
 * - the output has as many records as npm warcio reads (where the input reads clean), one gzip member each where
 *   the input had one each;
 * - every record we wrote (an id the input does not have) is whole, has a block digest, and its digests hold;
 * - a record cut short or whose digest fails in the output is a copy of one that does in the input (same id);
 * - every metadata record we wrote refers to a record of the output.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { PYTHON } from '../mime/differential/harness.ts';
import { CORPUS_DIR, corpusFiles, pythonRecords, readCorpus, readWithWarcio, runWarc } from './helpers.ts';

const SCRIPT = fileURLToPath(new URL('warc_read.py', import.meta.url));
/** As in corpus.test.ts: the one corpus file that cannot be read (an ARC record longer than the file). */
const FAILING = new Set<string>();

interface PyRecord {
  readonly offset: number;
  readonly id: string | null;
  readonly type: string | null;
  readonly refersTo: string | null;
  readonly whole: boolean;
  /** The block is followed by CRLF CRLF (or LF LF). */
  readonly trailer: boolean;
  /** A metadata record of ours keeping bytes that were no record (`X-Absolutize-Unparsed`). */
  readonly unparsed: boolean;
  readonly block: boolean | null;
  readonly payload: boolean | null;
}

function readWithPython(path: string): { records: PyRecord[]; gaps: number } {
  const { records, summary } = pythonRecords<PyRecord, { records: number; gaps: number }>(PYTHON, SCRIPT, path);
  return { records, gaps: summary.gaps };
}

/** Cut short, or a digest that does not hold (a revisit's payload digest names its original's payload). */
const failed = (r: PyRecord): boolean => !r.whole || r.block === false || (r.payload === false && r.type !== 'revisit');

const tmp = mkdtempSync(join(tmpdir(), 'abs-warc-py-'));
/** Files whose record counts were compared (the input read clean). */
let counted = 0;
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('read back by an independent Python reader', () => {
  test.each(corpusFiles().filter((f) => !FAILING.has(f)))('%s', async (name) => {
    const input = readCorpus(name);
    const { output, summary } = await runWarc([input]);
    const outPath = join(tmp, `${name.replace('/', '_')}.out`);
    writeFileSync(outPath, output);
    const out = readWithPython(outPath);
    const isArc = summary.format === 'arc';
    const read = isArc ? { records: [], gaps: 0 } : readWithPython(CORPUS_DIR + name);
    const inRecords = read.records;

    // As many records as npm warcio reads, where the input reads clean (readers part ways on a malformed record).
    if (read.gaps === 0 && inRecords.every((r) => r.whole)) {
      expect(out.records).toHaveLength((await readWithWarcio(output)).length);
      counted++;
    }
    // One gzip member a record where the input had one a record (a whole-file gzip input stays one member where nothing changed).
    const perRecord = (records: readonly PyRecord[]): boolean => new Set(records.map((r) => r.offset)).size === records.length;
    if (summary.compressed === true && perRecord(inRecords)) expect(perRecord(out.records)).toBe(true);

    const inIds = new Map(inRecords.filter((r) => r.id !== null).map((r) => [r.id!, r]));
    const outIds = new Set(out.records.map((r) => r.id));
    for (const r of out.records) {
      const original = r.id === null ? undefined : inIds.get(r.id);
      if (original === undefined) {
        // Ours: whole, digests present and right.
        expect({ id: r.id, type: r.type, whole: r.whole, trailer: r.trailer, block: r.block, payload: r.payload === false ? false : 'ok' }).toEqual({ id: r.id, type: r.type, whole: true, trailer: true, block: true, payload: 'ok' });
        if (r.type === 'metadata' && r.refersTo !== null) expect(outIds.has(r.refersTo)).toBe(true);
      } else if (failed(r)) {
        expect(failed(original), `${r.id} fails in the output but not in the input`).toBe(true);
      }
    }
    // A record before a gap we keep (a wrong Content-Length left its block unended) is ended, so that the gap's
    // metadata record reads as a record of its own, not as the rest of it.
    out.records.forEach((r, i) => {
      if (out.records[i + 1]?.unparsed === true) expect({ id: r.id, trailer: r.trailer }).toEqual({ id: r.id, trailer: true });
    });
    // Something was checked: at least the warcinfo we write first.
    expect(out.records[0]!.type).toBe('warcinfo');
  });

  test('the record counts were compared on most files', () => {
    expect(counted).toBeGreaterThanOrEqual(20);
  });
});
