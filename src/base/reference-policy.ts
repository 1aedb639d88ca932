/**
 * What a document rewriter does with one reference, given the base decision (SPEC §3):
 * - empty: left as it is (an empty `img src` must stay empty; an empty reference designates the document);
 * - fragment-only: left as it is unless asked (never in CSS or SVG, where `url(#id)` is a local reference);
 * - absolute: left exactly as written;
 * - no base: left as it is, with one `no-base` warning per document;
 * - unresolvable: left as it is, with a warning;
 * - otherwise: replaced by the resolved URL.
 * Every reference is reported, with the base and the layer that gave it.
 */
import type { Warning } from '../errors.ts';
import { browserResolver, prefixCut, whatwgJoinPrefix } from '../uri/browser.ts';
import { hasScheme, stripAsciiWhitespace } from '../uri/reference.ts';
import type { Resolver } from '../uri/types.ts';
import type { Limits } from '../limits.ts';
import type { BaseDecision, BaseSource, Retrieval } from './base.ts';

/**
 * What every document rewriter of the newer kinds (CSS streams, XML, scripts, manifests) is given: the base layers
 * below the document's own (SPEC §2), the resolver, the limits, and where to report. Each kind's options add their own.
 */
export interface DocumentContextOptions {
  readonly retrieval?: Retrieval | null | undefined;
  readonly fallback?: string | null | undefined;
  /** The base of the entity that contains the document (a MIME part's enclosing entity). */
  readonly encapsulating?: BaseDecision | null | undefined;
  /** @default browserResolver */
  readonly resolver?: Resolver | undefined;
  readonly limits?: Limits | undefined;
  readonly onWarning?: ((warning: SiteWarning) => void) | undefined;
  readonly onReference?: ((reference: ReferenceRecord) => void) | undefined;
  readonly onBase?: ((decision: BaseDecision) => void) | undefined;
}

/** Where a reference sits: what the `--links` report prints beside it. */
export interface ReferenceSite {
  readonly element: string;
  /** The attribute, or null for element text (`<style>`, `<script type=importmap>`) and stylesheets. */
  readonly attribute: string | null;
  readonly line: number;
  readonly column: number;
  /**
   * The element's `rel` (character references decoded), on the references it governs (`a`/`area`/`link` `href`,
   * `link` `imagesrcset`, `form` `action`); absent when the element has none.
   */
  readonly rel?: string | undefined;
}

/** One reference found in a document. */
export interface ReferenceRecord extends ReferenceSite {
  /** The reference as the document means it (character references and CSS escapes decoded). */
  readonly raw: string;
  /** The absolute URL it designates, or null when it cannot be resolved (or there is no base). */
  readonly resolved: string | null;
  readonly base: string | null;
  readonly baseSource: BaseSource;
  /** True when the output holds `resolved` in place of `raw`. */
  readonly changed: boolean;
}

/** `{ rel }` for a link line when the reference's element has a `rel` that governs it; else nothing (no field). */
export function relOf(r: ReferenceRecord): { rel?: string } {
  return r.rel === undefined ? {} : { rel: r.rel };
}

export interface ReferenceStats {
  /** References rewritten to absolute form. */
  rewritten: number;
  /** References found and left as they were (absolute, same-document, or no base). */
  unchanged: number;
  /** References that could not be resolved. */
  unresolvable: number;
}

export interface SiteWarning extends Warning {
  readonly line?: number;
  readonly column?: number;
}

export interface ReferencePolicyOptions {
  readonly resolver: Resolver;
  /** The document encoding, for the query of `browser` resolutions. */
  readonly encoding?: string | undefined;
  /** Absolutize fragment-only references where allowed (HTML attributes holding one URL). @default false */
  readonly absolutizeFragments?: boolean | undefined;
  readonly onReference?: ((reference: ReferenceRecord) => void) | undefined;
  readonly onWarning: (warning: SiteWarning) => void;
}

export interface ApplyOptions {
  /** A base other than the document base (an applet's codebase; the base before a `<base>` element). */
  readonly base?: string | null | undefined;
  /** Whether a fragment-only reference may be absolutized here (with the `absolutizeFragments` option). */
  readonly fragments?: boolean | undefined;
  /** An encoding other than the document's for the query (CSS in a `style` attribute is UTF-8 in Chromium). */
  readonly encoding?: string | undefined;
  /**
   * The document's own URL where a reference resolving to it plus a fragment designates an element of this
   * document (SVG resource references: Blink's same-document rule). Such a reference is written as its fragment
   * alone, so that it stays same-document wherever the copy is opened (unless fragments are absolutized).
   */
  readonly sameDocument?: string | null | undefined;
}

/** What applyJoined returns for a URL it did not build: never a URL (a resolved URL is never empty). */
export const JOINED = '';

export class ReferencePolicy {
  readonly stats: ReferenceStats = { rewritten: 0, unchanged: 0, unresolvable: 0 };
  private readonly decision: BaseDecision;
  private readonly options: ReferencePolicyOptions;
  private readonly resolveOptions: { encoding: string } | undefined;
  private warnedNoBase = false;
  /**
   * Set by apply when the URL it returned is this prefix followed by `raw` exactly as given but for its first
   * `lastCut` units, its leading "../" and "./" (a plain relative reference, joined by
   * src/uri/relative-shortcut.ts); else null. A rewriter that writes the URL as it is may put the prefix in place
   * of those units instead of replacing the reference: the same bytes, without comparing them.
   */
  lastPrefix: string | null = null;
  lastCut = 0;
  // Per document, not per reference (issue 23):
  readonly resolver: Resolver;
  private readonly isBrowser: boolean;
  private readonly onReference: ((reference: ReferenceRecord) => void) | undefined;
  private readonly absolutizeFragments: boolean;

  constructor(decision: BaseDecision, options: ReferencePolicyOptions) {
    this.decision = decision;
    this.options = options;
    // UTF-8 (the common case) is the resolvers' default: no options object to read a reference.
    this.resolveOptions = options.encoding === undefined || isUtf8Label(options.encoding) ? undefined : { encoding: options.encoding };
    this.resolver = options.resolver;
    this.isBrowser = options.resolver.name === 'browser';
    this.onReference = options.onReference;
    this.absolutizeFragments = options.absolutizeFragments === true;
  }

  /** The document base URL, or null. */
  get baseUrl(): string | null {
    return this.decision.url;
  }

  /** Resolves `reference` against `base` (or null if it cannot be), without policy: for codebase and such. */
  resolveAgainst(reference: string, base: string): string | null {
    return this.href(reference, base, this.resolveOptions);
  }

  private href(reference: string, base: string, resolveOptions: { encoding: string } | undefined): string | null {
    const resolver = this.resolver;
    return resolver.resolveHref !== undefined ? resolver.resolveHref(reference, base, resolveOptions) : resolver.resolve(reference, base, resolveOptions).href;
  }

  /**
   * Applies the policy to one reference. Returns the URL to write in its place, or null to leave it as written.
   * `base` overrides the document base (applet codebase); `fragments` says whether a fragment-only reference may
   * be absolutized here.
   * A reference left as written is resolved only for `onReference` (the report), never when nobody listens.
   */
  apply(raw: string, site: ReferenceSite, options?: ApplyOptions): string | null {
    return this.applyTo(raw, site, options, false);
  }

  /**
   * apply for a caller that writes lastPrefix in place of the reference's first lastCut units whenever apply
   * sets it: then, when nobody listens (and no same-document rule applies), returns JOINED instead of the URL,
   * which is lastPrefix + raw.slice(lastCut), and does not build it (issue 23: a string per reference).
   */
  applyJoined(raw: string, site: ReferenceSite, options?: ApplyOptions): string | null {
    return this.applyTo(raw, site, options, true);
  }

  private applyTo(raw: string, site: ReferenceSite, options: ApplyOptions | undefined, lazy: boolean): string | null {
    this.lastPrefix = null;
    const base = options?.base === undefined ? this.decision.url : options.base;
    const resolveOptions = options?.encoding === undefined ? this.resolveOptions : isUtf8Label(options.encoding) ? undefined : { encoding: options.encoding };
    const reference = stripAsciiWhitespace(raw);
    if (reference === '') return null;
    const listener = this.onReference;
    if (reference.charCodeAt(0) === 0x23 /* # */ && !(options?.fragments === true && this.absolutizeFragments)) {
      this.stats.unchanged++;
      if (listener !== undefined) this.report(listener, raw, site, base, base === null ? null : this.href(reference, base, resolveOptions), false);
      return null;
    }
    if (hasScheme(reference) && !(this.isBrowser && isSchemeRelative(reference, base))) {
      this.stats.unchanged++;
      if (listener !== undefined) this.report(listener, raw, site, base, this.href(reference, base ?? reference, resolveOptions), false);
      return null;
    }
    if (base === null) {
      this.stats.unchanged++;
      if (!this.warnedNoBase) {
        this.warnedNoBase = true;
        this.options.onWarning({ code: 'no-base', message: 'no base URL (give --url or --base): relative references are left as they are', line: site.line, column: site.column });
      }
      if (listener !== undefined) this.report(listener, raw, site, base, null, false);
      return null;
    }
    // A plain relative reference against an http(s) base is the base's prefix and the reference as written
    // (src/uri/relative-shortcut.ts): no parser, and the caller may insert the prefix (lastPrefix).
    const prefix = this.resolver === browserResolver ? whatwgJoinPrefix(reference, base) : null;
    if (prefix !== null) return this.joined(raw, reference, site, base, prefix, prefixCut(), options, lazy);
    const href = this.href(reference, base, resolveOptions);
    if (href === null) {
      this.stats.unresolvable++;
      // (Rare: the full resolution again, for its explanation.)
      const r = this.resolver.resolve(reference, base, resolveOptions);
      this.options.onWarning({ code: 'unresolvable-reference', message: r.warning?.message ?? `cannot resolve ${JSON.stringify(reference)}`, detail: raw, line: site.line, column: site.column });
      if (listener !== undefined) this.report(listener, raw, site, base, null, false);
      return null;
    }
    this.stats.rewritten++;
    if (listener !== undefined) this.report(listener, raw, site, base, href, true);
    return sameDocumentForm(href, options?.sameDocument, this.absolutizeFragments) ?? href;
  }

  /** A reference the shortcut joined: `prefix` + reference.slice(cut). */
  private joined(raw: string, reference: string, site: ReferenceSite, base: string, prefix: string, cut: number, options: ApplyOptions | undefined, lazy: boolean): string | null {
    this.stats.rewritten++;
    const listener = this.onReference;
    const document = options?.sameDocument;
    if (lazy && listener === undefined && document == null && reference === raw) {
      this.lastPrefix = prefix;
      this.lastCut = cut;
      return JOINED;
    }
    const href = prefix + (cut === 0 ? reference : reference.slice(cut));
    if (listener !== undefined) this.report(listener, raw, site, base, href, true);
    const local = sameDocumentForm(href, document, this.absolutizeFragments);
    if (local !== null) return local;
    if (reference === raw) {
      this.lastPrefix = prefix;
      this.lastCut = cut;
    }
    return href;
  }

  private report(listener: (reference: ReferenceRecord) => void, raw: string, site: ReferenceSite, base: string | null, resolved: string | null, changed: boolean): void {
    listener({ ...site, raw, resolved, base, baseSource: this.decision.source, changed });
  }
}

// https://encoding.spec.whatwg.org/#names-and-labels: the labels of UTF-8, the resolvers' default encoding.
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8']);

function isUtf8Label(encoding: string): boolean {
  return encoding === 'utf-8' || UTF8_LABELS.has(encoding.trim().toLowerCase());
}

// https://url.spec.whatwg.org/#special-scheme, without "file" (whose relative forms do not arise this way).
const SPECIAL_SCHEMES = ['http', 'https', 'ws', 'wss', 'ftp'];

function asciiLower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** Whether s[0, length) is a special scheme but "file", ASCII case-insensitively. */
function isSpecialScheme(s: string, length: number): boolean {
  next: for (const scheme of SPECIAL_SCHEMES) {
    if (scheme.length !== length) continue;
    for (let i = 0; i < length; i++) if (asciiLower(s.charCodeAt(i)) !== scheme.charCodeAt(i)) continue next;
    return true;
  }
  return false;
}

/**
 * A reference like "http:g" or "http:/g" is relative for the WHATWG parser when its scheme is the base's
 * special scheme (https://url.spec.whatwg.org/#scheme-state: "special relative or authority state"): a browser
 * resolves it against the base, so it must be rewritten. "http://x" (with two slashes) is absolute.
 */
export function isSchemeRelative(reference: string, base: string | null): boolean {
  if (base === null) return false;
  const colon = reference.indexOf(':');
  // "scheme://" (the usual absolute URL) is absolute whatever the scheme: two slashes first (see below).
  if (colon === -1 || (isSlash(reference.charCodeAt(colon + 1)) && isSlash(reference.charCodeAt(colon + 2)))) return false;
  // The scheme compared in place, ASCII case-insensitively (issue 23: no lowercased copies for every absolute reference).
  if (base.charCodeAt(colon) !== 0x3a || !isSpecialScheme(reference, colon)) return false;
  for (let i = 0; i < colon; i++) if (asciiLower(reference.charCodeAt(i)) !== asciiLower(base.charCodeAt(i))) return false;
  // Two slashes ("/" or "\\") after the colon, tabs and newlines skipped (the parser removes them), make it absolute.
  let slashes = 0;
  for (let i = colon + 1; i < reference.length && slashes < 2; i++) {
    const c = reference.charCodeAt(i);
    if (c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c !== 0x2f && c !== 0x5c) return true;
    slashes++;
  }
  return slashes < 2;
}

/** A resolved same-document reference (ApplyOptions.sameDocument) as its fragment alone, else null. */
function sameDocumentForm(href: string, document: string | null | undefined, absolutizeFragments: boolean): string | null {
  if (document == null || absolutizeFragments) return null;
  const hash = href.indexOf('#');
  return hash !== -1 && href.slice(0, hash) === withoutFragment(document) ? href.slice(hash) : null;
}

/** "/", or "\\", which the URL parser takes for "/" in special URLs. */
function isSlash(c: number): boolean {
  return c === 0x2f || c === 0x5c;
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}
