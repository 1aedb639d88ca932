/**
 * Base-URI precedence (SPEC §2; draft-fielding-url-syntax-05 §5.1; RFC 3986 §5.1; RFC 2557 §5).
 *
 * Pure functions over the layers that can supply a base, innermost wins:
 *   1. embedded in the content (the first `<base href>`),
 *   2. the entity's own headers (Content-Base over Content-Location),
 *   3. the encapsulating entity's base (recursive),
 *   4. the retrieval URL, after redirects,
 *   5. a fallback the user gives.
 * Every decision records its provenance: which layer won, the raw value, and the decision beneath it.
 */
import type { Warning } from '../errors.ts';
import { browserResolver } from '../uri/browser.ts';
import { stripAsciiWhitespace } from '../uri/reference.ts';
import type { Resolver } from '../uri/types.ts';

/** Which layer set a base. `none`: no layer gave one, so relative references are left as they are. */
export type BaseSource =
  | 'embedded'
  | 'content-base'
  | 'content-location'
  | 'encapsulating'
  | 'retrieval'
  | 'fallback'
  | 'none';

export interface BaseDecision {
  /** The base URL (absolute), or null when `source` is `none`. */
  readonly url: string | null;
  readonly source: BaseSource;
  /** The value as it was written (attribute value, header value, URL given by the user), or null for `none`. */
  readonly raw: string | null;
  /** The decision of the layers beneath this one (what the base would be without it); null at the bottom. */
  readonly below: BaseDecision | null;
  /** For `retrieval`: the URLs that redirected to `url`, first request first. */
  readonly redirects?: readonly string[];
  /** Layers that were present but not used, and why (e.g. an HTTP Content-Location, a `data:` base href). */
  readonly ignored: readonly IgnoredLayer[];
}

export interface IgnoredLayer {
  readonly source: BaseSource;
  readonly raw: string;
  readonly reason: string;
  /**
   * Ignored by rule, not because the input is wrong (an HTTP Content-Location not honoured by default, a cid:
   * label): `--explain` lists it, but it is not warned about.
   */
  readonly byRule?: true;
}

export interface EntityHeaders {
  /** The raw `Content-Base` header value (RFC 2110), as it appears in the header (folding allowed). */
  readonly contentBase?: string | undefined;
  /** The raw `Content-Location` header value (RFC 2557). */
  readonly contentLocation?: string | undefined;
  /**
   * True when the headers are those of an HTTP response rather than a MIME entity. HTTP Content-Location and
   * Content-Base are not a base (RFC 9110 §8.7; browsers ignore them) unless `honourHttpContentLocation`.
   */
  readonly http?: boolean | undefined;
}

export interface Retrieval {
  /** The URL that finally returned the bytes (after redirects), or the URL the user states for a file. */
  readonly url: string;
  /** The URLs that redirected to `url`, first request first. */
  readonly redirects?: readonly string[] | undefined;
}

export interface BaseLayers {
  /** Layer 5: the fallback base the user gives (`--base`). */
  readonly fallback?: string | null | undefined;
  /** Layer 4: the retrieval URL after redirects (`--url`, HTTP, WARC-Target-URI). */
  readonly retrieval?: Retrieval | null | undefined;
  /** Layer 3: the decision made for the encapsulating entity (a multipart or message that contains this part). */
  readonly encapsulating?: BaseDecision | null | undefined;
  /** Layer 2: the entity's own headers. */
  readonly headers?: EntityHeaders | null | undefined;
  /** Layer 1: the value of the first `<base>` element that has an `href` attribute (character references decoded). */
  readonly embedded?: string | null | undefined;
}

export interface BaseOptions {
  /** Resolves relative layer values against the layers beneath. @default browserResolver */
  readonly resolver?: Resolver | undefined;
  /** The document's encoding, for resolving a relative `<base href>` with the browser resolver. @default 'utf-8' */
  readonly encoding?: string | undefined;
  /** Honour `Content-Base` / `Content-Location` of HTTP responses (url-syntax-05 §5.1.2, RFC 2616). @default false */
  readonly honourHttpContentLocation?: boolean | undefined;
}

/** The decision when no layer supplies a base. */
export const NO_BASE: BaseDecision = Object.freeze({ url: null, source: 'none', raw: null, below: null, ignored: [] });

/**
 * Establishes the base of a document or body part from its layers (SPEC §2), bottom up, so that each layer's
 * relative value is resolved against the layers beneath it.
 */
export function establishBase(layers: BaseLayers, options: BaseOptions = {}): BaseDecision {
  const resolver = options.resolver ?? browserResolver;
  const ignored: IgnoredLayer[] = [];
  let decision: BaseDecision = NO_BASE;

  const accept = (source: BaseSource, raw: string, value: string, extra?: { redirects?: readonly string[] }): boolean => {
    const url = absoluteLayerValue(value, decision, resolver, options.encoding);
    if (url === null) {
      ignored.push({ source, raw, reason: decision.url === null ? 'relative, and no base beneath to resolve it against' : 'not a valid URL' });
      return false;
    }
    decision = { url, source, raw, below: decision === NO_BASE ? null : decision, ignored: [], ...extra };
    return true;
  };

  // 5. Default: the fallback the user gives.
  if (layers.fallback != null) accept('fallback', layers.fallback, layers.fallback);

  // 4. The retrieval URL, after redirects: the URL that finally returned the bytes.
  if (layers.retrieval != null) {
    const { url, redirects } = layers.retrieval;
    accept('retrieval', url, url, redirects !== undefined && redirects.length > 0 ? { redirects } : undefined);
  }

  // 3. The encapsulating entity: a part inherits the base of the entity that contains it, recursively.
  if (layers.encapsulating != null && layers.encapsulating.url !== null) {
    decision = { url: layers.encapsulating.url, source: 'encapsulating', raw: layers.encapsulating.url, below: layers.encapsulating, ignored: [] };
  }

  // 2. The entity's own headers: Content-Base (RFC 2110) takes precedence over Content-Location (RFC 2557).
  //    A relative Content-Location is resolved against the encapsulating base first and then serves as the
  //    base (url-syntax-05 §5.1.1).
  const headers = layers.headers;
  if (headers != null) {
    const candidates: Array<[BaseSource, string | undefined]> = [
      ['content-base', headers.contentBase],
      ['content-location', headers.contentLocation],
    ];
    for (const [source, raw] of candidates) {
      if (raw === undefined) continue;
      if (headers.http === true && options.honourHttpContentLocation !== true) {
        ignored.push({ source, raw, reason: 'HTTP response header: not a base (RFC 9110 §8.7) unless honoured by option', byRule: true });
        continue;
      }
      const value = headerUrlValue(raw);
      if (value === '') {
        ignored.push({ source, raw, reason: 'empty' });
        continue;
      }
      // RFC 2557 §8.3: a Content-Location holding a cid: (or mid:) URL labels the part; it is never a base
      // (nothing relative resolves against it: Chromium labels the stylesheets it saves from <style> so).
      if (/^\s*(?:cid|mid):/i.test(value)) {
        ignored.push({ source, raw, reason: 'a cid:/mid: label, not a base (RFC 2557 §8.3)', byRule: true });
        continue;
      }
      if (accept(source, raw, value)) break;
    }
  }

  // 1. Embedded in the content: the first <base href>, resolved against the layers beneath.
  if (layers.embedded != null) {
    const why = embeddedBaseProblem(layers.embedded, decision, resolver, options.encoding);
    if (why === null) accept('embedded', layers.embedded, layers.embedded);
    else ignored.push({ source: 'embedded', raw: layers.embedded, reason: why });
  }

  return ignored.length === 0 ? decision : { ...decision, ignored };
}

/**
 * The HTML standard's "set the frozen base URL" (https://html.spec.whatwg.org/multipage/semantics.html#set-the-frozen-base-url):
 * 1. Let document be element's node document.
 * 2. Let urlRecord be the result of parsing the value of element's href content attribute with document's
 *    fallback base URL, and document's character encoding.
 * 3. If urlRecord is failure, or its scheme is "data" or "javascript" [...], set element's frozen base URL to
 *    document's fallback base URL and return.
 * Returns why the value cannot be the base, or null if it can. An empty value parses to the fallback base itself
 * (its fragment removed): we report it as falling back, which designates the same resources.
 * NOTE: Chromium turns an unparseable value into `about:blank` instead of the fallback base; we follow the standard
 * (SPEC §2), as the layers beneath are the useful answer for an archive.
 */
function embeddedBaseProblem(raw: string, below: BaseDecision, resolver: Resolver, encoding: string | undefined): string | null {
  const value = stripAsciiWhitespace(raw);
  if (value === '') return 'empty href: the layers beneath give the base';
  const url = absoluteLayerValue(value, below, resolver, encoding);
  if (url === null) return below.url === null ? 'relative, and no base beneath to resolve it against' : 'not a valid URL';
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  if (scheme === 'data' || scheme === 'javascript') return `a ${scheme}: URL cannot be a base (HTML standard)`;
  return null;
}

/** Resolves a layer's value against the decision beneath it; null if that fails. */
function absoluteLayerValue(value: string, below: BaseDecision, resolver: Resolver, encoding: string | undefined): string | null {
  const stripped = stripAsciiWhitespace(value);
  if (below.url === null) return resolver.isValidBase(stripped) ? resolver.resolve(stripped, stripped).href : null;
  const resolution = resolver.resolve(stripped, below.url, encoding === undefined ? undefined : { encoding });
  return resolution.href !== null && resolver.isValidBase(resolution.href) ? resolution.href : null;
}

/**
 * The URL in a Content-Base or Content-Location header value: unfolded, comments around it removed
 * (RFC 2557 §4.1: `[CFWS] URI [CFWS]`), one level of quotes removed (RFC 2110 §4: `<"> absoluteURI <">` is
 * allowed), and internal whitespace removed (RFC 2557 §4.4.2: long URLs are folded; RFC 2110 §4.2).
 * RFC 2047 encoded-words must be decoded by the caller that reads the MIME header (RFC 2557 §4.4.1).
 */
export function headerUrlValue(raw: string): string {
  // Only ASCII whitespace (WHATWG): a U+00A0 in a value is a character of the URL, not space around it.
  let value = stripAsciiWhitespace(raw.replace(/\r?\n(?=[ \t])/g, ''));
  // Leading and trailing comments: "(comment) http://x/ (comment)". A URI cannot begin with "(", and a
  // comment at the end is only taken if whitespace separates it from the URI, since "(" and ")" may occur in a URI.
  for (;;) {
    const before = value;
    value = stripAsciiWhitespace(value.replace(/^\((?:[^()\\]|\\.)*\)[\t\n\f\r ]*/s, '').replace(/[\t\n\f\r ]+\((?:[^()\\]|\\.)*\)$/s, ''));
    if (value === before) break;
  }
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  return value.replace(/[\t\n\f\r ]+/g, '');
}
