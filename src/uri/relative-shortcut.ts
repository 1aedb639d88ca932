/**
 * A shortcut beside `URL.parse` for the commonest reference of all: a relative path, absolute path, query or
 * fragment made only of characters the URL parser copies as they are, against an `http:`/`https:` base.
 * On link-dense pages resolution was a quarter of the rewriter's time (issue 23: ~0.84 µs a reference, most of
 * it crossing into C++ and reading `href` back); joining strings is what the parser would do for these inputs.
 *
 * It follows the basic URL parser (https://url.spec.whatwg.org/#concept-basic-url-parser) for a special base
 * with a host: "relative state", "relative slash state", "path state", "query state", "fragment state". Inputs it
 * does not decide (anything percent-encoded by a state, "\", "%2e" segments, a scheme, a host, whitespace,
 * non-ASCII) return null: the caller then runs the full parser. `src/uri/relative-shortcut.test.ts` checks it
 * against `URL.parse` and whatwg-url on generated references, dot segments, percent-encodings, non-ASCII,
 * backslashes and legacy document encodings.
 */

/** A base URL prepared once (per document), for the shortcut. */
export interface SpecialBaseRecord {
  /** The base, serialized. */
  readonly href: string;
  /** Scheme, "//", credentials, host and port: what every result starts with (and an absolute path's prefix). */
  readonly origin: string;
  /** The path up to and including its last "/" ("/a/b/"): the path a relative path is appended to. */
  readonly directory: string;
  /** `origin` + `directory`: the prefix of a relative path without dot segments. */
  readonly directoryPrefix: string;
  /** `origin` + the path: the prefix of a query-only reference. */
  readonly queryPrefix: string;
  /** `origin` + the path + the query ("?" and all, if any): the prefix of a fragment-only reference. */
  readonly fragmentPrefix: string;
  /**
   * `directory` and the directories above it that leading "../" have reached so far, one a step up to "/"
   * (https://url.spec.whatwg.org/#shorten-a-urls-path), and `origin` + each: made once, not sliced and joined
   * again for every "../x" (grown as needed: see ancestor).
   */
  readonly ancestors: string[];
  readonly ancestorPrefixes: string[];
}

/**
 * Prepares `base` for the shortcut, or null when the shortcut does not apply to it: not a valid URL, not in its
 * serialized form (so that the string we join is the URL record's), or not http(s).
 */
export function prepareSpecialBase(base: string): SpecialBaseRecord | null {
  const url = URL.parse(base);
  if (url === null || url.href !== base || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  const path = url.pathname;
  // In a serialized URL the first "#" starts the fragment and the first "?" before it the query: every "#" and
  // "?" before them is percent-encoded. (Not `url.search`/`url.hash`, which are "" for an empty query or fragment.)
  const hash = base.indexOf('#');
  const withoutFragment = hash === -1 ? base : base.slice(0, hash);
  const question = withoutFragment.indexOf('?');
  const search = question === -1 ? '' : withoutFragment.slice(question);
  const origin = withoutFragment.slice(0, withoutFragment.length - search.length - path.length);
  // The pieces must add up to the serialization (a special URL's path always starts with "/").
  if (origin + path + search !== withoutFragment || path.charCodeAt(0) !== Ch.Slash || !(origin.endsWith(`//${url.host}`) || origin.endsWith(`@${url.host}`))) return null;
  const directory = path.slice(0, path.lastIndexOf('/') + 1);
  const directoryPrefix = origin + directory;
  return { href: base, origin, directory, directoryPrefix, queryPrefix: origin + path, fragmentPrefix: withoutFragment, ancestors: [directory], ancestorPrefixes: [directoryPrefix] };
}

const enum Ch {
  Hash = 0x23,
  Percent = 0x25,
  Apostrophe = 0x27,
  Dot = 0x2e,
  Slash = 0x2f,
  Colon = 0x3a,
  Question = 0x3f,
}

// Characters each state copies as they are for a special URL (and that never start anything else):
// ALPHA DIGIT - . _ ~ ! $ & ' ( ) * + , ; = : @ / % (unreserved, sub-delims, ":", "@", "/", and "%", which the
// parser never encodes). Left out: C0 controls, space, DEL and non-ASCII (percent-encoded or removed), and
// " < > ` ^ { } | [ ] \ (percent-encoded by some state, or "\" a slash in special URLs).
// https://url.spec.whatwg.org/#path-percent-encode-set, #special-query-percent-encode-set (adds "'"),
// #fragment-percent-encode-set.
const PATH = 1;
const QUERY = 2;
const FRAGMENT = 4;
const SAFE = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9\-._~!$&()*+,;=:@/%]/.test(ch)) SAFE[c] = PATH | QUERY | FRAGMENT;
}
SAFE[Ch.Apostrophe] = PATH | FRAGMENT;
SAFE[Ch.Question] = QUERY | FRAGMENT; // in the path, "?" starts the query
SAFE[Ch.Hash] = FRAGMENT; // in the path and the query, "#" starts the fragment

/** isSimpleReference's path characters: copied as they are and nothing more, noted (":", "/", "%"), or neither. */
const enum Kind {
  Other,
  Copied,
  Noted,
}
const PATH_KIND = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((SAFE[c]! & PATH) !== 0) PATH_KIND[c] = c === Ch.Colon || c === Ch.Slash || c === Ch.Percent ? Kind.Noted : Kind.Copied;
}

/** Where the path of the reference scanned last ends (at "?", "#" or its end). */
let pathEnd = 0;

/**
 * Whether every character of `reference` is one its state copies as it is, and nothing in it can start a
 * scheme, a host or a "%2e" dot segment: the references the shortcut decides. Sets `pathEnd`.
 */
function isSimpleReference(reference: string): boolean {
  const n = reference.length;
  if (n === 0) return false;
  let i = 0;
  let seenSlash = false;
  let seenPercent = false;
  for (; i < n; i++) {
    const c = reference.charCodeAt(i);
    // (One table read for the commonest characters, copied and nothing else: issue 23.)
    const kind = c < 128 ? PATH_KIND[c]! : Kind.Other;
    if (kind === Kind.Copied) continue;
    if (kind === Kind.Other) {
      if (c === Ch.Question || c === Ch.Hash) break;
      return false;
    }
    // https://url.spec.whatwg.org/#scheme-state: "x:" before any "/" may be a scheme.
    if (c === Ch.Colon && !seenSlash) return false;
    if (c === Ch.Slash) seenSlash = true;
    else if (c === Ch.Percent) seenPercent = true;
  }
  pathEnd = i;
  let state = QUERY;
  for (; i < n; i++) {
    const c = reference.charCodeAt(i);
    if (c === Ch.Hash) state = FRAGMENT;
    if (c >= 128 || (SAFE[c]! & state) === 0) return false;
  }
  // https://url.spec.whatwg.org/#relative-slash-state: "//" starts a host.
  if (reference.charCodeAt(0) === Ch.Slash && reference.charCodeAt(1) === Ch.Slash) return false;
  // https://url.spec.whatwg.org/#single-dot-path-segment: "%2e" is a dot too; the parser decides those.
  if (seenPercent && /%2e/i.test(reference.slice(0, pathEnd))) return false;
  return true;
}

/** How many leading units of the reference the last prefix replaces (simpleReferencePrefix); set by skipLeadingDots. */
let cut = 0;
/** The directory that follows the origin once the leading "../" and "./" up to `cut` are read, and `origin` + it. */
let cutDirectory = '';
let cutPrefix = '';

/** How many leading units of the reference simpleReferencePrefix's prefix replaces: read right after it. */
export function prefixCut(): number {
  return cut;
}

/**
 * The prefix P such that `reference` designates P + `reference`.slice(prefixCut()) against `base` (exactly
 * `URL.parse(reference, base.href)?.href`): for a relative path, absolute path, query or fragment without dot
 * segments (prefixCut() 0), or whose only dot segments lead the path ("../../x", "./x": prefixCut() is their
 * length). Null when the reference is not of that form (the caller resolves it in full). A rewriter then
 * replaces the first prefixCut() units of the reference as written by P instead of replacing it all.
 * `reference` must already be stripped of leading and trailing ASCII whitespace (one that is not returns null).
 */
export function simpleReferencePrefix(base: SpecialBaseRecord, reference: string): string | null {
  cut = 0;
  if (!isSimpleReference(reference)) return null;
  const prefix = prefixWithoutDots(base, reference);
  if (prefix !== null) return prefix;
  skipLeadingDots(base, reference);
  if (hasDotSegment(reference, cut, pathEnd)) {
    cut = 0;
    return null;
  }
  return cutPrefix;
}

function prefixWithoutDots(base: SpecialBaseRecord, reference: string): string | null {
  const first = reference.charCodeAt(0);
  // https://url.spec.whatwg.org/#relative-state: "#" keeps the base's path and query, "?" its path; a path
  // ("otherwise") is read after the base's path is shortened, so it follows the base's directory.
  if (first === Ch.Hash) return base.fragmentPrefix;
  if (first === Ch.Question) return base.queryPrefix;
  // https://url.spec.whatwg.org/#relative-slash-state: after one "/" the path starts empty.
  if (first === Ch.Slash) return hasDotSegment(reference, 1, pathEnd) ? null : base.origin;
  return hasDotSegment(reference, 0, pathEnd) ? null : base.directoryPrefix;
}

/**
 * The URL `reference` designates against `base`, exactly as `URL.parse(reference, base.href)?.href`, or null
 * when the shortcut cannot tell (the caller runs the parser). `reference` must already be stripped of leading
 * and trailing ASCII whitespace.
 */
export function resolveSimpleReference(base: SpecialBaseRecord, reference: string): string | null {
  if (!isSimpleReference(reference)) return null;
  const prefix = prefixWithoutDots(base, reference);
  if (prefix !== null) return prefix + reference;
  skipLeadingDots(base, reference);
  const directory = cutDirectory;
  const i = cut;
  if (!hasDotSegment(reference, i, pathEnd)) return base.origin + directory + reference.slice(i);
  // The rest, segment by segment: a "." or ".." last (c not "/") leaves an empty segment behind.
  const path = directory.split('/').slice(1, -1);
  const parts = reference.slice(i, pathEnd).split('/');
  for (let k = 0; k < parts.length; k++) {
    const segment = parts[k]!;
    const last = k === parts.length - 1;
    if (segment === '..') {
      path.pop();
      if (last) path.push('');
    } else if (segment === '.') {
      if (last) path.push('');
    } else {
      path.push(segment);
    }
  }
  return `${base.origin}/${path.join('/')}${reference.slice(pathEnd)}`;
}

/**
 * https://url.spec.whatwg.org/#path-state, for each segment (the buffer) and what ends it (c): ".." shortens the
 * path, "." is nothing. Leading "../" and "./" (the usual forms) shorten the base's directory or do nothing,
 * without splitting it: sets `cutDirectory` and `cut` (where the rest of the path starts). After "/" (an
 * absolute path) the directory is "/".
 */
function skipLeadingDots(base: SpecialBaseRecord, reference: string): void {
  const absolute = reference.charCodeAt(0) === Ch.Slash;
  let up = 0;
  let i = absolute ? 1 : 0;
  for (;;) {
    if (i + 3 <= pathEnd && reference.startsWith('../', i)) {
      up++;
      i += 3;
    } else if (i + 2 <= pathEnd && reference.startsWith('./', i)) {
      i += 2;
    } else {
      break;
    }
  }
  cut = i;
  if (absolute) {
    // (From "/", which "../" leaves as it is.)
    cutDirectory = '/';
    cutPrefix = base.origin + '/';
    return;
  }
  const k = ancestor(base, up);
  cutDirectory = base.ancestors[k]!;
  cutPrefix = base.ancestorPrefixes[k]!;
}

/** The index in base.ancestors of the directory `up` steps above the base's (or "/"), made if not yet. */
function ancestor(base: SpecialBaseRecord, up: number): number {
  const ancestors = base.ancestors;
  while (ancestors.length <= up) {
    const d = ancestors[ancestors.length - 1]!;
    if (d.length === 1) return ancestors.length - 1;
    const parent = d.slice(0, d.lastIndexOf('/', d.length - 2) + 1);
    ancestors.push(parent);
    base.ancestorPrefixes.push(base.origin + parent);
  }
  return up;
}

/** Whether the "/"-separated path `s[from, to)` holds a "." or ".." segment. */
function hasDotSegment(s: string, from: number, to: number): boolean {
  let dot = s.indexOf('.', from);
  while (dot !== -1 && dot < to) {
    // A segment starting here (at `from` or after "/") that is "." or "..", up to "/" or `to`.
    if (dot === from || s.charCodeAt(dot - 1) === Ch.Slash) {
      const after = s.charCodeAt(dot + 1) === Ch.Dot && dot + 1 < to ? dot + 2 : dot + 1;
      if (after === to || s.charCodeAt(after) === Ch.Slash) return true;
    }
    dot = s.indexOf('.', dot + 1);
  }
  return false;
}
