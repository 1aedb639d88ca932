/**
 * The `browser` resolver: the WHATWG URL standard, as Chromium resolves.
 *
 * UTF-8 documents go through Node's own `URL` (Ada, a WHATWG URL implementation). For documents in other
 * encodings the query of a special-scheme URL is encoded in the document's encoding
 * (https://url.spec.whatwg.org/#query-state, step 1.3 "percent-encode after encoding"; HTML's
 * https://html.spec.whatwg.org/multipage/urls-and-fetching.html#encoding-parsing-a-url passes the document's
 * character encoding). Node's `URL` has no encoding parameter, so those go through whatwg-url's `parseURL`, which
 * implements the same standard with an `encoding` option (characters the encoding cannot represent become
 * "&#NNNN;", percent-encoded: `%26%23NNNN%3B`, as Chromium does).
 */
import { createRequire } from 'node:module';
import { isAscii } from '../encoding/raw-text.ts';
import { classifyReference, stripAsciiWhitespace } from './reference.ts';
import { prepareSpecialBase, resolveSimpleReference, simpleReferencePrefix } from './relative-shortcut.ts';
export { prefixCut } from './relative-shortcut.ts';
import type { SpecialBaseRecord } from './relative-shortcut.ts';
import type { Resolution, ResolveOptions, Resolver } from './types.ts';

/**
 * whatwg-url, loaded when first needed (a non-ASCII reference in a document that is not UTF-8): loading it (and
 * tr46's tables) took ~35 ms of CPU, in every process and worker thread that rewrites, most of which never use it.
 */
let whatwgUrlModule: typeof import('whatwg-url').default | null = null;
function whatwgUrl(): typeof import('whatwg-url').default {
  return (whatwgUrlModule ??= createRequire(import.meta.url)('whatwg-url') as typeof import('whatwg-url').default);
}

// https://encoding.spec.whatwg.org/#names-and-labels: labels that name UTF-8 (the common case, kept off the
// whatwg-url path).
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8']);

function isUtf8(encoding: string | undefined): boolean {
  return encoding === undefined || encoding === 'utf-8' || UTF8_LABELS.has(encoding.trim().toLowerCase());
}

// The last base prepared for the shortcut (relative-shortcut.ts): a document resolves its references against
// one base, so one entry serves them all (a string compare a reference, usually of the very same string).
let shortcutBase: string | null = null;
let shortcutRecord: SpecialBaseRecord | null = null;

function shortcutFor(base: string): SpecialBaseRecord | null {
  if (base !== shortcutBase) {
    shortcutRecord = prepareSpecialBase(base);
    shortcutBase = base;
  }
  return shortcutRecord;
}

/**
 * The prefix P such that `parseWhatwgUrl(reference, base, encoding)` is P + `reference`.slice(prefixCut()), for a
 * plain relative reference against an http(s) base (relative-shortcut.ts; any encoding: such a reference is
 * ASCII), else null. `reference` must be stripped of leading and trailing ASCII whitespace.
 */
export function whatwgJoinPrefix(reference: string, base: string): string | null {
  const record = shortcutFor(base);
  return record === null ? null : simpleReferencePrefix(record, reference);
}

/**
 * https://url.spec.whatwg.org/#concept-url-parser with a base and the document's encoding.
 * Returns the serialized URL (`href`), or null on failure.
 */
export function parseWhatwgUrl(input: string, base: string, encoding?: string): string | null {
  // A plain reference against an http(s) base is joined by hand (relative-shortcut.ts); it is ASCII, so the
  // document's encoding does not matter (below).
  const record = shortcutFor(base);
  if (record !== null) {
    const joined = resolveSimpleReference(record, input);
    if (joined !== null) return joined;
  }
  // The encoding only decides how non-ASCII characters of the query are written ("percent-encode after
  // encoding" maps ASCII to itself in every output encoding: https://encoding.spec.whatwg.org/#get-an-output-encoding
  // leaves only ASCII-compatible ones). So ASCII input takes the fast path whatever the document's encoding.
  if (isUtf8(encoding) || isAscii(input)) return URL.parse(input, base)?.href ?? null;
  const { parseURL, serializeURL } = whatwgUrl();
  const baseURL = parseURL(base);
  if (baseURL === null) return null;
  const name = (encoding ?? 'utf-8').trim().toLowerCase();
  const url = parseURL(input, { baseURL, encoding: name }) as (ReturnType<typeof parseURL> & { query: string | null }) | null;
  if (url === null) return null;
  // The URL Standard (and whatwg-url) encode the query of a ws: or wss: URL in UTF-8; Chromium encodes it in the
  // document's encoding, as for http(s) (`?é` against ws://h/ in a windows-1252 page is ?%E9): the query the
  // input gave is encoded again, in the document's encoding. (Chromium does the same for non-special schemes,
  // foo://h/; resolvers.test.ts holds the standard's UTF-8 there.)
  if (url.query !== null && (url.scheme === 'ws' || url.scheme === 'wss')) {
    const query = inputQuery(input);
    if (query !== null && !isAscii(query)) url.query = percentEncodeAfterEncoding()(name, query, SPECIAL_QUERY_SET);
  }
  return serializeURL(url);
}

/** @exodus/bytes' percent-encode after encoding (whatwg-url's own), loaded with whatwg-url's first use. */
function percentEncodeAfterEncoding(): (encoding: string, input: string, set: string) => string {
  return (createRequire(import.meta.url)('@exodus/bytes/whatwg.js') as { percentEncodeAfterEncoding: (encoding: string, input: string, set: string) => string }).percentEncodeAfterEncoding;
}

// https://url.spec.whatwg.org/#special-query-percent-encode-set, beyond C0 controls.
const SPECIAL_QUERY_SET = ' "#\'<>';

/** The query of `input` as the URL parser reads it (after the first "?", up to "#"), or null if it has none. */
function inputQuery(input: string): string | null {
  // https://url.spec.whatwg.org/#concept-basic-url-parser steps 1-3: C0 controls and spaces trimmed, tab and
  // newline removed.
  const s = input.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '').replace(/[\t\n\r]/g, '');
  const q = s.indexOf('?');
  const hash = s.indexOf('#');
  if (q === -1 || (hash !== -1 && hash < q)) return null;
  return s.slice(q + 1, hash === -1 ? undefined : hash);
}

// https://url.spec.whatwg.org/#special-scheme
const SPECIAL_BASE = /^\s*(?:https?|wss?|ftp|file):/i;

export const browserResolver: Resolver = {
  name: 'browser',
  resolve(input: string, base: string, options?: ResolveOptions): Resolution {
    // HTML strips leading and trailing ASCII whitespace from the attribute value before parsing it.
    const reference = stripAsciiWhitespace(input);
    // For special schemes the URL parser treats "\" as "/" (https://url.spec.whatwg.org/#relative-slash-state).
    const kind = classifyReference(reference, SPECIAL_BASE.test(base) ? '/\\' : '/');
    const href = parseWhatwgUrl(reference, base, options?.encoding);
    if (href === null) {
      const why = URL.canParse(base) ? 'the URL parser returns failure' : `the base ${JSON.stringify(base)} is not a valid URL`;
      return {
        reference,
        kind: 'unresolvable',
        href: null,
        warning: { code: 'unresolvable-reference', message: `cannot resolve ${JSON.stringify(reference)}: ${why}`, detail: reference },
      };
    }
    return { reference, kind, href };
  },
  resolveHref(input: string, base: string, options?: ResolveOptions): string | null {
    return parseWhatwgUrl(stripAsciiWhitespace(input), base, options?.encoding);
  },
  isValidBase(value: string): boolean {
    return URL.canParse(stripAsciiWhitespace(value));
  },
};
