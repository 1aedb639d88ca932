/**
 * surt() against the reference implementation, internetarchive/surt 0.3.1: test/fixtures/surt-cases.json holds what
 * that library computes (surt.surt and its GoogleURLCanonicalizer) for the inputs of its own tests, edge cases and
 * 250 URLs of our link reports over the WARC corpus. Plus the cases its tests/test_surt.py asserts, as written there.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { googleCanonicalUrl, surt } from './surt.ts';

const { cases } = JSON.parse(readFileSync(new URL('../../test/fixtures/surt-cases.json', import.meta.url), 'utf8')) as { cases: Array<[string, string | null, string | null]> };

describe('surt: what internetarchive/surt computes (test/fixtures/surt-cases.json)', () => {
  test('there are cases', () => {
    expect(cases.length).toBeGreaterThan(300);
  });
  test.each(cases)('%j → %j (canonical %j)', (url, key, canonical) => {
    expect(surt(url)).toBe(key);
    expect(googleCanonicalUrl(url)).toBe(canonical);
  });
});

describe('surt: the assertions of internetarchive/surt tests/test_surt.py (default options)', () => {
  test.each([
    ['', '-'],
    ['filedesc:foo.arc.gz', 'filedesc:foo.arc.gz'],
    ['filedesc:/foo.arc.gz', 'filedesc:/foo.arc.gz'],
    ['filedesc://foo.arc.gz', 'filedesc://foo.arc.gz'],
    ['warcinfo:foo.warc.gz', 'warcinfo:foo.warc.gz'],
    ['dns:alexa.com', 'dns:alexa.com'],
    ['dns:archive.org', 'dns:archive.org'],
    ['http://www.archive.org/', 'org,archive)/'],
    ['http://archive.org/', 'org,archive)/'],
    ['http://archive.org/goo/', 'org,archive)/goo'],
    ['http://archive.org/goo/?', 'org,archive)/goo'],
    ['http://archive.org/goo/?b&a', 'org,archive)/goo?a&b'],
    ['http://archive.org/goo/?a=2&b&a=1', 'org,archive)/goo?a=1&a=2&b'],
    ['http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221', 'org,archive)/index.php?action=profile;u=4221'],
    ['whois://whois.isoc.org.il/shaveh.co.il', 'il,org,isoc,whois)/shaveh.co.il'],
    [
      'http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2',
      'com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2',
    ],
    ['mailto:foo@example.com', 'mailto:foo@example.com'],
    ['ftp://www.example.com/', 'com,example)/'],
    ['http://example.com/app?item=Wroc%C5%82aw', 'com,example)/app?item=wroc%c5%82aw'],
    ['http://192.168.1.254/info/', '254,1,168,192)/info'],
  ])('%s → %s', (url, key) => {
    expect(surt(url)).toBe(key);
  });

  test('GoogleURLCanonicalizer (tests copied there from GoogleURLCanonicalizerTest.java)', () => {
    expect(googleCanonicalUrl('http://host/%25%32%35')).toBe('http://host/%25');
    expect(googleCanonicalUrl('http://host/%%%25%32%35asd%%')).toBe('http://host/%25%25%25asd%25%25');
    expect(googleCanonicalUrl('http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/')).toBe('http://168.188.99.26/.secure/www.ebay.com/');
    expect(googleCanonicalUrl('http://3279880203/blah')).toBe('http://195.127.0.11/blah');
    expect(googleCanonicalUrl('http://www.google.com.../')).toBe('http://www.google.com/');
    expect(googleCanonicalUrl('http://www.google.com/foo\tbar\rbaz\n2')).toBe('http://www.google.com/foobarbaz2');
    expect(googleCanonicalUrl('http://host.com//twoslashes?more//slashes')).toBe('http://host.com/twoslashes?more//slashes');
    expect(googleCanonicalUrl('B\u00fccher.ch:8080')).toBe('http://xn--bcher-kva.ch:8080/');
    expect(googleCanonicalUrl('\u2603.com')).toBe('http://xn--n3h.com/');
    expect(googleCanonicalUrl('http://10.0.258/')).toBe('http://10.0.1.2/');
    expect(googleCanonicalUrl('http://017.0.0.1/')).toBe('http://15.0.0.1/');
    expect(googleCanonicalUrl('http://39024579298/')).toBe('http://22.11.210.226/');
  });

  test('a port the library cannot read (it raises): null', () => {
    expect(surt('http://example.com:99999/')).toBeNull();
    expect(surt('http://example.com:8x/')).toBeNull();
  });
});
