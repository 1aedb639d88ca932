/**
 * The streaming HTML rewriter core: raw text in, raw text out, only the bytes of rewritten values changed.
 *
 * Input is "raw text" (one UTF-16 unit per input byte for byte input; see attribute-value.ts). The tokenizer
 * (fast-tokenizer.ts, which gives parse5's tokens; parse5's own with `tokenizer: 'parse5'`) runs over it directly,
 * so its source offsets are raw offsets: the rewriter never re-serializes a tag, it copies the input and splices
 * replacement text into the places that held relative references (STYLE.md §1).
 *
 * Base in a stream (SPEC §4): output is held from the start of the document until the first `<base href>`, or
 * until no `<base>` can still come within head content, or until `maxBaseLookaheadBytes`; then the base is
 * committed and everything held is written. A `<base href>` after that point is reported, not honoured
 * (`exactBase` holds the whole document instead, up to `maxExactBaseBytes`).
 */
import type { Token } from 'parse5';
import { establishBase } from '../base/base.ts';
import type { BaseDecision, EntityHeaders, Retrieval } from '../base/base.ts';
import { JOINED, ReferencePolicy } from '../base/reference-policy.ts';
import type { ApplyOptions, ReferenceRecord, ReferenceSite, ReferenceStats, SiteWarning } from '../base/reference-policy.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import type { Limits } from '../limits.ts';
import { browserResolver } from '../uri/browser.ts';
import type { Resolver } from '../uri/types.ts';
import { IDENTITY_CODEC, attributeValueEnd, attributeValueStart, decodeAttributeValue, escapeAttributeText, isPlainAscii, locateAttributeValue, quoteBefore, sameOffset } from './attribute-value.ts';
import { holdsUndecodable } from '../encoding/raw-text.ts';
import type { DecodedValue, RawCodec } from './attribute-value.ts';
import { scanSrcset } from './microsyntax.ts';
import { tokenBodyEnd, tokenBodyStart } from '../css/rewrite-css.ts';
import { TokenizerDriver } from './tokenizer-driver.ts';
import type { DriverHandler, Namespace, TokenizerEngine } from './tokenizer-driver.ts';
import { FastTokenizerDriver } from './fast-tokenizer.ts';
import { urlPieces, lookupUrlAttribute, cssPieces, jsonScriptPieces } from './url-pieces.ts';
import { SVG_RESOURCE_REFERENCE_ELEMENTS, relGoverns } from './url-attributes.ts';
import type { UrlAttributeSpec } from './url-attributes.ts';

export type { ReferenceRecord } from '../base/reference-policy.ts';

/** A warning of the HTML rewriter, with the line and column it is about. */
export type HtmlWarning = SiteWarning;

/** How references are rewritten: the choices every document rewriter (HTML, MIME parts, HTTP bodies) takes. */
export interface RewriteChoices {
  /** @default browserResolver */
  readonly resolver?: Resolver | undefined;
  /** Hold the whole document so that a `<base href>` anywhere is honoured. @default false */
  readonly exactBase?: boolean | undefined;
  /** Absolutize fragment-only references (`href="#x"`) of HTML attributes too. @default false */
  readonly absolutizeFragments?: boolean | undefined;
  /** Rewrite lazy-load conventions (`data-src`, `data-srcset`, `data-original`, `data-lazy-*`). @default false */
  readonly lazyLoad?: boolean | undefined;
  /** Buffer limits (src/limits.ts). */
  readonly limits?: Limits | undefined;
}

export interface HtmlRewriteOptions extends RewriteChoices {
  /** The retrieval URL (after redirects): the document's URL, and a base layer. */
  readonly retrieval?: Retrieval | null | undefined;
  /** The fallback base (`--base`). */
  readonly fallback?: string | null | undefined;
  /** The base of the entity that contains this document (MIME part, parent of an iframe srcdoc). */
  readonly encapsulating?: BaseDecision | null | undefined;
  /** The entity's headers (Content-Base, Content-Location). */
  readonly headers?: EntityHeaders | null | undefined;
  /** Honour Content-Base / Content-Location of HTTP responses. @default false */
  readonly honourHttpContentLocation?: boolean | undefined;
  /** The document's encoding (a WHATWG name), for the query of `browser` resolutions. @default 'utf-8' */
  readonly encoding?: string | undefined;
  readonly onWarning?: ((warning: HtmlWarning) => void) | undefined;
  readonly onReference?: ((reference: ReferenceRecord) => void) | undefined;
  /** Called once, when the base is committed. */
  readonly onBase?: ((decision: BaseDecision) => void) | undefined;
}

export interface HtmlRewriteStats extends ReferenceStats {
  warnings: number;
}

/** A URL-bearing attribute of a queued tag: its qualified name, parse5's location key, and its table row. */
interface UrlAttribute {
  readonly name: string;
  readonly key: string;
  readonly spec: UrlAttributeSpec;
}

/** planAttribute's scratch site: a ReferenceSite whose line and column are read from `location` when read. */
interface AttributeSite extends ReferenceSite {
  element: string;
  attribute: string;
  rel?: string;
  location: Token.Location;
}

const NO_LOCATION: Token.Location = { startLine: 0, startCol: 0, startOffset: 0, endLine: 0, endCol: 0, endOffset: 0 };

/**
 * An AttributeSite. Lines and columns are counted by the fast tokenizer only when read (its SourceLocation), and
 * only a report or a warning reads a site's: so `line` and `column` are accessors, read when the policy reads
 * them. They are own, enumerable properties, in a plain site's order (element, attribute, line, column, rel), so
 * that the policy's report (`{ ...site, raw, … }`) copies their values as it copied a plain site's; `location` is
 * not enumerable, so no report carries it. NOTE: measured by the tokenizer's helper in paired worker-thread
 * rounds: reading the lines of every URL attribute eagerly cost 3-4% of the rewriter core on the 258 real pages.
 */
function attributeSite(withRel: boolean): AttributeSite {
  const site = {} as AttributeSite;
  Object.defineProperty(site, 'location', LOCATION_FIELD);
  site.element = '';
  site.attribute = '';
  Object.defineProperty(site, 'line', LINE_ACCESSOR);
  Object.defineProperty(site, 'column', COLUMN_ACCESSOR);
  if (withRel) site.rel = '';
  return site;
}

// One getter function for every site, so that every site has one hidden class (a getter made per site gave each
// rewriter's sites a map of their own: the policy's reads of `line` went polymorphic and were compiled again and
// again; and making them was ~8 µs a rewriter, a tenth of a small mail part's).
const LOCATION_FIELD: PropertyDescriptor = { value: NO_LOCATION, writable: true, enumerable: false };
const LINE_ACCESSOR: PropertyDescriptor = {
  get(this: AttributeSite) {
    return this.location.startLine;
  },
  enumerable: true,
};
const COLUMN_ACCESSOR: PropertyDescriptor = {
  get(this: AttributeSite) {
    return this.location.startCol;
  },
  enumerable: true,
};

/**
 * The site of the references in a text element's text (planText's scratch, one per rewriter): the line and column
 * where the text starts, the end of its start tag `tag`, counted when read (as an AttributeSite's). NOTE: read
 * eagerly, the lines of the document up to every `<style>` were counted (--cpu-prof: 1–4% of the rewriter core
 * on the 258 real pages).
 */
interface TextSite extends ReferenceSite {
  element: string;
  attribute: null;
  tag: Token.Location;
}

function textSite(): TextSite {
  const site = { element: '', attribute: null } as TextSite;
  Object.defineProperty(site, 'tag', LOCATION_FIELD);
  Object.defineProperty(site, 'line', TEXT_LINE_ACCESSOR);
  Object.defineProperty(site, 'column', TEXT_COLUMN_ACCESSOR);
  return site;
}
const TEXT_LINE_ACCESSOR: PropertyDescriptor = {
  get(this: { tag: Token.Location }) {
    return this.tag.endLine;
  },
  enumerable: true,
};
const TEXT_COLUMN_ACCESSOR: PropertyDescriptor = {
  get(this: { tag: Token.Location }) {
    return this.tag.endCol;
  },
  enumerable: true,
};

/** A replacement of raw input [start, end) by `text` (raw). Offsets are absolute in the document. */
interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

type WorkItem =
  | { readonly kind: 'tag'; readonly token: Token.TagToken; readonly ns: Namespace; readonly beforeBase: boolean; readonly urls: UrlAttribute[]; readonly provisional?: boolean }
  | {
      readonly kind: 'text';
      readonly element: string;
      readonly syntax: TextSyntax;
      readonly start: number;
      readonly end: number;
      /** The start tag's location: the text's line and column are its end's (read only by a report or a warning). */
      readonly tag: Token.Location;
      /** SVG `<style>`: the raw ranges of its child text (text and CDATA sections between its child nodes). */
      readonly segments?: ReadonlyArray<readonly [number, number]>;
      readonly provisional?: boolean;
    };

type TextSyntax = 'css' | 'css-with-references' | 'importmap' | 'speculationrules' | 'module';

// https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead: start tags the "in head" insertion
// mode handles itself. Any other start tag ends head content (in "in head", "after head" and "in body").
const HEAD_CONTENT = new Set(['html', 'head', 'base', 'basefont', 'bgsound', 'link', 'meta', 'title', 'noscript', 'noframes', 'style', 'script', 'template']);
// Elements whose text the tokenizer keeps as raw text or RCDATA: text in them does not end head content.
// The formatting elements (https://html.spec.whatwg.org/multipage/parsing.html#formatting).
const FORMATTING = new Set(['a', 'b', 'big', 'code', 'em', 'font', 'i', 'nobr', 's', 'small', 'strike', 'strong', 'tt', 'u']);
/** The apply options of an HTML attribute holding one URL, when nothing else is special about it. */
const FRAGMENTS_ALLOWED: ApplyOptions = { fragments: true };
/** The apply options of CSS in an attribute (`style`, SVG presentation attributes), when nothing else is special. */
const CSS_IN_ATTRIBUTE: ApplyOptions = { fragments: false, encoding: 'utf-8' };

// https://infra.spec.whatwg.org/#ascii-whitespace
function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/**
 * planTag's keys and the pending edits are kept from tag to tag and flush to flush (not made again), but not
 * beyond these many entries: a tag with very many URL attributes, or a value or stylesheet with very many URLs,
 * does not keep its storage for the rest of the document.
 */
const PLANNED_KEYS_KEEP = 256;
const EDITS_KEEP = 4096;

const TEXT_ELEMENTS = new Set(['title', 'style', 'script', 'noframes', 'textarea', 'xmp', 'iframe', 'noembed', 'plaintext']);

/**
 * A text element being read: HTML `<style>` and JSON `<script>` (raw text up to the end tag), or SVG `<style>`,
 * whose stylesheet is its child text content (https://html.spec.whatwg.org/multipage/semantics.html#update-a-style-block,
 * "child text content": its Text children, CDATA sections included, not comments or the text of child elements),
 * gathered as `segments` between the tokens read while the style element is the current node.
 */
interface OpenText {
  element: string;
  syntax: TextSyntax;
  start: number;
  /** The start tag's location (see WorkItem). */
  tag: Token.Location;
  /** SVG <style>: the builder's element, and where the current run of its child text started (null: not its child). */
  node?: unknown;
  segments?: Array<readonly [number, number]>;
  segmentStart?: number | null;
}

export class HtmlRewriteCore implements DriverHandler {
  readonly stats: HtmlRewriteStats = { rewritten: 0, unchanged: 0, unresolvable: 0, warnings: 0 };
  /** The base decision, once committed. */
  base: BaseDecision | null = null;

  private readonly options: HtmlRewriteOptions;
  private readonly resolver: Resolver;
  private readonly limits: Limits;
  private readonly lookupOptions: { readonly lazyLoad: boolean };
  private readonly codec: RawCodec;
  private readonly sink: (raw: string) => void;
  /** Whether `sink` takes the output piece by piece (the constructor). */
  private readonly piecewise: boolean;
  private readonly driver: TokenizerEngine;
  private readonly depth: number;

  /** Raw input not yet written out, starting at absolute offset `bufStart`. */
  private buf = '';
  private bufStart = 0;
  private written = 0;
  /**
   * The edits not written yet: the first editCount entries of three arrays, which are reused, cut only past
   * EDITS_KEEP (no object an edit, and no array grown again after every flush: issue 23).
   */
  private readonly editStarts: number[] = [];
  private readonly editEnds: number[] = [];
  private readonly editTexts: string[] = [];
  private editCount = 0;
  private editsUnsorted = false;
  /** Formatting elements of a body a frameset replaced, which reconstruction may bring back (onBodyReplaced). */
  private readonly dormant: WorkItem[] = [];
  private readonly queue: WorkItem[] = [];
  /** Every edit made, when a caller needs them (srcdoc). */
  readonly recordedEdits: Edit[] | null;

  private committed = false;
  private passthrough = false;
  /** The start offset of the first token longer than maxTokenBytes: from there on, bytes pass through. */
  private limitAt: number | null = null;
  private limitCode: 'token-limit' | 'open-elements-limit' = 'token-limit';
  private ended = false;
  private seenBaseHref = false;
  /** The first `<base href>` in tree order so far, and the tables it is in (see onFirstBaseHref). */
  private baseCandidate: { token: Token.TagToken; tables: readonly unknown[] } | null = null;
  private embeddedBase: string | null = null;
  private policy: ReferencePolicy | null = null;
  private readonly nestedStats: ReferenceStats = { rewritten: 0, unchanged: 0, unresolvable: 0 };
  private textElement: string | null = null;
  /** The last base prefix inserted before a plain reference (spliceValue), and its escaped, encoded text. */
  private insertedPrefix: string | null = null;
  private insertedQuote: '"' | "'" | '' = '"';
  private insertedText = '';
  /** The escaped, encoded text of each prefix, for values in double, single and no quotes (made when first needed: a mail part may have no reference). */
  private insertedTexts: Map<string, string> | null = null;
  private insertedTextsApos: Map<string, string> | null = null;
  private insertedTextsUnquoted: Map<string, string> | null = null;
  private openText: OpenText | null = null;
  /** spliceCssPrefix's last prefix (and whether CSS writes it as it is), head, quote and prefix units kept, and their escaped, encoded text. */
  private cssPrefix: string | null = null;
  private cssPrefixVerbatim = false;
  private cssHead: string | null = null;
  private cssQuote: '"' | "'" | '' = '"';
  private cssExtra = 0;
  private cssText = '';
  /** planAttribute's scratch: its site (with and without a rel) and a plain value (see there). */
  private readonly site: AttributeSite = attributeSite(false);
  private readonly relSite: AttributeSite & { rel: string } = attributeSite(true) as AttributeSite & { rel: string };
  private readonly plainValue: { value: string; readonly toRaw: (index: number) => number; readonly undecodable: readonly number[] } = { value: '', toRaw: sameOffset, undecodable: [] };
  /** planTag's scratch: the location keys of the tag being planned, and its applet's codebase once found. */
  private readonly plannedKeys: string[] = [];
  private appletBase: string | null | undefined;

  /**
   * `sink` hears the raw output in order. With `internal.piecewise` it hears it in the pieces it is made of (the
   * input's text between edits, and each edit's text) rather than one string a flush: for a sink that copies
   * each into place (a whole document's output buffer, stream.ts), the joined string was garbage made to be
   * copied once and dropped.
   */
  constructor(options: HtmlRewriteOptions, codec: RawCodec, sink: (raw: string) => void, internal: { depth?: number; recordEdits?: boolean; /** parse5's tokenizer instead of the fast one: the reference in tests. */ tokenizer?: 'fast' | 'parse5'; piecewise?: boolean } = {}) {
    this.options = options;
    this.resolver = options.resolver ?? browserResolver;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.lookupOptions = { lazyLoad: options.lazyLoad === true };
    this.codec = codec;
    this.sink = sink;
    this.piecewise = internal.piecewise === true;
    this.depth = internal.depth ?? 0;
    this.recordedEdits = internal.recordEdits === true ? [] : null;
    this.driver = internal.tokenizer === 'parse5' ? new TokenizerDriver(this) : new FastTokenizerDriver(this);
  }

  /** Feeds raw text. */
  write(chunk: string): void {
    if (this.ended) throw new Error('write after end');
    if (chunk.length === 0) return;
    if (this.passthrough) {
      this.sink(chunk);
      return;
    }
    this.buf += chunk;
    this.written += chunk.length;
    this.driver.write(chunk, false);
    this.afterInput();
  }

  /** Ends the input: commits the base if still held, and writes out everything. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.passthrough) {
      this.driver.write('', true);
      const pending = Math.min(this.driver.safeOffset(), this.openText?.start ?? Infinity);
      if (this.limitAt !== null) this.stopAtTokenLimit(this.limitAt);
      else if (this.bufStart + this.buf.length - pending > this.limits.maxTokenBytes) this.stopAtTokenLimit(pending);
      else {
        if (!this.committed) this.commit();
        this.processQueue(true);
      }
    }
    this.flush(this.bufStart + this.buf.length);
    this.syncStats();
  }

  /** The lookahead limit in force: a `<base>` tag counts only if it ends within this many bytes. */
  private lookaheadLimit(): number {
    return this.options.exactBase === true ? this.limits.maxExactBaseBytes : this.limits.maxBaseLookaheadBytes;
  }

  /**
   * Commits because the lookahead limit is passed. The rule depends on offsets only (a base tag must end within
   * the limit), never on how the input was chunked, so the output is the same for every chunking.
   */
  private commitAtLimit(): void {
    this.warn({ code: 'base-lookahead-limit', message: `no <base href> within the first ${this.lookaheadLimit()} bytes: committing to the base known so far` });
    this.commit();
  }

  private afterInput(): void {
    if (this.limitAt !== null) return this.stopAtTokenLimit(this.limitAt);
    if (!this.committed) {
      if (this.written <= this.lookaheadLimit()) return;
      this.commitAtLimit();
    }
    this.processQueue();
    let safe = Math.min(this.driver.safeOffset(), this.openText?.start ?? Infinity);
    if (this.bufStart + this.buf.length - safe > this.limits.maxTokenBytes) {
      // Held bytes over the limit are a token over the limit only if the tokenizer has read all it can: the
      // limit is measured on tokens, never on how the input was chunked.
      this.driver.catchUp();
      if (this.limitAt !== null) return this.stopAtTokenLimit(this.limitAt);
      this.processQueue();
      safe = Math.min(this.driver.safeOffset(), this.openText?.start ?? Infinity);
    }
    // Provisional work items (a body a <frameset> may still replace) hold output too, but not beyond
    // maxTokenBytes: past that the body is taken as it is.
    if (this.bufStart + this.buf.length - this.queuedFrom() > this.limits.maxTokenBytes) {
      this.processQueue(true);
      this.dormant.length = 0;
    }
    this.flush(Math.min(safe, this.queuedFrom()));
    // A token (or <style> text) still open and already longer than the limit: it will be over the limit when
    // it ends, or at the end of input; stop here rather than hold it.
    if (this.bufStart + this.buf.length - safe > this.limits.maxTokenBytes) this.stopAtTokenLimit(safe);
  }

  // --- tokenizer events -------------------------------------------------------------------------------------

  onStartTag(token: Token.TagToken, ns: Namespace, inserted: boolean, adopted: readonly string[] | null = null): void {
    if (this.overTokenLimit(token.location!.startOffset, token.location!.endOffset)) return;
    if (this.driver.openElementCount() > this.limits.maxOpenElements) {
      this.limitAt = token.location!.startOffset;
      this.limitCode = 'open-elements-limit';
      return;
    }
    const tag = token.tagName;
    let firstBase = false;
    if (!this.committed && token.location!.endOffset > this.lookaheadLimit()) this.commitAtLimit();
    this.svgStyleToken(token.location!.startOffset, token.location!.endOffset);
    if (ns === 'html' && inserted) {
      // (A start tag the tree builder ignores, as <style> or <base> in <select>, leaves the tokenizer as it was.)
      if (TEXT_ELEMENTS.has(tag)) this.textElement = tag;
      const loc = token.location!;
      if (tag === 'style') {
        this.openText = { element: 'style', syntax: 'css', start: loc.endOffset, tag: loc };
      } else if (tag === 'script') {
        const type = attributeNamed(token.attrs, 'type')?.value.trim().toLowerCase();
        if (type === 'importmap' || type === 'speculationrules' || type === 'module') {
          this.openText = { element: 'script', syntax: type, start: loc.endOffset, tag: loc };
        }
      } else if (tag === 'base' && !this.driver.inTemplate() && token.attrs.some((a) => a.name === 'href')) {
        // https://html.spec.whatwg.org/multipage/urls-and-fetching.html#document-base-url: the first base element
        // with an href attribute, in tree order. (A <base> in the body is inserted too, so "first" is global.)
        // A later one comes first in tree order when it is foster parented before a table the candidate is in.
        const place = this.driver.lastBasePlacement();
        if (!this.seenBaseHref) {
          this.seenBaseHref = true;
          firstBase = true;
          this.baseCandidate = { token, tables: place.tables };
        } else if (!this.committed && this.baseCandidate !== null && place.before !== null && this.baseCandidate.tables.includes(place.before)) {
          this.baseCandidate = { token, tables: place.tables };
          firstBase = true;
        }
      }
    } else if (ns === 'svg' && tag === 'style' && !token.selfClosing) {
      // SVG <style> holds CSS too, as ordinary text (character references decoded).
      const loc = token.location!;
      this.openText = { element: 'style', syntax: 'css-with-references', start: loc.endOffset, tag: loc, node: this.driver.currentElement(), segments: [], segmentStart: loc.endOffset };
    }

    // Only attributes that may hold a URL have a location (the tokenizer's `mayHoldUrl`); with none, there is nothing to look up.
    // Only what lands in the DOM is a reference: a start tag the tree builder drops (<frame> outside a frameset,
    // <col> outside a table, a second <head>, anything after <frameset>, a nested <form>) makes no element, and
    // a second <html> or <body> only adds the attributes the first lacks.
    if (token.location?.attrs !== undefined && (inserted || adopted !== null)) {
      // (A second <html>'s attributes go to the root element, which a <frameset> does not replace.)
      const inBody = !(tag === 'html' && ns === 'html');
      // Planned now, a tag's URL attributes are found as they are planned: no list of them (issue 23).
      if (inserted && this.plansNow(inBody)) this.planTag(token, ns, !this.seenBaseHref, null);
      else {
        let urls = this.urlAttributes(token, ns);
        if (urls !== null && !inserted) {
          urls = urls.filter((u) => adopted!.includes(u.name));
          if (urls.length === 0) urls = null;
        }
        if (urls !== null) {
          if (this.plansNow(inBody)) this.planTag(token, ns, !this.seenBaseHref, urls);
          else this.enqueue({ kind: 'tag', token, ns, beforeBase: !this.seenBaseHref, urls }, inBody);
        }
      }
    }
    if (firstBase) this.onFirstBaseHref(token);
    if (!this.committed && !this.holdsBeyondHead() && (ns !== 'html' || !HEAD_CONTENT.has(tag))) this.commit();
  }

  onEndTag(token: Token.TagToken, ns: Namespace): void {
    if (this.overTokenLimit(token.location!.startOffset, token.location!.endOffset)) return;
    if (this.openText !== null && this.overTokenLimit(this.openText.start, token.location!.startOffset)) return;
    const tag = token.tagName;
    if (tag === this.textElement) this.textElement = null;
    const open = this.openText;
    // HTML <style> text (RAWTEXT) ends at its end tag; SVG <style> text when the element is popped.
    if (open !== null && open.syntax === 'css-with-references') this.svgStyleToken(token.location!.startOffset, token.location!.endOffset);
    else if (open !== null && tag === open.element) {
      this.openText = null;
      this.enqueue({ kind: 'text', element: open.element, syntax: open.syntax, start: open.start, end: token.location!.startOffset, tag: open.tag });
    }
    if (!this.committed && !this.holdsBeyondHead() && ns === 'html' && (tag === 'head' || tag === 'body' || tag === 'html')) this.commit();
    if (!this.committed && this.baseCandidate !== null && this.baseCandidate.tables.every((t) => !this.driver.isOpen(t))) this.commit();
  }

  /** Whether onText may still do anything (DriverHandler.hearsText): not once the base is committed or a limit hit, which are for good. */
  hearsText(): boolean {
    return !this.committed && this.limitAt === null;
  }

  onText(): void {
    if (this.limitAt !== null) return;
    // Character data outside head elements starts the body (https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead,
    // "anything else": pop head, reprocess in "after head", which inserts a body).
    if (!this.committed && this.textElement === null && !this.holdsBeyondHead()) this.commit();
  }

  onComment(token: Token.CommentToken): void {
    if (this.overTokenLimit(token.location!.startOffset, token.location!.endOffset)) return;
    this.svgStyleToken(token.location!.startOffset, token.location!.endOffset);
  }

  onDoctype(token: Token.DoctypeToken): void {
    if (this.overTokenLimit(token.location!.startOffset, token.location!.endOffset)) return;
    this.svgStyleToken(token.location!.startOffset, token.location!.endOffset);
  }

  /**
   * A token [start, end) read while an SVG `<style>` is open (the tree builder has processed it): the child text
   * before it is a segment of the stylesheet if the style was the current node; after it, text is the style's
   * child again only if the style is the current node; once the style is off the stack, its stylesheet is queued.
   */
  private svgStyleToken(start: number, end: number): void {
    const open = this.openText;
    if (open === null || open.syntax !== 'css-with-references') return;
    if (open.segmentStart !== null && open.segmentStart !== undefined && start > open.segmentStart) open.segments!.push([open.segmentStart, start]);
    if (!this.driver.isOpen(open.node)) {
      this.openText = null;
      this.enqueue({ kind: 'text', element: open.element, syntax: open.syntax, start: open.start, end: start, tag: open.tag, segments: open.segments! });
      return;
    }
    open.segmentStart = this.driver.currentElement() === open.node ? end : null;
  }

  /**
   * The end of input: a `<style>` still open is a stylesheet all the same (its text runs to the end of input,
   * and Chromium applies it); a JSON `<script>` still open is not run ("already started" at EOF in "text").
   */
  onEof(): void {
    const open = this.openText;
    if (open === null || this.limitAt !== null) return;
    const end = this.written;
    if (open.syntax === 'css-with-references') {
      if (open.segmentStart !== null && open.segmentStart !== undefined && end > open.segmentStart) open.segments!.push([open.segmentStart, end]);
      this.enqueue({ kind: 'text', element: open.element, syntax: open.syntax, start: open.start, end, tag: open.tag, segments: open.segments! });
    } else if (open.syntax === 'css') {
      if (this.overTokenLimit(open.start, end)) return;
      this.enqueue({ kind: 'text', element: open.element, syntax: open.syntax, start: open.start, end, tag: open.tag });
    }
    this.openText = null;
  }

  /**
   * Whether rewriting has stopped at a token longer than maxTokenBytes (this one or an earlier one). The rule
   * depends on the token's offsets only, so the output is the same however the input was chunked.
   */
  private overTokenLimit(start: number, end: number): boolean {
    if (this.limitAt !== null) return true;
    if (end - start <= this.limits.maxTokenBytes) return false;
    this.limitAt = start;
    return true;
  }

  /** Stops rewriting at `offset`: edits before it are applied; every byte from it on passes through. */
  private stopAtTokenLimit(offset: number): void {
    if (!this.committed) this.commit();
    this.processQueue(true);
    this.flush(offset);
    if (this.limitCode === 'open-elements-limit') {
      this.warn({ code: 'open-elements-limit', message: `more than ${this.limits.maxOpenElements} open elements: the rest of the document passes through unchanged` });
    } else {
      this.warn({ code: 'token-limit', message: `a token longer than ${this.limits.maxTokenBytes} bytes: the rest of the document passes through unchanged` });
    }
    this.passthrough = true;
    this.queue.length = 0;
    this.flush(this.bufStart + this.buf.length);
  }

  /** With exactBase, nothing but the first base href (or the end, or the limit) commits. */
  private holdsBeyondHead(): boolean {
    return this.options.exactBase === true;
  }

  private onFirstBaseHref(token: Token.TagToken): void {
    const href = this.attributeValue(token, 'href');
    if (!this.committed) {
      // The base element's own href (queued with the others) is rewritten to its absolute value.
      this.embeddedBase = href ?? '';
      // Inside a table, a base foster parented before that table later would come first in tree order: the
      // decision waits until the tables around it are closed (or the end, or the lookahead limit).
      if (this.baseCandidate === null || this.baseCandidate.tables.length === 0) this.commit();
      return;
    }
    this.processQueue(); // so that the count below includes every reference before this element
    this.warn({
      code: 'base-href-after-commit',
      message: `<base href=${JSON.stringify(href)}> comes after the base was committed (${this.policy?.stats.rewritten ?? 0} earlier relative references were resolved without it); use exactBase to honour it`,
      detail: href ?? '',
      line: token.location?.startLine ?? 0,
      column: token.location?.startCol ?? 0,
    });
  }

  /** The decoded value of one attribute of a start tag, from its raw bytes. */
  private attributeValue(token: Token.TagToken, name: string): string | null {
    const raw = this.rawAttribute(token, name);
    if (raw === null) return null;
    const loc = locateAttributeValue(raw.text);
    if (loc === null) return '';
    return decodeAttributeValue(raw.text.slice(loc.start, loc.end), this.codec)?.value ?? null;
  }

  private rawAttribute(token: Token.TagToken, key: string): { text: string; start: number } | null {
    const loc = token.location?.attrs?.[key];
    if (loc === undefined) return null;
    return { text: this.buf.slice(loc.startOffset - this.bufStart, loc.endOffset - this.bufStart), start: loc.startOffset };
  }

  // --- base ------------------------------------------------------------------------------------------------

  private commit(): void {
    if (this.committed) return;
    this.committed = true;
    const o = this.options;
    this.base = establishBase(
      { fallback: o.fallback, retrieval: o.retrieval, encapsulating: o.encapsulating, headers: o.headers, embedded: this.embeddedBase },
      { resolver: this.resolver, encoding: o.encoding, honourHttpContentLocation: o.honourHttpContentLocation },
    );
    for (const ignored of this.base.ignored) {
      if (ignored.byRule === true) continue;
      this.warn({
        code: ignored.source === 'embedded' ? 'base-href-ignored' : 'invalid-base-layer',
        message: `${ignored.source} ${JSON.stringify(ignored.raw)} not used: ${ignored.reason}`,
        detail: ignored.raw,
      });
    }
    this.policy = new ReferencePolicy(this.base, {
      resolver: this.resolver,
      encoding: o.encoding,
      absolutizeFragments: o.absolutizeFragments,
      onReference: o.onReference,
      onWarning: (w) => this.warn(w),
    });
    o.onBase?.(this.base);
  }

  /** Statistics so far: references (this document's and nested ones') and warnings. */
  private syncStats(): void {
    const own = this.policy?.stats ?? { rewritten: 0, unchanged: 0, unresolvable: 0 };
    this.stats.rewritten = own.rewritten + this.nestedStats.rewritten;
    this.stats.unchanged = own.unchanged + this.nestedStats.unchanged;
    this.stats.unresolvable = own.unresolvable + this.nestedStats.unresolvable;
  }

  // --- work items ------------------------------------------------------------------------------------------

  /**
   * Queues a work item. One read while a `<frameset>` may still replace the body is provisional: "in body", a
   * frameset start tag while frameset-ok is "ok" removes the body from the document with everything in it
   * (https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody, "A start tag whose tag name is
   * "frameset""), so it is planned only once that can no longer happen, and dropped if it does.
   */
  private enqueue(item: WorkItem, inBody = true): void {
    if (this.plansNow(inBody)) this.plan(item);
    else this.queue.push(inBody && this.driver.framesetPending() ? { ...item, provisional: true } : item);
  }

  /**
   * Whether a work item read now is planned at once rather than queued: when the base is committed, nothing is
   * queued before it and no <frameset> may still replace the body. That is what processQueue would do at the end
   * of the chunk (nothing in between changes what planning reads), while the token is still young for the
   * garbage collector (issue 23: on link-dense pages GC fell from 15% to 5% of the profile). Items queued before
   * the commit, or while a <frameset> could still replace the body, are planned here first, once that no longer
   * holds: else every tag after them in the chunk (often a whole page) would be queued too (62% of the planned
   * tags of the 258 real pages were).
   */
  private plansNow(inBody: boolean): boolean {
    if (!this.committed || this.limitAt !== null || (inBody && this.driver.framesetPending())) return false;
    if (this.queue.length !== 0) this.processQueue();
    return this.queue.length === 0;
  }

  /** A `<frameset>` replaced the body: what was read in it is not in the document. */
  onBodyReplaced(): void {
    let kept = 0;
    for (const item of this.queue) {
      if (item.provisional !== true) this.queue[kept++] = item;
      // A formatting element of the replaced body stays in the list of active formatting elements: the tree
      // builder may make it again after the frameset (Chromium 153: `<a href=x><frameset></frameset></html> `
      // has an <a href=x> after the frameset).
      else if (item.kind === 'tag' && FORMATTING.has(item.token.tagName)) this.dormant.push(item);
    }
    this.queue.length = kept;
  }

  onReconstructed(attrs: Token.Attribute[]): void {
    if (this.dormant.length === 0) return;
    const at = this.dormant.findIndex((item) => item.kind === 'tag' && item.token.attrs === attrs);
    if (at === -1) return;
    const [item] = this.dormant.splice(at, 1);
    if (item!.kind !== 'tag' || item!.token.location!.startOffset < this.bufStart) return; // (written already)
    this.queue.push({ ...item!, provisional: false });
    // (Edits are sorted before they are written: this one may come after later tags'.)
  }

  /** Plans the queued items (`atEnd`: all of them; else not a provisional one while the body may still be replaced). */
  private processQueue(atEnd = false): void {
    if (!this.committed) return;
    const hold = !atEnd && this.driver.framesetPending();
    let done = 0;
    for (const item of this.queue) {
      if (hold && item.provisional === true) break;
      this.plan(item);
      done++;
    }
    if (done === this.queue.length) this.queue.length = 0;
    else this.queue.splice(0, done);
  }

  private plan(item: WorkItem): void {
    if (item.kind === 'tag') this.planTag(item.token, item.ns, item.beforeBase, item.urls);
    else this.planText(item);
  }

  /** Where output must stop: before the first work item not planned yet. */
  private queuedFrom(): number {
    const first = this.queue[0] ?? this.dormant[0];
    if (first === undefined) return Infinity;
    return first.kind === 'tag' ? first.token.location!.startOffset : first.start;
  }

  /** The URL-bearing attributes of a tag (most tags have none: they are not queued). */
  private urlAttributes(token: Token.TagToken, ns: Namespace): UrlAttribute[] | null {
    const locations = token.location?.attrs;
    if (locations === undefined) return null;
    let found: UrlAttribute[] | null = null;
    for (let i = this.nextUrlAttribute(token, ns, locations, 0); i !== -1; i = this.nextUrlAttribute(token, ns, locations, i + 1)) {
      const key = this.foundKey;
      if (found === null) found = [];
      else if (found.some((f) => f.key === key)) continue; // "xlink:href" and "href" can share a key
      found.push({ name: this.foundName, key, spec: this.foundSpec! });
    }
    return found;
  }

  /** nextUrlAttribute's answer: the qualified name, location key and table row of the attribute it found. */
  private foundName = '';
  private foundKey = '';
  private foundSpec: UrlAttributeSpec | undefined = undefined;

  /**
   * The index of the first URL-bearing attribute of token.attrs from `from` on, its name, location key and spec
   * in foundName, foundKey and foundSpec; or -1. The walk of urlAttributes and of planTag, which plans as it goes.
   */
  private nextUrlAttribute(token: Token.TagToken, ns: Namespace, locations: Record<string, Token.Location>, from: number): number {
    const attrs = token.attrs;
    for (let i = from; i < attrs.length; i++) {
      const attr = attrs[i]!;
      const name = attr.prefix !== undefined ? `${attr.prefix}:${attr.name}` : attr.name;
      // Only attributes that may hold a URL have a location (the tokenizer's mayHoldUrl): the location is looked
      // up first, the table only for those (both must be found; neither has an effect).
      const key = locationKey(locations, name);
      if (key === null) continue;
      const spec = lookupUrlAttribute(ns, token.tagName, name, attrs, this.lookupOptions);
      if (spec === undefined) continue;
      this.foundName = name;
      this.foundKey = key;
      this.foundSpec = spec;
      return i;
    }
    return -1;
  }

  /**
   * Plans the URL attributes of a start tag: `urls` as urlAttributes found them, or (null) every one of
   * token.attrs that urlAttributes would list, found here as it goes.
   */
  private planTag(token: Token.TagToken, ns: Namespace, beforeBase: boolean, urls: readonly UrlAttribute[] | null): void {
    const locations = token.location?.attrs;
    if (locations === undefined) return;
    this.appletBase = undefined;
    if (urls !== null) {
      for (const { name, key, spec } of urls) this.planAttribute(token, ns, beforeBase, locations, name, key, spec);
      return;
    }
    const keys = this.plannedKeys;
    let planned = 0; // (keys[planned…] are an earlier tag's: the array is cut only past PLANNED_KEYS_KEEP)
    for (let i = this.nextUrlAttribute(token, ns, locations, 0); i !== -1; i = this.nextUrlAttribute(token, ns, locations, i + 1)) {
      const key = this.foundKey;
      if (seenBefore(keys, planned, key)) continue; // "xlink:href" and "href" can share a key
      keys[planned++] = key;
      this.planAttribute(token, ns, beforeBase, locations, this.foundName, key, this.foundSpec!);
    }
    if (planned > PLANNED_KEYS_KEEP) keys.length = 0;
  }

  private planAttribute(token: Token.TagToken, ns: Namespace, beforeBase: boolean, locations: Record<string, Token.Location>, name: string, key: string, spec: UrlAttributeSpec): void {
    const tag = token.tagName;
    const attribute = locations[key];
    if (attribute === undefined) return;
    // The value located and decoded in the buffer, without a slice of the whole attribute.
    const buf = this.buf;
    const attributeEnd = attribute.endOffset - this.bufStart;
    const start = attributeValueStart(buf, attribute.startOffset - this.bufStart, attributeEnd);
    if (start === -1) return;
    const quote = quoteBefore(buf, start);
    const end = attributeValueEnd(buf, start, attributeEnd);
    // A plain value (the commonest) is its raw text, held in one object per rewriter.
    const raw = buf.slice(start, end);
    let decoded: DecodedValue | null;
    if (isPlainAscii(raw)) {
      decoded = this.plainValue;
      this.plainValue.value = raw;
    } else decoded = decodeAttributeValue(raw, this.codec);
    if (decoded === null) {
      this.warn({ code: 'undecodable-value', message: `${tag} ${name}: bytes not valid in the document encoding; left as they are`, line: attribute.startLine, column: attribute.startCol });
      return;
    }
    // The element's rel goes only on the report (onReference): decoded only when someone listens.
    const rel = this.options.onReference !== undefined && ns === 'html' && relGoverns(tag, name) ? this.attributeValue(token, 'rel') : null;
    // The site, in one object per rewriter: the policy reads it, and copies it into a report.
    const at = rel === null ? this.site : this.relSite;
    at.element = tag;
    at.attribute = name;
    at.location = attribute;
    if (rel !== null) this.relSite.rel = rel;
    let base: string | null | undefined;
    if (spec.base === 'applet-codebase') {
      if (this.appletBase === undefined) this.appletBase = this.appletCodebase(token);
      base = this.appletBase;
    } else if (tag === 'base' && ns === 'html' && name === 'href' && this.base?.source === 'embedded') {
      // Every base element's href is resolved against the fallback base, the layers below the embedded one
      // (https://html.spec.whatwg.org/multipage/semantics.html#set-the-frozen-base-url step 2).
      base = this.base.below?.url ?? null;
    } else if (spec.syntax === 'meta-refresh' && beforeBase && this.base?.source === 'embedded') {
      // Chromium resolves a refresh URL when the <meta> is parsed: a <base> after it does not apply.
      base = this.base.below?.url ?? null;
    }
    const valueStart = this.bufStart + start;
    if (spec.syntax === 'srcdoc') {
      this.planSrcdoc(decoded, valueStart, quote, at);
      return;
    }
    const isCss = spec.syntax === 'style' || spec.syntax === 'css-presentation';
    const fragments = ns === 'html' && spec.syntax === 'url';
    // Chromium encodes the query of a url() in a style attribute (or SVG presentation attribute) as UTF-8,
    // whatever the document's encoding; <style> text uses the document's encoding.
    const encoding = isCss ? 'utf-8' : undefined;
    const sameDocument = ns === 'svg' && spec.syntax === 'url' && SVG_RESOURCE_REFERENCE_ELEMENTS.has(tag) ? this.options.retrieval?.url : undefined;
    const applyOptions =
      base === undefined && sameDocument === undefined
        ? encoding === undefined
          ? fragments
            ? FRAGMENTS_ALLOWED
            : undefined
          : CSS_IN_ATTRIBUTE
        : { base, fragments, encoding, sameDocument };
    if (spec.syntax === 'url') {
      // One URL, the ASCII whitespace around it kept as it is (the commonest case, without a piece object).
      const value = decoded.value;
      let first = 0;
      let last = value.length;
      while (first < last && isAsciiWhitespace(value.charCodeAt(first))) first++;
      while (last > first && isAsciiWhitespace(value.charCodeAt(last - 1))) last--;
      if (this.leftUndecodable(decoded, first, last, at)) return;
      // (applyJoined: spliceValue writes the prefix when the policy sets one, and never reads the URL then.)
      const resolved = this.policy!.applyJoined(first === 0 && last === value.length ? value : value.slice(first, last), at, applyOptions);
      if (resolved !== null) this.spliceValue(decoded, valueStart, quote, first, last, resolved);
      return;
    }
    if (spec.syntax === 'srcset') {
      // Each candidate's URL planned as scanSrcset finds it (what urlPieces makes pieces of), without a piece
      // or a closure of its own.
      this.srcset = { decoded, valueStart, quote, at, applyOptions };
      scanSrcset(decoded.value, this.planSrcsetUrl);
      this.srcset = null;
      return;
    }
    const pieces = isCss ? cssPieces(decoded.value, 'declarations') : urlPieces(spec, decoded.value);
    for (const piece of pieces) {
      if (this.leftUndecodable(decoded, piece.start, piece.end, at)) continue;
      let resolved = this.policy!.applyJoined(piece.value, at, applyOptions);
      if (resolved === null) continue;
      // (urlPieces write the URL as it is; CSS pieces quote or escape it.)
      if (isCss) {
        const prefix = this.policy!.lastPrefix;
        this.policy!.lastPrefix = null;
        if (prefix !== null) {
          const cut = this.policy!.lastCut;
          if (this.spliceCssPrefix(decoded, valueStart, quote, piece.start, piece.end, piece.value, prefix, cut)) continue;
          if (resolved === JOINED) resolved = prefix + piece.value.slice(cut);
        }
      }
      this.spliceValue(decoded, valueStart, quote, piece.start, piece.end, isCss ? piece.serialize(resolved) : resolved);
    }
  }

  /** planAttribute's srcset being planned, for planSrcsetUrl. */
  private srcset: { decoded: DecodedValue; valueStart: number; quote: '"' | "'" | ''; at: ReferenceSite; applyOptions: ApplyOptions | undefined } | null = null;

  /** The URL at [start, end) of the srcset being planned (as planAttribute plans a piece of urlPieces). */
  private readonly planSrcsetUrl = (start: number, end: number): void => {
    const { decoded, valueStart, quote, at, applyOptions } = this.srcset!;
    if (this.leftUndecodable(decoded, start, end, at)) return;
    const resolved = this.policy!.applyJoined(decoded.value.slice(start, end), at, applyOptions);
    if (resolved !== null) this.spliceValue(decoded, valueStart, quote, start, end, resolved);
  };

  /**
   * Replaces [start, end) of a decoded attribute value (whose raw text starts at `valueStart`) by `text`, escaped,
   * keeping the raw bytes of the end they share (keptSuffix). `text` is the URL the policy has just returned for
   * that piece, or its serialization.
   */
  private spliceValue(decoded: DecodedValue, valueStart: number, quote: '"' | "'" | '', start: number, end: number, text: string): void {
    const prefix = this.policy!.lastPrefix;
    const cut = this.policy!.lastCut;
    // A cut written with a character reference (`..&sol;a`) is not spliced: its raw text is not the cut's text, so
    // the edit below would drop the reference where keptSuffix keeps it (the two would give other bytes).
    if (prefix !== null && cut !== 0 && decoded.toRaw(start + cut) - decoded.toRaw(start) !== cut) {
      if (text === JOINED) text = prefix + decoded.value.slice(start + cut, end);
    } else if (prefix !== null) {
      // `text` is prefix + value[start + cut, end): keptSuffix would keep all of value[start + cut, end) (a whole
      // match stops before the back-off), so the edit puts the escaped prefix in place of value[start, start + cut)
      // (nothing, or leading "../" and "./": a cut after "/" is between raw characters). The prefix is
      // mostly one string for the document's plain references: escaped and encoded once.
      if (prefix !== this.insertedPrefix || quote !== this.insertedQuote) {
        // A document's prefixes are few (the base's directory and those above it, its origin…) and alternate:
        // each kept, escaped and encoded once for each quote.
        const texts = quote === '"' ? (this.insertedTexts ??= new Map()) : quote === "'" ? (this.insertedTextsApos ??= new Map()) : (this.insertedTextsUnquoted ??= new Map());
        let text = texts.get(prefix);
        if (text === undefined) {
          if (texts.size >= 64) texts.clear();
          text = this.codec.encode(escapeAttributeText(prefix, quote), 'html');
          texts.set(prefix, text);
        }
        this.insertedPrefix = prefix;
        this.insertedQuote = quote;
        this.insertedText = text;
      }
      const at = valueStart + decoded.toRaw(start);
      this.addEdit(at, cut === 0 ? at : valueStart + decoded.toRaw(start + cut), this.insertedText);
      return;
    }
    const keep = keptSuffix(decoded, start, end, text);
    this.addEdit(
      valueStart + decoded.toRaw(start),
      valueStart + decoded.toRaw(end - keep),
      this.codec.encode(escapeAttributeText(keep === 0 ? text : text.slice(0, text.length - keep), quote), 'html'),
    );
  }

  /**
   * A CSS piece (`url(…)` or a string, CSS text decoded[start, end), meaning `value`) whose URL the policy joined
   * as `prefix` + `value` but for its first `cut` units (lastPrefix): when the edit spliceValue would make of
   * `piece.serialize(url)` is the escaped head of the piece (its quote, or `url(` and the whitespace after it)
   * and the prefix in place of head and cut (less what keptSuffix keeps), makes it without building the
   * serialization, and returns true. Else (escapes in the piece or the prefix, a match or back-off past the
   * prefix: rare) returns false and does nothing. Exact: src/html/reference-path.test.ts compares with the URL parser alone, which never takes it.
   * (On link-dense pages serializing the piece was 8% of allocation and ~5% of the time: issue 23.)
   */
  private spliceCssPrefix(decoded: DecodedValue, valueStart: number, quote: '"' | "'" | '', start: number, end: number, value: string, prefix: string, cut: number): boolean {
    const css = decoded.value;
    // (A source-map comment, "/*# sourceMappingURL=…*/", is replaced otherwise: left to the general path.)
    if (end <= start || css.charCodeAt(start) === 0x2f) return false;
    // The piece's head and body as replacementText (src/css/rewrite-css.ts) finds them.
    const bodyStart = tokenBodyStart(css, start, end);
    const bodyEnd = tokenBodyEnd(css, start, end, bodyStart);
    // The body must be the URL as written, of characters neither escape (escapeStringBody, escapeUrlTokenBody)
    // changes: then the serialization is head + prefix + body[cut…] + tail, when the prefix is such too.
    if (bodyEnd - bodyStart !== value.length || cut > value.length) return false;
    for (let i = bodyStart; i < bodyEnd; i++) {
      const c = css.charCodeAt(i);
      if (c !== value.charCodeAt(i - bodyStart) || !cssVerbatim(c)) return false;
    }
    if (prefix !== this.cssPrefix) {
      this.cssPrefix = prefix;
      this.cssPrefixVerbatim = true;
      for (let i = 0; i < prefix.length; i++) if (!cssVerbatim(prefix.charCodeAt(i))) this.cssPrefixVerbatim = false;
      this.cssHead = null;
    }
    if (!this.cssPrefixVerbatim) return false;
    // keptSuffix keeps body[cut…] and the tail, and the `extra` characters before them that end the prefix too
    // (the "/" of a leading "../"); a match on into the head, or a boundary inside a character reference, is
    // left to the general path.
    const restStart = bodyStart + cut;
    let extra = 0;
    while (extra < restStart - start && css.charCodeAt(restStart - 1 - extra) === prefix.charCodeAt(prefix.length - 1 - extra)) {
      if (++extra === prefix.length) return false;
    }
    const boundary = restStart - extra;
    if (boundary > start && decoded.toRaw(boundary - 1) === decoded.toRaw(boundary)) return false;
    const headLength = bodyStart - start;
    const head = this.cssHead;
    if (head === null || head.length !== headLength || !css.startsWith(head, start) || quote !== this.cssQuote || extra !== this.cssExtra) {
      this.cssHead = css.slice(start, bodyStart);
      this.cssQuote = quote;
      this.cssExtra = extra;
      this.cssText = this.codec.encode(escapeAttributeText(this.cssHead + prefix.slice(0, prefix.length - extra), quote), 'html');
    }
    this.addEdit(valueStart + decoded.toRaw(start), valueStart + decoded.toRaw(boundary), this.cssText);
    return true;
  }

  /**
   * Undecodable bytes cost only the URL that holds them: it is left as written (re-encoding its U+FFFD would
   * change those bytes); every other URL of the value is rewritten.
   */
  private leftUndecodable(decoded: DecodedValue, start: number, end: number, at: ReferenceSite): boolean {
    if (decoded.undecodable.length === 0 || !holdsUndecodable(decoded, start, end)) return false;
    const where = at.attribute === null ? `<${at.element}> text` : `${at.element} ${at.attribute}`;
    this.warn({ code: 'undecodable-value', message: `${where}: a URL with bytes not valid in the document encoding; left as it is`, line: at.line, column: at.column });
    return true;
  }

  /** HTML 4 §13.4: applet `code`, `archive` and `object` are relative to the applet's `codebase`, itself relative to the document base. */
  private appletCodebase(token: Token.TagToken): string | null {
    const base = this.base?.url ?? null;
    const codebase = this.attributeValue(token, 'codebase');
    if (codebase === null || base === null) return base;
    return this.policy!.resolveAgainst(codebase, base) ?? base;
  }

  /** planText's site, set to the text of `item`. */
  private textSiteOf(item: Extract<WorkItem, { kind: 'text' }>): TextSite {
    const site = (this.textSite ??= textSite());
    site.element = item.element;
    site.tag = item.tag;
    return site;
  }
  private textSite: TextSite | null = null;

  private planText(item: Extract<WorkItem, { kind: 'text' }>): void {
    if (item.segments !== undefined) return this.planSvgStyle(item, item.segments);
    const raw = this.buf.slice(item.start - this.bufStart, item.end - this.bufStart);
    const decoded = decodeAttributeValue(raw, this.codec, item.syntax === 'css-with-references');
    const at = this.textSiteOf(item);
    if (decoded === null) {
      this.warn({ code: 'undecodable-value', message: `<${item.element}> text: bytes not valid in the document encoding; left as it is`, line: item.tag.endLine, column: item.tag.endCol });
      return;
    }
    const isCss = item.syntax === 'css' || item.syntax === 'css-with-references';
    const pieces = isCss ? cssPieces(decoded.value, 'stylesheet') : jsonScriptPieces(item.syntax, decoded.value);
    if (pieces === null) {
      this.warn({ code: item.syntax === 'module' ? 'invalid-script' : 'invalid-json', message: `<script type=${item.syntax}> is not ${item.syntax === 'module' ? 'a readable module' : 'valid JSON'}; left as it is`, line: item.tag.endLine, column: item.tag.endCol });
      return;
    }
    for (const piece of pieces) {
      if (this.leftUndecodable(decoded, piece.start, piece.end, at)) continue;
      const text = this.policy!.apply(piece.value, at, piece.documentUrl === true ? { base: this.options.retrieval?.url ?? null } : undefined);
      if (text === null) continue;
      const serialized = piece.serialize(text);
      this.addEdit(
        item.start + decoded.toRaw(piece.start),
        item.start + decoded.toRaw(piece.end),
        // SVG <style> text is character data: "&" and "<" must not start markup.
        this.codec.encode(item.syntax === 'css-with-references' ? serialized.replace(/&/g, '&amp;').replace(/</g, '&lt;') : serialized, isCss ? 'css' : 'html'),
      );
    }
  }

  /**
   * SVG `<style>`: its stylesheet is its child text content, the text of its segments joined: character data
   * (references decoded; "&" and "<" escaped in a replacement) and CDATA sections (literal; a resolved URL never
   * holds ">", so never "]]>"). A reference that straddles two segments (a comment or child element inside a
   * url()) is left as it is.
   */
  private planSvgStyle(item: Extract<WorkItem, { kind: 'text' }>, segments: ReadonlyArray<readonly [number, number]>): void {
    const at = this.textSiteOf(item);
    const parts: Array<{ rawStart: number; offset: number; decoded: DecodedValue; cdata: boolean }> = [];
    let css = '';
    const addPart = (rawStart: number, raw: string, cdata: boolean): boolean => {
      if (raw.length === 0) return true;
      const decoded = decodeAttributeValue(raw, this.codec, !cdata);
      if (decoded === null) {
        this.warn({ code: 'undecodable-value', message: `<${item.element}> text: bytes not valid in the document encoding; left as it is`, line: item.tag.endLine, column: item.tag.endCol });
        return false;
      }
      parts.push({ rawStart, offset: css.length, decoded, cdata });
      css += decoded.value;
      return true;
    };
    for (const [start, end] of segments) {
      const raw = this.buf.slice(start - this.bufStart, end - this.bufStart);
      let i = 0;
      while (i < raw.length) {
        const open = raw.indexOf('<![CDATA[', i);
        if (open === -1) {
          if (!addPart(start + i, raw.slice(i), false)) return;
          break;
        }
        if (!addPart(start + i, raw.slice(i, open), false)) return;
        const close = raw.indexOf(']]>', open + 9);
        const contentEnd = close === -1 ? raw.length : close;
        if (!addPart(start + open + 9, raw.slice(open + 9, contentEnd), true)) return;
        i = close === -1 ? raw.length : close + 3;
      }
    }
    for (const piece of cssPieces(css, 'stylesheet')) {
      const part = parts.find((p) => p.offset <= piece.start && piece.end <= p.offset + p.decoded.value.length);
      if (part === undefined) continue;
      const local = { start: piece.start - part.offset, end: piece.end - part.offset };
      if (this.leftUndecodable(part.decoded, local.start, local.end, at)) continue;
      const text = this.policy!.apply(piece.value, at);
      if (text === null) continue;
      const serialized = piece.serialize(text);
      this.addEdit(
        part.rawStart + part.decoded.toRaw(local.start),
        part.rawStart + part.decoded.toRaw(local.end),
        this.codec.encode(part.cdata ? serialized : serialized.replace(/&/g, '&amp;').replace(/</g, '&lt;'), 'css'),
      );
    }
  }

  /**
   * `iframe srcdoc`: a nested document whose fallback base is the parent's document base
   * (https://html.spec.whatwg.org/multipage/urls-and-fetching.html#fallback-base-url step 1). It is rewritten
   * as a document of its own, and its edits are spliced into the attribute, escaped for it.
   */
  private planSrcdoc(decoded: DecodedValue, valueStart: number, quote: '"' | "'" | '', at: { element: string; attribute: string; line: number; column: number }): void {
    if (this.depth + 1 > this.limits.maxSrcdocDepth) {
      this.warn({ code: 'srcdoc-depth-limit', message: `iframe srcdoc nested deeper than ${this.limits.maxSrcdocDepth}: left as it is`, line: at.line, column: at.column });
      return;
    }
    const nested = new HtmlRewriteCore(
      {
        ...this.options,
        retrieval: null,
        fallback: null,
        headers: null,
        encapsulating: this.base,
        // about:srcdoc documents are UTF-8.
        encoding: 'utf-8',
        onWarning: (w) => this.warn(w),
        onBase: undefined, // the document's base is the one reported; a srcdoc's is its parent's, or its own <base>
      },
      IDENTITY_CODEC,
      () => {},
      { depth: this.depth + 1, recordEdits: true },
    );
    nested.write(decoded.value);
    nested.end();
    this.nestedStats.rewritten += nested.stats.rewritten;
    this.nestedStats.unchanged += nested.stats.unchanged;
    this.nestedStats.unresolvable += nested.stats.unresolvable;
    for (const edit of nested.recordedEdits ?? []) {
      if (this.leftUndecodable(decoded, edit.start, edit.end, at)) continue;
      this.addEdit(valueStart + decoded.toRaw(edit.start), valueStart + decoded.toRaw(edit.end), this.codec.encode(escapeAttributeText(edit.text, quote), 'html'));
    }
  }

  private addEdit(start: number, end: number, text: string): void {
    // An SVG <style>'s stylesheet is planned when the element is popped, after the tags inside it: its edits
    // come after theirs (output is held from the style's start until then, so none of them is written yet).
    const count = this.editCount++;
    if (count > 0 && start < this.editStarts[count - 1]!) this.editsUnsorted = true;
    this.editStarts[count] = start;
    this.editEnds[count] = end;
    this.editTexts[count] = text;
    this.recordedEdits?.push({ start, end, text });
  }

  private warn(warning: HtmlWarning): void {
    this.stats.warnings++;
    this.options.onWarning?.(warning);
  }

  // --- output ----------------------------------------------------------------------------------------------

  /** Writes out raw input up to absolute offset `upTo`, with the edits inside it applied. */
  private flush(upTo: number): void {
    if (upTo <= this.bufStart) return;
    let out = '';
    let cursor = this.bufStart;
    let applied = 0;
    const starts = this.editStarts;
    const ends = this.editEnds;
    const texts = this.editTexts;
    // Edits come in document order (work items are processed in order, pieces in order within a value), but for
    // those of an SVG <style> (addEdit).
    const count = this.editCount;
    if (this.editsUnsorted) {
      const sorted = Array.from({ length: count }, (_, i) => [starts[i]!, ends[i]!, texts[i]!] as const).sort((a, b) => a[0] - b[0]);
      for (let i = 0; i < count; i++) [starts[i], ends[i], texts[i]] = sorted[i]!;
      this.editsUnsorted = false;
    }
    const piecewise = this.piecewise;
    while (applied < count && starts[applied]! < upTo) {
      const before = this.buf.slice(cursor - this.bufStart, starts[applied]! - this.bufStart);
      if (!piecewise) out += before + texts[applied]!;
      else {
        if (before.length > 0) this.sink(before);
        if (texts[applied]!.length > 0) this.sink(texts[applied]!);
      }
      cursor = ends[applied]!;
      applied++;
    }
    if (applied > 0) {
      // (The rest moved to the front: edits past `upTo` are few, those of the tags still held.)
      for (let i = applied; i < count; i++) {
        starts[i - applied] = starts[i]!;
        ends[i - applied] = ends[i]!;
        texts[i - applied] = texts[i]!;
      }
      this.editCount = count - applied;
      if (starts.length > EDITS_KEEP && this.editCount <= EDITS_KEEP) starts.length = ends.length = texts.length = this.editCount;
      // (Texts no longer pending are not kept alive.)
      else texts.fill('', this.editCount, count);
    }
    out += this.buf.slice(cursor - this.bufStart, upTo - this.bufStart);
    this.buf = this.buf.slice(upTo - this.bufStart);
    this.bufStart = upTo;
    if (out.length > 0) this.sink(out);
  }
}

/**
 * Whether CSS writes the character as it is, both in a string and in a url-token (escapeStringBody and
 * escapeUrlTokenBody of src/css/serialize-css-url.ts leave it alone): printable ASCII but quotes, parentheses and
 * backslash. (Conservative: the fast path of spliceCssPrefix only needs "as it is".)
 */
function cssVerbatim(c: number): boolean {
  return c > 0x20 && c < 0x7f && c !== 0x22 && c !== 0x27 && c !== 0x28 && c !== 0x29 && c !== 0x5c;
}

/** The first attribute of `attrs` named `name` (a loop: no closure a `<script>`). */
function attributeNamed(attrs: readonly Token.Attribute[], name: string): Token.Attribute | undefined {
  for (let i = 0; i < attrs.length; i++) if (attrs[i]!.name === name) return attrs[i];
  return undefined;
}

/** The key parse5 used for an attribute's location (its name as written, lowercased), or null if it has none. */
function locationKey(locations: Record<string, Token.Location>, name: string): string | null {
  if (locations[name] !== undefined) return name;
  const lower = name.toLowerCase();
  return locations[lower] !== undefined ? lower : null;
}

/** Whether `key` is one of keys[0, count). */
function seenBefore(keys: readonly string[], count: number, key: string): boolean {
  for (let k = 0; k < count; k++) if (keys[k] === key) return true;
  return false;
}

/**
 * How many trailing characters of the replacement equal the original's, and can keep their raw bytes: the end
 * of a relative reference usually survives resolution ("img/a.png?x=1&amp;y=2" → "https://h/d/img/a.png?x=1&y=2"),
 * and keeping it as written keeps the author's character references (`&amp;` or a bare `&`) byte for byte.
 * The cut falls only between whole raw characters (never inside a character reference).
 */
function keptSuffix(decoded: DecodedValue, start: number, end: number, replacement: string): number {
  let k = 0;
  const max = Math.min(end - start, replacement.length);
  while (k < max && decoded.value.charCodeAt(end - 1 - k) === replacement.charCodeAt(replacement.length - 1 - k)) k++;
  // Back off until the cut is at the start of a raw character (an entity's units all map to its "&").
  while (k > 0 && end - k > start && decoded.toRaw(end - k - 1) === decoded.toRaw(end - k)) k--;
  return k;
}
