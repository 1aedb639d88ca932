/**
 * Records other archive tools read back as they were meant: edge cases found by reading our output with a strict
 * WARC 1.1 reader of its own and warcio (a revisit whose HTTP head is cut short, segmented records, header fields
 * that must be UTF-8, digests computed as crawlers compute them).
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { inflateAll, readCorpus, readWithWarcio, record, response, runWarc, sha1 } from './helpers.ts';

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

describe('a record in segments (WARC 1.1 §5.13, §6.9)', () => {
  test('the first segment is copied, so that its continuation still names it and the payload joins up as it was', async () => {
    const html = Buffer.concat([Buffer.from('<html><body><a href="a/b.html">first</a>'), Buffer.alloc(200, 0x20), Buffer.from('<a href="c/d.html">second</a></body></html>')]);
    const http = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${html.length}\r\n\r\n`), html]);
    const [first, rest] = [http.subarray(0, http.length - 60), http.subarray(http.length - 60)];
    const origin = '<urn:uuid:00000001-0000-4000-8000-00000000000a>';
    const input = Buffer.concat([
      record([['WARC-Type', 'response'], ['WARC-Record-ID', origin], ['WARC-Date', '2026-01-01T00:00:01Z'], ['WARC-Target-URI', 'http://example.com/p/'], ['Content-Type', 'application/http; msgtype=response'], ['WARC-Segment-Number', '1'], ['WARC-Block-Digest', sha1(first)]], first),
      record([['WARC-Type', 'continuation'], ['WARC-Record-ID', '<urn:uuid:00000002-0000-4000-8000-00000000000a>'], ['WARC-Date', '2026-01-01T00:00:01Z'], ['WARC-Target-URI', 'http://example.com/p/'], ['WARC-Segment-Origin-ID', origin], ['WARC-Segment-Number', '2'], ['WARC-Segment-Total-Length', String(http.length)], ['WARC-Block-Digest', sha1(rest)]], rest),
    ]);
    const run = await runWarc([input]);
    // Both records as they were, one after the other (after the warcinfo record of the run).
    expect(run.output.includes(input)).toBe(true);
    expect(run.summary.rewritten).toBe(0);
  });
});

/** Each WARC header of an uncompressed WARC (or of a .warc.gz inflated whole), as bytes. */
function warcHeaders(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = bytes.indexOf('WARC/1.'); at !== -1; ) {
    const end = bytes.indexOf('\r\n\r\n', at);
    const head = bytes.subarray(at, end);
    out.push(head);
    const length = Number(/\r\nContent-Length: *(\d+)/i.exec(head.toString('latin1'))![1]);
    at = bytes.indexOf('WARC/1.', end + 4 + length);
  }
  return out;
}

describe('the header fields we write are UTF-8 (WARC 1.1 §4)', () => {
  const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

  test.each(['café.warc.gz', 'naïve-日本.warc'])('the new warcinfo names the output %j in UTF-8, as its block does', async (filename) => {
    const run = await runWarc([readCorpus('pywb/example.warc')], { filename });
    const [warcinfo] = warcHeaders(run.output);
    const text = strictUtf8.decode(warcinfo);
    expect(text).toContain(`\r\nWARC-Type: warcinfo\r\n`);
    expect(text).toContain(`\r\nWARC-Filename: ${filename}\r\n`);
  });

  /** pywb's example.arc with `line` (latin1) before its first record's header line, rewritten: one gap. */
  async function withGarbageLine(line: string): Promise<Awaited<ReturnType<typeof runWarc>>> {
    const arc = readCorpus('pywb/example.arc');
    const at = arc.indexOf('\nhttp://') + 1;
    const run = await runWarc([Buffer.concat([arc.subarray(0, at), Buffer.from(line, 'latin1'), arc.subarray(at)])]);
    expect(run.summary.gaps).toBe(1);
    return run;
  }

  test('a gap record quoting an ARC line with a byte that is not UTF-8 (0xE9)', async () => {
    const run = await withGarbageLine('caf\xe9 garbage line\n');
    const headers = warcHeaders(inflateAll(run.output));
    for (const header of headers) expect(() => strictUtf8.decode(header)).not.toThrow();
    const gap = headers.map((h) => h.toString('latin1')).find((h) => h.includes('X-Absolutize-Unparsed'))!;
    expect(gap).toContain('caf\\xe9 garbage line');
  });

  test('a backslash in the quoted line reads back apart from an escaped byte (the line is quoted as JSON first)', async () => {
    // The input line holds the four characters \xe9 and a real 0xE9: read back, they must differ.
    const run = await withGarbageLine('a\\xe9 b\xe9 garbage line\n');
    const gap = warcHeaders(inflateAll(run.output)).map((h) => h.toString('latin1')).find((h) => h.includes('X-Absolutize-Unparsed'))!;
    const field = /X-Absolutize-Unparsed: not an ARC header line: ([^\r]*)/.exec(gap)![1]!;
    // Escapes read left to right: "\\" a backslash (JSON's), "\xNN" a byte outside printable ASCII (ours).
    const unquoted = field.replace(/\\(?:x([0-9a-f]{2})|(["\\]))/g, (_, hex: string | undefined, char: string | undefined) => (hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : char!));
    expect(unquoted).toBe('"a\\xe9 b\xe9 garbage line"');
  });
});

describe('a chunked response stored without WARC-Payload-Digest', () => {
  const chunked = Buffer.concat([Buffer.from(`${PAGE.length.toString(16)}\r\n`), PAGE, Buffer.from('\r\n0\r\n\r\n')]);
  const head = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n';
  const original = record([['WARC-Type', 'response'], ['WARC-Record-ID', ORIGINAL_ID], ['WARC-Date', '2026-01-01T00:00:01Z'], ['WARC-Target-URI', 'http://example.com/p/'], ['Content-Type', 'application/http; msgtype=response']], Buffer.concat([Buffer.from(head), chunked]));
  const revisit = (digest: string): Buffer => record([['WARC-Type', 'revisit'], ['WARC-Record-ID', '<urn:uuid:00000002-0000-4000-8000-0000000000c1>'], ['WARC-Date', '2026-02-01T00:00:00Z'], ['WARC-Target-URI', 'http://example.com/p/'], ['WARC-Profile', 'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest'], ['WARC-Payload-Digest', digest], ['Content-Type', 'application/http; msgtype=response']], Buffer.from(head));

  // warcio computes a payload digest over the bytes after the HTTP head as stored (DigestVerifyingReader over
  // the raw stream); some crawlers hash the body de-chunked.
  test.each([
    ['as warcio computes it (the stored bytes, chunk framing and all)', sha1(chunked)],
    ['of the body de-chunked', sha1(PAGE)],
  ])('a revisit naming its payload by digest %s reads as a revisit of the replacement', async (_name, digest) => {
    const run = await runWarc([Buffer.concat([original, revisit(digest)])]);
    const records = await readWithWarcio(run.output);
    const replacement = records.find((r) => r.type === 'response')!;
    const relinked = records.find((r) => r.type === 'revisit')!;
    expect(relinked.headers.get('warc-payload-digest')).toBe(replacement.headers.get('warc-payload-digest'));
    const metadata = records.find((r) => r.type === 'metadata')!;
    expect(Buffer.from(metadata.block).toString()).toContain(`absolutize-original-payload-digest: ${sha1(chunked)}\r\n`);
  });
});

describe('a WARC header longer than maxWarcHeaderBytes (64 KiB) in a gzip member', () => {
  test('a 70 KB Target-URI: the record is read and rewritten, as warcio reads it, not made a gap', async () => {
    const uri = `http://example.com/p/?q=${'x'.repeat(70_000)}`;
    const input = gzipSync(response(ORIGINAL_ID, uri, `HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: ${PAGE.length}\n`, PAGE));
    const run = await runWarc([input]);
    expect(run.summary.gaps).toBe(0);
    expect(run.summary.partial).toBe(false);
    expect(run.summary.rewritten).toBe(1);
    const records = await readWithWarcio(run.output);
    const replacement = records.find((r) => r.type === 'response')!;
    expect(replacement.targetUri).toBe(uri);
    expect(Buffer.from(replacement.block).toString()).toContain('href="http://example.com/p/a/b.html"');
  });

  test('a member over 64 KiB that ends inside its header: a gap that says so, not one blaming a limit that no longer applies there', async () => {
    const cut = gzipSync(Buffer.from(`WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/${'x'.repeat(70_000)}\r\n`));
    const whole = gzipSync(response(ORIGINAL_ID, 'http://example.com/p/', `HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\n`, Buffer.from('hi')));
    const run = await runWarc([Buffer.concat([whole, cut, whole])]);
    expect(run.summary.gaps).toBe(1);
    expect(run.summary.records).toBe(2);
    expect(run.warnings.map((w) => w.message)).toEqual([expect.stringContaining('the input ends inside a WARC header (70')]);
  });
});

describe('a response with more than one Content-Type, as a browser replaying it reads it (Fetch: extract a MIME type)', () => {
  /** Rendered as HTML when served as text/html; no tag at its start, so it does not sniff as HTML. */
  const TEXT = Buffer.from('Hello <a href="a/b.html">x</a>');
  test.each([
    ['two field lines, the last HTML', 'Content-Type: text/plain\nContent-Type: text/html\n'],
    ['one line, a comma-separated list ending in HTML', 'Content-Type: text/plain, text/html\n'],
    ['HTML first, then */* (ignored)', 'Content-Type: text/html\nContent-Type: */*\n'],
  ])('%s: rewritten as HTML, though the body would not sniff as HTML', async (_name, fields) => {
    const input = response(ORIGINAL_ID, 'http://example.com/p/', `HTTP/1.1 200 OK\n${fields}Content-Length: ${TEXT.length}\n`, TEXT);
    const run = await runWarc([input]);
    expect(run.summary.rewritten).toBe(1);
    expect(inflateAll(run.output).includes('href="http://example.com/p/a/b.html"')).toBe(true);
  });

  test('the last valid type is text/plain: copied, not rewritten', async () => {
    const input = response(ORIGINAL_ID, 'http://example.com/p/', `HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Type: text/plain\nContent-Length: ${TEXT.length}\n`, TEXT);
    const run = await runWarc([input]);
    expect(run.summary.rewritten).toBe(0);
  });
});
