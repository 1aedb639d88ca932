/**
 * One file through the MIME, mbox or HTML stream into nothing, in a process of its own (bench/mime.ts):
 *   node bench/mime-run.ts mime|mbox|html FILE REPEAT [BASE]
 * Prints JSON: { bytes, seconds (best of REPEAT), maxRssKiB, messages }.
 */
import { createReadStream, statSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHtmlRewriter } from '../dist/html/stream.js';
import { createMboxRewriter, createMimeRewriter } from '../dist/mime/stream.js';

const [mode, file, repeatArg, base] = process.argv.slice(2) as [string, string, string | undefined, string | undefined];
const fallback = base ?? 'http://example.org/archive/';
let best = Infinity;
let messages = 1;
for (let r = 0; r < Number(repeatArg ?? 1); r++) {
  const stream = mode === 'mbox' ? createMboxRewriter({ fallback }) : mode === 'mime' ? createMimeRewriter({ fallback }) : createHtmlRewriter({ fallback, charset: 'utf-8' });
  const t0 = performance.now();
  await pipeline(createReadStream(file, { highWaterMark: 1 << 16 }), stream, new Writable({ write: (_c, _e, cb) => cb() }));
  best = Math.min(best, (performance.now() - t0) / 1000);
  if ('messages' in stream) messages = stream.messages;
}
process.stdout.write(`${JSON.stringify({ bytes: statSync(file).size, seconds: best, maxRssKiB: process.resourceUsage().maxRSS, messages })}\n`);
