import { describe, expect, test } from 'vitest';
import { surt } from './surt.ts';

describe('surt (expected values: WaybackURLKeyMakerTest, as internetarchive/surt tests them)', () => {
  test.each([
    ['http://www.archive.org/', 'org,archive)/'],
    ['http://archive.org/', 'org,archive)/'],
    ['http://archive.org/goo/', 'org,archive)/goo'],
    ['http://archive.org/goo/?', 'org,archive)/goo'],
    ['http://archive.org/goo/?b&a', 'org,archive)/goo?a&b'],
    ['http://archive.org/goo/?a=2&b&a=1', 'org,archive)/goo?a=1&a=2&b'],
    ['http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221', 'org,archive)/index.php?action=profile;u=4221'],
    ['filedesc:foo.arc.gz', 'filedesc:foo.arc.gz'],
    ['filedesc://foo.arc.gz', 'filedesc://foo.arc.gz'],
    ['warcinfo:foo.warc.gz', 'warcinfo:foo.warc.gz'],
  ])('%s → %s', (url, key) => {
    expect(surt(url)).toBe(key);
  });

  test('case, www, default port and fragment do not change the key; a port does', () => {
    expect(surt('HTTP://WWW.Example.COM:80/A/B.html#frag')).toBe('com,example)/a/b.html');
    expect(surt('https://www2.example.com:8443/')).toBe('com,example:8443)/');
    expect(surt('http://192.0.2.1/x')).toBe('192.0.2.1)/x');
  });

  test('not a URL: null', () => {
    expect(surt('not a url')).toBeNull();
  });
});
