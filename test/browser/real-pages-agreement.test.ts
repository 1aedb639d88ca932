/**
 * Real pages in a real browser: the 258 pages of htmlparser-benchmark (news sites, blogs, shops, as they were
 * saved), each served at a deep path of origin A, rewritten with that URL as the retrieval base, served from
 * origin B at another path, and loaded in Chromium: every URL-bearing attribute Chromium resolves must resolve to
 * the same URL as in the original. Scripts are off: a page's scripts build URLs from `location` and random
 * numbers (ad tags, analytics beacons), which no rewrite of the markup can or should reproduce. The requests
 * the pages make are not compared: on these pages Chromium requests an image used many times once or twice,
 * depending on timing, so two loads of the same original differ too (the fixture corpus, whose requests are
 * deterministic, compares them: rewriter-agreement.test.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { absolutizeHtml } from '../../src/html/stream.ts';
import { runAgreement, useAgreementEnvironment } from '../helpers/agreement.ts';
import { formatMismatches } from '../helpers/compare.ts';
import type { CorpusPage } from '../helpers/corpus.ts';

const dir = `${dirname(createRequire(import.meta.url).resolve('htmlparser-benchmark/package.json'))}/files/`;
const pages: CorpusPage[] = readdirSync(dir)
  .filter((f) => f.endsWith('.html'))
  .sort()
  .map((f, i) => ({ name: f.slice(0, 12), path: `/site${i}/deep/dir/${f.slice(0, 12)}.html`, body: readFileSync(dir + f), contentType: 'text/html', covers: '' }));
const env = useAgreementEnvironment(pages);

/**
 * Pages a test: 516 page loads in one test ran past the 300 s test timeout on a machine whose load was 6–15
 * (each slice alone takes about a quarter of the time). Even-sized slices keep each page's index parity, and so
 * its URL (originalEntryUrl), what it was in one run.
 */
const SLICE = 66;
const slices = Array.from({ length: Math.ceil(pages.length / SLICE) }, (_, k) => pages.slice(k * SLICE, (k + 1) * SLICE));

describe('real pages agree with Chromium', () => {
  const seen: { pages: number; references: number }[] = [];
  for (const [k, slice] of slices.entries()) {
    it(`every reference of pages ${k * SLICE + 1}–${k * SLICE + slice.length} of the 258 htmlparser-benchmark pages, relocated to another origin and path`, async () => {
      const results = await runAgreement(async (bytes, url) => (await absolutizeHtml(bytes, { retrieval: { url }, lazyLoad: true })).output, {
        browser: env.browser(),
        origins: env.origins(),
        pages: slice,
        javaScript: false,
      });
      const total = results.reduce((n, r) => n + r.original.refs.length, 0);
      const report = results
        .map((r) => ({ r, refs: r.mismatches.filter((m) => m.kind !== 'request-missing' && m.kind !== 'request-extra') }))
        .filter(({ refs }) => refs.length > 0)
        .map(({ r, refs }) => `${r.page} (${r.originalUrl}):\n${formatMismatches(refs)}`);
      console.info(`real pages ${k * SLICE + 1}–${k * SLICE + slice.length}: ${total} references on ${results.length} pages, ${report.length} pages with mismatches`);
      expect(report.join('\n\n')).toBe('');
      expect(results).toHaveLength(slice.length);
      seen.push({ pages: results.length, references: total });
    });
  }

  it('covered all 258 pages and more than 70,000 references (the slices above, run in order)', () => {
    expect(seen.reduce((n, s) => n + s.pages, 0)).toBe(258);
    expect(seen.reduce((n, s) => n + s.references, 0)).toBeGreaterThan(70_000);
  });
});
