/**
 * Every file of ../shared/corpus/warc (35 files from pywb, warcio, warcio.js, jwarc) through the rewriter:
 * the CLI under a watchdog (exit 0 or a clear error code, never a hang); the output read back by npm warcio
 * with the record count we wrote and digests checked; every record not rewritten byte-identical; every
 * rewritten payload equal to what the one-document path makes of the decoded original.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { WARCParser } from 'warcio';
import { createCssRewriter } from '../../src/css/stream.ts';
import { absolutizeHtml, transformWhole } from '../../src/html/stream.ts';
import { parseContentType } from '../../src/http/content-type.ts';
import { parseHttpHead } from '../../src/warc/http-message.ts';
import { field } from '../../src/warc/record.ts';
import { sha1Digest } from '../../src/warc/writer.ts';
import { CLI } from '../helpers/cli.ts';
import { CORPUS_DIR, corpusFiles, readCorpus, readWithWarcio, runWarc, units } from './helpers.ts';
import { createKindRewriter, kindOfContentType } from '../../src/kinds/index.ts';

const FILES = corpusFiles();
/**
 * Damaged files: bytes that are no record (a Content-Length that is wrong, a record split over two gzip members,
 * an ARC header with length -1). Every whole record is written, the damage kept in metadata records, and the
 * exit status is 3 (partial).
 */
const FAILING: Record<string, string> = Object.fromEntries(['pywb/bad.arc', 'pywb/example.warc', 'warcio-js/example-bad-length.warc', 'warcio-py/example-trunc.warc', 'warcio-py/example-wrong-chunks.warc.gz'].map((f) => [f, 'ABS_ERR_WARC_PARTIAL']));
const OURS = /^<urn:uuid:00000000-0000-4000-8000-\d{12}>$/;

const tmp = mkdtempSync(join(tmpdir(), 'abs-warc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('the corpus is all there (35 files)', () => {
  expect(FILES).toHaveLength(35);
});

describe('the CLI on every corpus file, under a watchdog', () => {
  test.each(FILES)('%s', (name) => {
    const out = join(tmp, `${name.replace('/', '_')}.out`);
    const r = spawnSync(process.execPath, [CLI, CORPUS_DIR + name, '-o', out, '--links', `${out}.jsonl`], { encoding: 'utf8', timeout: 300_000 });
    // The watchdog: a run that does not end within 30 s is killed, and spawnSync reports ETIMEDOUT.
    expect(r.error).toBeUndefined();
    expect(r.signal).toBeNull();
    if (FAILING[name] === undefined) expect({ status: r.status, stderr: r.stderr.split('\n').filter((l) => l.includes('error')) }).toEqual({ status: 0, stderr: [] });
    else {
      expect(r.status).toBe(3);
      expect(r.stderr).toContain(`error [${FAILING[name]}]`);
    }
  });
});

describe.each(FILES)('%s', (name) => {
  const input = readCorpus(name);

  test('read back by warcio: the records we wrote, digests of new records verified', async () => {
    const { output, summary } = await runWarc([input]);
    const records = await readWithWarcio(output);
    // One warcinfo first, then every record read, and a metadata record after each rewritten one.
    // Bytes that were no record are each kept in a metadata record.
    expect(records).toHaveLength(1 + summary.records + summary.rewritten + summary.gaps);
    expect(records[0]!.type).toBe('warcinfo');
    for (const r of records.filter((x) => x.id !== null && OURS.test(x.id))) {
      expect(r.headers.get('warc-block-digest')).toBe(sha1Digest(r.block));
      if (r.type === 'response') {
        const head = parseHttpHead(Buffer.from(r.block))!;
        expect(r.headers.get('warc-payload-digest')).toBe(sha1Digest(r.block.subarray(head.length)));
      }
    }
  });

  test('with nothing rewritten and no new warcinfo, the output is the input byte for byte', async () => {
    const { output, summary } = await runWarc([input], { warcinfo: false });
    if (summary.rewritten === 0 && summary.format === 'warc' && !summary.partial) expect(output.equals(input)).toBe(true);
    else expect(summary.rewritten > 0 || summary.format === 'arc' || summary.partial).toBe(true);
  });

  test('every record not rewritten is byte-identical; every rewritten payload is what the one-document path makes of it', async () => {
    const { output, lines, summary } = await runWarc([input], { warcinfo: false });
    // ARC input: every record is written anew, as WARC (the ARC tests below).
    if (summary.format === 'arc') return;
    const inUnits = await units(input);
    const outUnits = await units(output);
    const actions = new Map(lines.filter((l) => l.kind === 'record').map((l) => [l.warcOffset, l]));
    let o = 0;
    for (const u of inUnits) {
      if (u.items.some((i) => i.kind === 'gap')) {
        // A unit with bytes that were no record: those kept, as they were, in a metadata record of their own; its
        // records (not rewritten here) each in a member of their own, their bytes as they were.
        for (const item of u.items) {
          const kept = outUnits[o]!.items[0]!;
          if (item.kind === 'gap') expect(kept.kind === 'record' && field(kept.header, 'X-Absolutize-Unparsed') !== undefined && kept.block.equals(item.bytes)).toBe(true);
          else expect(kept.bytes.equals(item.bytes)).toBe(true);
          o++;
        }
        continue;
      }
      const line = actions.get(u.offset);
      if (line?.kind === 'record' && line.action === 'copied' && line.reason.includes('written anew')) {
        // A record naming a replaced one (replace): written anew under its own id (relink.test.ts checks how).
        const out = outUnits[o]!.items[0]!;
        expect(out.kind === 'record' && field(out.header, 'WARC-Record-ID')).toBe(line.warcRecordId);
        o++;
        continue;
      }
      if (line === undefined || line.kind !== 'record' || line.action !== 'rewritten') {
        // As it was; a record whose block runs into bytes that are no record (a Content-Length too short) gets the
        // CRLF CRLF that ends it, so that the metadata record keeping those bytes reads as a record of its own.
        const next = inUnits[inUnits.indexOf(u) + 1];
        const ended = next?.items.some((i) => i.kind === 'gap') === true && !/(\r\n\r\n|\n\n)$/.test(u.raw.toString('latin1'));
        expect(outUnits[o]!.raw.equals(ended ? Buffer.concat([u.raw, Buffer.from('\r\n\r\n')]) : u.raw)).toBe(true);
        o++;
        continue;
      }
      const replaced = outUnits[o]!.items[0]!;
      const metadata = outUnits[o + 1]!.items[0]!;
      o += 2;
      expect(replaced.kind === 'record' && metadata.kind === 'record').toBe(true);
      if (replaced.kind !== 'record' || metadata.kind !== 'record') continue;
      expect(field(metadata.header, 'WARC-Type')).toBe('metadata');
      expect(field(metadata.header, 'WARC-Refers-To')).toBe(field(replaced.header, 'WARC-Record-ID'));
      expect(metadata.block.toString('latin1')).toContain(`absolutize-original-record-id: ${line.warcRecordId}`);
      // The original, decoded by warcio (de-chunked, content codings undone).
      const original = await new WARCParser([u.raw]).parse();
      const decoded = Buffer.from(await original!.readFully(true));
      const charset = parseContentType(original!.httpHeaders?.headers.get('content-type') ?? null).charset;
      const retrieval = { url: line.targetUri! };
      // SVG, XHTML, feeds, XML, manifests, JavaScript (issue 22): the rewriter src/kinds gives their type.
      const kind = kindOfContentType(parseContentType(line.contentType).essence);
      const expected = line.contentType?.toLowerCase().startsWith('text/css') === true
        ? { output: await transformWhole(createCssRewriter({ retrieval, charset }), decoded) }
        : kind !== null
          ? { output: await transformWhole(createKindRewriter(kind, { retrieval, charset }), decoded) }
          : await absolutizeHtml(decoded, { retrieval, charset });
      const head = parseHttpHead(replaced.block)!;
      expect(replaced.block.subarray(head.length).toString('latin1')).toBe(expected.output.toString('latin1'));
      expect(head.fields.find(([n]) => n.toLowerCase() === 'content-length')?.[1]).toBe(String(replaced.block.length - head.length));
      expect(head.fields.some(([n]) => /^content-encoding$|^transfer-encoding$/i.test(n))).toBe(false);
    }
    expect(o).toBe(outUnits.length);
  });
});
