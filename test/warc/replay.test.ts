/**
 * Checked the way replay reads a crawl: a Heritrix/warcio-layout crawl (crawl.ts) rewritten, its output indexed
 * as pywb's cdxj-indexer indexes it (cdxj.ts), and every revisit and every WARC-Concurrent-To / WARC-Refers-To
 * resolved in it. Then the same crawl cut short at every 1/20 of its length: exit status 3 (partial), the output
 * read to its end by npm warcio and by the Python reader (warc_read.py), holding every record that was whole.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { PYTHON } from '../mime/differential/harness.ts';
import { CLI } from '../helpers/cli.ts';
import { indexCdxj, resolveRevisit } from './cdxj.ts';
import { generateCrawl } from './crawl.ts';
import { readWithWarcio, runWarc } from './helpers.ts';

const crawl = generateCrawl();
const tmp = mkdtempSync(join(tmpdir(), 'abs-warc-replay-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a Heritrix/warcio-layout crawl, indexed as pywb indexes it', () => {
  test('the generated crawl itself resolves (the check is sound)', async () => {
    const index = await indexCdxj(crawl.bytes);
    for (const r of index.references) expect(index.ids.has(r.to), `${r.field} ${r.to}`).toBe(true);
    const revisits = index.entries.filter((e) => e.type === 'revisit');
    expect(revisits).toHaveLength(13);
    for (const r of revisits) expect(resolveRevisit(index, r), r.url).not.toBeNull();
  });

  test('replace: every revisit and every Concurrent-To/Refers-To resolves to the replacement; revisits replay its payload whole', async () => {
    const { output, summary, lines } = await runWarc([crawl.bytes]);
    // 12 pages, the 404 page and the HTML resource: every HTML a browser renders.
    expect(summary).toMatchObject({ rewritten: 14, partial: false });
    const index = await indexCdxj(output);
    const inputIds = new Set(crawl.records.map((r) => r.id));
    // Every reference names a record of the output (40 Concurrent-To of requests and metadata, 5 Refers-To).
    expect(index.references.length).toBeGreaterThan(60);
    for (const r of index.references) expect(index.ids.has(r.to), `${r.from} ${r.field} ${r.to}`).toBe(true);
    const rewritten = new Set(lines.filter((l) => l.kind === 'record' && l.action === 'rewritten').map((l) => (l.kind === 'record' ? l.newRecordId : null)));
    for (const r of index.references) {
      // A reference to a page names its replacement, never the original it replaced.
      if (index.ids.get(r.to) === 'response' && r.to.startsWith('<urn:uuid:6a0c')) expect(rewritten.has(r.to)).toBe(false);
    }
    const revisits = index.entries.filter((e) => e.type === 'revisit');
    expect(revisits).toHaveLength(13);
    for (const revisit of revisits) {
      const original = resolveRevisit(index, revisit);
      expect(original, `revisit of ${revisit.url}`).not.toBeNull();
      if (revisit.refersTo !== null) expect(original!.id).toBe(revisit.refersTo);
      if (revisit.status === '301') continue;
      // The original is the replacement (an id of ours), and the revisit's head frames its payload.
      expect(inputIds.has(original!.id!)).toBe(false);
      expect(revisit.http?.get('content-length')).toBe(String(original!.payloadLength));
      expect(revisit.http?.has('content-encoding')).toBe(false);
    }
    // Flagged, whichever way they name their original; the revisit of the redirect gives its redirect edge.
    const revisitLines = lines.filter((l) => l.kind === 'record' && l.warcType === 'revisit');
    expect(revisitLines.map((l) => l.kind === 'record' && l.revisitOfRewritten)).toEqual([...Array<boolean>(12).fill(true), false]);
    expect(lines.filter((l) => l.kind === 'redirect').map((l) => [l.status, l.resolved])).toEqual([
      [301, 'http://example.org/d0/p0.html'],
      [301, 'http://example.org/d0/p0.html'],
    ]);
  });

  test('past maxWarcReplacedIds, references to later replaced records are copied as they were, with one warning', async () => {
    const { output, warnings } = await runWarc([crawl.bytes], { warcLimits: { maxWarcReplacedIds: 2 } });
    expect(warnings.filter((w) => w.message.includes('maxWarcReplacedIds'))).toHaveLength(1);
    const index = await indexCdxj(output);
    const dangling = index.references.filter((r) => !index.ids.has(r.to));
    // The first two pages' requests and metadata name their replacements; later ones name originals no longer there.
    expect(dangling.length).toBeGreaterThan(0);
    const firstPage = crawl.records.find((r) => r.type === 'response')!.id;
    expect(index.references.some((r) => r.to === firstPage)).toBe(false);
  });

  test('conversion: the originals stay, every revisit and reference resolves as it did', async () => {
    const { output } = await runWarc([crawl.bytes], { output: 'conversion' });
    const index = await indexCdxj(output);
    for (const r of index.references) expect(index.ids.has(r.to)).toBe(true);
    for (const revisit of index.entries.filter((e) => e.type === 'revisit')) expect(resolveRevisit(index, revisit)).not.toBeNull();
  });
});

const SCRIPT = fileURLToPath(new URL('warc_read.py', import.meta.url));

describe('the crawl cut short at every 1/20 of its length', () => {
  test.each(Array.from({ length: 19 }, (_, i) => i + 1))('cut at %i/20', async (k) => {
    const cut = Math.floor((crawl.bytes.length * k) / 20);
    const input = join(tmp, `cut-${k}.warc.gz`);
    writeFileSync(input, crawl.bytes.subarray(0, cut));
    const out = join(tmp, `cut-${k}.out.warc.gz`);
    const r = spawnSync(process.execPath, [CLI, input, '-o', out, '--links', `${out}.jsonl`], { encoding: 'utf8', timeout: 120_000 });
    expect(r.error).toBeUndefined();
    // Cut on a member boundary the input is a whole (shorter) crawl; everywhere else it is partial.
    let end = 0;
    const whole: string[] = [];
    for (const rec of crawl.records) {
      if (end + rec.bytes.length > cut) break;
      end += rec.bytes.length;
      whole.push(rec.id);
    }
    expect(r.status, r.stderr).toBe(end === cut ? 0 : 3);
    if (end !== cut) expect(r.stderr).toContain('[ABS_ERR_WARC_PARTIAL]');
    const output = readFileSync(out);
    const warcio = await readWithWarcio(output);
    const python = execFileSync(PYTHON, [SCRIPT, out], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l) as { id?: string; whole?: boolean; block?: boolean | null; records?: number; gaps?: number });
    const pySummary = python.pop()!;
    expect(pySummary).toMatchObject({ records: warcio.length, gaps: 0 });
    expect(python.every((p) => p.whole === true && p.block !== false)).toBe(true);
    // Every record whole in the input is there: as it was, or replaced (its metadata record names it).
    const ids = new Set(warcio.map((x) => x.id));
    const replaced = new Set(warcio.filter((x) => x.type === 'metadata').map((x) => /absolutize-original-record-id: (\S+)/.exec(Buffer.from(x.block).toString('latin1'))?.[1]));
    expect(whole.filter((id) => !ids.has(id) && !replaced.has(id))).toEqual([]);
    // And every reference in it resolves.
    const index = await indexCdxj(output);
    const dangling = index.references.filter((x) => !index.ids.has(x.to));
    expect(dangling).toEqual([]);
  });
});
