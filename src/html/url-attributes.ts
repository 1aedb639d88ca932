/**
 * Every URL-bearing attribute (../shared/reference/html-url-attributes.md), as data: which attributes of which
 * elements hold URLs, in what syntax, resolved against what.
 */

export type UrlSyntax =
  /** One URL (potentially surrounded by spaces). */
  | 'url'
  /** ASCII-whitespace-separated URLs (`ping`, object `archive`, head `profile`). */
  | 'url-list-space'
  /** Comma-separated URLs (applet `archive`, HTML 4). */
  | 'url-list-comma'
  /** Image candidate strings (`srcset`, `imagesrcset`). */
  | 'srcset'
  /** `<meta http-equiv=refresh content>`. */
  | 'meta-refresh'
  /** CSS declarations (`style`). */
  | 'style'
  /** An SVG presentation attribute whose value may hold `url()` (`fill`, `clip-path`, …). */
  | 'css-presentation'
  /** An HTML document (`iframe srcdoc`). */
  | 'srcdoc'
  /** An RDFa 1.1 IRI-or-CURIE (`about`, `resource`): a safe CURIE `[…]` or a blank node `_:…` is not a URL. */
  | 'rdfa';

export interface UrlAttributeSpec {
  readonly syntax: UrlSyntax;
  /** What relative URLs resolve against. `applet-codebase`: the applet's `codebase`, itself relative to the document base (HTML 4 §13.4). */
  readonly base: 'document' | 'applet-codebase';
  /** Rewritten only when the matching option is on. */
  readonly optional?: 'lazy-load';
}

type Namespace = 'html' | 'svg' | 'mathml';
type Attrs = ReadonlyArray<{ readonly name: string; readonly value: string }>;

const url: UrlAttributeSpec = { syntax: 'url', base: 'document' };
const spaceList: UrlAttributeSpec = { syntax: 'url-list-space', base: 'document' };
const srcset: UrlAttributeSpec = { syntax: 'srcset', base: 'document' };
const style: UrlAttributeSpec = { syntax: 'style', base: 'document' };
const lazyUrl: UrlAttributeSpec = { syntax: 'url', base: 'document', optional: 'lazy-load' };
const lazySrcset: UrlAttributeSpec = { syntax: 'srcset', base: 'document', optional: 'lazy-load' };
const rdfa: UrlAttributeSpec = { syntax: 'rdfa', base: 'document' };

/** HTML elements by attribute: attribute → element → spec. `*` matches every element. */
const HTML: ReadonlyMap<string, ReadonlyMap<string, UrlAttributeSpec>> = table({
  // §1 Current HTML.
  // RDFa 1.1 (§3 of the table) lets href and src sit on any element; an RDFa processor resolves them against the base.
  href: { a: url, area: url, link: url, base: url, img: url /* wget table */, embed: url /* wget table */, '*': url },
  src: {
    audio: url, embed: url, iframe: url, img: url, input: url, script: url, source: url, track: url, video: url,
    // §2 legacy: frame; bgsound (IE); layer, ilayer (Netscape 4); fig (HTML 3); overlay.
    frame: url, bgsound: url, layer: url, ilayer: url, fig: url, overlay: url,
    '*': url, // RDFa
  },
  srcset: { img: srcset, source: srcset },
  imagesrcset: { link: srcset },
  action: { form: url, isindex: url /* HTML 3 */ },
  formaction: { button: url, input: url },
  cite: { blockquote: url, del: url, ins: url, q: url },
  // Browsers resolve object data against the document base and ignore codebase; codebase is rewritten on its own.
  data: { object: url },
  poster: { video: url },
  ping: { a: spaceList, area: spaceList },
  itemid: { '*': url },
  style: { '*': style },
  srcdoc: { iframe: { syntax: 'srcdoc', base: 'document' } },
  // §2 Legacy, obsolete and vendor attributes still found in archives and mail.
  background: { body: url, table: url, thead: url, tbody: url, tfoot: url, tr: url, td: url, th: url },
  longdesc: { img: url, iframe: url, frame: url },
  lowsrc: { img: url },
  dynsrc: { img: url },
  codebase: { object: url, applet: url },
  classid: { object: url },
  archive: { object: spaceList, applet: { syntax: 'url-list-comma', base: 'applet-codebase' } },
  code: { applet: { syntax: 'url', base: 'applet-codebase' } },
  object: { applet: { syntax: 'url', base: 'applet-codebase' } },
  profile: { head: spaceList },
  manifest: { html: url },
  icon: { command: url, menuitem: url },
  pluginspage: { embed: url },
  pluginurl: { embed: url },
  datasrc: { '*': url },
  // Lazy-load conventions (Heritrix, HTTrack, wget2): only with the option.
  'data-src': { '*': lazyUrl },
  'data-srcset': { '*': lazySrcset },
  'data-original': { '*': lazyUrl },
  'data-lazy-src': { '*': lazyUrl },
  'data-lazy-srcset': { '*': lazySrcset },
  // §3 RDFa 1.1: subject and object IRIs, and the vocabulary IRI. (`prefix` maps names to IRIs that are
  // absolute in practice; it is left as it is.)
  about: { '*': rdfa },
  resource: { '*': rdfa },
  vocab: { '*': url },
});

// §3 SVG: href and xlink:href on every element (most are "#id", which stays as it is); presentation attributes
// that take url().
const SVG_PRESENTATION = new Set(['fill', 'stroke', 'clip-path', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end', 'cursor']);
const cssPresentation: UrlAttributeSpec = { syntax: 'css-presentation', base: 'document' };

/**
 * SVG elements whose href is a resource reference (an element to use, paint with, animate…): Blink treats one
 * that resolves to the document's own URL plus a fragment as a reference into this document, never fetched.
 * Names as the tokenizer gives them (lowercase).
 */
export const SVG_RESOURCE_REFERENCE_ELEMENTS: ReadonlySet<string> = new Set([
  'use', 'pattern', 'lineargradient', 'radialgradient', 'filter', 'textpath', 'mpath', 'animate', 'set',
  'animatemotion', 'animatetransform', 'animatecolor', 'tref', 'feimage', 'altglyph', 'glyphref',
]);

// §3 MathML: href on any element; mglyph src; math altimg; definitionURL (parse5 adjusts the case).
const MATHML: ReadonlyMap<string, ReadonlyMap<string, UrlAttributeSpec>> = table({
  href: { '*': url },
  'xlink:href': { '*': url },
  src: { mglyph: url },
  altimg: { math: url },
  definitionURL: { '*': url },
  style: { '*': style },
});

function table(rows: Record<string, Record<string, UrlAttributeSpec>>): ReadonlyMap<string, ReadonlyMap<string, UrlAttributeSpec>> {
  return new Map(Object.entries(rows).map(([attr, elements]) => [attr, new Map(Object.entries(elements))]));
}

function attrValue(attrs: Attrs, name: string): string | undefined {
  return attrs.find((a) => a.name === name)?.value;
}

/**
 * The spec of a URL-bearing attribute, or undefined. `name` is the attribute's qualified name as parse5 gives
 * it after foreign-attribute adjustment (`xlink:href` for SVG). Never URLs: `xmlns*`, `itemprop`, `itemtype`
 * (absolute by definition), `usemap` (a hash-name reference), `xml:base` (ignored by the HTML parser).
 */
/**
 * Every attribute name, as the tokenizer reads it (lowercase, before foreign-content adjustment), that some
 * element may hold a URL in: a superset of what lookupUrlAttribute accepts, and `rel`. Only these get source
 * locations.
 */
const URL_ATTRIBUTE_NAMES: ReadonlySet<string> = new Set([
  ...HTML.keys(),
  ...[...MATHML.keys()].map((n) => n.toLowerCase()),
  ...SVG_PRESENTATION,
  'href', 'xlink:href', 'style', 'content', 'value',
  // Not a URL: its value goes on the link lines of the URLs it governs (relGoverns).
  'rel',
]);

/**
 * The HTML attributes whose URL a `rel` attribute on the same element describes: the link types of `a`, `area`
 * and `link` apply to the hyperlink or resource at `href` (and a `link`'s `imagesrcset`), a `form`'s to its
 * `action` (https://html.spec.whatwg.org/multipage/links.html#linkTypes). The `--links` report carries the value on
 * those lines.
 */
const REL_GOVERNED: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['a', new Set(['href'])],
  ['area', new Set(['href'])],
  ['link', new Set(['href', 'imagesrcset'])],
  ['form', new Set(['action'])],
]);

export function relGoverns(tag: string, name: string): boolean {
  return REL_GOVERNED.get(tag)?.has(name) === true;
}

export function mayHoldUrl(rawName: string): boolean {
  return URL_ATTRIBUTE_NAMES.has(rawName);
}

export function lookupUrlAttribute(ns: Namespace, tag: string, name: string, attrs: Attrs): UrlAttributeSpec | undefined {
  if (ns === 'svg') {
    if (name === 'href' || name === 'xlink:href') return url;
    if (name === 'style') return style;
    return SVG_PRESENTATION.has(name) ? cssPresentation : undefined;
  }
  if (ns === 'html') {
    // meta content is a URL only in a refresh declaration; param value only with valuetype=ref (HTML 4).
    if (tag === 'meta' && name === 'content') return attrValue(attrs, 'http-equiv')?.trim().toLowerCase() === 'refresh' ? metaRefresh : undefined;
    if (tag === 'param' && name === 'value') return attrValue(attrs, 'valuetype')?.trim().toLowerCase() === 'ref' ? url : undefined;
  }
  const rows = (ns === 'mathml' ? MATHML : HTML).get(name);
  return rows?.get(tag) ?? rows?.get('*');
}

const metaRefresh: UrlAttributeSpec = { syntax: 'meta-refresh', base: 'document' };
