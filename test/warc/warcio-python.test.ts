/**
 * warcio itself, the Python WARC library replay and crawl tools are built on (bench/vendor/warcio, 1.8.1 unchanged),
 * against our WARC output and as the bench's peer:
 * - every corpus file we rewrite reads to its end in warcio with digests checked (`warcio check`'s way) wherever the
 *   input does, with every record warcio read in the input; every record we wrote has digests that warcio finds
 *   right, and a record whose digest fails in the output fails in the input too; the offset and length warcio gives
 *   each record (what a CDX index holds) are one gzip member, or the record alone, holding that record;
 * - the bench's warcio job (bench/warcio_job.py, the yardstick of docs/performance.md's crawl row) runs here and
 *   does its job: every record written again, the HTML's links made absolute, read back by our reader.
 * Run by Debian's python3 (`/usr/bin/python3`, with python3-lxml and python3-six, which .ci/run installs), as the bench.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CORPUS_DIR, corpusFiles, pythonRecords, readCorpus, runWarc, units } from './helpers.ts';

/** The bench's interpreter (bench/warc.ts), not the MIME harness's `python3`: Debian's, where python3-lxml and -six are. */
const PYTHON = process.env['BENCH_PYTHON'] ?? '/usr/bin/python3';
const CHECK = fileURLToPath(new URL('warcio_check.py', import.meta.url));
const JOB = fileURLToPath(new URL('../../bench/warcio_job.py', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/crawl.warc.gz', import.meta.url));

interface Checked {
  readonly offset: number;
  readonly length: number;
  readonly id: string | null;
  readonly type: string;
  readonly uri: string | null;
  /** Whether warcio found the record's digests right; null where it checked none. */
  readonly passed: boolean | null;
  readonly problems: string[];
}

function warcioCheck(path: string): { records: Checked[]; error: string | null } {
  const { records, summary } = pythonRecords<Checked, { records: number; error: string | null }>(PYTHON, CHECK, path);
  return { records, error: summary.error };
}

const tmp = mkdtempSync(join(tmpdir(), 'abs-warcio-py-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => {
  try {
    execFileSync(PYTHON, ['-c', 'import lxml, six'], { stdio: 'pipe' });
  } catch {
    throw new Error(`${PYTHON} lacks lxml or six: install Debian's python3-lxml and python3-six (.ci/run does)`);
  }
});
/** Files warcio read clean, in and out. */
let clean = 0;

describe('our output read by warcio, digests checked', () => {
  test.each(corpusFiles())('%s', async (name) => {
    const { output, summary } = await runWarc([readCorpus(name)]);
    const outPath = join(tmp, `${name.replace('/', '_')}.out`);
    writeFileSync(outPath, output);
    const input = warcioCheck(CORPUS_DIR + name);
    const out = warcioCheck(outPath);
    if (input.error === null) {
      expect(out.error).toBeNull();
      clean++;
    }
    // Where warcio and we both read the input clean, every record warcio read is in the output: as it was (its id),
    // or written anew under its type and URI (rewritten, or an ARC record converted: the file's header becomes a
    // warcinfo, spaces in its URL are percent-encoded). In a damaged input warcio accepts what we keep as bytes in
    // metadata records (an ARC length of -1 or "abc").
    if (input.error === null && !summary.partial) {
      const key = (type: string, uri: string | null): string => `${type} ${uri?.replaceAll(' ', '%20') ?? null}`;
      const outIds = new Set(out.records.map((r) => r.id));
      const outKeys = new Set(out.records.map((r) => key(r.type, r.uri)));
      for (const r of input.records) {
        const converted = r.type === 'arc_header' ? key('warcinfo', null) : key(r.type, r.uri);
        expect(outIds.has(r.id) || outKeys.has(converted), `${r.type} ${r.id} ${r.uri}`).toBe(true);
      }
    }
    // Ids may repeat (a corpus file holds one record four times, one of them with a wrong digest).
    const inPassed = new Map<string | null, Array<boolean | null>>();
    for (const r of input.records) inPassed.set(r.id, [...(inPassed.get(r.id) ?? []), r.passed]);
    for (const r of out.records) {
      const original = r.id === null ? undefined : inPassed.get(r.id);
      if (original === undefined) {
        // Ours: warcio finds its digests right (a revisit's payload digest names its original's, so warcio leaves it).
        expect({ id: r.id, passed: r.passed === false ? r.problems : 'ok' }).toEqual({ id: r.id, passed: 'ok' });
        if (r.type === 'response' || r.type === 'resource') expect(r.passed, `${r.id} has digests`).toBe(true);
      } else if (r.passed === false) {
        expect(original.includes(false), `${r.id} fails in the output but not in the input`).toBe(true);
      }
    }
    // Indexed as replay indexes it: the byte range warcio gives each record (a CDX line's offset and length) is one
    // gzip member, or the record itself, that holds that record and no other. (Not where warcio cannot index the
    // input either: a whole file gzipped as one member stays one where nothing was rewritten.)
    if (input.error === null) for (const r of out.records) {
      const range = output.subarray(r.offset, r.offset + r.length);
      const bytes = summary.compressed === true ? gunzipSync(range) : range;
      const head = bytes.subarray(0, bytes.indexOf('\r\n\r\n')).toString('latin1');
      expect(head.startsWith('WARC/1.'), `${name} at ${r.offset}`).toBe(true);
      if (r.id !== null) expect(head).toContain(`WARC-Record-ID: ${r.id}`);
    }
    expect(summary.records).toBeGreaterThan(0);
  });

  test('most files were read clean in and out', () => {
    expect(clean).toBeGreaterThanOrEqual(30);
  });
});

describe("the bench's warcio job", () => {
  test('rewrites the example crawl: every record written again, the HTML links absolute', async () => {
    const outPath = join(tmp, 'example.warcio.warc.gz');
    const run = JSON.parse(execFileSync(PYTHON, [JOB, 'rewrite', EXAMPLE, outPath], { encoding: 'utf8' })) as { records: number; html: number };
    const input = await units(readFileSync(EXAMPLE));
    const output = await units(readFileSync(outPath));
    const records = (us: typeof input): number => us.flatMap((u) => u.items).filter((i) => i.kind === 'record').length;
    expect(run.records).toBe(records(input));
    expect(records(output)).toBe(records(input));
    expect(run.html).toBeGreaterThanOrEqual(1);
    // The example's guide page links `../css/site.css` from https://example.com/docs/guide/: warcio + lxml wrote it absolute.
    const text = gunzipSync(readFileSync(outPath)).toString('latin1');
    expect(text).toContain('href="https://example.com/docs/css/site.css"');
    expect(text).not.toContain('href="../css/site.css"');
    // And read back by warcio with its new digests right.
    const checked = warcioCheck(outPath);
    expect(checked.error).toBeNull();
    expect(checked.records.filter((r) => r.passed === false)).toEqual([]);
  });
});
