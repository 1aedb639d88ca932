/**
 * Chromium through playwright-core, for the browser-agreement tests.
 *
 * The browser is the headless Chromium shipped inside the `@sparticuz/chromium` devDependency (a brotli'd
 * binary, `bin/chromium.br`), so `npm ci` alone brings it: no system package, no download. It is inflated once
 * per version into `$TMPDIR/absolutize-chromium-<version>/chromium` (the package's own `executablePath()` writes
 * `/tmp/chromium` in place, which a second process could launch half written; here the file is written under a
 * unique name and renamed into place). `CHROMIUM_PATH=/path/to/chromium` uses another Chromium instead.
 *
 * Nothing leaves this machine: every request that is not to a loopback origin we serve is recorded and
 * answered locally with an empty 204 (hosts like http://a/ and http://other.example/ are never contacted).
 * Every navigation except the page's own first one (meta refresh, iframe src, …) is recorded and answered
 * with 204 too, which Chromium treats as "no content": the document being inspected stays in place.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';

/**
 * Our flags only: none of the package's Lambda flags (`--single-process`, `--disable-web-security`,
 * `--allow-running-insecure-content`, …) — they would change what a page loads, which is what the tests observe.
 * Headless and no sandbox (tests may run as root), no GPU, and nothing that reaches the network by itself.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
  '--disable-domain-reliability',
  '--no-pings',
];

/** Where `@sparticuz/chromium` is installed (its `build/index.js` → the package directory). */
function bundledPackageDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..');
}

/**
 * The Chromium the tests launch: `CHROMIUM_PATH` if set, else the bundled one, inflated on first use.
 * Safe to call from several processes at once (each writes its own temporary file; the rename is atomic).
 */
export async function chromiumExecutable(): Promise<string> {
  const chosen = process.env['CHROMIUM_PATH'];
  if (chosen !== undefined && chosen !== '') {
    if (!existsSync(chosen)) throw new Error(`CHROMIUM_PATH=${chosen}: no such file (unset it to use the bundled Chromium of @sparticuz/chromium)`);
    return chosen;
  }
  const dir = bundledPackageDir();
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const target = join(tmpdir(), `absolutize-chromium-${version}`, 'chromium');
  if (existsSync(target)) return target;
  await mkdir(join(target, '..'), { recursive: true });
  const partial = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await pipeline(createReadStream(join(dir, 'bin', 'chromium.br')), createBrotliDecompress(), createWriteStream(partial, { mode: 0o755 }));
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true });
    throw new Error(`could not inflate the bundled Chromium of @sparticuz/chromium (${(err as Error).message}); run npm ci, or set CHROMIUM_PATH`);
  }
  return target;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: await chromiumExecutable(), args: [...CHROMIUM_ARGS], timeout: 60_000 });
}
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
  /** Collect only after this long with no request in flight and none started or ended (ms). Default 150. */
  quietMs?: number;
  /** …and no sooner than this long after `load` (meta refresh timers). Default 250. */
  minAfterLoadMs?: number;
  /** Run the page's scripts. Default true. */
  javaScript?: boolean | undefined;
}

/**
 * Longest a page may take to load and settle: a guard against a hang, not a measure. A slow response keeps its
 * request in flight, and a page is not collected while one is, so a busy machine only makes the wait longer.
 */
const SETTLE_GUARD_MS = 60_000;

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
  const context: BrowserContext = await browser.newContext({ serviceWorkers: 'block', javaScriptEnabled: options.javaScript !== false });
  try {
    const page = await context.newPage();
    const seen: Request[] = [];
    const inFlight = new Set<Request>();
    let lastEventAt = Date.now();
    let mainNavigation: Request | null = null;
    context.on('request', (request) => {
      seen.push(request);
      inFlight.add(request);
      lastEventAt = Date.now();
    });
    const ended = (request: Request): void => {
      inFlight.delete(request);
      lastEventAt = Date.now();
    };
    context.on('requestfinished', ended);
    context.on('requestfailed', ended);
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

    await page.goto(url, { waitUntil: 'load', timeout: SETTLE_GUARD_MS });
    // Settled: nothing in flight and nothing started or ended for `quietMs`, and at least `minAfterLoadMs` after
    // load so that meta refresh timers (delay 0) fire. (It used to collect after 5 s whatever was still loading:
    // on a busy machine, a page whose stylesheet was slow lost the requests that stylesheet makes.)
    const loadedAt = Date.now();
    const guard = loadedAt + SETTLE_GUARD_MS;
    while (inFlight.size > 0 || Date.now() - lastEventAt < quietMs || Date.now() - loadedAt < minAfterLoadMs) {
      if (Date.now() > guard) throw new Error(`${url} did not settle: still loading ${[...inFlight].map((r) => r.url()).join(' ')}`);
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
