/**
 * Browser agreement: a page's references must resolve to the same URLs in Chromium before and after the
 * rewrite, even though the rewritten bytes are served from another origin and path.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { Collected } from './chromium.ts';
import { launchBrowser, loadAndCollect, withBrowser } from './chromium.ts';
import type { Mismatch } from './compare.ts';
import { compareCollections } from './compare.ts';
import type { CorpusPage } from './corpus.ts';
import { corpusAssets, loadCorpus } from './corpus.ts';
import type { LoopbackServer, ServedFile } from './server.ts';
import { startServer } from './server.ts';

let nextRewriteId = 0;

/**
 * Rewrites a page's bytes retrieved from `url`, served with `contentType` (its charset is the transport charset).
 * `entryUrl` is where the page was first requested (a redirect in front of `url`), for rewrites that retrieve
 * the page themselves.
 */
export type Rewrite = (bytes: Buffer, url: string, contentType: string, entryUrl: string) => Promise<Buffer>;

export interface AgreementResult {
  page: string;
  /** Final URL of the original (after the redirect chain), which `rewrite` received. */
  originalUrl: string;
  rewrittenUrl: string;
  original: Collected;
  rewritten: Collected;
  mismatches: Mismatch[];
}

export interface AgreementOptions {
  /** Defaults to the whole corpus. */
  pages?: readonly CorpusPage[];
  /** Reuse a browser (one per test file); otherwise one is launched and closed. */
  browser?: Browser;
  /** Pages loaded at the same time (each in its own context). Default 3. */
  concurrency?: number;
  /** Reuse running origins (from `startOrigins` with the same pages) instead of starting new ones. */
  origins?: Origins;
  /**
   * Collections of the originals already loaded from `origins` (by page name), e.g. by a self-check;
   * those pages are not loaded again.
   */
  originals?: ReadonlyMap<string, Collected>;
  /** Run the pages' scripts (default true). */
  javaScript?: boolean;
}

/** Two loopback origins: A serves the corpus (behind /r/ and /rr/ redirects), B serves rewritten output. */
export interface Origins {
  a: LoopbackServer;
  b: LoopbackServer;
  close(): Promise<void>;
}

export async function startOrigins(pages: readonly CorpusPage[]): Promise<Origins> {
  const files = corpusAssets();
  for (const p of pages) files.set(p.path, { body: p.body, contentType: p.contentType });
  const a = await startServer(files);
  const b = await startServer(new Map<string, ServedFile>());
  return {
    a,
    b,
    close: async () => {
      await Promise.all([a.close(), b.close()]);
    },
  };
}

/** Original at its real URL, reached through a 1-hop (even index) or 2-hop (odd index) redirect. */
export function originalEntryUrl(origins: Origins, page: CorpusPage, index: number): string {
  return origins.a.origin + (index % 2 === 0 ? '/r' : '/rr') + page.path;
}

export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * For every page: load the original at its real URL (via redirect, origin A), collect; call
 * `rewrite(originalBytes, finalUrl)`; serve the result from origin B at /elsewhere/x/<n>/y.html with the
 * original Content-Type; load and collect; compare.
 */
export async function runAgreement(rewrite: Rewrite, options: AgreementOptions = {}): Promise<AgreementResult[]> {
  const pages = options.pages ?? loadCorpus();
  const run = async (browser: Browser): Promise<AgreementResult[]> => {
    const origins = options.origins ?? (await startOrigins(pages));
    try {
      const allowedOrigins = [origins.a.origin, origins.b.origin];
      const javaScript = options.javaScript;
      return await mapLimit(pages, options.concurrency ?? 3, async (page, i) => {
        const original =
          (options.origins !== undefined ? options.originals?.get(page.name) : undefined) ??
          (await loadAndCollect(browser, originalEntryUrl(origins, page, i), { allowedOrigins, javaScript }));
        const rewrittenBytes = await rewrite(Buffer.from(page.body), original.url, page.contentType, originalEntryUrl(origins, page, i));
        const path = `/elsewhere/x/${nextRewriteId++}/y.html`;
        origins.b.files.set(path, { body: rewrittenBytes, contentType: page.contentType });
        const rewrittenUrl = origins.b.origin + path;
        const rewritten = await loadAndCollect(browser, rewrittenUrl, { allowedOrigins, javaScript });
        return {
          page: page.name,
          originalUrl: original.url,
          rewrittenUrl,
          original,
          rewritten,
          mismatches: compareCollections(original, rewritten),
        };
      });
    } finally {
      if (options.origins === undefined) await origins.close();
    }
  };
  return options.browser ? run(options.browser) : withBrowser(run);
}

/**
 * Registers the suite's setup: Chromium (see chromium.ts) and the two loopback origins serving `pages`, started
 * before the tests and closed after. A Chromium that does not launch fails the suite (never skips it).
 */
export function useAgreementEnvironment(pages: readonly CorpusPage[]): { browser(): Browser; origins(): Origins } {
  let browser: Browser | undefined;
  let origins: Origins | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    origins = await startOrigins(pages);
  });
  afterAll(async () => {
    await origins?.close();
    await browser?.close();
  });
  return {
    browser: () => browser ?? unavailable(),
    origins: () => origins ?? unavailable(),
  };
}

function unavailable(): never {
  throw new Error('Chromium failed to launch (see the beforeAll error)');
}
