import { describe, expect, test } from 'vitest';
import { dechunk, parseHttpHead } from './http-message.ts';
import { arcDateToWarc, parseArcLine, parseFields } from './record.ts';
import { base32, sha1Digest } from './writer.ts';

describe('base32 (RFC 4648 §10 test vectors) and sha1 digests', () => {
  test.each([
    ['', ''],
    ['f', 'MY======'],
    ['fo', 'MZXQ===='],
    ['foo', 'MZXW6==='],
    ['foob', 'MZXW6YQ='],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI======'],
  ])('%j → %s', (input, output) => {
    expect(base32(Buffer.from(input))).toBe(output);
  });

  test('sha1 of the empty block, as WARC tools write it', () => {
    expect(sha1Digest(Buffer.alloc(0))).toBe('sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
  });
});

describe('chunked bodies', () => {
  test('a body that is chunked is de-chunked (extensions and trailers allowed)', () => {
    expect(dechunk(Buffer.from('5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: 1\r\n\r\n'))?.toString()).toBe('hello world');
  });
  test.each(['<html>not chunked</html>', '5\r\nhello world\r\n0\r\n\r\n', 'ff\r\nshort\r\n'])('%j does not parse as chunked: null', (body) => {
    expect(dechunk(Buffer.from(body))).toBeNull();
  });
});

describe('headers', () => {
  test('an HTTP head with LF line ends, a status without text, and a folded line', () => {
    const head = parseHttpHead(Buffer.from('HTTP/1.0 302\nLocation: /x\nX-A: 1\n  2\n\nbody'))!;
    expect({ status: head.status, fields: head.fields, length: head.length, eol: head.eol }).toEqual({ status: 302, fields: [['Location', '/x'], ['X-A', '1 2']], length: 38, eol: '\n' });
  });
  test('WARC named fields keep their order and case', () => {
    expect(parseFields('WARC/1.1\r\nWARC-Type: response\r\nwarc-target-uri: http://x/\r\n')).toEqual({ protocol: 'WARC/1.1', fields: [['WARC-Type', 'response'], ['warc-target-uri', 'http://x/']] });
  });
  test('ARC header lines are split from the right: the URL may contain spaces', () => {
    expect(parseArcLine('http://example.com/a b c.html 192.0.2.1 20140216050221 text/html 1591', 1)).toEqual({ url: 'http://example.com/a b c.html', ip: '192.0.2.1', date: '20140216050221', contentType: 'text/html', length: 1591 });
    expect(parseArcLine('http://x/ 192.0.2.1 20140216050221 text/html 200 - - 0 x.arc 12', 2)).toMatchObject({ url: 'http://x/', length: 12 });
    expect(parseArcLine('http://x/ 192.0.2.1 20140216050221 text/html -1', 1)).toBeNull();
    expect(arcDateToWarc('20140216050221')).toBe('2014-02-16T05:02:21Z');
  });
});
