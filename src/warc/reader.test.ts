import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { DEFAULT_WARC_LIMITS } from '../limits.ts';
import { readWarc } from './reader.ts';
import type { WarcUnit } from './reader.ts';

function record(i: number, body: Buffer): Buffer {
  const head = `WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:${i}>\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body, Buffer.from('\r\n\r\n')]);
}

async function units(chunks: readonly Buffer[]): Promise<WarcUnit[]> {
  const out: WarcUnit[] = [];
  for await (const unit of readWarc((async function* () { yield* chunks; })(), DEFAULT_WARC_LIMITS)) out.push(unit);
  return out;
}

function split(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    if (c > from) chunks.push(Buffer.from(bytes.subarray(from, c)));
    from = c;
  }
  return chunks;
}

/**
 * The reader's window (reader.ts) takes each input chunk as it is and copies only a member that runs into the
 * next chunk, with as much of it as inflating that member needs (a bridge).
 */
describe('the reader window', () => {
  // Members of random bytes (stored, as large as they are) and of text (small): sizes around the chunk sizes below.
  const members = fc.array(fc.oneof(fc.uint8Array({ minLength: 0, maxLength: 70_000 }), fc.string({ maxLength: 3000 }).map((s) => Buffer.from(s.repeat(5)))), { minLength: 1, maxLength: 12 })
    .map((bodies) => bodies.map((b, i) => gzipSync(record(i, Buffer.from(b)))));

  test('units are the same members, however the input is cut', async () => {
    await fc.assert(fc.asyncProperty(members, fc.array(fc.nat(), { maxLength: 20 }), async (gz, cuts) => {
      const input = Buffer.concat(gz);
      const got = await units(split(input, cuts));
      expect(got.map((u) => Buffer.from(u.raw).toString('hex'))).toEqual(gz.map((m) => m.toString('hex')));
      expect(got.map((u) => u.offset)).toEqual(gz.map((_, i) => gz.slice(0, i).reduce((n, m) => n + m.length, 0)));
      const whole = await units([input]);
      expect(got.map((u) => u.items.map((it) => Buffer.from(it.bytes).toString('hex')))).toEqual(whole.map((u) => u.items.map((it) => Buffer.from(it.bytes).toString('hex'))));
    }), { numRuns: 60 });
  });

  test('a member inside one chunk is a view of that chunk, not a copy; one across two is copied with only what it needs of the next', async () => {
    // Random bytes: members as large as their records (30 KB), in two chunks of their own buffers.
    const gz = [0, 1, 2, 3, 4, 5].map((i) => gzipSync(record(i, randomBytes(30_000))));
    const input = Buffer.concat(gz);
    // Two chunks, cut inside the fourth member.
    const cut = gz[0]!.length + gz[1]!.length + gz[2]!.length + 10;
    const chunks = [Buffer.from(input.subarray(0, cut)), Buffer.from(input.subarray(cut))];
    const got = await units(chunks);
    expect(got.length).toBe(6);
    const of = (u: WarcUnit): number => chunks.findIndex((c) => c.buffer === u.raw.buffer);
    expect(got.map(of)).toEqual([0, 0, 0, -1, 1, 1]);
    // The bridge: the member's 10 bytes in the first chunk and 64 KiB of the second.
    expect(got[3]!.raw.buffer.byteLength).toBe(10 + 64 * 1024);
    expect(Buffer.from(got[3]!.raw).equals(gz[3]!)).toBe(true);
  });
});
