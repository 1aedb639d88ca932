/**
 * The rfc3986 resolver against outside tables (../shared/conformance/uri), used as they are.
 * Deliberate disagreements are listed here and in docs/resolvers.md, each with its reason.
 */
import { describe, expect, it } from 'vitest';
import { rfc3986Resolver } from '../../src/uri/index.ts';
import { readSharedJson } from '../helpers/shared.ts';

interface Vector {
  base: string;
  ref: string;
  expected: string;
  line?: number;
  section?: string;
  options?: string;
}

const resolve = (ref: string, base: string): string | null => rfc3986Resolver.resolve(ref, base).href;

describe('RFC 3986 §5.4 examples (strict parser)', () => {
  const examples = readSharedJson<Vector[]>('conformance/uri/rfc3986-5.4-examples.json');
  it('has all 42 examples', () => expect(examples).toHaveLength(42));
  it.each(examples.map((e) => [e.section, e.ref, e.expected, e.base] as const))('§%s %j → %j', (_section, ref, expected, base) => {
    expect(resolve(ref, base)).toBe(expected);
  });
});

/**
 * Where we differ from a library's own test vector on purpose. Key: the vector's line in that library's test file.
 * - tolerant mode: RFC 3986 §5.2.2 with a strict parser keeps `uri:g` (§5.4.2 "http:g" → "http:g"); the
 *   "tolerant" answer is the backward-compatible one (§5.4.2), which we do not use.
 * - scheme-less base: §5.1 requires the base to be absolute (to have a scheme); uri-js resolves against
 *   "//www.g.com/" anyway and also percent-encodes the newline (normalization we never do). We return
 *   "unresolvable" and leave the reference as it is.
 */
const DISAGREEMENTS: Record<string, Record<number, { ours: string | null; why: string }>> = {
  'uri-js': {
    374: { ours: 'uri:g', why: 'tolerant (backward-compatible) option; we are strict' },
    377: { ours: null, why: 'base has no scheme (RFC 3986 §5.1); uri-js also percent-encodes "\\n"' },
    378: { ours: null, why: 'base has no scheme (RFC 3986 §5.1); uri-js also percent-encodes "\\n"' },
  },
  'fast-uri': {
    61: { ours: 'uri:g', why: 'tolerant (backward-compatible) option; we are strict' },
  },
};

describe.each([
  ['uri-js', 'conformance/uri/uri-js-resolve-vectors.json', 50],
  ['fast-uri', 'conformance/uri/fast-uri-resolve-vectors.json', 51],
] as const)('%s resolution vectors', (library, file, count) => {
  const vectors = readSharedJson<Vector[]>(file);
  it(`has ${count} vectors`, () => expect(vectors).toHaveLength(count));
  it.each(vectors.map((v) => [v.line ?? 0, v.ref, v.base, v] as const))('line %i: %j against %j', (line, ref, base, v) => {
    const disagreement = DISAGREEMENTS[library]?.[line];
    expect(resolve(ref, base)).toBe(disagreement === undefined ? v.expected : disagreement.ours);
  });
});

interface RoyVector {
  file: string;
  line: number;
  base: string;
  ref: string;
  expected_in_file: string;
  expected_rfc3986_per_perl_URI?: string;
}

/**
 * Roy Fielding's pages predate RFC 3986 (RFC 1808/2396 era). Where their expectation differs from RFC 3986 and
 * the table gives no RFC 3986 answer, RFC 3986 §5.4.2 decides: ".." above the root is removed ("../../../g" →
 * "http://a/g"), and "/./g", "/../g" lose their dot segments.
 */
const ROY_RFC3986: Record<string, string> = {
  'roytest1.html:103': 'http://a/b/c/d;p?q', // "(current document)": the empty reference designates the base itself
  'roytest1.html:112': 'http://a/g', // RFC 3986 §5.4.2: "../../../g" = "http://a/g"
  'roytest1.html:115': 'http://a/g', // RFC 3986 §5.4.2: "../../../../g" = "http://a/g"
  'roytest1.html:127': 'http://a/g', // RFC 3986 §5.4.2: "/./g" = "http://a/g"
  'roytest1.html:130': 'http://a/g', // RFC 3986 §5.4.2: "/../g" = "http://a/g"
};

describe("Roy Fielding's relative-URL test pages", () => {
  const vectors = readSharedJson<RoyVector[]>('conformance/uri/fielding-roytest/roytest-vectors.json');
  it('has 102 vectors', () => expect(vectors).toHaveLength(102));
  it.each(vectors.map((v) => [`${v.file}:${v.line}`, v.ref, v] as const))('%s %j', (key, ref, v) => {
    const expected = ROY_RFC3986[key] ?? v.expected_rfc3986_per_perl_URI ?? v.expected_in_file;
    expect(resolve(ref, v.base)).toBe(expected);
  });
});
