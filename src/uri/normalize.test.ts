import { describe, expect, test } from 'vitest';
import { normalizeUri } from './normalize.ts';

describe('RFC 3986 §6.2.2 syntax-based and §6.2.3 scheme-based normalization', () => {
  test.each([
    // §6.2.2.1 case normalization (the RFC's example) and §6.2.2.2 percent-encoding normalization
    ['HTTP://www.Example.com/', 'http://www.example.com/'],
    ['http://example.com/%7Euser/%7efoo', 'http://example.com/~user/~foo'],
    ['http://example.com/a%2fb%3a', 'http://example.com/a%2Fb%3A'],
    ['http://example.com/%41%62%2D%2e%5F', 'http://example.com/Ab-._'],
    // §6.2.2.3 path segment normalization
    ['http://example.com/a/b/c/./../../g', 'http://example.com/a/g'],
    ['http://example.com/../x', 'http://example.com/x'],
    // §6.2.3: the RFC's four equivalent forms of http://example.com/
    ['http://example.com', 'http://example.com/'],
    ['http://example.com:/', 'http://example.com/'],
    ['http://example.com:80/', 'http://example.com/'],
    ['https://example.com:443/x', 'https://example.com/x'],
    ['https://example.com:8443/x', 'https://example.com:8443/x'],
    // what it never changes: query order, fragment, userinfo case, reserved characters
    ['http://Us%65r@EXAMPLE.com/p?b=2&a=1#Frag', 'http://User@example.com/p?b=2&a=1#Frag'],
    ['mailto:Joe@Example.COM', 'mailto:Joe@Example.COM'],
    ['urn:ISBN:0-395', 'urn:ISBN:0-395'],
  ])('%s → %s', (input, output) => {
    expect(normalizeUri(input)).toBe(output);
  });

  test('a relative reference is returned unchanged', () => {
    expect(normalizeUri('../a/%7e')).toBe('../a/%7e');
  });
});
