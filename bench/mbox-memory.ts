/**
 * Streams a generated mbox of N MiB (the corpus's real messages, over and over, each behind a From_ line)
 * through the mbox rewriter into nothing, and prints { bytes, seconds, maxRssKiB, messages }: memory must stay
 * flat whatever N is.
 *   node bench/mbox-memory.ts N
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createMboxRewriter } from '../dist/mime/stream.js';

const mib = Number(process.argv[2] ?? 2048);
const total = mib * 1024 * 1024;
const shared = fileURLToPath(new URL('../../shared/corpus/mail/', import.meta.url));
const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(dir + f).isDirectory() ? walk(`${dir}${f}/`) : [dir + f]));
const messages = walk(shared)
  .filter((f) => !/(CENSUS\.json|SHA256SUMS|SOURCES\.md)$/.test(f))
  .map((f) => readFileSync(f))
  // mboxrd escaping of body lines that would read as separators.
  .map((m) => Buffer.from(`From bench@example.org Sun Nov 22 00:00:00 2026\n${m.toString('latin1').replace(/^(>*From )/gm, '>$1')}\n`, 'latin1'));

let produced = 0;
let next = 0;
const source = new Readable({
  read() {
    if (produced >= total) {
      this.push(null);
      return;
    }
    const m = messages[next++ % messages.length]!;
    produced += m.length;
    this.push(m);
  },
});
let written = 0;
const sink = new Writable({
  write(chunk: Buffer, _e, cb) {
    written += chunk.length;
    cb();
  },
});
const rewriter = createMboxRewriter({ fallback: 'http://example.org/archive/' });
const t0 = performance.now();
await pipeline(source, rewriter, sink);
process.stdout.write(
  `${JSON.stringify({ bytes: written, seconds: (performance.now() - t0) / 1000, maxRssKiB: process.resourceUsage().maxRSS, messages: rewriter.messages, rewrittenParts: rewriter.stats.rewrittenParts })}\n`,
);
