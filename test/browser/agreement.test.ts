/**
 * Chromium agreement harness, proved on the originals.
 *
 * The acceptance test for the rewriter plugs its rewrite function into `runAgreement` (exported below):
 * every reference of every corpus page must resolve to the same URL in Chromium before and after the
 * rewrite, and the page must make the same requests. Here the harness is checked on its own:
 *   - loading the same original twice gives identical collections (the truth is deterministic);
 *   - the corpus exercises every row of html-url-attributes.md;
 *   - wrong rewrites (identity served from elsewhere, <base> deleted) are reported as mismatches.
 * Set AGREEMENT_DUMP=<dir> to write each page's collection as JSON.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mapLimit, originalEntryUrl, runAgreement, useAgreementEnvironment } from '../helpers/agreement.ts';
import type { Collected } from '../helpers/chromium.ts';
import { loadAndCollect } from '../helpers/chromium.ts';
import { compareCollections, formatMismatches } from '../helpers/compare.ts';
import { loadCorpus, REQUIRED_COVERAGE } from '../helpers/corpus.ts';

export { runAgreement } from '../helpers/agreement.ts';
export type { AgreementResult, Rewrite } from '../helpers/agreement.ts';

const pages = loadCorpus();
/** First load of every page, by name (filled by the self-check, used by the coverage test). */
const firstLoads = new Map<string, Collected>();
const env = useAgreementEnvironment(pages);
const requireBrowser = env.browser;

describe('chromium agreement harness', () => {
  it('loads each original twice (via redirect, origin A) and collects identical truth', async () => {
    const b = requireBrowser();
    const o = env.origins();
    const allowedOrigins = [o.a.origin, o.b.origin];
    const failures: string[] = [];
    const dump = process.env['AGREEMENT_DUMP'];
    await mapLimit(pages, 3, async (page, i) => {
      const first = await loadAndCollect(b, originalEntryUrl(o, page, i), { allowedOrigins });
      const second = await loadAndCollect(b, originalEntryUrl(o, page, i + 1), { allowedOrigins });
      firstLoads.set(page.name, first);
      if (first.url !== o.a.origin + page.path) failures.push(`${page.name}: final URL ${first.url}`);
      if (first.navigation.length !== (i % 2 === 0 ? 2 : 3)) {
        failures.push(`${page.name}: redirect chain ${first.navigation.join(' → ')}`);
      }
      if (first.refs.length === 0) failures.push(`${page.name}: no references collected`);
      const errors = first.refs.filter((r) => r.via === 'error');
      if (errors.length > 0) failures.push(`${page.name}: ${errors.map((r) => `${r.id} ${r.resolved}`).join(', ')}`);
      const leaked = [...o.a.requests, ...o.b.requests].filter((r) => !r.startsWith('/'));
      if (leaked.length > 0) failures.push(`${page.name}: proxy-style requests reached the server: ${leaked.join(', ')}`);
      const mismatches = compareCollections(first, second);
      if (mismatches.length > 0) failures.push(`${page.name}:\n${formatMismatches(mismatches)}`);
      if (dump !== undefined) {
        mkdirSync(dump, { recursive: true });
        writeFileSync(`${dump}/${page.name}.json`, JSON.stringify(first, null, 1));
      }
    });
    expect(failures).toEqual([]);
  });

  it('covers every row of the URL-attribute table', () => {
    expect(firstLoads.size).toBe(pages.length);
    const seen = new Set<string>();
    for (const c of firstLoads.values()) for (const r of c.refs) seen.add(`${r.element} ${r.attribute}`);
    const missing = REQUIRED_COVERAGE.map(([e, a]) => `${e} ${a}`).filter((k) => !seen.has(k));
    expect(missing).toEqual([]);
  });

  it('blocks and records requests to hosts off this machine', () => {
    const all = [...firstLoads.values()].flatMap((c) => c.requests);
    expect(all).toContain('http://other.example/imports/net.css');
    expect(all.some((u) => u.startsWith('http://a/'))).toBe(false); // roytest pages only have anchors
    expect(all).toContain('http://other.example/svg-image-xlink.png');
  });

  it('records meta refresh navigations as requests', () => {
    const refresh = firstLoads.get('refresh.html');
    expect(refresh).toBeDefined();
    const origin = env.origins().a.origin;
    expect(refresh?.requests).toContain(`${origin}/docs/b/a.html`);
  });

  it('detects a rewrite that leaves relative references relative (served from elsewhere)', async () => {
    const results = await runAgreement(async (bytes) => bytes, { browser: requireBrowser(), origins: env.origins(), originals: firstLoads });
    const clean = results.filter((r) => r.mismatches.length === 0).map((r) => r.page);
    // Only documents whose every reference hangs off an absolute <base> survive being moved.
    expect(clean.sort()).toEqual(['roytest1.html', 'roytest2.html', 'roytest3.html', 'roytest4.html', 'roytest5.html']);
  });

  it('detects a rewrite that deletes <base> elements', async () => {
    const withBase = pages.filter((p) => /<base\s/i.test(p.body.toString('latin1')) && !p.name.startsWith('roytest'));
    const results = await runAgreement(
      async (bytes) => Buffer.from(bytes.toString('latin1').replace(/<base\b[^>]*>/gi, ''), 'latin1'),
      { browser: requireBrowser(), pages: withBase, origins: env.origins(), originals: firstLoads },
    );
    for (const r of results) {
      expect(r.mismatches.length, `${r.page} should mismatch`).toBeGreaterThan(0);
      // Not only shifted element paths: body references keep their ids and resolve differently.
      const outsideHead = r.mismatches.filter((m) => m.kind === 'different' && !m.id.startsWith('html[0]/head['));
      expect(outsideHead.length, `${r.page}: references outside <head> must resolve differently`).toBeGreaterThan(0);
    }
  });

  it('accepts a faithful relocation: <base href=finalUrl> in place of <meta charset>', async () => {
    // A correct transformation must pass: for a page without <base>, a base pointing at the original URL
    // makes every reference resolve as before. It takes the place of <meta charset="utf-8"> (the charset
    // also comes from Content-Type) so that no element path shifts; the new base href is the only extra.
    const names = new Set(['css.html', 'legacy.html']);
    const results = await runAgreement(
      async (bytes, url) =>
        Buffer.from(bytes.toString('utf8').replace('<meta charset="utf-8">', `<base href="${url}">`), 'utf8'),
      { browser: requireBrowser(), pages: pages.filter((p) => names.has(p.name)), origins: env.origins(), originals: firstLoads },
    );
    expect(results.map((r) => r.page).sort()).toEqual([...names].sort());
    for (const r of results) {
      const relevant = r.mismatches.filter((m) => !(m.kind === 'extra' && m.actual.element === 'base'));
      expect(formatMismatches(relevant), r.page).toBe('');
    }
  });
});
