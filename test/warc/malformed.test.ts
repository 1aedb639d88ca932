/**
 * Malformed input never hangs and never loses bytes: a truncated member or record is an error with a code;
 * garbage between records, a wrong Content-Length, a corrupt member are copied as gaps (with a warning) and
 * reading resumes at the next record. Each input also goes through the CLI under a watchdog.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.ts';
import { randomChunks, seededRandom } from '../helpers/chunks.ts';
import { readCorpus, readWithWarcio, runWarc, units } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'abs-warc-bad-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The CLI on `bytes` under a 30 s watchdog: exit status and the error code, if any. */
function cli(name: string, bytes: Buffer): { status: number | null; code: string | null } {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  const r = spawnSync(process.execPath, [CLI, path, '--type', 'warc', '-o', `${path}.out`], { encoding: 'utf8', timeout: 300_000 });
  expect(r.error).toBeUndefined(); // ETIMEDOUT: the watchdog fired
  return { status: r.status, code: /error \[(ABS_ERR_[A-Z_]+)\]/.exec(r.stderr)?.[1] ?? null };
}

const EXAMPLE = readCorpus('pywb/example.warc.gz');
const PLAIN = readCorpus('warcio-py/example.warc');
const random = seededRandom(12);

describe('a damaged input is salvaged: every whole record written, exit status 3 (partial)', () => {
  /** Records of the output as npm warcio reads them, without our warcinfo (the first) and the metadata records of gaps. */
  const salvaged = async (output: Buffer): Promise<Array<string | null>> => (await readWithWarcio(output)).slice(1).filter((r) => !r.headers.has('x-absolutize-unparsed')).map((r) => r.id);
  const wholeIds = async (bytes: Buffer, cut: number): Promise<Array<string | null>> => {
    // The records whole in the first `cut` bytes: those of units that end within them.
    return (await units(bytes)).filter((u) => u.offset + u.raw.length <= cut).flatMap((u) => u.items.flatMap((i) => (i.kind === 'record' ? [i.header.fields.find(([n]) => n === 'WARC-Record-ID')?.[1] ?? null] : [])));
  };
  test.each([
    ['a gzip member cut short', readCorpus('pywb/iana.warc.gz'), 400_000],
    ['a plain record cut short', PLAIN, 3000],
    ['a plain file cut inside a header', PLAIN, 2600],
    ['a plain file cut inside the magic WARC/', PLAIN, 2570],
  ])('%s', async (name, whole, cut) => {
    const bytes = whole.subarray(0, cut);
    const expected = await wholeIds(whole, cut);
    expect(expected.length).toBeGreaterThan(1);
    for (const chunks of [[bytes], randomChunks(bytes, random, 5000)]) {
      const { output, summary, warnings } = await runWarc(chunks);
      expect(summary).toMatchObject({ partial: true, truncated: true });
      // Read to the end by warcio: each record whole in the input is there (a rewritten one under its new id,
      // which the metadata record after it names); the damaged tail is in a metadata record of its own.
      const ids = await salvaged(output);
      const records = await readWithWarcio(output);
      const originals = new Set(records.filter((r) => r.type === 'metadata').map((r) => /absolutize-original-record-id: (\S+)/.exec(Buffer.from(r.block).toString('latin1'))?.[1]));
      expect(expected.filter((id) => !ids.includes(id) && !originals.has(id!))).toEqual([]);
      expect(records.filter((r) => r.headers.has('x-absolutize-unparsed'))).toHaveLength(1);
      expect(warnings.map((w) => w.code)).toContain('warc-truncated');
      // A cut inside a header is not reported as a header over maxWarcHeaderBytes.
      expect(warnings.some((w) => w.message.includes('maxWarcHeaderBytes'))).toBe(false);
    }
    expect(cli(name.replace(/[^a-z]+/gi, '-'), bytes)).toEqual({ status: 3, code: 'ABS_ERR_WARC_PARTIAL' });
  });

  test('an LF-only ARC whose length counted CRLFs is read to its end, as Python warcio reads it', async () => {
    const bytes = readCorpus('warcio-py/example-space-in-url.arc');
    for (const chunks of [[bytes], randomChunks(bytes, random, 500)]) {
      const { summary, warnings, lines } = await runWarc(chunks);
      // Its links are all absolute already: reported, nothing to change.
      expect(summary).toMatchObject({ partial: false, records: 2, rewritten: 0 });
      expect(warnings.map((w) => w.code)).toEqual(['warc-arc-length']);
      expect(lines.filter((l) => l.kind === 'reference').length).toBeGreaterThan(0);
    }
    expect(cli('crlf-counted.arc', bytes)).toEqual({ status: 0, code: null });
  });

  test('an LF-only ARC whose lengths counted CRLFs, mid-file: each record ends where the next starts', async () => {
    const body = (n: number): string => `HTTP/1.0 200 OK\nContent-Type: text/html\n\n<a href="p${n}.html">x</a>\n`;
    const crlfLength = (t: string): number => Buffer.byteLength(t) + (t.match(/\n/g) ?? []).length;
    const filedesc = '1 0 Example\nURL IP-address Archive-date Content-type Archive-length\n';
    const records = [1, 2, 3].map((n) => `http://example.com/d${n}/ 192.0.2.1 20140102030405 text/html ${crlfLength(body(n))}\n${body(n)}\n`);
    const arc = Buffer.from(`filedesc://x.arc 0.0.0.0 20140101000000 text/plain ${filedesc.length}\n${filedesc}\n${records.join('')}`);
    for (const chunks of [[arc], randomChunks(arc, random, 40)]) {
      const { summary, lines, warnings } = await runWarc(chunks);
      expect(summary).toMatchObject({ partial: false, records: 4, rewritten: 3 });
      expect(lines.filter((l) => l.kind === 'reference').map((l) => l.resolved)).toEqual([1, 2, 3].map((n) => `http://example.com/d${n}/p${n}.html`));
      expect(warnings.map((w) => w.code)).toEqual(['warc-arc-length', 'warc-arc-length', 'warc-arc-length']);
    }
  });

  test('an ARC cut short', async () => {
    const bytes = readCorpus('pywb/example.arc').subarray(0, 600);
    const { summary, output } = await runWarc([bytes]);
    expect(summary).toMatchObject({ partial: true, truncated: true, records: 1 });
    expect((await readWithWarcio(output)).map((r) => r.type)).toEqual(['warcinfo', 'warcinfo', 'metadata']);
    expect(cli('cut.arc', bytes)).toEqual({ status: 3, code: 'ABS_ERR_WARC_PARTIAL' });
  });

  test('not a WARC or ARC at all, whatever its name: plain, or gzipped HTML named .warc.gz', async () => {
    const html = Buffer.from('<html><a href="x">not a warc</a></html>');
    for (const bytes of [html, gzipSync(html)]) {
      await expect(runWarc([bytes])).rejects.toMatchObject({ code: 'ABS_ERR_WARC_FORMAT' });
      expect(cli('page.warc.gz', bytes)).toEqual({ status: 1, code: 'ABS_ERR_WARC_FORMAT' });
    }
  });
});

/**
 * The output split in two: its units without the metadata records that keep gaps (which should be the input
 * without them, byte for byte), and the bytes those records keep.
 */
async function splitGaps(output: Buffer): Promise<{ rest: Buffer; gaps: Buffer[] }> {
  const rest: Buffer[] = [];
  const gaps: Buffer[] = [];
  for (const u of await units(output)) {
    const item = u.items[0];
    if (u.items.length === 1 && item?.kind === 'record' && item.header.fields.some(([n]) => n === 'X-Absolutize-Unparsed')) gaps.push(item.block);
    else rest.push(u.raw);
  }
  return { rest: Buffer.concat(rest), gaps };
}

describe('gaps are kept in metadata records and reading resumes', () => {
  test('garbage between plain records', async () => {
    const records = await units(PLAIN);
    const garbage = Buffer.from('garbage line\r\nmore WARC/0.9 noise\r\n');
    const input = Buffer.concat([records[0]!.raw, records[1]!.raw, garbage, ...records.slice(2).map((u) => u.raw)]);
    for (const chunks of [[input], randomChunks(input, random, 300)]) {
      const { output, summary, warnings } = await runWarc(chunks, { warcinfo: false });
      expect(await splitGaps(output)).toEqual({ rest: Buffer.concat(records.map((u) => u.raw)), gaps: [garbage] });
      expect(summary).toMatchObject({ records: records.length, partial: true, truncated: false });
      expect(warnings.map((w) => w.code)).toEqual(['warc-gap']);
    }
    expect(cli('garbage.warc', input).status).toBe(3);
  });

  test('garbage between gzip members, and a corrupt member', async () => {
    const members = await units(EXAMPLE);
    const corrupt = Buffer.from(members[2]!.raw);
    corrupt.fill(0x55, 20, 60);
    const input = Buffer.concat([members[0]!.raw, Buffer.from('junk between members'), members[1]!.raw, corrupt, ...members.slice(3).map((u) => u.raw)]);
    for (const chunks of [[input], randomChunks(input, random, 300)]) {
      const { output, summary, warnings } = await runWarc(chunks, { warcinfo: false });
      const { rest, gaps } = await splitGaps(output);
      expect(rest.equals(Buffer.concat([members[0]!.raw, members[1]!.raw, ...members.slice(3).map((u) => u.raw)]))).toBe(true);
      expect(gaps).toEqual([Buffer.from('junk between members'), corrupt]);
      expect(summary.records).toBe(members.length - 1);
      expect(warnings.map((w) => w.code)).toEqual(['warc-gap', 'warc-gap']);
      expect((await readWithWarcio(output)).length).toBe(members.length + 1);
    }
    expect(cli('junk.warc.gz', input).status).toBe(3);
  });

  test('gaps end where the bytes say, however they are chunked: a corrupt member, and junk longer than maxWarcHeaderBytes', async () => {
    const members = await units(EXAMPLE);
    // Corrupt right after the gzip header (zlib fails at once: the reader has not yet seen the next member).
    const corrupt = Buffer.from(members[1]!.raw);
    corrupt.fill(0x55, 12, 40);
    const junk = Buffer.alloc(150_000, 'j');
    const input = Buffer.concat([members[0]!.raw, corrupt, members[2]!.raw, junk, ...members.slice(3).map((u) => u.raw)]);
    const seen = (r: Awaited<ReturnType<typeof runWarc>>) => ({ gaps: r.summary.gaps, warnings: r.warnings.map((w) => `${w.code}@${w.offset}`), output: r.output });
    const whole = seen(await runWarc([input], { warcinfo: false }));
    expect(Buffer.concat((await splitGaps(whole.output)).gaps).equals(Buffer.concat([corrupt, junk]))).toBe(true);
    // The corrupt member up to the next member, then the junk in pieces of maxWarcHeaderBytes (64 KiB): 1 + 3 gaps.
    expect(whole.warnings.filter((w) => w.startsWith('warc-gap'))).toHaveLength(4);
    for (const max of [7, 100, 1000, 70_000]) {
      for (let k = 0; k < 3; k++) expect(seen(await runWarc(randomChunks(input, random, max), { warcinfo: false }))).toEqual(whole);
    }
  });

  test('a Content-Length too short: the rest of the block is a gap, the next record is read', async () => {
    const block = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello world, this is the body';
    const bad = Buffer.from(`WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:x>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${block.length - 10}\r\n\r\n${block}\r\n\r\n`);
    const next = (await units(PLAIN))[1]!.raw;
    const input = Buffer.concat([bad, next]);
    const { output, summary, warnings } = await runWarc([input], { warcinfo: false });
    const { rest, gaps } = await splitGaps(output);
    // The short record as it was, ended by the CRLF CRLF WARC 1.1 §4 requires (the bytes that followed its block
    // are kept in the metadata record, not run into it: jwarc's validate read "invalid record trailer" before).
    expect(rest.equals(Buffer.concat([bad.subarray(0, bad.length - 14), Buffer.from('\r\n\r\n'), next]))).toBe(true);
    expect(Buffer.concat(gaps).equals(bad.subarray(bad.length - 14))).toBe(true);
    expect(summary.records).toBe(2);
    expect(warnings.map((w) => w.code)).toEqual(['warc-gap']);
  });

  test('a header that never ends, then a record', async () => {
    const input = Buffer.concat([Buffer.from('WARC/1.0\r\nX: '), Buffer.alloc(100_000, 'a'), Buffer.from('\r\n'), PLAIN]);
    const { output, summary } = await runWarc(randomChunks(input, random, 4096), { warcinfo: false });
    const { rest, gaps } = await splitGaps(output);
    expect(rest.equals(PLAIN)).toBe(true);
    expect(Buffer.concat(gaps).equals(input.subarray(0, input.length - PLAIN.length))).toBe(true);
    expect(summary.records).toBe((await units(PLAIN)).length);
    expect(cli('endless-header.warc', input).status).toBe(3);
  });

  test('a plain record larger than maxWarcRecordBytes is copied through in pieces, never held whole', async () => {
    const records = await units(PLAIN);
    const block = Buffer.alloc(50_000, 'x');
    const big = Buffer.concat([Buffer.from(`WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:big>\r\nWARC-Target-URI: http://example.com/video\r\nContent-Length: ${block.length}\r\n\r\n`), block, Buffer.from('\r\n\r\n')]);
    const input = Buffer.concat([records[0]!.raw, big, ...records.slice(1).map((u) => u.raw)]);
    for (const chunks of [[input], randomChunks(input, random, 3000)]) {
      const { output, summary, lines, warnings } = await runWarc(chunks, { warcinfo: false, warcLimits: { maxWarcRecordBytes: 10_000 } });
      expect(output.equals(input)).toBe(true);
      expect(summary.records).toBe(records.length + 1);
      expect(lines.find((l) => l.kind === 'record' && l.warcRecordId === '<urn:uuid:big>')).toMatchObject({ action: 'copied', targetUri: 'http://example.com/video' });
      expect(warnings.map((w) => w.code)).toEqual(['warc-record-not-rewritten']);
    }
    // Compressed, a member that large is an error with a code (it is inflated whole).
    await expect(runWarc([gzipSync(big)], { warcLimits: { maxWarcRecordBytes: 10_000 } })).rejects.toMatchObject({ code: 'ABS_ERR_LIMIT' });
  });

  test('members each under a small maxWarcRecordBytes are read from chunks far larger than it (the limit is the member\'s, not the chunk\'s)', async () => {
    // The CLI reads in 1 MiB chunks: a window holding many whole members, or the start of one, may be larger
    // than the limit while every member is within it.
    const records = await units(PLAIN);
    const members = records.map((u) => gzipSync(u.raw));
    const limit = Math.max(...records.map((u) => u.raw.length)) + 1024;
    const copies = Math.ceil((2 << 20) / members.reduce((n, m) => n + m.length, 0));
    const input = Buffer.concat(Array.from({ length: copies }, () => members).flat());
    expect(input.length).toBeGreaterThan(2 << 20);
    // The output under the default limits is the oracle: the small limit must change nothing.
    const expected = (await runWarc([input], { warcinfo: false })).output;
    for (const chunks of [[input], [input.subarray(0, 1 << 20), input.subarray(1 << 20)], randomChunks(input, random, 1 << 20)]) {
      const { output, summary, warnings } = await runWarc(chunks, { warcinfo: false, warcLimits: { maxWarcRecordBytes: limit } });
      expect(summary.records).toBe(records.length * copies);
      expect(warnings).toEqual([]);
      expect(output.equals(expected)).toBe(true);
    }
  });

  test('a whole-file gzip (one member, many records) is read, with a warning', async () => {
    const input = gzipSync(PLAIN);
    const { summary, warnings } = await runWarc([input]);
    expect(summary.records).toBe((await units(PLAIN)).length);
    expect(warnings.map((w) => w.code)).toContain('warc-multi-record-member');
  });
});

describe('ARC', () => {
  const lines = (s: string): string => s.replaceAll('\r\n', '\n');
  const body = lines('HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<a href="b c.html">x</a>');
  const filedesc = '1 0 Example\nURL IP-address Archive-date Content-type Archive-length\n';
  const arc = Buffer.from(`filedesc://x.arc 0.0.0.0 20140101000000 text/plain ${filedesc.length}\n${filedesc}\nhttp://example.com/a dir/page one.html 192.0.2.1 20140102030405 text/html ${body.length}\n${body}\n`);

  test('an LF-only ARC, its URL with spaces (header split from the right), becomes WARC and is rewritten', async () => {
    for (const chunks of [[arc], randomChunks(arc, random, 20), [gzipSync(arc)]]) {
      const { output, lines: report, summary } = await runWarc(chunks);
      expect(summary).toMatchObject({ format: 'arc', records: 2, rewritten: 1 });
      const record = report.find((l) => l.kind === 'record' && l.warcType === 'response');
      // The raw space of the ARC URL percent-encoded, as WARC 1.1 needs it in WARC-Target-URI (and as a browser reads it).
      expect(record).toMatchObject({ targetUri: 'http://example.com/a%20dir/page%20one.html', warcDate: '2014-01-02T03:04:05Z', action: 'rewritten' });
      expect((await readWithWarcio(output)).map((r) => r.targetUri)).toContain('http://example.com/a%20dir/page%20one.html');
      expect(report.find((l) => l.kind === 'reference')).toMatchObject({ resolved: 'http://example.com/a%20dir/b%20c.html' });
      expect(output.toString('latin1').startsWith('WARC/1.0\r\n') || output[0] === 0x1f).toBe(true);
    }
    expect(cli('spaces.arc', arc).status).toBe(0);
  });
});
