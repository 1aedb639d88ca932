/**
 * The Chromium differential of tree construction: generated documents, rewritten by us, and both the original
 * and the rewritten copy parsed by Chromium (dom-oracle.ts). Per document it compares:
 * - the tree: the rewritten copy parses to the same nodes (kind, namespace, name, attribute names, depth);
 * - text: every text node and comment is unchanged, except `<style>` text (HTML or SVG) whose `url()` /
 *   `@import` references may only change to what Chromium resolves them to;
 * - URL attributes: for each element of Chromium's DOM with a single-URL attribute (our table, with the namespace
 *   and name Chromium gave the element), the rewritten value is Chromium's resolution of the original (left as
 *   it is when empty, fragment-only or unresolvable); every other attribute value is unchanged;
 * - references reported: the references the rewriter reports for single-URL attributes are exactly those of
 *   Chromium's DOM (none for a start tag the tree builder dropped).
 *
 * Documents come from three generators (see `differentialCorpus`): html5lib-tests tree-construction inputs with
 * snippets injected in tables, templates, selects, framesets, integration points and after `</body>`;
 * documents from a small grammar; and token soup.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { absolutizeHtml } from '../../src/html/stream.ts';
import type { ReferenceRecord } from '../../src/html/rewriter.ts';
import { lookupUrlAttribute } from '../../src/html/url-pieces.ts';
import type { DomDump, DomNode } from './dom-oracle.ts';
import { ORACLE_PAGE_URL } from './dom-oracle.ts';
import { seededRandom } from './random.ts';
import { sharedPath } from './shared.ts';

/** URL-bearing and raw-text snippets: what is injected. Each URL is relative and unique enough to tell apart. */
export const SNIPPETS: readonly string[] = [
  '<a href="u/a1.html">a</a>',
  '<img src="u/i1.png">',
  '<link rel=stylesheet href="u/l1.css">',
  '<base href="b/">',
  '<frame src="u/fr1.html">',
  '<col background="u/col1.png">',
  '<form action="u/form1"><input src="u/in1.png" type=image></form>',
  '<iframe src="u/if1.html"></iframe>',
  '<video poster="u/v1.jpg" src="u/v1.mp4"></video>',
  '<table background="u/t1.png"><tr background="u/tr1.png"><td background="u/td1.png">c</td></tr></table>',
  '<body background="u/body2.png">',
  '<html manifest="u/m.appcache">',
  '<head><link href="u/head2.css">',
  '<svg><image href="u/si1.png"/><a xlink:href="u/sa1.html">t</a></svg>',
  '<math><mi href="u/mi1.html">x</mi></math>',
  '<style>p{background:url(u/st1.png)}</style>',
  '<svg><style>g{fill:url(u/sst1.png)}</style></svg>',
  '<svg><style><![CDATA[g{fill:url(u/ssc1.png)}]]></style></svg>',
  '<svg><style>/*a*/<!--c-->h{fill:url(u/ssm1.png)}</style></svg>',
  '<![CDATA[ <img src="u/cd1.png"> ]]>',
  '<script>var s="<a href=u/js1.html>"</script>',
  '<textarea><img src="u/ta1.png"></textarea>',
  '<title><a href="u/ti1.html"></title>',
  '<!-- <img src="u/co1.png"> -->',
  '<noscript><img src="u/ns1.png"></noscript>',
  '<xmp><a href="u/xm1.html"></xmp>',
  '<noembed><a href="u/ne1.html"></noembed>',
  '<noframes><a href="u/nf1.html"></noframes>',
  '<select><option><img src="u/op1.png"></select>',
  '<select><input src="u/sin1.png"><img src="u/si2.png">',
  '<select><b><svg></b><style>p{background:url(u/sb1.png)}</style>',
  '<select><u><math></u><mi><![CDATA[<a href="u/su1.html">]]></mi>',
  '<select><nobr><svg><![CDATA[<a href="u/sn1.html">]]></nobr>',
  '<select><select><a href="u/ss1.html">',
  '<template><a href="u/tp1.html"><base href="tb/"></template>',
  '<form><form action="u/form2"><a href="u/f2.html">',
  '<blockquote cite="u/bq1"><q cite="u/q1">q</q></blockquote>',
  '<object data="u/ob1.swf"></object>',
  '<area href="u/ar1.html">',
  '<audio src="u/au1.ogg"></audio><embed src="u/em1.swf">',
  '<button formaction="u/fa1">b</button>',
  '<font color=red><svg><a href="u/fc1.html"></svg></font>',
  '<p><svg><foreignObject><img src="u/fo1.png"></foreignObject><desc><a href="u/de1.html"></desc></svg>',
  '<math><annotation-xml encoding="text/html"><img src="u/ax1.png"></annotation-xml></math>',
  '<math><mtext><img src="u/mt1.png"><mglyph src="u/mg1.png"></mtext></math>',
  '<svg><foreignObject><![CDATA[ <img src="u/fcd1.png"> ]]></foreignObject></svg>',
  '<svg><desc><![CDATA[ a > b "<textarea>" ]]></desc></svg>',
  '<plaintext><a href="u/pt1.html">',
  '<style>p{background:url(u/open1.png)}',
];

/** Where a snippet goes: the contexts the tree builder treats differently. */
export const CONTEXTS: readonly string[] = [
  '<table>%</table>',
  '<table><tr><td>%</td></tr></table>',
  '<table><caption>%</caption></table>',
  '<table>%<tr><td>x</td></tr>%</table>',
  '<template>%</template>',
  '<select>%</select>',
  '<select><optgroup><option>%</select>',
  '<table><tr><td><select>%</select></td></tr></table>',
  '<frameset>%</frameset>',
  '<frameset></frameset>%',
  '<svg><foreignObject>%</foreignObject></svg>',
  '<svg><desc>%</desc></svg>',
  '<svg><title>%</title></svg>',
  '<math><mi>%</mi></math>',
  '<math><mo>%</mo><mn>%</mn><ms>%</ms><mtext>%</mtext></math>',
  '<math><annotation-xml encoding="text/html">%</annotation-xml></math>',
  '<math><annotation-xml>%</annotation-xml></math>',
  '<svg>%</svg>',
  '<math>%</math>',
  '</body>%',
  '</html>%',
  '<head>%</head>',
  '%',
  '<noscript>%</noscript>',
  '<p><b><i>%</b></i>',
  '<a href="u/outer.html">%</a>%',
  '<table><tr><td><svg><foreignObject>%</foreignObject></svg></td></tr></table>',
];

function pick<T>(random: () => number, xs: readonly T[]): T {
  return xs[Math.floor(random() * xs.length)]!;
}

/** The `#data` of every html5lib-tests tree-construction case (fragment cases and scripted ones too: as documents). */
export function html5libInputs(): string[] {
  const dir = sharedPath('conformance/html5lib-tests/tree-construction/');
  const out: string[] = [];
  for (const file of readdirSync(dir).filter((x) => x.endsWith('.dat')).sort()) {
    const text = readFileSync(dir + file, 'utf8');
    for (const m of text.matchAll(/(?:^|\n)#data\n([\s\S]*?)\n#(?:errors|new-errors|document-fragment|script-off|script-on|document)/g)) out.push(m[1]!);
  }
  return out;
}

/** A snippet in a context (a context's every "%" gets one). */
function injected(random: () => number): string {
  return pick(random, CONTEXTS).replace(/%/g, () => pick(random, SNIPPETS));
}

/** An html5lib input with one to three injected snippets, at tag boundaries (or the start and end). */
function injectedInput(random: () => number, input: string): string {
  const cuts = [0, input.length];
  for (let i = input.indexOf('>'); i !== -1; i = input.indexOf('>', i + 1)) cuts.push(i + 1);
  let doc = input;
  for (let k = 1 + Math.floor(random() * 3); k > 0; k--) {
    const at = Math.min(pick(random, cuts), doc.length);
    doc = doc.slice(0, at) + injected(random) + doc.slice(at);
  }
  return doc;
}

const GRAMMAR_ELEMENTS = ['div', 'p', 'b', 'i', 'u', 'nobr', 'a', 'span', 'table', 'tbody', 'tr', 'td', 'th', 'caption', 'colgroup', 'col', 'select', 'option', 'optgroup', 'template', 'svg', 'math', 'foreignObject', 'desc', 'title', 'mi', 'mo', 'mtext', 'annotation-xml', 'g', 'ul', 'li', 'form', 'button', 'font', 'frameset', 'frame', 'head', 'body', 'html', 'noscript', 'object', 'h1', 'pre', 'listing', 'dd', 'center', 'marquee', 'applet', 'ruby', 'rt', 'hr', 'br', 'input', 'search'];

/** A document from a small grammar: nested elements around snippets and text. */
function grammarDocument(random: () => number): string {
  const node = (depth: number): string => {
    const r = random();
    if (depth > 4 || r < 0.25) return r < 0.1 ? pick(random, ['x', ' ', '&amp;', 'a<b', '\n']) : pick(random, SNIPPETS);
    const name = pick(random, GRAMMAR_ELEMENTS);
    const attrs = random() < 0.3 ? ` ${pick(random, ['href', 'src', 'background', 'action', 'xlink:href', 'cite', 'poster', 'color', 'encoding'])}="${pick(random, ['u/g1.html', 'text/html', 'red', '#f', ''])}"` : '';
    let inner = '';
    for (let k = Math.floor(random() * 4); k > 0; k--) inner += node(depth + 1);
    return `<${name}${attrs}>${inner}${random() < 0.8 ? `</${name}>` : ''}`;
  };
  let doc = random() < 0.5 ? '<!DOCTYPE html>' : '';
  for (let k = 1 + Math.floor(random() * 4); k > 0; k--) doc += node(0);
  return doc;
}

const SOUP_TOKENS = [
  ...GRAMMAR_ELEMENTS.map((n) => `<${n}>`),
  ...GRAMMAR_ELEMENTS.map((n) => `</${n}>`),
  '<![CDATA[', ']]>', '<!--', '-->', '<!-- c -->', '<style>', '</style>', '<script>', '</script>', '<textarea>', '</textarea>', '<title>', '</title>',
  '<img src="u/sp1.png">', '<a href="u/sp2.html">', '<base href="sb/">', '<link href="u/sp3.css">', '<frame src="u/sp4.html">', '<col background="u/sp5.png">',
  '<image href="u/sp6.png">', '<use xlink:href="u/sp7.svg#a">', 'url(u/sp8.png)', 'p{background:url(u/sp9.png)}', '<font face=x>', '<annotation-xml encoding="application/xhtml+xml">',
  'text', ' ', '\n', '&lt;', '<', '>', '"', '</', '<plaintext>', '<xmp>', '</xmp>', '<noscript>', '</noscript>', '<body background="u/sp10.png">', '<html manifest="u/sp11">',
];

/** Token soup: random tokens, no grammar. */
function tokenSoup(random: () => number): string {
  let doc = '';
  for (let k = 3 + Math.floor(random() * 25); k > 0; k--) doc += pick(random, SOUP_TOKENS);
  return doc;
}

/**
 * `count` documents, reproducible from `seed`: html5lib inputs with injected snippets (half), grammar documents
 * and token soup (a quarter each).
 */
export function differentialCorpus(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const inputs = html5libInputs();
  const docs: string[] = [];
  for (let n = 0; n < count; n++) {
    const r = n % 4;
    if (r < 2) docs.push(injectedInput(random, inputs[Math.floor(random() * inputs.length)]!));
    else if (r === 2) docs.push(grammarDocument(random));
    else docs.push(tokenSoup(random));
  }
  return docs;
}

export interface Rewritten {
  output: string;
  references: ReferenceRecord[];
}

export async function rewrite(doc: string): Promise<Rewritten> {
  const result = await absolutizeHtml(doc, { retrieval: { url: ORACLE_PAGE_URL }, exactBase: true });
  return { output: result.output, references: result.references };
}

const ASCII_WS = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;

/** A single-URL attribute of a DOM element, per our table (with Chromium's namespace and name). */
function singleUrl(node: Extract<DomNode, { kind: 'element' }>, name: string): boolean {
  if (node.ns !== 'html' && node.ns !== 'svg' && node.ns !== 'mathml') return false;
  const attrs = node.attrs.map(([n, v]) => ({ name: n, value: v }));
  const spec = lookupUrlAttribute(node.ns, node.name.toLowerCase(), name, attrs, { lazyLoad: false });
  return spec !== undefined && spec.syntax === 'url' && spec.base === 'document';
}

/** What a single-URL value must become: Chromium's resolution, or itself when it is empty or fragment-only (HTML). */
function expectedValue(value: string, resolved: string | null, ns: string, name: string, dump: DomDump, isBase: boolean): string {
  const trimmed = value.replace(ASCII_WS, '');
  if (resolved === null) return value;
  if (trimmed === '' && !isBase) return value;
  if (trimmed.startsWith('#') && (ns === 'html' || ns === 'svg' || ns === 'mathml')) return value;
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(trimmed)) return value;
  if (isBase) return new URL(trimmed, ORACLE_PAGE_URL).href; // a base href resolves against the fallback base
  void name;
  void dump;
  return resolved;
}

// (A url( that the end of the style's text cuts short is a URL all the same: CSS's tokenizer ends it at EOF.)
const CSS_URL = /url\(\s*(['"]?)([^'")\s]*)\1\s*(?:\)|$)|@import\s+(['"])([^'"]*)\3/g;

/** Style text with each url()/@import reference resolved against `base` (as Chromium would fetch it). */
function resolvedCss(text: string, base: string): string {
  return text.replace(CSS_URL, (m, q1: string | undefined, u1: string | undefined, q2: string | undefined, u2: string | undefined) => {
    const u = u1 ?? u2 ?? '';
    if (u === '' || u.startsWith('#') || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(u)) return m;
    let abs: string;
    try {
      abs = new URL(u, base).href;
    } catch {
      return m;
    }
    return u1 !== undefined ? `url(${q1}${abs}${q1}${m.endsWith(')') ? ')' : ''}` : `@import ${q2}${abs}${q2}`;
  });
}

function describe(node: DomNode): string {
  switch (node.kind) {
    case 'element':
      return `${node.ns}:${node.name}[${node.attrs.map(([n]) => n).join(',')}]@${node.depth}`;
    case 'text':
      return `#text@${node.depth}`;
    case 'comment':
      return `#comment@${node.depth}`;
    default:
      return `#doctype@${node.depth}`;
  }
}

/** The differences between Chromium's reading of the original and of our rewrite, and our references. */
export function compareDocument(original: DomDump, rewritten: DomDump, references: readonly ReferenceRecord[]): string[] {
  const diffs: string[] = [];
  const a = original.nodes;
  const b = rewritten.nodes;
  if (a.length !== b.length) diffs.push(`tree: ${a.length} nodes, rewritten ${b.length}`);
  const expectedRefs: string[] = [];
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (describe(x) !== describe(y)) {
      diffs.push(`tree: node ${i} ${describe(x)}, rewritten ${describe(y)}`);
      break;
    }
    if (x.kind === 'text' && y.kind === 'text') {
      if (x.data === y.data) continue;
      if (x.parent === 'style' && resolvedCss(x.data, original.baseURI) === y.data) continue;
      diffs.push(`text of <${x.parentNs}:${x.parent}> changed: ${JSON.stringify(x.data.slice(0, 80))} → ${JSON.stringify(y.data.slice(0, 80))}`);
    } else if (x.kind === 'comment' && y.kind === 'comment') {
      if (x.data !== y.data) diffs.push(`comment changed: ${JSON.stringify(x.data.slice(0, 80))}`);
    } else if (x.kind === 'element' && y.kind === 'element') {
      for (let k = 0; k < x.attrs.length; k++) {
        const [name, value] = x.attrs[k]!;
        const after = y.attrs[k]![1];
        if (singleUrl(x, name)) {
          const isBase = x.ns === 'html' && x.name === 'base' && name === 'href';
          const want = expectedValue(value, original.resolved[`${i} ${name}`] ?? null, x.ns, name, original, isBase);
          // (ASCII whitespace around a URL is kept as written: the same URL.)
          if (after.replace(ASCII_WS, '') !== want.replace(ASCII_WS, '')) diffs.push(`<${x.ns}:${x.name} ${name}=${JSON.stringify(value)}>: rewritten ${JSON.stringify(after)}, Chromium resolves ${JSON.stringify(want)}`);
          // (An empty value is no reference: the rewriter leaves it and reports nothing.)
          if (value.replace(ASCII_WS, '') !== '') expectedRefs.push(`${x.name.toLowerCase()} ${name} ${value.replace(ASCII_WS, '')}`);
        } else if (after !== value && !isOtherUrlSyntax(x, name)) {
          diffs.push(`<${x.ns}:${x.name} ${name}> not a URL attribute, changed: ${JSON.stringify(value)} → ${JSON.stringify(after)}`);
        }
      }
    }
  }
  // References reported for single-URL attributes: exactly those of Chromium's DOM.
  const singleNames = new Set(expectedRefs.map((r) => r.split(' ').slice(0, 2).join(' ')));
  const reported = references
    .filter((r) => r.attribute !== null && isSingleUrlRecord(r))
    .map((r) => `${r.element.toLowerCase()} ${r.attribute} ${r.raw}`);
  void singleNames;
  // As sets: a formatting element the tree builder reconstructs (an <a href> cloned after a </p>) is one more
  // element with the same attribute, from the same start tag: one reference, rewritten once.
  const missing = [...new Set(multisetMinus(expectedRefs, reported))].filter((r) => !reported.includes(r));
  const extra = [...new Set(multisetMinus(reported, expectedRefs))].filter((r) => !expectedRefs.includes(r));
  if (missing.length > 0) diffs.push(`not reported (in Chromium's DOM): ${missing.join(' | ')}`);
  if (extra.length > 0) diffs.push(`reported, not in Chromium's DOM: ${extra.join(' | ')}`);
  return diffs;
}

/** A URL attribute of another syntax (srcset, style, lists, meta refresh, srcdoc…): its value may change. */
function isOtherUrlSyntax(node: Extract<DomNode, { kind: 'element' }>, name: string): boolean {
  if (node.ns !== 'html' && node.ns !== 'svg' && node.ns !== 'mathml') return false;
  const attrs = node.attrs.map(([n, v]) => ({ name: n, value: v }));
  return lookupUrlAttribute(node.ns, node.name.toLowerCase(), name, attrs, { lazyLoad: false }) !== undefined;
}

/** Whether a reference record is of a single-URL attribute (in any namespace the element name can be in). */
function isSingleUrlRecord(r: ReferenceRecord): boolean {
  for (const ns of ['html', 'svg', 'mathml'] as const) {
    const spec = lookupUrlAttribute(ns, r.element.toLowerCase(), r.attribute!, [], { lazyLoad: false });
    if (spec !== undefined && spec.syntax === 'url' && spec.base === 'document') return true;
  }
  return false;
}

function multisetMinus(xs: readonly string[], ys: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const y of ys) counts.set(y, (counts.get(y) ?? 0) + 1);
  const out: string[] = [];
  for (const x of xs) {
    const c = counts.get(x) ?? 0;
    if (c > 0) counts.set(x, c - 1);
    else out.push(x);
  }
  return out;
}
