/**
 * The MIME rewriter over every message of ../shared/corpus/mail, in its own process:
 *   node bench/mime-engine.ts REPEAT
 * Prints JSON: { bytes, seconds (best of REPEAT), maxRssKiB, messages }. bench/mime.ts runs it with REPEAT 1 and
 * measures the whole process.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createMimeRewriter } from '../dist/mime/stream.js';

const repeat = Number(process.argv[2] ?? 3);
const shared = fileURLToPath(new URL('../../shared/corpus/mail/', import.meta.url));
const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(dir + f).isDirectory() ? walk(`${dir}${f}/`) : [dir + f]));
const messages = walk(shared)
  .filter((f) => !/(CENSUS\.json|SHA256SUMS|SOURCES\.md)$/.test(f))
  .map((f) => readFileSync(f));
const total = messages.reduce((n, m) => n + m.length, 0);

let best = Infinity;
for (let r = 0; r < repeat; r++) {
  const t0 = performance.now();
  for (const m of messages) {
    await pipeline(Readable.from([m]), createMimeRewriter({ fallback: 'http://example.org/archive/' }), new Writable({ write: (_c, _e, cb) => cb() }));
  }
  best = Math.min(best, (performance.now() - t0) / 1000);
}
process.stdout.write(`${JSON.stringify({ bytes: total, seconds: best, maxRssKiB: process.resourceUsage().maxRSS, messages: messages.length })}\n`);
