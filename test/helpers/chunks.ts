/**
 * Chunk invariance (STYLE.md §7): the same input whole, one byte at a time, and in random splits.
 * Random splits come from a seeded generator; `CHUNK_SEED=n` reproduces a run (the seed is in the test name).
 */
import { Readable } from 'node:stream';
import { createHtmlRewriter } from '../../src/html/stream.ts';
import type { HtmlStreamOptions } from '../../src/html/stream.ts';
import { seededRandom } from './random.ts';

export { seededRandom };

export const CHUNK_SEED: number = Number(process.env['CHUNK_SEED'] ?? 20261122);

/** Splits `input` at random points (splits fall inside multi-byte characters and surrogate pairs too). */
export function randomChunks<T extends Buffer | string>(input: T, random: () => number, maxChunk = 64): T[] {
  const chunks: T[] = [];
  let i = 0;
  while (i < input.length) {
    const n = 1 + Math.floor(random() * maxChunk);
    chunks.push((typeof input === 'string' ? input.slice(i, i + n) : input.subarray(i, i + n)) as T);
    i += n;
  }
  return chunks;
}

/** `input` in pieces of `size` bytes (the last one shorter). */
export function fixedChunks(input: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < input.length; i += size) chunks.push(input.subarray(i, i + size));
  return chunks;
}

/** Whole, byte by byte, then `randomRuns` random splits. */
export function chunkings(input: Buffer, randomRuns: number, seed = CHUNK_SEED): Buffer[][] {
  const random = seededRandom(seed);
  const out: Buffer[][] = [[input], Array.from(input, (_b, i) => input.subarray(i, i + 1))];
  for (let r = 0; r < randomRuns; r++) out.push(randomChunks(input, random, 1 + Math.floor(random() * 200)));
  return out;
}

/** Pipes the chunks through the HTML rewriter stream and collects the output. */
export async function feedChunks(chunks: readonly Buffer[], options: HtmlStreamOptions): Promise<Buffer> {
  const out: Buffer[] = [];
  const stream = Readable.from(chunks, { objectMode: false }).pipe(createHtmlRewriter(options));
  for await (const c of stream) out.push(c as Buffer);
  return Buffer.concat(out);
}
