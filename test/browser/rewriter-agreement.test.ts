/**
 * Acceptance (SPEC §8, issue "HTML and CSS"): every reference of every corpus page resolves in Chromium, after
 * our rewrite and from another origin and path, to what Chromium resolved in the original at its own URL; and
 * the page makes the same requests. 100%, no exceptions list.
 */
import { describe, expect, it } from 'vitest';
import { absolutizeHtml } from '../../src/html/stream.ts';
import { runAgreement, useAgreementEnvironment } from '../helpers/agreement.ts';
import { formatMismatches } from '../helpers/compare.ts';
import { loadCorpus } from '../helpers/corpus.ts';

const pages = loadCorpus();
const env = useAgreementEnvironment(pages);

/** The charset parameter of a Content-Type, if any. */
function charsetOf(contentType: string): string | undefined {
  return /;\s*charset=["']?([^;"'\s]+)/i.exec(contentType)?.[1];
}

describe('rewritten pages agree with Chromium', () => {
  it('every reference of every page, relocated to another origin and path', async () => {
    const results = await runAgreement(
      // lazyLoad: the harness records data-src and friends (the corpus has them), so they are rewritten here.
      async (bytes, url, contentType) => (await absolutizeHtml(bytes, { retrieval: { url }, charset: charsetOf(contentType), lazyLoad: true })).output,
      { browser: env.browser(), origins: env.origins() },
    );
    const total = results.reduce((n, r) => n + r.original.refs.length, 0);
    const report = results.filter((r) => r.mismatches.length > 0).map((r) => `${r.page} (${r.originalUrl}):\n${formatMismatches(r.mismatches)}`);
    console.info(`browser agreement: ${total} references on ${results.length} pages, ${report.length} pages with mismatches`);
    expect(report.join('\n\n')).toBe('');
    expect(results).toHaveLength(pages.length);
    expect(total).toBeGreaterThan(500);
  });
});
