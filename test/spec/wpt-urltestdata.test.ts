/**
 * The browser resolver against the WHATWG URL web-platform-tests (../shared/conformance/uri/wpt-urltestdata.json):
 * every case with a base, expected `href`, or unresolvable where `failure` is set.
 */
import { describe, expect, it } from 'vitest';
import { browserResolver } from '../../src/uri/index.ts';
import { readSharedJson } from '../helpers/shared.ts';

interface UrlTest {
  input: string;
  base: string | null;
  href?: string;
  failure?: boolean;
}

const cases = readSharedJson<Array<UrlTest | string>>('conformance/uri/wpt-urltestdata.json').filter(
  (c): c is UrlTest => typeof c === 'object' && c.base !== null,
);

describe('WPT urltestdata.json through the browser resolver', () => {
  it('has the 336 cases with a base', () => expect(cases).toHaveLength(336));
  it.each(cases.map((c, i) => [i, c.input, c.base, c] as const))('#%i %j against %j', (_i, input, base, c) => {
    const r = browserResolver.resolve(input, base!);
    if (c.failure === true) {
      expect(r.href).toBeNull();
      expect(r.kind).toBe('unresolvable');
      expect(r.warning?.code).toBe('unresolvable-reference');
    } else {
      expect(r.href).toBe(c.href);
    }
  });
});
