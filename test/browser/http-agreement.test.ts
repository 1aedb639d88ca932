/**
 * Acceptance (issue 5, SPEC §8): the browser-agreement test of the HTML issue, once through the HTTP path.
 * Each page is retrieved by our HTTP client from its redirecting entry URL (one or two hops in front of it on
 * the loopback origin), rewritten with the final URL as the base and the Content-Type charset as the transport
 * charset, served from another origin and path, and must resolve every reference as Chromium did in the
 * original. Our redirect chain must be the one Chromium followed. 100%, no exceptions list.
 */
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchAgent } from '../../src/http/fetch.ts';
import { absolutizeUrl } from '../../src/http/response-rewriter.ts';
import { runAgreement, useAgreementEnvironment } from '../helpers/agreement.ts';
import { formatMismatches } from '../helpers/compare.ts';
import { loadCorpus } from '../helpers/corpus.ts';

const pages = loadCorpus();
const env = useAgreementEnvironment(pages);
let agent: Agent | undefined;

beforeAll(() => {
  agent = createFetchAgent();
});

afterAll(async () => {
  await agent?.close();
});

describe('pages retrieved through the HTTP path agree with Chromium', () => {
  it('every reference of every page, fetched from its redirecting entry URL and relocated', async () => {
    const chains = new Map<string, { ours: string[]; finalUrl: string; bytes: number; served: Buffer }>();
    const results = await runAgreement(
      async (served, finalUrl, _contentType, entryUrl) => {
        // lazyLoad as in the plain agreement test on main (the harness records data-src and friends there).
        const r = await absolutizeUrl(entryUrl, { dispatcher: agent, lazyLoad: true });
        chains.set(finalUrl, { ours: [...r.chain.map((h) => h.url), r.url], finalUrl, bytes: r.output.length, served });
        expect(r.kind).toBe('html');
        expect(r.base?.source === 'retrieval' || r.base?.below?.source === 'retrieval' || r.base?.source === 'embedded').toBe(true);
        return r.output;
      },
      { browser: env.browser(), origins: env.origins() },
    );
    const total = results.reduce((n, r) => n + r.original.refs.length, 0);
    const report = results.filter((r) => r.mismatches.length > 0).map((r) => `${r.page} (${r.originalUrl}):\n${formatMismatches(r.mismatches)}`);
    // Our redirect chain is the one Chromium's navigation followed, ending at the same final URL.
    for (const r of results) {
      const ours = chains.get(r.originalUrl);
      expect(ours, r.page).toBeDefined();
      expect(ours!.ours, r.page).toEqual(r.original.navigation);
      expect(ours!.ours.length, r.page).toBeGreaterThanOrEqual(2);
    }
    expect(report.join('\n\n')).toBe('');
    expect(results).toHaveLength(pages.length);
    expect(total).toBeGreaterThan(500);
  });
});
