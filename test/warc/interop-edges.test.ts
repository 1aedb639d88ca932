/**
 * Records other archive tools read back as they were meant: edge cases found by reading our output with a strict
 * WARC 1.1 reader of its own and warcio (a revisit whose HTTP head is cut short, segmented records, header fields
 * that must be UTF-8, digests computed as crawlers compute them).
 */
import { describe, expect, test } from 'vitest';
import { readWithWarcio, record, response, runWarc, sha1 } from './helpers.ts';

const PAGE = Buffer.from('<html><body><a href="a/b.html">x</a></body></html>');
const ORIGINAL_ID = '<urn:uuid:00000003-0000-4000-8000-000000000000>';

/** The header lines of an HTTP head as a strict reader splits them: CRLF ends each, the head ends at the first empty line. */
function headLines(block: Uint8Array): string[] | null {
  const text = Buffer.from(block).toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  return end === -1 ? null : text.slice(0, end).split('\r\n');
}

describe('a revisit of a rewritten response', () => {
  test.each([
    ['its head cut after the last field, no line end', 'HTTP/1.1 200 OK\r\nContent-Type: text/html'],
    ['its head cut after the last line end, no empty line', 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n'],
    ['its head whole', 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n'],
  ])('%s: every field on a line of its own, the new Content-Length among them, the head ended', async (_name, revisitHead) => {
    const input = Buffer.concat([
      response(ORIGINAL_ID, 'http://example.com/p/', `HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: ${PAGE.length}\n`, PAGE),
      record([['WARC-Type', 'revisit'], ['WARC-Record-ID', '<urn:uuid:00000019-0000-4000-8000-000000000000>'], ['WARC-Date', '2026-01-03T00:00:00Z'], ['WARC-Target-URI', 'http://example.com/p/'], ['WARC-Profile', 'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest'], ['WARC-Refers-To', ORIGINAL_ID], ['WARC-Payload-Digest', sha1(PAGE)], ['Content-Type', 'application/http; msgtype=response']], Buffer.from(revisitHead, 'latin1')),
    ]);
    const run = await runWarc([input]);
    const records = await readWithWarcio(run.output);
    const rewritten = records.find((r) => r.type === 'response')!;
    const revisit = records.find((r) => r.type === 'revisit')!;
    expect(revisit.headers.get('warc-refers-to')).toBe(rewritten.id);
    const lines = headLines(revisit.block);
    expect(lines).not.toBeNull();
    const payload = Buffer.from(rewritten.block).subarray(Buffer.from(rewritten.block).indexOf('\r\n\r\n') + 4);
    expect(lines).toEqual(['HTTP/1.1 200 OK', 'Content-Type: text/html', `Content-Length: ${payload.length}`]);
    expect(revisit.headers.get('warc-payload-digest')).toBe(sha1(payload));
  });
});
