/**
 * Chromium's DOM as the oracle of tree construction: documents parsed by `DOMParser` (`text/html`, which runs no
 * script and parses with scripting disabled, as the rewriter does: `<noscript>` content is markup) in a page at
 * ORACLE_PAGE_URL, and dumped node by node in tree order, template contents included.
 *
 * The page is served by a route of the browser context (no server, nothing leaves the machine); every other
 * request is answered with an empty 204.
 */
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from './chromium.ts';

/** The URL of the page the documents are parsed in: their document URL, and the fallback base. */
export const ORACLE_PAGE_URL = 'http://absolutize.test/a/b/page.html';

/** One node in tree order. `depth` counts ancestors (a template's content is one deeper than the template). */
export type DomNode =
  | { kind: 'element'; depth: number; ns: 'html' | 'svg' | 'mathml' | string; name: string; attrs: Array<[string, string]>; inTemplate: boolean }
  | { kind: 'text'; depth: number; data: string; parent: string; parentNs: string }
  | { kind: 'comment'; depth: number; data: string }
  | { kind: 'doctype'; depth: number };

export interface DomDump {
  /** `document.baseURI`. */
  baseURI: string;
  nodes: DomNode[];
  /** For each element index (into `nodes`) and attribute name: Chromium's resolution of the value against the document base. */
  resolved: Record<string, string | null>;
}

/** Runs in the page: parses each document and dumps it. */
const DUMP_SOURCE = `(docs) => {
  const NS = { 'http://www.w3.org/1999/xhtml': 'html', 'http://www.w3.org/2000/svg': 'svg', 'http://www.w3.org/1998/Math/MathML': 'mathml' };
  const parser = new DOMParser();
  return docs.map((html) => {
    const doc = parser.parseFromString(html, 'text/html');
    const nodes = [];
    const resolved = {};
    const walk = (node, depth, inTemplate) => {
      for (let c = node.firstChild; c !== null; c = c.nextSibling) {
        if (c.nodeType === 1) {
          const attrs = [];
          const index = nodes.length;
          for (const a of c.attributes) {
            attrs.push([a.name, a.value]);
            try { resolved[index + ' ' + a.name] = new URL(a.value.replace(/^[\\t\\n\\f\\r ]+|[\\t\\n\\f\\r ]+$/g, ''), doc.baseURI).href; } catch { resolved[index + ' ' + a.name] = null; }
          }
          nodes.push({ kind: 'element', depth, ns: NS[c.namespaceURI] ?? String(c.namespaceURI), name: c.localName, attrs, inTemplate });
          walk(c, depth + 1, inTemplate);
          if (c.localName === 'template' && c.namespaceURI === 'http://www.w3.org/1999/xhtml') walk(c.content, depth + 1, true);
        } else if (c.nodeType === 3) {
          nodes.push({ kind: 'text', depth, data: c.data, parent: node.localName ?? '#fragment', parentNs: NS[node.namespaceURI] ?? '' });
        } else if (c.nodeType === 8) {
          nodes.push({ kind: 'comment', depth, data: c.data });
        } else if (c.nodeType === 10) {
          nodes.push({ kind: 'doctype', depth });
        }
      }
    };
    walk(doc, 0, false);
    return { baseURI: doc.baseURI, nodes, resolved };
  });
}`;

/** A browser page ready to parse documents; `close` ends the browser if this opened it. */
export class DomOracle {
  private readonly browser: Browser;
  private readonly page: Page;
  private readonly owned: boolean;

  private constructor(browser: Browser, page: Page, owned: boolean) {
    this.browser = browser;
    this.page = page;
    this.owned = owned;
  }

  static async open(browser?: Browser): Promise<DomOracle> {
    const b = browser ?? (await launchBrowser());
    const context = await b.newContext({ javaScriptEnabled: true, serviceWorkers: 'block' });
    await context.route('**/*', async (route) => {
      if (route.request().url() === ORACLE_PAGE_URL) await route.fulfill({ status: 200, contentType: 'text/html', body: '<!DOCTYPE html><title>oracle</title>' });
      else await route.fulfill({ status: 204, body: '' });
    });
    const page = await context.newPage();
    await page.goto(ORACLE_PAGE_URL);
    return new DomOracle(b, page, browser === undefined);
  }

  /** Chromium's DOM of each document, in batches. */
  async parse(docs: readonly string[], batch = 200): Promise<DomDump[]> {
    const out: DomDump[] = [];
    for (let i = 0; i < docs.length; i += batch) {
      out.push(...((await this.page.evaluate(`(${DUMP_SOURCE})(${JSON.stringify(docs.slice(i, i + batch))})`)) as DomDump[]));
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.owned) await this.browser.close();
    else await this.page.context().close();
  }
}
