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
import { readCorpus, runWarc, units } from './helpers.ts';

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

describe('truncation is an error with a code', () => {
  test.each([
    ['a gzip member cut short', readCorpus('pywb/iana.warc.gz').subarray(0, 400_000)],
    ['a plain record cut short', PLAIN.subarray(0, 3000)],
    ['an LF-only ARC whose length counted CRLFs', readCorpus('warcio-py/example-space-in-url.arc')],
  ])('%s', async (name, bytes) => {
    for (const chunks of [[bytes], randomChunks(bytes, random, 5000)]) {
      await expect(runWarc(chunks)).rejects.toMatchObject({ code: 'ABS_ERR_WARC_TRUNCATED' });
    }
    expect(cli(name.replaceAll(' ', '-'), bytes)).toEqual({ status: 1, code: 'ABS_ERR_WARC_TRUNCATED' });
  });

  test('not a WARC or ARC at all', async () => {
    await expect(runWarc([Buffer.from('<html>not a warc</html>')])).rejects.toMatchObject({ code: 'ABS_ERR_WARC_FORMAT' });
    expect(cli('not-a-warc', Buffer.from('<html>not a warc</html>'))).toEqual({ status: 1, code: 'ABS_ERR_WARC_FORMAT' });
  });
});

describe('gaps are copied and reading resumes', () => {
  test('garbage between plain records', async () => {
    const records = await units(PLAIN);
    const garbage = Buffer.from('garbage line\r\nmore WARC/0.9 noise\r\n');
    const input = Buffer.concat([records[0]!.raw, records[1]!.raw, garbage, ...records.slice(2).map((u) => u.raw)]);
    for (const chunks of [[input], randomChunks(input, random, 300)]) {
      const { output, summary, warnings } = await runWarc(chunks, { warcinfo: false });
      expect(output.equals(input)).toBe(true);
      expect(summary.records).toBe(records.length);
      expect(warnings.map((w) => w.code)).toEqual(['warc-gap']);
    }
    expect(cli('garbage.warc', input).status).toBe(0);
  });

  test('garbage between gzip members, and a corrupt member', async () => {
    const members = await units(EXAMPLE);
    const corrupt = Buffer.from(members[2]!.raw);
    corrupt.fill(0x55, 20, 60);
    const input = Buffer.concat([members[0]!.raw, Buffer.from('junk between members'), members[1]!.raw, corrupt, ...members.slice(3).map((u) => u.raw)]);
    for (const chunks of [[input], randomChunks(input, random, 300)]) {
      const { output, summary, warnings } = await runWarc(chunks, { warcinfo: false });
      expect(output.equals(input)).toBe(true);
      expect(summary.records).toBe(members.length - 1);
      expect(warnings.map((w) => w.code)).toEqual(['warc-gap', 'warc-gap']);
    }
    expect(cli('junk.warc.gz', input).status).toBe(0);
  });

  test('gaps end where the bytes say, however they are chunked: a corrupt member, and junk longer than maxWarcHeaderBytes', async () => {
    const members = await units(EXAMPLE);
    // Corrupt right after the gzip header (zlib fails at once: the reader has not yet seen the next member).
    const corrupt = Buffer.from(members[1]!.raw);
    corrupt.fill(0x55, 12, 40);
    const junk = Buffer.alloc(150_000, 'j');
    const input = Buffer.concat([members[0]!.raw, corrupt, members[2]!.raw, junk, ...members.slice(3).map((u) => u.raw)]);
    const seen = (r: Awaited<ReturnType<typeof runWarc>>) => ({ gaps: r.summary.gaps, warnings: r.warnings.map((w) => `${w.code}@${w.offset}`), same: r.output.equals(input) });
    const whole = seen(await runWarc([input], { warcinfo: false }));
    expect(whole.same).toBe(true);
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
    expect(output.equals(input)).toBe(true);
    expect(summary.records).toBe(2);
    expect(warnings.map((w) => w.code)).toEqual(['warc-gap']);
  });

  test('a header that never ends, then a record', async () => {
    const input = Buffer.concat([Buffer.from('WARC/1.0\r\nX: '), Buffer.alloc(100_000, 'a'), Buffer.from('\r\n'), PLAIN]);
    const { output, summary } = await runWarc(randomChunks(input, random, 4096), { warcinfo: false });
    expect(output.equals(input)).toBe(true);
    expect(summary.records).toBe((await units(PLAIN)).length);
    expect(cli('endless-header.warc', input).status).toBe(0);
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
      expect(record).toMatchObject({ targetUri: 'http://example.com/a dir/page one.html', warcDate: '2014-01-02T03:04:05Z', action: 'rewritten' });
      expect(report.find((l) => l.kind === 'reference')).toMatchObject({ resolved: 'http://example.com/a%20dir/b%20c.html' });
      expect(output.toString('latin1').startsWith('WARC/1.0\r\n') || output[0] === 0x1f).toBe(true);
    }
    expect(cli('spaces.arc', arc).status).toBe(0);
  });
});
