/**
 * Content decoding: zlib-wrapped and raw "deflate" both (as browsers accept), empty bodies empty whatever the
 * label, any chunking, and backpressure: a reader that stops stops the decoding.
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CHUNK_SEED, randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { createDecoders, isZlibHeader } from './content-decoding.ts';

const TEXT = Buffer.from(`<a href="x">é</a>${'<p>filler text</p>'.repeat(300)}`);

async function decode(coding: string, chunks: readonly Buffer[]): Promise<Buffer> {
  const [decoder] = createDecoders([coding]);
  const out: Buffer[] = [];
  const done = pipeline(decoder!, new Writable({ write: (c: Buffer, _e, cb) => (out.push(c), cb()) }));
  for (const c of chunks) decoder!.write(c);
  decoder!.end();
  await done;
  return Buffer.concat(out);
}

const ENCODED: ReadonlyArray<[string, string, Buffer]> = [
  ['gzip', 'gzip', gzipSync(TEXT)],
  ['deflate', 'zlib-wrapped deflate', deflateSync(TEXT)],
  ['deflate', 'zlib-wrapped deflate, 256-byte window', deflateSync(TEXT, { windowBits: 9 })],
  ['deflate', 'raw deflate', deflateRawSync(TEXT)],
  ['deflate', 'raw deflate, stored', deflateRawSync(TEXT, { level: 0 })],
  ['br', 'br', brotliCompressSync(TEXT)],
];

describe('isZlibHeader (RFC 1950 §2.2)', () => {
  it('tells a zlib header from the first bytes of raw DEFLATE', () => {
    for (const level of [0, 1, 6, 9]) {
      const z = deflateSync(TEXT, { level });
      expect(isZlibHeader(z[0]!, z[1]!)).toBe(true);
      const raw = deflateRawSync(TEXT, { level });
      expect(isZlibHeader(raw[0]!, raw[1]!)).toBe(false);
    }
    expect(isZlibHeader(0x78, 0x9c)).toBe(true);
    expect(isZlibHeader(0x78, 0x9d)).toBe(false); // check bits wrong
    expect(isZlibHeader(0x88, 0x98)).toBe(false); // window over 32 KiB
  });
});

describe('decoding, whole, byte by byte and in random chunks', () => {
  it.each(ENCODED)('%s (%s)', async (coding, _label, encoded) => {
    expect(await decode(coding, [encoded])).toEqual(TEXT);
    expect(await decode(coding, [...encoded].map((b) => Buffer.from([b])))).toEqual(TEXT);
    const random = seededRandom(CHUNK_SEED);
    for (let run = 0; run < 5; run++) expect(await decode(coding, randomChunks(encoded, random, 50))).toEqual(TEXT);
  });
});

describe('an empty body is an empty document, whatever its Content-Encoding says', () => {
  it.each(['gzip', 'x-gzip', 'deflate', 'br'])('%s', async (coding) => {
    expect((await decode(coding, [])).length).toBe(0);
  });

  it('a body cut after one byte is still corrupt', async () => {
    await expect(decode('deflate', [deflateSync(TEXT).subarray(0, 1)])).rejects.toThrow();
    await expect(decode('gzip', [gzipSync(TEXT).subarray(0, 1)])).rejects.toThrow();
  });
});

/** Waits until the stream's buffered output stops growing (the decoder has paused or finished). */
async function settled(read: () => number): Promise<void> {
  let same = 0;
  let last = -1;
  while (same < 5) {
    await new Promise((r) => setTimeout(r, 20));
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

describe('backpressure', () => {
  const DECODED = 32 << 20;
  const zeros = Buffer.alloc(DECODED);
  it.each([
    ['gzip', gzipSync(zeros)],
    ['deflate', deflateSync(zeros)],
    ['deflate', deflateRawSync(zeros)],
    ['br', brotliCompressSync(zeros)],
  ] as const)('%s: a reader that does not read holds the decoded output to a few buffers', async (coding, encoded) => {
    const [decoder] = createDecoders([coding]);
    for (let i = 0; i < encoded.length; i += 4096) decoder!.write(encoded.subarray(i, i + 4096));
    decoder!.end();
    await settled(() => decoder!.readableLength);
    // Without backpressure all 32 MiB would be decoded into the buffer.
    expect(decoder!.readableLength).toBeLessThan(1 << 20);
    let total = 0;
    for await (const c of decoder!) total += (c as Buffer).length;
    expect(total).toBe(DECODED);
  });
});

/** Decodes as `decode` does, and returns what `onTrailingBytes` said. */
async function decodeWithTrailing(coding: string, chunks: readonly Buffer[]): Promise<{ text: Buffer; trailing: number[] }> {
  const trailing: number[] = [];
  const [decoder] = createDecoders([coding], { onTrailingBytes: (c, n) => (expect(c).toBe(coding), trailing.push(n)) });
  const out: Buffer[] = [];
  const done = pipeline(decoder!, new Writable({ write: (c: Buffer, _e, cb) => (out.push(c), cb()) }));
  for (const c of chunks) decoder!.write(c);
  decoder!.end();
  await done;
  return { text: Buffer.concat(out), trailing };
}

describe('bytes after the end of the compressed stream are ignored, as Chromium ignores them (issue 20)', () => {
  const GARBAGE = Buffer.from('\r\n<!-- 0 -->\r\nGARBAGE');
  const cases: ReadonlyArray<[string, string, Buffer, number]> = [
    ['gzip', 'text after the trailer', Buffer.concat([gzipSync(TEXT), GARBAGE]), GARBAGE.length],
    ['gzip', 'a second member (Chromium decodes only the first)', Buffer.concat([gzipSync(TEXT), gzipSync('second')]), gzipSync('second').length],
    ['gzip', 'gzip magic then junk', Buffer.concat([gzipSync(TEXT), Buffer.from([0x1f, 0x8b, 1, 2, 3])]), 5],
    ['x-gzip', 'text after the trailer', Buffer.concat([gzipSync(TEXT), GARBAGE]), GARBAGE.length],
    ['deflate', 'zlib stream then text', Buffer.concat([deflateSync(TEXT), GARBAGE]), GARBAGE.length],
    ['deflate', 'raw DEFLATE then text', Buffer.concat([deflateRawSync(TEXT), GARBAGE]), GARBAGE.length],
    ['br', 'brotli then text', Buffer.concat([brotliCompressSync(TEXT), GARBAGE]), GARBAGE.length],
  ];
  it.each(cases)('%s: %s — whole, byte by byte, random chunks', async (coding, _label, encoded, extra) => {
    const whole = await decodeWithTrailing(coding, [encoded]);
    expect(whole.text).toEqual(TEXT);
    expect(whole.trailing).toEqual([extra]);
    const bytes = await decodeWithTrailing(coding, [...encoded].map((b) => Buffer.from([b])));
    expect(bytes.text).toEqual(TEXT);
    expect(bytes.trailing).toEqual([extra]);
    const random = seededRandom(CHUNK_SEED);
    for (let run = 0; run < 5; run++) {
      const r = await decodeWithTrailing(coding, randomChunks(encoded, random, 50));
      expect(r.text).toEqual(TEXT);
      expect(r.trailing).toEqual([extra]);
    }
  });

  it('a gzip header with FEXTRA, FNAME, FCOMMENT and FHCRC is read', async () => {
    const g = gzipSync(TEXT);
    const extra = Buffer.from([4, 0, 0x41, 0x42, 0x43, 0x44]);
    const header = Buffer.concat([g.subarray(0, 3), Buffer.from([FLAGS]), g.subarray(4, 10), extra, Buffer.from('name.html\0comment\0'), Buffer.from([0x12, 0x34])]);
    const encoded = Buffer.concat([header, g.subarray(10)]);
    for (const chunks of [[encoded], [...encoded].map((b) => Buffer.from([b]))]) {
      const r = await decodeWithTrailing('gzip', chunks);
      expect(r.text).toEqual(TEXT);
      expect(r.trailing).toEqual([]);
    }
  });

  it('no warning for a stream that ends where the body ends; corrupt data is still an error', async () => {
    for (const [coding, encoded] of [['gzip', gzipSync(TEXT)], ['deflate', deflateSync(TEXT)], ['br', brotliCompressSync(TEXT)]] as const) {
      expect((await decodeWithTrailing(coding, [encoded])).trailing).toEqual([]);
    }
    await expect(decodeWithTrailing('gzip', [Buffer.from('not gzip at all')])).rejects.toThrow(/incorrect header check/);
    await expect(decodeWithTrailing('gzip', [gzipSync(TEXT).subarray(0, 6)])).rejects.toThrow(/unexpected end of file/);
  });
});

/** FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT */
const FLAGS = 0x01 | 0x02 | 0x04 | 0x08 | 0x10;
