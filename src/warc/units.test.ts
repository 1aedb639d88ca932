import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { constants, crc32, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { MAX_SIZED_CHUNK, gzipChunkSize, gzipHeaderLength, inflateMember, nextGzipMagic, outputChunkSize } from './gzip-member.ts';
import { dechunk, parseHttpHead } from './http-message.ts';
import { arcDateToWarc, parseArcLine, parseFields } from './record.ts';
import { PassThrough } from 'node:stream';
import { transformWhole } from '../html/stream.ts';
import { base32, encodeUnit, serializeRecord, sha1Digest } from './writer.ts';
import { inflateRawFrom, zlibStreamsSupported } from './zlib-stream.ts';

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

/**
 * Output chunks sized from a gzip trailer's ISIZE (gzip-member.ts) change what zlib allocates, never what it
 * returns: each result is compared with zlib's at its default chunk, on members that are whole, followed by
 * others or by bytes that look like a member, cut short, or corrupt, and with magics inside their data.
 */
describe('zlib output chunks sized from the trailer', () => {
  const MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);
  /** Compressible text, random bytes and gzip magics, in runs. */
  const payload = fc.array(fc.oneof(fc.constantFrom('<a href="x">', 'text ', '\r\n', 'é'.repeat(3)).map((t) => Buffer.from(t.repeat(40))), fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b)), fc.constant(MAGIC)), { maxLength: 30 }).map((parts) => Buffer.concat(parts));
  /** What inflateMember answered before chunks were sized: the same calls at zlib's default chunk. */
  function reference(bytes: Buffer, max: number): unknown {
    const header = gzipHeaderLength(bytes);
    if (header === null) return { state: 'partial' };
    let r: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      r = inflateRawSync(bytes.subarray(header), { info: true, finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: max }) as unknown as typeof r;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? { state: 'too-large' } : { state: 'corrupt', reason: (err as Error).message };
    }
    const trailer = header + r.engine.bytesWritten;
    if (trailer + 8 > bytes.length) return { state: 'partial' };
    if (bytes.readUInt32LE(trailer) !== crc32(r.buffer) || bytes.readUInt32LE(trailer + 4) !== r.buffer.length % 0x100000000) return { state: 'corrupt', reason: 'the gzip trailer (CRC-32 and length) does not match the data' };
    return { state: 'complete', length: trailer + 8, data: r.buffer };
  }

  test('inflateMember: the same result as at the default chunk, whatever follows the member', () => {
    fc.assert(
      fc.property(payload, fc.integer({ min: 0, max: 9 }), fc.oneof(payload.map((p) => gzipSync(p)), payload, fc.constant(Buffer.alloc(0))), fc.option(fc.integer({ min: 0, max: 1 << 20 })), fc.option(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 }))), fc.integer({ min: 64, max: 1 << 16 }), (data, level, after, cut, flip, max) => {
        let bytes = Buffer.concat([gzipSync(data, { level }), after]);
        if (flip !== null) {
          bytes = Buffer.from(bytes);
          bytes[flip[0] % bytes.length]! ^= flip[1];
        }
        if (cut !== null) bytes = bytes.subarray(0, cut % (bytes.length + 1));
        if (bytes.length < 3 || !bytes.subarray(0, 3).equals(MAGIC)) return;
        expect(inflateMember(bytes, max)).toEqual(reference(bytes, max));
      }),
      { numRuns: 400 },
    );
  });

  test('the kept inflate stream (zlib-stream.ts): on this Node it is driven, and gives inflateRawSync\'s results member after member, after corrupt ones too', () => {
    expect(zlibStreamsSupported()).toBe(true);
    fc.assert(
      fc.property(fc.array(fc.tuple(payload, fc.integer({ min: 0, max: 9 }), fc.integer({ min: 64, max: 1 << 17 }), fc.option(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 }))), fc.integer({ min: 64, max: 1 << 17 })), { maxLength: 6 }), (members) => {
        for (const [data, level, chunk, flip, max] of members) {
          const raw = Buffer.from(gzipSync(data, { level }));
          if (flip !== null) raw[10 + (flip[0] % (raw.length - 10))]! ^= flip[1];
          let expected: unknown;
          try {
            const r = inflateRawSync(raw.subarray(10), { info: true, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: chunk, maxOutputLength: max }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
            expected = { data: r.buffer, used: r.engine.bytesWritten };
          } catch (err) {
            expected = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? { tooLarge: true } : { error: (err as Error).message };
          }
          const actual = inflateRawFrom(raw, 10, max, chunk);
          expect('error' in actual ? { error: actual.error.message } : actual).toEqual(expected);
        }
      }),
      { numRuns: 200 },
    );
  });

  test('outputChunkSize is a plausible size or the default, never below zlib\'s minimum', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4000 }), fc.nat(30), fc.integer({ min: 0, max: 1 << 27 }), (bytes, header, max) => {
        const chunk = outputChunkSize(Buffer.from(bytes), header, max);
        expect(chunk).toBeGreaterThanOrEqual(64);
        expect(chunk === 16 * 1024 || (chunk <= max + 1 && chunk <= MAX_SIZED_CHUNK)).toBe(true);
      }),
    );
  });

  test('nextGzipMagic finds what a search for the whole magic (1f 8b 08) finds', () => {
    // Its bytes and their neighbours are most of the input, so partial magics and magics cut by the end abound.
    const byte = fc.constantFrom(0x1f, 0x8b, 0x08, 0x00, 0xff);
    const magic = Buffer.from([0x1f, 0x8b, 0x08]);
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 200 }), fc.nat(30), (bytes, from) => {
        const b = Buffer.from(bytes);
        expect(nextGzipMagic(b, from)).toBe(b.indexOf(magic, from));
      }),
      { numRuns: 3000 },
    );
  });

  test('a forged trailer does not size the chunk: 130 KiB of stored data claiming 128 MiB, then another member', () => {
    const stored = gzipSync(Buffer.alloc(130 * 1024, 7), { level: 0 });
    stored.writeUInt32LE((1 << 27) - 1, stored.length - 4);
    const next = gzipSync(Buffer.from('x'));
    expect(outputChunkSize(Buffer.concat([stored, next]), gzipHeaderLength(stored)!, 1 << 27)).toBe(16 * 1024);
    // A true size below the cap still sizes it.
    const honest = gzipSync(Buffer.alloc(130 * 1024, 7), { level: 0 });
    expect(outputChunkSize(Buffer.concat([honest, next]), gzipHeaderLength(honest)!, 1 << 27)).toBe(130 * 1024 + 1);
  });

  test('a gzip magic inside the data sizes the chunk wrongly: the data is let go of it, not held in 4 MiB', () => {
    // A stored block holds a made-up "ISIZE" of 4,000,000 and a gzip magic at 8,000 bytes of an 8,200-byte record.
    const record = Buffer.alloc(8200, 0x61);
    record.writeUInt32LE(4_000_000, 7996);
    record.set([0x1f, 0x8b, 0x08], 8000);
    const member = gzipSync(record, { level: 0 });
    expect(outputChunkSize(member, gzipHeaderLength(member)!, 1 << 27)).toBe(4_000_001);
    const r = inflateMember(member, 1 << 27);
    expect(r.state).toBe('complete');
    if (r.state !== 'complete') return;
    expect(r.data.equals(record)).toBe(true);
    expect(r.data.buffer.byteLength).toBeLessThan(record.length + 64 * 1024);
  });

  test('gunzip of a gzip-coded body: the same bytes as at the default chunk (one member, several, trailing bytes)', () => {
    fc.assert(
      fc.property(fc.array(payload, { minLength: 1, maxLength: 3 }), fc.uint8Array({ maxLength: 20 }), (parts, tail) => {
        const body = Buffer.concat([...parts.map((p) => gzipSync(p)), tail]);
        let expected: Buffer | string;
        try {
          expected = gunzipSync(body);
        } catch (err) {
          expected = (err as Error).message;
        }
        let actual: Buffer | string;
        try {
          actual = gunzipSync(body, { chunkSize: gzipChunkSize(body, 1 << 27) });
        } catch (err) {
          actual = (err as Error).message;
        }
        expect(actual).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  test('encodeUnit and a record given in pieces: the bytes of a level-1, memLevel-9 gzip of the record joined', () => {
    fc.assert(
      fc.property(fc.array(payload, { maxLength: 3 }), (pieces) => {
        const record = serializeRecord('WARC/1.0', [['WARC-Type', 'response']], pieces);
        expect(record).toEqual(serializeRecord('WARC/1.0', [['WARC-Type', 'response']], Buffer.concat(pieces)));
        expect(encodeUnit(record, true)).toEqual(gzipSync(record, { level: 1, memLevel: 9 }));
      }),
      { numRuns: 100 },
    );
  });

  test('a record written in the room around its payload (transformWhole room): the same bytes, the payload not copied when the room is enough', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(payload, { maxLength: 3 }), fc.nat({ max: 600 }), fc.nat({ max: 6 }), async (parts, before, after) => {
        const output = await transformWhole(new PassThrough(), Buffer.concat(parts), { before, after });
        expect(output).toEqual(Buffer.concat(parts));
        expect(output.byteOffset).toBe(before);
        expect(output.buffer.byteLength).toBe(before + output.length + after);
        const head = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n');
        const fields: Array<[string, string]> = [['WARC-Type', 'response'], ['WARC-Target-URI', 'http://example.com/']];
        const expected = serializeRecord('WARC/1.0', fields, [head, output]);
        const record = serializeRecord('WARC/1.0', fields, [head, output], true);
        expect(record).toEqual(expected);
        const fits = before >= expected.length - output.length - 4 && after >= 4;
        expect(record.buffer === output.buffer).toBe(fits);
        // The payload's own bytes are as they were.
        expect(output).toEqual(Buffer.concat(parts));
      }),
      { numRuns: 100 },
    );
  });
});
