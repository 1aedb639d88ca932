/**
 * The `rfc3986` resolver: RFC 3986 §5.2–5.3, exactly, with no normalization beyond the algorithm.
 *
 * NOTE: hand-written on purpose. Both maintained JavaScript libraries were checked against the requirement that
 * the characters of base and reference are kept as they are:
 * - fast-uri 4.2 `resolve()` normalizes: it lowercases the scheme and host, percent-encodes characters outside the
 *   URI grammar (e.g. "\n" → "%0A", non-ASCII → UTF-8 escapes) and drops default ports for known schemes.
 * - uri-js 4.4 (unmaintained since 2020) does the same escaping and scheme-specific normalization, and resolves
 *   `uri:g` against `uri://a/b/c/d;p?q` to `uri://a/b/c/g` only in its "tolerant" mode.
 * The algorithm itself is forty lines of RFC pseudocode, transcribed below step by step.
 */
import { classifyReference, hasScheme, stripAsciiWhitespace } from './reference.ts';
import type { Resolution, Resolver } from './types.ts';

/** The five components of RFC 3986 Appendix B; `undefined` = component absent (distinct from empty). */
export interface UriComponents {
  scheme: string | undefined;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

// RFC 3986 Appendix B: ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
// The `s` flag lets "." match line terminators: characters are kept, never rejected or normalized.
const URI_REFERENCE = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;
// The same without the scheme group, for a reference whose would-be scheme is not one.
const RELATIVE_REFERENCE = /^(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

/** Splits a URI reference into its components (RFC 3986 Appendix B), with a strict scheme (§3.1). */
export function parseUriReference(reference: string): UriComponents {
  // Both expressions match every string, so `exec` never returns null.
  const m = URI_REFERENCE.exec(reference)!;
  if (m[1] === undefined || hasScheme(`${m[1]}:`)) {
    return { scheme: m[1], authority: m[2], path: m[3] ?? '', query: m[4], fragment: m[5] };
  }
  // A "scheme" that is not ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) is not one: `1a:b` and `a b:c` are
  // relative-path references whose first segment holds a colon (invalid per §4.2, but resolvable as paths).
  const r = RELATIVE_REFERENCE.exec(reference)!;
  return { scheme: undefined, authority: r[1], path: r[2] ?? '', query: r[3], fragment: r[4] };
}

/** RFC 3986 §5.3 Component Recomposition. */
export function recomposeUri(c: UriComponents): string {
  let result = '';
  if (c.scheme !== undefined) result += `${c.scheme}:`;
  if (c.authority !== undefined) result += `//${c.authority}`;
  result += c.path;
  if (c.query !== undefined) result += `?${c.query}`;
  if (c.fragment !== undefined) result += `#${c.fragment}`;
  return result;
}

/** RFC 3986 §5.2.4 Remove Dot Segments. */
export function removeDotSegments(path: string): string {
  // 1. The input buffer is initialized with the now-appended path components and the output buffer is empty.
  let input = path;
  let output = '';
  // 2. While the input buffer is not empty, loop as follows:
  while (input.length > 0) {
    if (input.startsWith('../')) {
      // A. If the input buffer begins with a prefix of "../" or "./", then remove that prefix;
      input = input.slice(3);
    } else if (input.startsWith('./')) {
      input = input.slice(2);
    } else if (input.startsWith('/./')) {
      // B. if the input buffer begins with a prefix of "/./" or "/.", where "." is a complete path segment,
      //    then replace that prefix with "/";
      input = input.slice(2);
    } else if (input === '/.') {
      input = '/';
    } else if (input.startsWith('/../')) {
      // C. if the input buffer begins with a prefix of "/../" or "/..", where ".." is a complete path segment,
      //    then replace that prefix with "/" and remove the last segment and its preceding "/" (if any) from
      //    the output buffer;
      input = input.slice(3);
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '/..') {
      input = '/';
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '.' || input === '..') {
      // D. if the input buffer consists only of "." or "..", then remove that from the input buffer;
      input = '';
    } else {
      // E. move the first path segment in the input buffer to the end of the output buffer, including the initial
      //    "/" character (if any) and any subsequent characters up to, but not including, the next "/".
      const next = input.indexOf('/', input.charCodeAt(0) === 0x2f ? 1 : 0);
      const end = next === -1 ? input.length : next;
      output += input.slice(0, end);
      input = input.slice(end);
    }
  }
  // 3. Finally, the output buffer is returned as the result of remove_dot_segments.
  return output;
}

/** RFC 3986 §5.2.3 Merge Paths. */
function mergePaths(base: UriComponents, referencePath: string): string {
  // If the base URI has a defined authority component and an empty path, then return a string consisting of "/"
  // concatenated with the reference's path; otherwise,
  if (base.authority !== undefined && base.path === '') return `/${referencePath}`;
  // return a string consisting of the reference's path component appended to all but the last segment of the
  // base URI's path (i.e., excluding any characters after the right-most "/" in the base URI path, or excluding
  // the entire base URI path if it does not contain any "/" characters).
  return base.path.slice(0, base.path.lastIndexOf('/') + 1) + referencePath;
}

/**
 * RFC 3986 §5.2.2 Transform References (strict parser), on parsed components.
 * `base` must have a scheme (§5.1: the base URI must be absolute); it is not consulted when `r` has one.
 */
export function transformReference(base: UriComponents, r: UriComponents): UriComponents {
  const t: UriComponents = { scheme: undefined, authority: undefined, path: '', query: undefined, fragment: undefined };
  if (r.scheme !== undefined) {
    t.scheme = r.scheme;
    t.authority = r.authority;
    t.path = removeDotSegments(r.path);
    t.query = r.query;
  } else {
    if (r.authority !== undefined) {
      t.authority = r.authority;
      t.path = removeDotSegments(r.path);
      t.query = r.query;
    } else {
      if (r.path === '') {
        t.path = base.path;
        t.query = r.query !== undefined ? r.query : base.query;
      } else {
        if (r.path.startsWith('/')) {
          t.path = removeDotSegments(r.path);
        } else {
          t.path = removeDotSegments(mergePaths(base, r.path));
        }
        t.query = r.query;
      }
      t.authority = base.authority;
    }
    t.scheme = base.scheme;
  }
  t.fragment = r.fragment;
  return t;
}

/** Resolves `reference` against `base` by RFC 3986 §5.2; null if neither the reference nor the base is absolute. */
export function resolveRfc3986(reference: string, base: string): string | null {
  const r = parseUriReference(reference);
  // An absolute reference needs no base (the first branch of §5.2.2 never reads it).
  if (r.scheme !== undefined) return recomposeUri(transformReference(r, r));
  const b = parseUriReference(base);
  if (b.scheme === undefined) return null;
  // §5.2.1: a base URI's fragment is ignored by the algorithm (T.fragment always comes from R).
  return recomposeUri(transformReference(b, r));
}

export const rfc3986Resolver: Resolver = {
  name: 'rfc3986',
  resolve(input: string, base: string): Resolution {
    const reference = stripAsciiWhitespace(input);
    const kind = classifyReference(reference);
    const href = resolveRfc3986(reference, stripAsciiWhitespace(base));
    if (href === null) {
      return {
        reference,
        kind: 'unresolvable',
        href: null,
        warning: {
          code: 'unresolvable-reference',
          message: `cannot resolve ${JSON.stringify(reference)}: the base ${JSON.stringify(base)} has no scheme`,
          detail: reference,
        },
      };
    }
    return { reference, kind, href };
  },
  resolveHref(input: string, base: string): string | null {
    return resolveRfc3986(stripAsciiWhitespace(input), stripAsciiWhitespace(base));
  },
  isValidBase(value: string): boolean {
    return parseUriReference(stripAsciiWhitespace(value)).scheme !== undefined;
  },
};
