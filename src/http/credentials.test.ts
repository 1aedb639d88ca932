/** Redaction that cannot leak: everything between `//` and the last `@` goes, whether the URL parses or not. */
import { describe, expect, it } from 'vitest';
import { basicAuthorization, redactUrl, redactUserinfo, withoutCredentials } from './credentials.ts';

describe('redactUrl', () => {
  // Every password below contains SECRET; none may survive.
  it.each([
    // parses, ordinary credentials
    ['https://u:SECRET@example.com/x', 'https://example.com/x'],
    ['https://SECRET@example.com/x', 'https://example.com/x'],
    ['HTTPS://U:SECRET@Example.COM/x', 'https://example.com/x'],
    // an unencoded @ in the password (the URL parser takes the last @ of the authority)
    ['http://u:SE@CRET@host/p', 'http://host/p'],
    ['http://u:SECRET@@host/p', 'http://host/p'],
    // an unencoded / ? # in the password: the URL fails to parse (port "SE")…
    ['http://u:SE/CRET@host/p', 'http://host/p'],
    ['http://u:SE?CRET@host/p', 'http://host/p'],
    ['http://u:SE#CRET@host/p', 'http://host/p'],
    // …or parses with part of the password as the port, the host or the path
    ['http://u:123/SECRET@host/p', 'http://host/p'],
    ['http://u:123?SECRET@host/p', 'http://host/p'],
    ['http://u:1#SECRET@host', 'http://host'],
    ['http://u:SE@CR/SECRET@host/p', 'http://host/p'],
    ['http://SE/CRET:SECRET@host/', 'http://host/'],
    // other spellings the URL parser accepts for special schemes, and text around a URL
    ['http:\\\\u:SE/CRET@host/', 'http:\\\\host/'],
    ['http:/u:SE/CRET@host/', 'http:/host/'],
    ['http:u:SE/CRET@host/', 'http:host/'],
    ['  http://u:SE/CRET@host/', '  http://host/'],
    ['//u:SE/CRET@host/p', '//host/p'],
    ['not a url //u:SECRET@host', 'not a url //host'],
  ])('%s → %s', (input, expected) => {
    const printed = redactUrl(input);
    expect(printed).toBe(expected);
    expect(printed).not.toContain('SECRET');
    expect(printed).not.toContain('CRET');
  });

  it('leaves URLs without credentials as the parser serializes them', () => {
    expect(redactUrl('https://example.com/a?b=1#c')).toBe('https://example.com/a?b=1#c');
    expect(redactUrl('HTTP://EXAMPLE.com:80/%7e')).toBe('http://example.com/%7e');
    expect(redactUrl(new URL('https://u:p@example.com/'))).toBe('https://example.com/');
    expect(redactUrl('/relative@path')).toBe('/relative@path');
    expect(redactUrl('docs/page.html')).toBe('docs/page.html');
  });

  it('the price: an @ after the host is read as the end of a password', () => {
    expect(redactUrl('https://example.com/@user/post')).toBe('https://user/post');
  });
});

describe('redactUserinfo: text as sent (a Location value)', () => {
  it('keeps the text, removes the userinfo', () => {
    expect(redactUserinfo('HTTP://u:SE/CRET@Host/x')).toBe('HTTP://Host/x');
    expect(redactUserinfo('../relative')).toBe('../relative');
    expect(redactUserinfo('')).toBe('');
  });
});

describe('withoutCredentials: the retrieval base', () => {
  it('is the parsed URL without username and password, nothing else changed', () => {
    expect(withoutCredentials(new URL('https://u:p@example.com/@user/post?a@b'))).toBe('https://example.com/@user/post?a@b');
    expect(withoutCredentials(new URL('https://example.com/x'))).toBe('https://example.com/x');
  });
});

describe('basicAuthorization', () => {
  it('percent-decodes the userinfo', () => {
    expect(basicAuthorization(new URL('http://a%20b:p%40ss@x/'))).toBe(`Basic ${Buffer.from('a b:p@ss').toString('base64')}`);
    expect(basicAuthorization(new URL('http://x/'))).toBeNull();
  });
});
