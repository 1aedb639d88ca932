/**
 * Streams a generated HTML document of N MiB through the rewriter into nothing, and prints
 * { bytes, seconds, maxRssKiB }: memory must stay flat whatever N is.
 *   node bench/stream-memory.ts N            pages of links and text
 *   node bench/stream-memory.ts N one-run    one <pre> whose text is a single run of N MiB (no tag in it)
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHtmlRewriter } from '../dist/html/stream.js';

const mib = Number(process.argv[2] ?? 1024);
const total = mib * 1024 * 1024;
const oneRun = process.argv[3] === 'one-run';
const block = oneRun
  ? Buffer.from('words without any markup in them at all, over and over\n'.repeat(1024))
  : Buffer.from(
      Array.from({ length: 64 }, (_, i) => `<p class="x"><a href="../p/${i}.html?q=${i}&amp;r=1">t</a> <img src="i/${i}.png" srcset="a.png 1x, b.png 2x"> text text text</p>\n`).join(''),
    );
let produced = 0;
const source = new Readable({
  read() {
    if (produced === 0) {
      this.push(`<!doctype html><html><head><title>big</title></head><body>\n${oneRun ? '<pre>' : ''}`);
    }
    if (produced >= total) {
      this.push(`${oneRun ? '</pre>' : ''}</body></html>\n`);
      this.push(null);
      return;
    }
    produced += block.length;
    this.push(block);
  },
});
let written = 0;
const sink = new Writable({
  write(chunk: Buffer, _e, cb) {
    written += chunk.length;
    cb();
  },
});
const t0 = performance.now();
await pipeline(source, createHtmlRewriter({ retrieval: { url: 'https://example.com/a/b/c.html' } }), sink);
process.stdout.write(`${JSON.stringify({ bytes: written, seconds: (performance.now() - t0) / 1000, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
