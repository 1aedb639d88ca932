/**
 * The interface shared by the two resolvers (SPEC §3).
 */
import type { Warning } from '../errors.ts';

export type ResolverName = 'browser' | 'rfc3986';

/**
 * The syntactic form of a reference (RFC 3986 §4.2 names, plus same-document and unresolvable):
 * - `absolute`: has a scheme (`https:…`, `mailto:…`, `g:h`)
 * - `network-path`: starts with `//`
 * - `absolute-path`: starts with `/` (not `//`)
 * - `relative-path`: anything else that is not query-only or same-document (`g`, `../g`, `g?y`)
 * - `query-only`: starts with `?`
 * - `same-document`: empty, or fragment-only (`#s`)
 * - `unresolvable`: resolution failed (the result's `href` is null)
 */
export type ReferenceKind =
  | 'absolute'
  | 'network-path'
  | 'absolute-path'
  | 'relative-path'
  | 'query-only'
  | 'same-document'
  | 'unresolvable';

export interface ResolveOptions {
  /**
   * The document's encoding (a WHATWG Encoding label), used by the `browser` resolver to encode the query of
   * special-scheme URLs, as the URL standard's "encoding-parse a URL" does. Ignored by `rfc3986`.
   * @default 'utf-8'
   */
  readonly encoding?: string;
}

export interface Resolution {
  /** The reference with leading and trailing ASCII whitespace stripped: what was resolved. */
  readonly reference: string;
  readonly kind: ReferenceKind;
  /** The resolved URL, or null when the reference could not be resolved against the base. */
  readonly href: string | null;
  /** Set when `href` is null. */
  readonly warning?: Warning;
}

export interface Resolver {
  readonly name: ResolverName;
  /**
   * Resolves `reference` against `base`. Never throws for any string input: an unresolvable reference (or an
   * unusable base) gives `href: null` and a warning.
   */
  resolve(reference: string, base: string, options?: ResolveOptions): Resolution;
  /**
   * `resolve(reference, base, options).href` alone, without classifying the reference or building a warning:
   * what the document rewriters ask once a reference. Optional for a resolver of one's own.
   */
  resolveHref?(reference: string, base: string, options?: ResolveOptions): string | null;
  /** True if `value` (whitespace-stripped) is an absolute URL this resolver can use as a base. */
  isValidBase(value: string): boolean;
}
