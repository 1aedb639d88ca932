/**
 * Debian Chromium through playwright-core, for the browser-agreement tests.
 *
 * Nothing leaves this machine: every request that is not to a loopback origin we serve is recorded and
 * answered locally with an empty 204 (hosts like http://a/ and http://other.example/ are never contacted).
 * Every navigation except the page's own first one (meta refresh, iframe src, …) is recorded and answered
 * with 204 too, which Chromium treats as "no content": the document being inspected stays in place.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

/** One URL-bearing attribute value (or srcset candidate, list item, CSS url()) and what it resolves to. */
export interface ResolvedRef {
  /** Stable key: [frame/template prefix] element path + "@" + attribute [+ "#" candidate index]. */
  id: string;
  element: string;
  attribute: string;
  raw: string;
  resolved: string | null;
  /** Where the truth came from: idl | computed | sheet | anchor | local | verbatim | empty | error. */
  via: string;
  /** The helper-anchor resolution, recorded next to an IDL/computed truth for diagnostics. */
  anchor?: string;
  /** Not a URL per HTML (og:image …): equal `resolved` OR equal `raw` is accepted. */
  optional?: boolean;
  descriptors?: string;
  content?: string;
}

export interface Collected {
  /** The document URL after redirects. */
  url: string;
  refs: ResolvedRef[];
  /** Sorted multiset of every request the page made, except its own navigation (and redirect hops). */
  requests: string[];
  /** The page's own navigation chain (start URL, redirect hops). */
  navigation: string[];
}

const COLLECTOR_SOURCE = readFileSync(fileURLToPath(new URL('./collector.browser.js', import.meta.url)), 'utf8');

export function chromiumMissingMessage(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  return (
    `Chromium is not installed at ${CHROMIUM_PATH}. The browser-agreement tests need Debian's chromium ` +
    `package (apt-get install chromium); CI installs it. Do not use "npx playwright install".`
  );
}

export async function launchBrowser(): Promise<Browser> {
  const missing = chromiumMissingMessage();
  if (missing !== null) throw new Error(missing);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS], timeout: 60_000 });
}

export async function withBrowser<T>(fn: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = await launchBrowser();
  try {
    return await fn(browser);
  } finally {
    await browser.close();
  }
}

/** Run `collectResolved` on an already loaded page. */
export async function collectResolved(page: Page): Promise<ResolvedRef[]> {
  return (await page.evaluate(COLLECTOR_SOURCE)) as ResolvedRef[];
}

export interface LoadOptions {
  /** Origins (e.g. `http://127.0.0.1:1234`) whose non-navigation requests reach the network. */
  allowedOrigins: readonly string[];
  /** Collect only after this long without a new request (ms). Default 150. */
  quietMs?: number;
  /** …and no sooner than this long after `load` (meta refresh timers). Default 250. */
  minAfterLoadMs?: number;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/**
 * Open `url` in a fresh context of `browser`, wait until the page is loaded and the network is quiet,
 * collect every URL-bearing attribute and every request, close the context.
 */
export async function loadAndCollect(browser: Browser, url: string, options: LoadOptions): Promise<Collected> {
  const quietMs = options.quietMs ?? 150;
  const minAfterLoadMs = options.minAfterLoadMs ?? 250;
  const allowed = new Set(options.allowedOrigins);
  const context: BrowserContext = await browser.newContext({ serviceWorkers: 'block', javaScriptEnabled: true });
  try {
    const page = await context.newPage();
    const seen: Request[] = [];
    let lastRequestAt = Date.now();
    let mainNavigation: Request | null = null;
    context.on('request', (request) => {
      seen.push(request);
      lastRequestAt = Date.now();
    });
    const isMainChain = (request: Request): boolean => {
      for (let r: Request | null = request; r !== null; r = r.redirectedFrom()) {
        if (r === mainNavigation) return true;
      }
      return false;
    };
    await context.route('**/*', async (route: Route, request: Request) => {
      const navigation = request.isNavigationRequest();
      let mainFrame = false;
      try {
        mainFrame = request.frame() === page.mainFrame();
      } catch {
        mainFrame = false;
      }
      if (navigation && mainFrame && mainNavigation === null) {
        mainNavigation = request;
        await route.continue();
        return;
      }
      if (navigation && mainFrame && isMainChain(request)) {
        await route.continue();
        return;
      }
      if (!navigation && allowed.has(originOf(request.url()))) {
        await route.continue();
        return;
      }
      await route.fulfill({ status: 204, body: '' });
    });

    await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    // Quiet network, and at least `minAfterLoadMs` after load so that meta refresh timers (delay 0) fire.
    const loadedAt = Date.now();
    const deadline = loadedAt + 5_000;
    while (Date.now() < deadline && (Date.now() - lastRequestAt < quietMs || Date.now() - loadedAt < minAfterLoadMs)) {
      await page.waitForTimeout(25);
    }
    const refs = await collectResolved(page);
    const navigation: string[] = [];
    const requests: string[] = [];
    for (const request of seen) {
      if (isMainChain(request)) navigation.push(request.url());
      else requests.push(request.url());
    }
    requests.sort();
    return { url: page.url(), refs, requests, navigation };
  } finally {
    await context.close();
  }
}
