/**
 * The streaming XML rewriter core: raw text in (one unit per byte), raw text out, only the bytes of rewritten
 * values changed. Tokens come from htmlparser2's Tokenizer in XML mode, which reports the offset of every tag
 * name, attribute value, text run and CDATA section (absolute in the stream), so that nothing is re-serialized.
 *
 * Dialects (what is a URL, and against what base):
 * - `svg`, `xhtml`: the browser's rules. Elements in the XHTML, SVG and MathML namespaces use the HTML
 *   rewriter's attribute table; `style` attributes and `<style>` text are CSS; the first XHTML `<base href>` is the
 *   document base. `xml:base` is ignored: Blink dropped XML Base (https://chromestatus.com/feature/5637194113826816),
 *   test/browser/xml-agreement.test.ts checks it.
 * - `feed` (Atom, RSS 0.9x/2.0, RSS 1.0): `xml:base` on any element, resolved against its parent's base
 *   (https://www.w3.org/TR/xmlbase/#resolution; RFC 4287 §2), applies to the element's own attributes and content.
 *   Escaped HTML (`type="html"` text constructs, RSS `description`, `content:encoded`) is rewritten by the HTML
 *   rewriter against the element's base and escaped again; inline XHTML (`type="xhtml"`) by the attribute table.
 * - `sitemap` (https://www.sitemaps.org/protocol.html): `<loc>` of `url` and `sitemap`, the image and video
 *   extensions, `xhtml:link href` alternates (hreflang). xml:base is honoured as in feeds.
 * With no dialect given, the root element decides (`svg`, `html`, `feed`, `rss`, `rdf:RDF`, `urlset`,
 * `sitemapindex`); any other root passes through unchanged.
 */
import { Tokenizer, QuoteType } from 'htmlparser2';
import { establishBase } from '../base/base.ts';
import type { BaseDecision } from '../base/base.ts';
import { ReferencePolicy } from '../base/reference-policy.ts';
import type { DocumentContextOptions, ReferenceSite, ReferenceStats, SiteWarning } from '../base/reference-policy.ts';
import { holdsUndecodable, IDENTITY_CODEC } from '../encoding/raw-text.ts';
import type { RawCodec } from '../encoding/raw-text.ts';
import { HtmlRewriteCore } from '../html/rewriter.ts';
import { cssPieces, lookupUrlAttribute, urlPieces } from '../html/url-pieces.ts';
import type { Piece } from '../html/url-pieces.ts';
import { SVG_RESOURCE_REFERENCE_ELEMENTS, mayHoldUrl } from '../html/url-attributes.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import type { Limits } from '../limits.ts';
import { browserResolver } from '../uri/browser.ts';
import type { Resolver } from '../uri/types.ts';
import { decodeXmlSegments, escapeXmlAttribute, escapeXmlText } from './xml-text.ts';
import type { XmlSegment } from './xml-text.ts';

export type XmlDialect = 'svg' | 'xhtml' | 'feed' | 'sitemap';

export interface XmlRewriteOptions extends DocumentContextOptions {
  /** The dialect, or `auto` to let the root element decide. @default 'auto' */
  readonly dialect?: XmlDialect | 'auto' | undefined;
  /** The document's encoding (a WHATWG name), for the query of `browser` resolutions. @default 'utf-8' */
  readonly encoding?: string | undefined;
  /** Absolutize fragment-only references of XHTML attributes too. @default false */
  readonly absolutizeFragments?: boolean | undefined;
  readonly lazyLoad?: boolean | undefined;
  /** Called once the dialect is known (`null`: not a recognized XML vocabulary, passed through). */
  readonly onDialect?: ((dialect: XmlDialect | null) => void) | undefined;
}

export const XHTML_NS = 'http://www.w3.org/1999/xhtml';
export const SVG_NS = 'http://www.w3.org/2000/svg';
const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const ATOM_NS = 'http://www.w3.org/2005/Atom';
const ATOM03_NS = 'http://purl.org/atom/ns#';
const RSS1_NS = 'http://purl.org/rss/1.0/';
const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const CONTENT_NS = 'http://purl.org/rss/1.0/modules/content/';
const WFW_NS = 'http://wellformedweb.org/CommentAPI/';
const MEDIA_NS = 'http://search.yahoo.com/mrss/';
const ITUNES_NS = 'http://www.itunes.com/dtds/podcast-1.0.dtd';
const SITEMAP_IMAGE_NS = 'http://www.google.com/schemas/sitemap-image/1.1';
const SITEMAP_VIDEO_NS = 'http://www.google.com/schemas/sitemap-video/1.1';

/** What the text content of an element is. */
type TextRole = 'url' | 'html' | 'css';

/** One open element. */
interface Frame {
  readonly qname: string;
  readonly local: string;
  readonly ns: string | null;
  /** Namespace declarations made on this element (prefix, '' for the default), or null. */
  readonly prefixes: ReadonlyMap<string, string> | null;
  /** The element's base (feeds and sitemaps: after its xml:base). */
  readonly base: BaseDecision;
}

interface Attribute {
  readonly name: string;
  readonly nameStart: number;
  /** Raw offsets of the value (without quotes); -1 when the attribute has no value. */
  readonly valueStart: number;
  readonly valueEnd: number;
  readonly quote: '"' | "'" | '';
}

interface Capture {
  readonly frame: Frame;
  readonly role: TextRole;
  /** Where the content starts (just after the start tag). */
  readonly start: number;
  readonly line: number;
  readonly column: number;
  readonly segments: XmlSegment[];
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export interface XmlRewriteStats extends ReferenceStats {
  warnings: number;
}

const NO_PREFIXES: ReadonlyMap<string, string> = new Map([['xml', XML_NS]]);

export class XmlRewriteCore {
  readonly stats: XmlRewriteStats = { rewritten: 0, unchanged: 0, unresolvable: 0, warnings: 0 };
  /** The document base, once committed. */
  base: BaseDecision | null = null;
  dialect: XmlDialect | null = null;

  private readonly options: XmlRewriteOptions;
  private readonly limits: Limits;
  private readonly resolver: Resolver;
  private readonly codec: RawCodec;
  private readonly sink: (raw: string) => void;
  private readonly tokenizer: Tokenizer;
  private readonly policies = new Map<BaseDecision, ReferencePolicy>();

  private buf = '';
  private bufStart = 0;
  private readonly edits: Edit[] = [];
  /** Line counting: the line and column of absolute offset `linePos`. */
  private linePos = 0;
  private line = 1;
  private column = 1;

  private readonly stack: Frame[] = [];
  private undecided: boolean;
  private passthrough = false;
  /** The document base below an embedded one (svg/xhtml: until the first `<base href>`). */
  private lowerBase: BaseDecision;
  private embeddedSeen = false;

  /** The end of the last complete token (text, tag, comment…): output never runs past it. */
  private safeEnd = 0;
  private tagStart = -1;
  private tagName = '';
  private attrs: Attribute[] = [];
  private attrName = '';
  private attrNameStart = 0;
  private valueStart = -1;
  private valueEnd = -1;
  private capture: Capture | null = null;
  /** Browser dialects: work on tags and text seen before the base is known, done when it is. */
  private deferred: Array<() => void> = [];

  constructor(options: XmlRewriteOptions, codec: RawCodec, sink: (raw: string) => void) {
    this.options = options;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.resolver = options.resolver ?? browserResolver;
    this.codec = codec;
    this.sink = sink;
    this.lowerBase = establishBase({ retrieval: options.retrieval, fallback: options.fallback, encapsulating: options.encapsulating }, { resolver: this.resolver });
    const dialect = options.dialect ?? 'auto';
    this.dialect = dialect === 'auto' ? null : dialect;
    // Hold output until the root element says what this is, or (browser dialects) the base is known.
    this.undecided = true;
    if (this.dialect === 'feed' || this.dialect === 'sitemap') this.commitBase(this.lowerBase);
    this.tokenizer = new Tokenizer({ xmlMode: true, decodeEntities: false }, {
      onattribname: (s, e) => {
        this.attrName = this.slice(s, e);
        this.attrNameStart = s;
        this.valueStart = -1;
        this.valueEnd = -1;
      },
      onattribdata: (s, e) => {
        if (this.valueStart < 0) this.valueStart = s;
        this.valueEnd = e;
      },
      onattribentity: () => {},
      onattribend: (quote, e) => {
        const q = quote === QuoteType.Double ? '"' : quote === QuoteType.Single ? "'" : '';
        // An empty quoted value gets no data callback: it sits just before the closing quote.
        const empty = quote === QuoteType.Double || quote === QuoteType.Single ? e : -1;
        this.attrs.push({ name: this.attrName, nameStart: this.attrNameStart, valueStart: this.valueStart < 0 ? empty : this.valueStart, valueEnd: this.valueStart < 0 ? empty : this.valueEnd, quote: q });
      },
      oncdata: (s, e, offset) => {
        this.characterData('cdata', s, e - offset);
        this.safeEnd = e + 1;
      },
      onclosetag: (s, e) => {
        this.endTag(this.slice(s, e), s);
        this.safeEnd = e;
      },
      oncomment: (_s, e) => {
        this.cancelCapture();
        this.safeEnd = e + 1;
      },
      ondeclaration: (_s, e) => {
        this.safeEnd = e + 1;
      },
      onend: () => {},
      onopentagend: (e) => {
        this.startTag(false, e + 1);
        this.safeEnd = e + 1;
      },
      onopentagname: (s, e) => {
        this.tagStart = s - 1;
        this.tagName = this.slice(s, e);
        this.attrs = [];
      },
      onprocessinginstruction: (_s, e) => {
        this.cancelCapture();
        this.safeEnd = e + 1;
      },
      onselfclosingtag: (e) => {
        this.startTag(true, e + 1);
        this.safeEnd = e + 1;
      },
      ontext: (s, e) => {
        this.characterData('text', s, e);
        this.safeEnd = e;
      },
      ontextentity: () => {},
    });
  }

  write(raw: string): void {
    if (this.passthrough) {
      this.sink(raw);
      return;
    }
    this.buf += raw;
    this.tokenizer.write(raw);
    this.checkLimits();
    this.flush(false);
  }

  end(): void {
    if (!this.passthrough) {
      this.tokenizer.end();
      if (this.capture !== null) this.capture = null;
      if (this.base === null) this.commitBase(this.lowerBase);
      this.undecided = false;
      this.flush(true);
    }
    for (const p of this.policies.values()) {
      this.stats.rewritten += p.stats.rewritten;
      this.stats.unchanged += p.stats.unchanged;
      this.stats.unresolvable += p.stats.unresolvable;
    }
    this.policies.clear();
  }

  // --- tokens --------------------------------------------------------------------------------------------

  private startTag(selfClosing: boolean, tagEnd: number): void {
    const parent = this.stack[this.stack.length - 1];
    if (this.capture !== null) this.cancelCapture();
    if (this.passthrough) return;
    if (tagEnd - this.tagStart > this.limits.maxTokenBytes) {
      this.stopRewriting('token-limit', `a tag longer than ${this.limits.maxTokenBytes} bytes: the rest passes through unchanged`);
      return;
    }
    if (this.base === null && this.dialect !== null && this.tagStart > this.limits.maxBaseLookaheadBytes) this.lookaheadExceeded();
    // Namespace declarations of this element (https://www.w3.org/TR/xml-names/#ns-decl).
    let prefixes: Map<string, string> | null = null;
    for (const a of this.attrs) {
      if (a.name === 'xmlns' || a.name.startsWith('xmlns:')) {
        prefixes ??= new Map();
        prefixes.set(a.name === 'xmlns' ? '' : a.name.slice(6), a.valueStart < 0 ? '' : this.decodedValue(a) ?? '');
      }
    }
    const colon = this.tagName.indexOf(':');
    const prefix = colon === -1 ? '' : this.tagName.slice(0, colon);
    const local = colon === -1 ? this.tagName : this.tagName.slice(colon + 1);
    const ns = this.lookupNamespace(prefix, prefixes);
    if (this.dialect === null && this.stack.length === 0) this.decideDialect(local, ns);
    const frame0: Frame = { qname: this.tagName, local, ns, prefixes, base: parent?.base ?? this.base ?? this.lowerBase };
    let frame = frame0;
    if (!this.passthrough && this.dialect !== null) {
      if (this.dialect === 'feed' || this.dialect === 'sitemap') frame = { ...frame0, base: this.xmlBase(frame0) };
      this.rewriteAttributes(frame);
    }
    this.tagStart = -1;
    if (!selfClosing) {
      this.stack.push(frame);
      const role = this.passthrough || this.dialect === null ? null : this.textRole(frame);
      if (role !== null) {
        const at = this.position(tagEnd);
        this.capture = { frame, role, start: tagEnd, line: at.line, column: at.column, segments: [] };
      }
    }
    if (this.stack.length > this.limits.maxOpenElements) this.stopRewriting('open-elements-limit', `more than ${this.limits.maxOpenElements} open elements: the rest passes through unchanged`);
  }

  private endTag(qname: string, nameStart: number): void {
    const c = this.capture;
    if (c !== null && this.stack[this.stack.length - 1] === c.frame) {
      this.capture = null;
      if (nameStart - 2 - c.start > this.limits.maxTokenBytes) this.warn({ code: 'token-limit', message: `<${c.frame.qname}> text longer than ${this.limits.maxTokenBytes} bytes: left as it is`, line: c.line, column: c.column });
      else this.rewriteText(c, nameStart - 2);
    }
    // Pop to the matching element (XML is well-formed; a mismatch pops nothing).
    for (let i = this.stack.length - 1; i >= 0; i--) {
      if (this.stack[i]!.qname === qname) {
        this.stack.length = i;
        break;
      }
    }
  }

  private characterData(kind: 'text' | 'cdata', start: number, end: number): void {
    if (this.capture === null) return;
    const segs = this.capture.segments;
    const last = segs[segs.length - 1];
    // The tokenizer gives text in pieces at chunk ends: one segment for adjacent text.
    if (kind === 'text' && last !== undefined && last.kind === 'text' && last.end === start) segs[segs.length - 1] = { kind, start: last.start, end };
    else segs.push({ kind, start, end });
  }

  private cancelCapture(): void {
    this.capture = null;
  }

  // --- dialects and bases --------------------------------------------------------------------------------

  private decideDialect(local: string, ns: string | null): void {
    let d: XmlDialect | null = null;
    if (local === 'svg' && ns === SVG_NS) d = 'svg';
    else if (local === 'html' && ns === XHTML_NS) d = 'xhtml';
    else if ((local === 'feed' && (ns === ATOM_NS || ns === ATOM03_NS)) || (local === 'rss' && ns === null) || (local === 'RDF' && ns === RDF_NS)) d = 'feed';
    else if (local === 'urlset' || local === 'sitemapindex') d = 'sitemap';
    this.dialect = d;
    this.options.onDialect?.(d);
    if (d === null) {
      this.commitBase(this.lowerBase);
      this.passthrough = true;
      this.undecided = false;
      return;
    }
    if (d === 'feed' || d === 'sitemap') this.commitBase(this.lowerBase);
  }

  private commitBase(decision: BaseDecision): void {
    if (this.base !== null) return;
    this.base = decision;
    this.options.onBase?.(decision);
    const deferred = this.deferred;
    this.deferred = [];
    for (const work of deferred) work();
    if (this.dialect === 'feed' || this.dialect === 'sitemap') this.undecided = false;
  }

  /** https://www.w3.org/TR/xmlbase/#granularity: the element's xml:base resolved against its parent's base. */
  private xmlBase(frame: Frame): BaseDecision {
    const a = this.attrs.find((x) => x.name === 'xml:base');
    if (a === undefined || a.valueStart < 0) return frame.base;
    const raw = this.decodedValue(a);
    if (raw === null) return frame.base;
    const below = frame.base;
    // An empty xml:base is the parent's base (RFC 3986 §5.2 with an empty reference; fragment dropped).
    const decision = establishBase({ retrieval: below.url === null ? null : { url: below.url }, embedded: raw }, { resolver: this.resolver, encoding: this.options.encoding });
    if (decision.source !== 'embedded') {
      if (raw.trim() !== '') this.warn({ code: 'base-href-ignored', message: `xml:base ${JSON.stringify(raw)} cannot be a base: ${decision.ignored[0]?.reason ?? 'ignored'}`, ...this.position(a.nameStart) });
      return below;
    }
    return { ...decision, below };
  }

  private policy(base: BaseDecision): ReferencePolicy {
    let p = this.policies.get(base);
    if (p === undefined) {
      p = new ReferencePolicy(base, {
        resolver: this.resolver,
        encoding: this.options.encoding,
        absolutizeFragments: this.options.absolutizeFragments,
        onReference: this.options.onReference,
        onWarning: (w) => this.warn(w),
      });
      this.policies.set(base, p);
    }
    return p;
  }

  // --- what is a URL -------------------------------------------------------------------------------------

  private lookupNamespace(prefix: string, own: ReadonlyMap<string, string> | null): string | null {
    if (prefix === 'xml') return XML_NS;
    const found = own?.get(prefix) ?? this.inScope(prefix);
    return found === undefined || found === '' ? null : found;
  }

  private inScope(prefix: string): string | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const v = this.stack[i]!.prefixes?.get(prefix);
      if (v !== undefined) return v;
    }
    return NO_PREFIXES.get(prefix);
  }

  /** The attribute's name for the HTML table: unprefixed names as they are, `xlink:href` by namespace; else null. */
  private tableName(a: Attribute, frame: Frame): string | null {
    const colon = a.name.indexOf(':');
    if (colon === -1) return a.name;
    const ns = this.lookupNamespace(a.name.slice(0, colon), frame.prefixes);
    return ns === XLINK_NS && a.name.slice(colon + 1) === 'href' ? 'xlink:href' : null;
  }

  /** The URL attributes of a feed or sitemap element (besides XHTML/SVG elements inside it), by namespace. */
  private vocabularyAttribute(frame: Frame, name: string): boolean {
    const { ns, local } = frame;
    if (name === 'href') return (ns === ATOM_NS || ns === ATOM03_NS) ? local === 'link' : ns === ITUNES_NS && local === 'image';
    if (name === 'src') return (ns === ATOM_NS || ns === ATOM03_NS) && local === 'content';
    if (name === 'uri') return ns === ATOM_NS && local === 'generator';
    // xml:base itself: written absolute, so that what still resolves against it (an empty href) keeps doing so.
    if (name === 'xml:base') return this.dialect === 'feed' || this.dialect === 'sitemap';
    if (name === 'url') {
      if (ns === ATOM03_NS) return local === 'generator';
      if (ns === MEDIA_NS) return local === 'content' || local === 'thumbnail' || local === 'player';
      return this.dialect === 'feed' && ns === null && (local === 'enclosure' || local === 'source');
    }
    return false;
  }

  /** Elements whose text is a URL, escaped HTML or CSS. */
  private textRole(frame: Frame): TextRole | null {
    const { ns, local } = frame;
    const d = this.dialect;
    if (d === 'svg' || d === 'xhtml') return local === 'style' && (ns === SVG_NS || ns === XHTML_NS) ? 'css' : null;
    const parent = this.stack[this.stack.length - 2];
    if (d === 'sitemap') {
      if (local === 'loc' && parent !== undefined && (parent.local === 'url' || parent.local === 'sitemap') && parent.ns === ns) return 'url';
      if (ns === SITEMAP_IMAGE_NS && (local === 'loc' || local === 'license')) return 'url';
      if (ns === SITEMAP_VIDEO_NS && (local === 'thumbnail_loc' || local === 'content_loc' || local === 'player_loc')) return 'url';
      return null;
    }
    if (d !== 'feed') return null;
    if (ns === ATOM_NS || ns === ATOM03_NS) {
      if (local === 'icon' || local === 'logo' || local === 'uri' || (ns === ATOM03_NS && local === 'url')) return 'url';
      if (local === 'title' || local === 'subtitle' || local === 'summary' || local === 'content' || local === 'rights' || local === 'tagline' || local === 'info' || local === 'copyright') {
        // RFC 4287 §3.1.1: type="html" is escaped HTML; Atom 0.3 mode="escaped" with an HTML type.
        const type = this.attributeValue('type')?.trim().toLowerCase();
        const mode = this.attributeValue('mode')?.trim().toLowerCase();
        if (type === 'html' || type === 'text/html' || (ns === ATOM03_NS && mode === 'escaped' && (type === undefined || type.includes('html')))) return 'html';
      }
      return null;
    }
    // RSS 0.9x/2.0 (no namespace) and RSS 1.0 (its namespace).
    if (ns === null || ns === RSS1_NS) {
      if (local === 'link' || local === 'comments' || local === 'docs') return 'url';
      if (local === 'url' && parent?.local === 'image') return 'url';
      // feedparser reads `fullitem` (an RSS 0.9x extension) as escaped HTML too.
      if (local === 'description' || local === 'fullitem') return 'html';
      return null;
    }
    if (ns === CONTENT_NS && local === 'encoded') return 'html';
    if (ns === WFW_NS && (local === 'comment' || local.toLowerCase() === 'commentrss')) return 'url';
    return null;
  }

  private attributeValue(name: string): string | undefined {
    const a = this.attrs.find((x) => x.name === name);
    if (a === undefined || a.valueStart < 0) return undefined;
    return this.decodedValue(a) ?? undefined;
  }

  private decodedValue(a: Attribute): string | null {
    return decodeXmlSegments(this.buf.slice(a.valueStart - this.bufStart, a.valueEnd - this.bufStart), a.valueStart, [{ kind: 'text', start: a.valueStart, end: a.valueEnd }], this.codec)?.value ?? null;
  }

  // --- rewriting -----------------------------------------------------------------------------------------

  private rewriteAttributes(frame: Frame): void {
    const browser = this.dialect === 'svg' || this.dialect === 'xhtml';
    const tableNs = frame.ns === XHTML_NS ? 'html' : frame.ns === SVG_NS ? 'svg' : frame.ns === MATHML_NS ? 'mathml' : null;
    // The first XHTML <base href> sets the document base (browser dialects).
    if (browser && !this.embeddedSeen && tableNs === 'html' && frame.local === 'base') {
      const href = this.attributeValue('href');
      if (href !== undefined) {
        this.embeddedSeen = true;
        if (this.base === null) {
          const decision = establishBase({ retrieval: this.options.retrieval, fallback: this.options.fallback, encapsulating: this.options.encapsulating, embedded: href }, { resolver: this.resolver, encoding: this.options.encoding });
          this.commitBase(decision);
        } else this.warn({ code: 'base-href-after-commit', message: `<base href> after ${this.limits.maxBaseLookaheadBytes} bytes or after content: not honoured`, ...this.position(this.tagStart) });
      }
    }
    if (browser && this.base === null && this.commitsBase(frame)) this.commitBase(this.lowerBase);
    if (browser && this.base === null) {
      const attrs = this.attrs;
      this.deferred.push(() => this.rewriteAttributesOf(frame, attrs, tableNs));
      return;
    }
    this.rewriteAttributesOf(frame, this.attrs, tableNs);
  }

  private rewriteAttributesOf(frame: Frame, attrs: readonly Attribute[], tableNs: 'html' | 'svg' | 'mathml' | null): void {
    const browser = this.dialect === 'svg' || this.dialect === 'xhtml';
    let attrsForTable: Array<{ name: string; value: string }> | null = null;
    for (const a of attrs) {
      if (a.valueStart < 0) continue;
      let spec = null;
      if (tableNs !== null) {
        const name = this.tableName(a, frame);
        if (name === null || !mayHoldUrl(name)) continue;
        // Only meta content and param value depend on other attributes (http-equiv, valuetype).
        if (tableNs === 'html' && (frame.local === 'meta' || frame.local === 'param')) attrsForTable ??= attrs.map((x) => ({ name: x.name, value: x.valueStart < 0 ? '' : this.decodedValue(x) ?? '' }));
        spec = lookupUrlAttribute(tableNs, tableNs === 'svg' ? frame.local.toLowerCase() : frame.local, name, attrsForTable ?? [], { lazyLoad: this.options.lazyLoad === true }) ?? null;
        if (spec === null || spec.syntax === 'srcdoc' || spec.base !== 'document') continue;
      } else if (!browser && this.vocabularyAttribute(frame, a.name)) {
        spec = { syntax: 'url', base: 'document' } as const;
      } else continue;
      const raw = this.buf.slice(a.valueStart - this.bufStart, a.valueEnd - this.bufStart);
      const decoded = decodeXmlSegments(raw, a.valueStart, [{ kind: 'text', start: a.valueStart, end: a.valueEnd }], this.codec);
      const at: ReferenceSite = { element: frame.qname, attribute: a.name, ...this.position(a.nameStart) };
      if (decoded === null) {
        this.warn({ code: 'undecodable-value', message: `${frame.qname} ${a.name}: an entity reference we cannot expand, or bytes not valid in the document encoding; left as it is`, line: at.line, column: at.column });
        continue;
      }
      const css = spec.syntax === 'style' || spec.syntax === 'css-presentation';
      const pieces: Piece[] = css ? cssPieces(decoded.value, 'declarations') : urlPieces(spec, decoded.value);
      // xml:base resolves against the parent's base (XML Base §4.2); every other attribute against the element's.
      const base = browser ? this.base : a.name === 'xml:base' ? (this.stack[this.stack.length - 1]?.base ?? this.base) : frame.base;
      if (base === null) continue;
      const sameDocument = tableNs === 'svg' && spec.syntax === 'url' && SVG_RESOURCE_REFERENCE_ELEMENTS.has(frame.local.toLowerCase()) ? this.options.retrieval?.url : undefined;
      for (const piece of pieces) {
        if (holdsUndecodable(decoded, piece.start, piece.end)) continue;
        // Every base element's href resolves against the layers below the embedded base (HTML "set the frozen base URL").
        const below = tableNs === 'html' && frame.local === 'base' && a.name === 'href' && base.source === 'embedded' ? (base.below?.url ?? null) : undefined;
        const url = this.policy(base).apply(piece.value, at, { base: below, fragments: tableNs === 'html' && spec.syntax === 'url', encoding: css ? 'utf-8' : undefined, sameDocument });
        if (url === null) continue;
        const quote = a.quote === "'" ? "'" : '"';
        this.edits.push({ start: decoded.toRaw(piece.start), end: decoded.toRaw(piece.end), text: this.codec.encode(escapeXmlAttribute(piece.serialize(url), quote), 'html') });
      }
    }
  }

  /** Browser dialects: content that a `<base>` can no longer precede as head content commits the base. */
  private commitsBase(frame: Frame): boolean {
    if (this.dialect === 'svg') return this.stack.length > 0;
    return frame.ns === XHTML_NS ? !HEAD_CONTENT.has(frame.local) : frame.ns === SVG_NS || frame.ns === MATHML_NS;
  }

  private rewriteText(c: Capture, contentEnd: number): void {
    if (c.segments.length === 0) return;
    const first = c.segments[0]!.start;
    const raw = this.buf.slice(first - this.bufStart, contentEnd - this.bufStart);
    const decoded = decodeXmlSegments(raw, first, c.segments, this.codec);
    const at: ReferenceSite = { element: c.frame.qname, attribute: null, line: c.line, column: c.column };
    if (decoded === null) {
      this.warn({ code: 'undecodable-value', message: `<${c.frame.qname}> text: an entity reference we cannot expand, or bytes not valid in the document encoding; left as it is`, line: c.line, column: c.column });
      return;
    }
    const browser = this.dialect === 'svg' || this.dialect === 'xhtml';
    if (browser && this.base === null) {
      this.deferred.push(() => this.rewriteText(c, contentEnd));
      return;
    }
    const base = browser ? this.base : c.frame.base;
    if (base === null) return;
    const edits: Edit[] = [];
    const splice = (start: number, end: number, text: string): void => {
      // A replacement stays inside one segment, escaped as that segment needs.
      const seg = decoded.segmentOf(start);
      if (end > start && decoded.segmentOf(end - 1) !== seg) {
        this.warn({ code: 'undecodable-value', message: `<${c.frame.qname}> text: a URL across a CDATA boundary; left as it is`, line: c.line, column: c.column });
        return;
      }
      const cdata = c.segments[seg]!.kind === 'cdata';
      if (cdata && text.includes(']]>')) return;
      edits.push({ start: decoded.toRaw(start), end: decoded.toRaw(end), text: this.codec.encode(cdata ? text : escapeXmlText(text), 'html') });
    };
    if (c.role === 'url') {
      const value = decoded.value;
      const lead = value.length - value.replace(/^[\t\n\f\r ]+/, '').length;
      const trail = value.length - value.replace(/[\t\n\f\r ]+$/, '').length;
      const url = this.policy(base).apply(value, at);
      if (url !== null && lead < value.length - trail) splice(lead, value.length - trail, url);
    } else if (c.role === 'css') {
      for (const piece of cssPieces(decoded.value, 'stylesheet')) {
        if (holdsUndecodable(decoded, piece.start, piece.end)) continue;
        const url = this.policy(base).apply(piece.value, at);
        if (url !== null) splice(piece.start, piece.end, piece.serialize(url));
      }
    } else {
      // Escaped HTML: a document of its own whose base is the element's (RFC 4287 §3.1.1.2, XML Base §4.2).
      const nested = new HtmlRewriteCore(
        {
          resolver: this.resolver,
          encapsulating: base,
          encoding: this.options.encoding,
          absolutizeFragments: this.options.absolutizeFragments,
          lazyLoad: this.options.lazyLoad,
          limits: this.limits,
          onWarning: (w) => this.warn(w),
          onReference: this.options.onReference && ((r) => this.options.onReference!({ ...r, element: `${c.frame.qname} ${r.element}`, line: c.line, column: c.column })),
        },
        IDENTITY_CODEC,
        () => {},
        { recordEdits: true },
      );
      nested.write(decoded.value);
      nested.end();
      this.stats.rewritten += nested.stats.rewritten;
      this.stats.unchanged += nested.stats.unchanged;
      this.stats.unresolvable += nested.stats.unresolvable;
      for (const e of nested.recordedEdits ?? []) {
        if (holdsUndecodable(decoded, e.start, e.end)) continue;
        splice(e.start, e.end, e.text);
      }
    }
    for (const e of edits) this.edits.push(e);
  }

  // --- output --------------------------------------------------------------------------------------------

  private checkLimits(): void {
    const held = this.buf.length;
    // Memory: the held bytes. An open tag that began within the lookahead is waited for (up to maxTokenBytes).
    if (this.base === null && held > this.limits.maxBaseLookaheadBytes && (this.tagStart < 0 || this.tagStart > this.limits.maxBaseLookaheadBytes)) this.lookaheadExceeded();
    if (this.tagStart >= 0 && this.bufStart + held - this.tagStart > this.limits.maxTokenBytes) {
      this.stopRewriting('token-limit', `a tag longer than ${this.limits.maxTokenBytes} bytes: the rest passes through unchanged`);
    } else if (this.capture !== null && this.bufStart + held - this.capture.start > this.limits.maxTokenBytes) {
      this.warn({ code: 'token-limit', message: `<${this.capture.frame.qname}> text longer than ${this.limits.maxTokenBytes} bytes: left as it is`, line: this.capture.line, column: this.capture.column });
      this.capture = null;
    }
  }

  private lookaheadExceeded(): void {
    if (this.base !== null) return;
    if (this.dialect === null) {
      this.stopRewriting('base-lookahead-limit', `no root element within ${this.limits.maxBaseLookaheadBytes} bytes: passed through unchanged`);
      return;
    }
    this.warn({ code: 'base-lookahead-limit', message: `no <base href> or content within ${this.limits.maxBaseLookaheadBytes} bytes: base committed` });
    this.commitBase(this.lowerBase);
  }

  private stopRewriting(code: 'token-limit' | 'open-elements-limit' | 'base-lookahead-limit', message: string, warn = true): void {
    if (warn) this.warn({ code, message });
    this.passthrough = true;
    this.undecided = false;
    this.tagStart = -1;
    this.capture = null;
    if (this.base === null) this.commitBase(this.lowerBase);
    this.undecided = false;
  }

  private flush(atEnd: boolean): void {
    let upTo = this.bufStart + this.buf.length;
    if (!atEnd && !this.passthrough) {
      if (this.undecided && this.base === null) return;
      upTo = Math.min(upTo, this.safeEnd);
      if (this.tagStart >= 0) upTo = Math.min(upTo, this.tagStart);
      if (this.capture !== null) upTo = Math.min(upTo, this.capture.start);
    }
    if (upTo <= this.bufStart) return;
    this.advanceLines(upTo);
    let out = '';
    let at = this.bufStart;
    let n = 0;
    for (const e of this.edits) {
      if (e.start >= upTo) break;
      out += this.buf.slice(at - this.bufStart, e.start - this.bufStart) + e.text;
      at = e.end;
      n++;
    }
    this.edits.splice(0, n);
    out += this.buf.slice(at - this.bufStart, upTo - this.bufStart);
    this.buf = this.buf.slice(upTo - this.bufStart);
    this.bufStart = upTo;
    if (out.length > 0) this.sink(out);
  }

  private slice(start: number, end: number): string {
    return this.buf.slice(start - this.bufStart, end - this.bufStart);
  }

  /** Line and column (1-based, columns in raw units) of an absolute offset not yet written out. */
  private position(offset: number): { line: number; column: number } {
    this.advanceLines(offset);
    return { line: this.line, column: this.column + (offset - this.linePos) };
  }

  private advanceLines(to: number): void {
    if (to <= this.linePos) return;
    const text = this.buf.slice(this.linePos - this.bufStart, to - this.bufStart);
    const nl = text.lastIndexOf('\n');
    if (nl === -1) this.column += text.length;
    else {
      let count = 0;
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
      this.line += count;
      this.column = text.length - nl;
    }
    this.linePos = to;
  }

  private warn(w: SiteWarning): void {
    this.stats.warnings++;
    this.options.onWarning?.(w);
  }
}

// https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead: elements that may come before <base>.
const HEAD_CONTENT = new Set(['html', 'head', 'base', 'basefont', 'bgsound', 'link', 'meta', 'title', 'noscript', 'noframes', 'style', 'script', 'template']);
