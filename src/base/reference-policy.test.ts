import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSchemeRelative } from './reference-policy.ts';

// isSchemeRelative compares schemes in place; the reference is the form that lowercased copies
// (https://url.spec.whatwg.org/#scheme-state: a special scheme equal to the base's is "special relative or authority").
function reference(ref: string, base: string | null): boolean {
  if (base === null) return false;
  const colon = ref.indexOf(':');
  const scheme = ref.slice(0, colon).toLowerCase();
  if (!['http', 'https', 'ws', 'wss', 'ftp'].includes(scheme) || base.slice(0, colon + 1).toLowerCase() !== `${scheme}:`) return false;
  let slashes = 0;
  for (let i = colon + 1; i < ref.length && slashes < 2; i++) {
    const c = ref.charCodeAt(i);
    if (c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c !== 0x2f && c !== 0x5c) return true;
    slashes++;
  }
  return slashes < 2;
}

describe('isSchemeRelative', () => {
  const part = fc.constantFrom('http', 'HTTP', 'hTtPs', 'https', 'ws', 'WSS', 'ftp', 'file', 'ſ', 'K', 'İ', 'x', ':', '/', '\\', '\t', 'g', '@');
  const text = fc.array(part, { maxLength: 6 }).map((p) => p.join(''));
  it('agrees with comparing lowercased copies', () => {
    fc.assert(
      fc.property(text, fc.option(text, { nil: null }), (ref, base) => {
        expect(isSchemeRelative(ref, base)).toBe(reference(ref, base));
      }),
      { numRuns: 20000 },
    );
    for (const [ref, base] of [['http:g', 'http://a/'], ['HTTP:/g', 'http://a/'], ['http://x', 'http://a/'], ['https:g', 'http://a/'], ['http:g', 'HTTP://a/']] as const) {
      expect(isSchemeRelative(ref, base)).toBe(reference(ref, base));
    }
  });
});
