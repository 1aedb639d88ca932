/**
 * The tree simulator (tree-simulator.ts) in front of parse5's tree builder against parse5's tree builder alone:
 * every handler call with its arguments, and everything the rewriter can ask the driver between them (stack
 * depth, template, frameset-ok, the current node and whether earlier nodes are still open, where a <base>
 * went), on random documents (fast-check), the whole differential corpus of the Chromium suite (html5lib inputs
 * with injected snippets, grammar documents, token soup), the html5lib tree-construction inputs, the 258 real
 * pages of htmlparser-benchmark and the HTML of ../shared/corpus; and the rewriter's output, byte for byte, on
 * the real pages. Also prints how often the guard fires on the real pages.
 */
import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { corpusHtml } from '../../test/helpers/corpus-html.ts';
import { rewriteWith } from '../../test/helpers/tokenizer-harness.ts';
import { differentialCorpus, html5libInputs } from '../../test/helpers/tree-differential.ts';
import { FastTokenizerDriver } from './fast-tokenizer.ts';
import { StackBuilder, TokenizerDriver, simulatorStats } from './tokenizer-driver.ts';
import type { DriverHandler, TokenizerEngine } from './tokenizer-driver.ts';

const PAGES_DIR = new URL('../../node_modules/htmlparser-benchmark/files/', import.meta.url);
const pages = (): Array<{ name: string; html: string }> => readdirSync(PAGES_DIR).sort().map((name) => ({ name, html: readFileSync(new URL(name, PAGES_DIR), 'utf8') }));

/** Runs `f` with the simulator on or off (read when a driver is made). */
function withSimulator<T>(on: boolean, f: () => T): T {
  const was = StackBuilder.simulate;
  StackBuilder.simulate = on;
  try {
    return f();
  } finally {
    StackBuilder.simulate = was;
  }
}

type Make = (h: DriverHandler) => TokenizerEngine;
const FAST: Make = (h) => new FastTokenizerDriver(h);
const PARSE5: Make = (h) => new TokenizerDriver(h);

/** Attributes as names and values (the tokenizer's attribute objects may hold the whole input, decoded on demand). */
function attrList(attrs: readonly { name: string; value: string }[]): string {
  return JSON.stringify(attrs.map((a) => [a.name, a.value]));
}

/** Every handler call with its arguments, each followed by what the driver answers then. */
function events(chunks: readonly string[], make: Make, simulate: boolean): string[] {
  return withSimulator(simulate, () => {
    const out: string[] = [];
    // Opaque element handles, numbered in the order they are first seen (the two runs make different objects).
    const handles = new Map<unknown, number>();
    const last: unknown[] = [];
    const handle = (e: unknown): number => {
      let n = handles.get(e);
      if (n === undefined) {
        handles.set(e, (n = handles.size));
        last.push(e);
        if (last.length > 4) last.shift();
      }
      return n;
    };
    let driver: TokenizerEngine;
    const state = (): string => {
      const current = handle(driver.currentElement());
      // Whether each of the last few handles seen is still open (what the rewriter asks of an SVG <style> and of tables).
      const open = last.map((e) => (driver.isOpen(e) ? 1 : 0)).join('');
      return ` [${driver.openElementCount()}${driver.inTemplate() ? ' t' : ''}${driver.framesetPending() ? ' f' : ''} @${current} ${open}]`;
    };
    const tag = (t: Parameters<DriverHandler['onStartTag']>[0]): string => `${t.tagName}#${t.tagID}@${t.location?.startOffset}-${t.location?.endOffset}${t.selfClosing ? '/' : ''} ${attrList(t.attrs)}`;
    const handler: DriverHandler = {
      onStartTag: (t, ns, inserted, adopted) => {
        let base = '';
        if (t.tagName === 'base' && ns === 'html' && inserted) {
          const p = driver.lastBasePlacement();
          base = ` base(${p.before === null ? '-' : handle(p.before)}; ${p.tables.map(handle).join(',')})`;
        }
        out.push(`<${ns}:${tag(t)}${inserted ? '' : ' ignored'}${adopted === null ? '' : ` adopted ${adopted.join(',')}`}${base}${state()}`);
      },
      onEndTag: (t, ns) => out.push(`</${ns}:${tag(t)}${state()}`),
      onText: () => out.push(`text${state()}`),
      onComment: (t) => out.push(`comment@${t.location?.startOffset}${state()}`),
      onDoctype: (t) => out.push(`doctype@${t.location?.startOffset}${state()}`),
      onEof: () => out.push(`eof${state()}`),
      onBodyReplaced: () => out.push(`body replaced${state()}`),
      onReconstructed: (attrs) => out.push(`reconstructed ${attrList(attrs)}`),
    };
    driver = make(handler);
    try {
      for (const c of chunks) driver.write(c, false);
      driver.write('', true);
    } catch (e) {
      out.push(`threw ${String(e)}`);
    }
    return out;
  });
}

/** The first difference between the simulated and the full tree construction of `chunks`, or null. */
function difference(chunks: readonly string[], make: Make = FAST): string | null {
  const a = events(chunks, make, true);
  const b = events(chunks, make, false);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `event ${i}: simulated ${a[i]} | parse5 ${b[i]}\n  before: ${b.slice(Math.max(0, i - 3), i).join(' / ')}`;
  }
  return null;
}

function expectSame(html: string, name = ''): void {
  const d = difference([html]);
  if (d !== null) expect.fail(`${name} ${JSON.stringify(html.length > 2000 ? `${html.slice(0, 2000)}…` : html)}\n${d}`);
}

// --- random documents ----------------------------------------------------------------------------------------

const ELEMENTS = [
  'div', 'p', 'span', 'a', 'b', 'i', 'u', 'em', 'strong', 'font', 'nobr', 'code', 's', 'small', 'big', 'tt', 'strike',
  'ul', 'ol', 'li', 'dl', 'dd', 'dt', 'h1', 'h2', 'h6', 'pre', 'listing', 'form', 'button', 'address', 'center', 'section', 'menu',
  'table', 'tbody', 'tr', 'td', 'th', 'caption', 'colgroup', 'col', 'select', 'option', 'optgroup', 'template', 'frameset', 'frame',
  'html', 'head', 'body', 'svg', 'math', 'foreignObject', 'mi', 'applet', 'object', 'marquee', 'ruby', 'rt', 'rb', 'rp', 'rtc',
  'hr', 'br', 'img', 'image', 'input', 'area', 'wbr', 'embed', 'param', 'source', 'track', 'keygen', 'meta', 'link', 'base', 'basefont', 'bgsound',
  'noscript', 'search', 'summary', 'details', 'figure', 'sarcasm', 'custom-el', 'label',
];
const RAW = ['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext'];
const ATTRS = ['', ' class=x', ' class=y', ' href="u/1.html"', ' id=1', ' type=hidden', ' type=text', ' src=a.png', ' class=x id=1', ' id=1 class=x'];

const token: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...ELEMENTS), fc.constantFrom(...ATTRS), fc.boolean()).map(([n, a, s]) => `<${n}${a}${s ? '/' : ''}>`) },
  { weight: 4, arbitrary: fc.constantFrom(...ELEMENTS).map((n) => `</${n}>`) },
  { weight: 3, arbitrary: fc.constantFrom('x', ' ', '\n', 'a b', '\0', '&amp;', '\n\n', '\t') },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...RAW), fc.constantFrom('', '\n', 'x', '\nx</b>', '<p>')).map(([n, t]) => `<${n}>${t}${n === 'plaintext' ? '' : `</${n}>`}`) },
  // Tables, the way pages write them: rows and cells, whitespace between them, an omitted end tag here and there.
  { weight: 3, arbitrary: fc.constantFrom('<table>', '</table>', '<tr>', '</tr>', '<td>', '</td>', '<th>', '</th>', '<tbody>', '</tbody>', '<thead>', '<caption>', '\n  ', ' ', '<td class=x>', '<tr><td>', '</td></tr>', '</td>\n<td>', '</tr>\n<tr>') },
  { weight: 1, arbitrary: fc.constantFrom('<!-- c -->', '<!DOCTYPE html>', '<!doctype html public "-//W3C//DTD HTML 4.0 Transitional//EN">', '<![CDATA[x]]>', '</br>', '</p>', '<pre>\n\n', '<textarea>\nx</textarea>') },
);
const PREFIXES = ['', '<!DOCTYPE html>', '<!DOCTYPE html><html><head><title>t</title></head><body>', '<body>', '<p>', '<table><tr><td>', '<div><b>', '<frameset>', '<template>'];
const documentArb: fc.Arbitrary<string> = fc.tuple(fc.constantFrom(...PREFIXES), fc.array(token, { maxLength: 80, size: 'max' })).map(([p, ts]) => p + ts.join(''));

describe('the tree simulator makes the same events as parse5 alone', () => {
  it('random documents (fast-check), with the fast tokenizer and with parse5\'s', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        expect(difference([doc])).toBeNull();
        expect(difference([doc], PARSE5)).toBeNull();
      }),
      { numRuns: 6000, seed: 23 },
    );
  });

  it('random documents in random chunks', () => {
    fc.assert(
      fc.property(documentArb, fc.integer({ min: 1, max: 1 << 30 }), (doc, seed) => {
        expect(difference(randomChunks(doc, seededRandom(seed), 16))).toBeNull();
      }),
      { numRuns: 1500, seed: 24 },
    );
  });

  it('the differential corpus of the Chromium suite (8000 documents) and the html5lib tree-construction inputs', () => {
    for (const doc of differentialCorpus(8000, 19)) expectSame(doc);
    for (const doc of html5libInputs()) expectSame(doc);
  });

  it('the 258 real pages of htmlparser-benchmark and the HTML of the shared corpus', () => {
    for (const { name, html } of pages()) expectSame(html, name);
    for (const { name, html } of corpusHtml()) expectSame(html, name);
  });

  it('a few real pages in random chunks', () => {
    const random = seededRandom(2323);
    for (const { name, html } of pages().slice(0, 20)) {
      const d = difference(randomChunks(html, random, 4096));
      if (d !== null) expect.fail(`${name}: ${d}`);
    }
  });
});

describe('parse5 alone', () => {
  it('reports once the token that ends pending table text (parse5 reprocesses it through the same method)', () => {
    const ends = events(['<table><tr><td>x</td> </tr> <!--c--> </table>'], FAST, false).filter((e) => /^(<\/|comment|eof)/.test(e));
    expect(ends.map((e) => e.replace(/[@ #].*/, ''))).toEqual(['</html:td', '</html:tr', 'comment', '</html:table', 'eof']);
  });
});

describe('the rewriter with the tree simulator', () => {
  it('writes the same bytes, references and warnings on the 258 real pages', () => {
    for (const { name, html } of pages()) {
      const a = withSimulator(true, () => rewriteWith([html], 'fast'));
      const b = withSimulator(false, () => rewriteWith([html], 'fast'));
      if (a.out !== b.out) expect.fail(`${name}: output differs`);
      expect(a.refs, name).toEqual(b.refs);
      expect(a.warnings, name).toEqual(b.warnings);
    }
  });

  it('reports how often the guard fires on the real pages', () => {
    const before = { ...simulatorStats };
    let fired = 0;
    const list = pages();
    for (const { html } of list) {
      const handBacks = simulatorStats.handBacks;
      withSimulator(true, () => rewriteWith([html], 'fast'));
      if (simulatorStats.handBacks > handBacks) fired++;
    }
    const simulated = simulatorStats.simulated - before.simulated;
    const full = simulatorStats.full - before.full;
    const handBacks = simulatorStats.handBacks - before.handBacks;
    const takeOvers = simulatorStats.takeOvers - before.takeOvers;
    console.log(
      `tree simulator on ${list.length} real pages: ${simulated} tags simulated, ${full} by parse5 (${((100 * full) / (simulated + full)).toFixed(1)}%); ` +
        `${takeOvers} take-overs, ${handBacks} hand-backs (the guard fired: ${(handBacks / list.length).toFixed(1)} times a page, on ${fired} of the pages) and ${simulatorStats.endHandBacks - before.endHandBacks} at the end of input`,
    );
    expect(simulated).toBeGreaterThan(0);
  });
});
