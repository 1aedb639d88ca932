/**
 * The corpus, mutated: every corpus WARC/ARC file, inflated or not, cut short, bit-flipped, with ranges cut out or
 * repeated, or gzipped whole. Whatever the damage, a run ends (vitest's timeout is the watchdog) with output or an
 * AbsError with a code, never another exception; the output, warnings and error are the same whole, in small or
 * large random chunks, and with a worker thread; a WARC run that rewrote nothing on undamaged input gave back the
 * input byte for byte, and on damaged input ("partial") gave back an output npm warcio reads to its end.
 * `CHUNK_SEED=n` reproduces another run (the seed is in the test's name).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { CHUNK_SEED, randomChunks, seededRandom } from '../helpers/chunks.ts';
import { corpusFiles, readCorpus, readWithWarcio, runWarc } from './helpers.ts';

interface Outcome {
  readonly output?: string;
  readonly rewritten?: number;
  readonly format?: string | null;
  readonly partial?: boolean;
  readonly warnings?: string[];
  readonly error?: string;
}

async function outcome(chunks: Buffer[], threads: number): Promise<Outcome> {
  try {
    const r = await runWarc(chunks, { warcinfo: false, threads });
    return { output: r.output.toString('latin1'), rewritten: r.summary.rewritten, format: r.summary.format, partial: r.summary.partial, warnings: r.warnings.map((w) => `${w.code}@${w.offset}`) };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    // Anything but an AbsError with a code is a bug: it fails the test with its stack.
    if (typeof code !== 'string' || !code.startsWith('ABS_')) throw e;
    return { error: `${code} ${(e as Error).message}` };
  }
}

describe(`mutated corpus files (seed ${CHUNK_SEED})`, () => {
  test('whole, in random chunks and with a worker thread: the same outcome; nothing rewritten, nothing changed', async () => {
    const inputs = corpusFiles().map((name) => ({ name, bytes: readCorpus(name) }));
    const random = seededRandom(CHUNK_SEED);
    const pick = (n: number): number => Math.floor(random() * n);
    const tally = { output: 0, error: 0, unchanged: 0, partial: 0 };
    for (let n = 0; n < 400; n++) {
      const { name, bytes: original } = inputs[pick(inputs.length)]!;
      let b = Buffer.from(original);
      if (name.endsWith('.gz') && random() < 0.5) {
        try {
          b = gunzipSync(original);
        } catch {
          // (a corpus file that is not whole gzip: kept as it is)
        }
      }
      const what: string[] = [];
      for (let k = 1 + pick(3); k > 0; k--) {
        const at = pick(b.length + 1);
        switch (pick(5)) {
          case 0:
            b = b.subarray(0, at);
            what.push(`cut short at ${at}`);
            break;
          case 1:
            b[at % b.length] ^= 1 << pick(8);
            what.push(`bit flipped at ${at % b.length}`);
            break;
          case 2:
            b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1 + pick(50))]);
            what.push(`bytes cut at ${at}`);
            break;
          case 3:
            b = Buffer.concat([b.subarray(0, at), b.subarray(at, at + 1 + pick(200)), b.subarray(at)]);
            what.push(`bytes repeated at ${at}`);
            break;
          default:
            what.push('untouched');
        }
      }
      if (random() < 0.15) {
        b = gzipSync(b);
        what.push('gzipped whole');
      }
      const where = `${name}: ${what.join(', ')}`;
      const whole = await outcome([b], 0);
      expect(await outcome(randomChunks(b, random, 1 + pick(8)), 0), where).toEqual(whole);
      expect(await outcome(randomChunks(b, random, 1 + pick(5000)), 0), where).toEqual(whole);
      if (n % 10 === 0) expect(await outcome([b], 1), `${where} (worker thread)`).toEqual(whole);
      if (whole.error !== undefined) tally.error++;
      else {
        tally.output++;
        // (ARC input is always written as WARC.)
        if (whole.partial === true) {
          // Damaged: the output is still a WARC a reader reads to its end.
          await readWithWarcio(Buffer.from(whole.output!, 'latin1'));
          tally.partial++;
        } else if (whole.rewritten === 0 && whole.format !== 'arc') {
          expect(whole.output === b.toString('latin1'), `${where}: nothing rewritten, yet the output differs`).toBe(true);
          tally.unchanged++;
        }
      }
    }
    // Both kinds of outcome were met, and many runs checked byte fidelity.
    expect(tally.output).toBeGreaterThan(150);
    expect(tally.partial).toBeGreaterThan(100);
    expect(tally.unchanged).toBeGreaterThan(50);
  });
});
