/**
 * The rewriter reads a document as the HTML tree builder does: differential tests against `parse5.parse` trees
 * (the tree construction of the HTML standard, not parse5's SAX parser, which simplifies foreign content), with
 * the select parsing of the current standard (`ModernSelectParser`).
 *
 * Inputs: the `#data` of html5lib-tests' tree-construction files (a `#document-fragment` case as a document that
 * opens its context first), with URL-bearing and raw-text elements inserted at tag boundaries. Each input is
 * rewritten; the parse5 tree of the output must be the tree of the input, except that URL values are absolute:
 * - no text changes, except `url()`/`@import` values inside `<style>` (raw text of script, style, textarea,
 *   title, xmp, iframe, noembed, noframes, plaintext is compared exactly otherwise);
 * - an attribute changes only if it holds URLs, and every URL in an HTML element's URL attribute of the output is
 *   absolute (or fragment-only or empty, which are left as written).
 * The sweep takes one combined insertion per tag boundary, each single insertion at every boundary at once, and
 * each single one at each boundary (about 9 s on 2 cores).
 */
import { readFileSync, readdirSync } from 'node:fs';
import type { DefaultTreeAdapterMap, DefaultTreeAdapterTypes } from 'parse5';
import { describe, expect, it } from 'vitest';
import { findCssUrls } from '../css/index.ts';
import { IDENTITY_CODEC } from './attribute-value.ts';
import { HtmlRewriteCore } from './rewriter.ts';
import { ModernSelectParser } from './tokenizer-driver.ts';
import { lookupUrlAttribute, urlPieces } from './url-pieces.ts';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

const DIR = new URL('../../../shared/conformance/html5lib-tests/tree-construction/', import.meta.url);
const BASE = 'https://example.com/dir/page.html';
const NS_NAME: Record<string, 'html' | 'svg' | 'mathml'> = {
  'http://www.w3.org/1999/xhtml': 'html',
  'http://www.w3.org/2000/svg': 'svg',
  'http://www.w3.org/1998/Math/MathML': 'mathml',
};

/** What is inserted: every kind of text the tokenizer reads by itself, and URL attributes the rewriter changes. */
const SNIPPETS = [
  `<script>x='<a href="r.html">'</script>`,
  `<style>@import "s.css?a=1&b=2";</style>`,
  `<a href="rel">`,
  `<form action="f">`,
  `<textarea><a href="t"></textarea>`,
  `<title><img src="tt"></title>`,
  `<xmp><a href="x"></xmp>`,
  `<iframe><a href="i"></iframe>`,
  `<video poster="p.jpg"></video>`,
];
const COMBINED = SNIPPETS.join('');

interface Case {
  readonly file: string;
  readonly data: string;
}

/** The `#data` of every case; a fragment case opens its context element(s) first. */
function readCases(file: string): Case[] {
  const text = readFileSync(new URL(file, DIR), 'utf8');
  const cases: Case[] = [];
  for (const block of text.split(/\n\n(?=#data\n)/)) {
    const m = /^#data\n([\s\S]*?)\n#(?:errors|new-errors|document-fragment|script-off|script-on|document)/.exec(block.startsWith('#data') ? block : block.slice(block.indexOf('#data')));
    if (m === null) continue;
    const fragment = /\n#document-fragment\n([^\n]*)/.exec(block)?.[1];
    cases.push({ file, data: fragment === undefined ? m[1]! : contextPrefix(fragment) + m[1]! });
  }
  return cases;
}

function contextPrefix(context: string): string {
  const [first, second] = context.split(' ');
  if (second === undefined) return first === 'html' ? '' : ['td', 'th'].includes(first!) ? `<table><tr><${first}>` : ['tr', 'tbody', 'thead', 'tfoot', 'caption', 'colgroup'].includes(first!) ? `<table><${first}>` : `<${first}>`;
  return `<${first}><${second}>`;
}

/** Offsets before every "<" and the end: where tags start (and a few places inside text that look like it). */
function boundaries(data: string): number[] {
  const out: number[] = [];
  for (let i = data.indexOf('<'); i !== -1; i = data.indexOf('<', i + 1)) out.push(i);
  out.push(data.length);
  return out;
}

function parse(html: string): DefaultTreeAdapterTypes.Document {
  // Scripting disabled, as the rewriter reads <noscript> (tokenizer-driver.ts).
  // With the select parsing of the current standard, which Chromium ships and html5lib-tests expect.
  const parser = new ModernSelectParser<DefaultTreeAdapterMap>({ scriptingEnabled: false });
  parser.tokenizer.write(html, true);
  return parser.document;
}

function rewrite(doc: string, exactBase = false): string {
  let out = '';
  const core = new HtmlRewriteCore({ retrieval: { url: BASE }, exactBase }, IDENTITY_CODEC, (s) => (out += s));
  core.write(doc);
  core.end();
  return out;
}

const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);
const ABSOLUTE = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

function childrenOf(node: Node): Node[] {
  if (isElement(node) && node.tagName === 'template' && node.namespaceURI === 'http://www.w3.org/1999/xhtml') return (node as DefaultTreeAdapterTypes.Template).content.childNodes;
  return 'childNodes' in node ? node.childNodes : [];
}

/** A URL value left as written by design: fragment-only, empty, or absolute. */
function settled(url: string): boolean {
  const u = url.trim();
  return u === '' || u.startsWith('#') || ABSOLUTE.test(u);
}

/** CSS with every URL value masked: equal for a stylesheet and its rewriting. */
function maskCssUrls(css: string, check: (url: string) => void): string {
  let out = '';
  let at = 0;
  for (const ref of findCssUrls(css)) {
    check(ref.value);
    out += `${css.slice(at, ref.start)}<url>`;
    at = ref.end;
  }
  return out + css.slice(at);
}

/** Differences between the tree of the input and the tree of its rewriting that are not a URL made absolute. */
function differences(before: Node, after: Node, path: string, out: string[]): void {
  if (out.length > 3) return;
  const name = isElement(before) ? `${NS_NAME[before.namespaceURI] ?? before.namespaceURI} ${before.tagName}` : before.nodeName;
  const here = `${path}/${name}`;
  if (before.nodeName !== after.nodeName || (isElement(before) && isElement(after) && before.namespaceURI !== after.namespaceURI)) {
    out.push(`${here}: became ${after.nodeName}`);
    return;
  }
  if (before.nodeName === '#text') {
    const a = (before as DefaultTreeAdapterTypes.TextNode).value;
    const b = (after as DefaultTreeAdapterTypes.TextNode).value;
    const parent = (before as DefaultTreeAdapterTypes.TextNode).parentNode;
    const inStyle = parent !== null && isElement(parent) && parent.tagName === 'style';
    if (a !== b) {
      if (!inStyle) out.push(`${here}: text ${JSON.stringify(a)} became ${JSON.stringify(b)}`);
      else if (maskCssUrls(a, () => {}) !== maskCssUrls(b, () => {})) out.push(`${here}: style text ${JSON.stringify(a)} became ${JSON.stringify(b)}`);
    }
    if (inStyle && parent.namespaceURI === 'http://www.w3.org/1999/xhtml') {
      maskCssUrls(b, (url) => {
        if (!settled(url)) out.push(`${here}: style url ${JSON.stringify(url)} left relative`);
      });
    }
    return;
  }
  if (before.nodeName === '#comment' && (before as DefaultTreeAdapterTypes.CommentNode).data !== (after as DefaultTreeAdapterTypes.CommentNode).data) {
    out.push(`${here}: comment changed`);
    return;
  }
  if (isElement(before) && isElement(after)) {
    const ns = NS_NAME[after.namespaceURI] ?? 'html';
    const qualified = (a: { name: string; prefix?: string }): string => (a.prefix ? `${a.prefix}:${a.name}` : a.name);
    if (before.attrs.length !== after.attrs.length) out.push(`${here}: attributes ${before.attrs.length} became ${after.attrs.length}`);
    for (let i = 0; i < Math.min(before.attrs.length, after.attrs.length); i++) {
      const a = before.attrs[i]!;
      const b = after.attrs[i]!;
      const spec = lookupUrlAttribute(ns, after.tagName, qualified(b), after.attrs, { lazyLoad: false });
      if (a.name !== b.name || (a.value !== b.value && spec === undefined)) out.push(`${here} @${qualified(a)}: ${JSON.stringify(a.value)} became ${qualified(b)}=${JSON.stringify(b.value)}`);
      if (ns === 'html' && spec !== undefined && ['url', 'url-list-space', 'url-list-comma', 'srcset'].includes(spec.syntax)) {
        for (const piece of urlPieces(spec, b.value)) {
          if (!settled(piece.value)) out.push(`${here} @${qualified(b)}: ${JSON.stringify(piece.value)} left relative`);
        }
      }
    }
  }
  const kb = childrenOf(before);
  const ka = childrenOf(after);
  if (kb.length !== ka.length) {
    out.push(`${here}: ${kb.length} children became ${ka.length}`);
    return;
  }
  for (let i = 0; i < kb.length; i++) differences(kb[i]!, ka[i]!, here, out);
}

/** The differences for one document, or [] when its rewriting changed nothing but URLs. */
function check(doc: string): string[] {
  const out: string[] = [];
  const rewritten = rewrite(doc);
  differences(parse(doc), parse(rewritten), '', out);
  return out;
}

function variants(data: string): string[] {
  const at = boundaries(data);
  const docs: string[] = [];
  for (const i of at) docs.push(data.slice(0, i) + COMBINED + data.slice(i));
  for (const snippet of SNIPPETS) {
    let doc = '';
    let from = 0;
    for (const i of at) {
      doc += data.slice(from, i) + snippet;
      from = i;
    }
    docs.push(doc + data.slice(from));
    for (const i of at) docs.push(data.slice(0, i) + snippet + data.slice(i));
  }
  return docs;
}

describe('foreign content and raw text, as the tree builder ends them', () => {
  // Each but the last five fails with the driver that kept a namespace stack of its own (before issue 11).
  it.each([
    ['an <svg> closed by </a> (issue 11)', `<a href="/"><svg><path d="M0"/></a><script>var t='<a href="next.html">';</script><form action="post.php">`],
    ['an HTML <style> after foreign content closed by </p>', `<p><svg><g></p><style>a{background:url("b.png?x=1&y=2")}</style><iframe src="f.html"></iframe>`],
    ['an <svg> closed by </div> (tests10)', `<div><svg></div>a<form action="f">`],
    ['mglyph in a MathML text integration point (tests10)', `<math><mi><mglyph><title><img src="tt"></title><a href="y">`],
    ['</p> and </br> in foreign content (tests26)', `<svg></p><form action="f"><math></br><video poster="p.jpg"></video>`],
    ['an end tag that matches nothing in an HTML integration point (webkit01)', `<table><tr><td><svg><desc><td></desc><xmp><a href="x"></xmp><circle>`],
    ['a breakout start tag inside nested <svg> (foreign-fragment)', `<svg><svg><p><form action="f">`],
    ['an HTML element closes nested <svg> (foreign-fragment)', `<svg><svg><div></div><textarea><a href="t"></textarea>`],
    ['a breakout start tag in <svg> in annotation-xml (tests9)', `<!DOCTYPE html><math><annotation-xml><svg><u><style>@import "s.css?a=1&b=2";</style>`],
    ['a table end tag closes <math> in a caption (tests9)', `<table><caption><math><mi>foo</mi>baz</table><form action="f">`],
    ['a table closes foreign content', `<table><tr><td><svg><g></td><td><script>x='<a href="r">'</script><a href="y"></table>`],
    ['<style> in <select> in a table (webkit01)', `<kbd><table></kbd><col><select><style>@import "s.css?a=1&b=2";</style><tr>`],
    ['<svg> and raw text in <select> (the standard since customizable select)', `<table><tr><td><select><svg><style>q</style></svg><xmp><a href="x"></xmp></select><a href="y">`],
    ['a breakout start tag inside <math> in <svg>', `<svg><foreignObject><math><mi><div>d</div></math></foreignObject></svg><title><a href=t></title><form action=f>`],
    ['<font color> breaks out (webkit01)', `<svg><font color=red></svg><style>@import "s.css";</style>`],
    ['annotation-xml encoding text/html', `<math><annotation-xml encoding="text/html"><style>@import "s.css";</style><a href="x"></annotation-xml></math><a href="y">`],
    ['annotation-xml without encoding keeps MathML (foreign-fragment)', `<math><annotation-xml><style>a{}</style><a href="x"></a></annotation-xml></math><a href="y">`],
    ['CDATA only in foreign content', `<svg><![CDATA[<a href="x">]]></svg><![CDATA[<a href="y">]]><a href="z">`],
  ])('%s', (_name, doc) => {
    expect(check(doc)).toEqual([]);
  });

  it('a <base> in <select> is the document base (as in Chromium; in the body, so with exactBase)', () => {
    expect(rewrite(`<select><base href="https://other.example/"></select><a href="y">`, true)).toBe(`<select><base href="https://other.example/"></select><a href="https://other.example/y">`);
  });

  it('the example of issue 11 comes out with its script unchanged and later URLs absolute', () => {
    expect(rewrite(`<a href="/"><svg><path d="M0"/></a><script>var t='<a href="next.html">';</script><form action="post.php">`)).toBe(
      `<a href="https://example.com/"><svg><path d="M0"/></a><script>var t='<a href="next.html">';</script><form action="https://example.com/dir/post.php">`,
    );
  });

  const files = readdirSync(DIR).filter((f) => f.endsWith('.dat'));
  it(`html5lib-tests tree-construction (${files.length} files), with URL and raw-text elements inserted at tag boundaries`, () => {
    const failures: string[] = [];
    let documents = 0;
    for (const file of files) {
      for (const { data } of readCases(file)) {
        for (const doc of variants(data)) {
          documents++;
          const diff = check(doc);
          if (diff.length > 0 && failures.length < 20) failures.push(`${file} ${JSON.stringify(doc)}\n  ${diff.join('\n  ')}`);
        }
      }
    }
    expect(documents).toBeGreaterThan(100_000);
    expect(failures).toEqual([]);
  }, 300_000);
});
