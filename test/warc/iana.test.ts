/**
 * pywb's iana.warc.gz (343 records of www.iana.org, January 2014): its redirect chains as Location edges, its
 * revisits of rewritten originals, and the same output whatever the input's chunking.
 */
import { describe, expect, test } from 'vitest';
import { chunkings } from '../helpers/chunks.ts';
import { readCorpus, readWithWarcio, runWarc } from './helpers.ts';

const IANA = readCorpus('pywb/iana.warc.gz');

describe('iana.warc.gz', () => {
  test('the four redirects are Location edges resolved against their own Target-URI (two relative)', async () => {
    const { lines } = await runWarc([IANA]);
    const edges = lines.filter((l) => l.kind === 'redirect').map((l) => ({ from: l.targetUri, raw: l.raw, resolved: l.resolved, element: l.element, attribute: l.attribute }));
    expect(edges).toEqual([
      { from: 'http://www.iana.org/about/performance/ietf-statistics', raw: '/performance/ietf-statistics', resolved: 'http://www.iana.org/performance/ietf-statistics', element: null, attribute: 'Location' },
      { from: 'http://www.iana.org/about/performance/ietf-draft-status', raw: '/performance/ietf-draft-status', resolved: 'http://www.iana.org/performance/ietf-draft-status', element: null, attribute: 'Location' },
      { from: 'http://www.iana.org/domains/root/db/', raw: 'http://www.iana.org/domains/root/db', resolved: 'http://www.iana.org/domains/root/db', element: null, attribute: 'Location' },
      { from: 'http://www.iana.org/dnssec', raw: 'https://www.iana.org/dnssec', resolved: 'https://www.iana.org/dnssec', element: null, attribute: 'Location' },
    ]);
  });

  test('a revisit is reported revisitOfRewritten exactly when its original (Refers-To-Target-URI and -Date) or its payload (digest) was rewritten', async () => {
    const { lines } = await runWarc([IANA]);
    const records = lines.filter((l) => l.kind === 'record');
    const rewrittenLines = records.filter((r) => r.action === 'rewritten');
    const rewritten = new Set(rewrittenLines.map((r) => `${r.targetUri} ${r.warcDate}`));
    // What each revisit refers to, and the payload digests, read by warcio (the independent reader).
    const input = await readWithWarcio(IANA);
    const rewrittenIds = new Set(rewrittenLines.map((r) => r.warcRecordId));
    const rewrittenDigests = new Set(input.filter((r) => rewrittenIds.has(r.id)).map((r) => r.headers.get('warc-payload-digest')));
    const refers = new Map(input.filter((r) => r.type === 'revisit').map((r) => [r.id, `${r.headers.get('warc-refers-to-target-uri')} ${r.headers.get('warc-refers-to-date')}`]));
    const digests = new Map(input.filter((r) => r.type === 'revisit').map((r) => [r.id, r.headers.get('warc-payload-digest')]));
    const revisits = records.filter((r) => r.warcType === 'revisit');
    expect(revisits).toHaveLength(123);
    const flagged = revisits.filter((r) => r.revisitOfRewritten === true);
    expect(flagged.length).toBeGreaterThan(0);
    for (const r of revisits) expect(r.revisitOfRewritten).toBe(rewritten.has(refers.get(r.warcRecordId)!) || rewrittenDigests.has(digests.get(r.warcRecordId)));
  });

  test('every line of the report carries the record id, offset, Target-URI and date; every record has one record line', async () => {
    const { lines, summary } = await runWarc([IANA], { linkKeys: true });
    expect(lines.filter((l) => l.kind === 'record')).toHaveLength(343);
    expect(summary.records).toBe(343);
    for (const l of lines) {
      expect(typeof l.warcOffset).toBe('number');
      expect(l.warcRecordId).toMatch(/^<urn:uuid:/);
      if (l.kind !== 'record') {
        expect(l.targetUri).toMatch(/^http/);
        expect(l.warcDate).toMatch(/^2014-01-26T/);
        expect('surt' in l && 'normalized' in l).toBe(true);
      }
    }
    const refs = lines.filter((l) => l.kind === 'reference');
    expect(refs.filter((r) => r.changed).length).toBe(summary.references);
    // The census counts 5,240 relative URL attributes in the 20 HTML pages; CSS url()s come on top.
    expect(summary.references).toBeGreaterThanOrEqual(5240);
  });

  test('on worker threads: the same output, lines and warnings, in the same order', async () => {
    const inline = await runWarc([IANA]);
    const threaded = await runWarc([IANA], { threads: 2 });
    expect(threaded.output.equals(inline.output)).toBe(true);
    expect(threaded.lines).toEqual(inline.lines);
    expect(threaded.warnings).toEqual(inline.warnings);
    expect(threaded.summary).toEqual(inline.summary);
  });

  test.each(chunkings(IANA, 3).slice(0, 1).concat(chunkings(IANA, 3).slice(2)).map((c, i) => [i, c] as const))('chunking %i gives the same output', async (_i, chunks) => {
    const whole = await runWarc([IANA]);
    const split = await runWarc(chunks);
    expect(split.output.equals(whole.output)).toBe(true);
    expect(split.lines).toEqual(whole.lines);
  });
});
