/**
 * One engine over a set of files, in its own process (so that peak memory is its own):
 *   node bench/engines.ts sax|absolutize REPEAT FILE...
 * Prints JSON: { bytes, seconds (best of REPEAT), maxRssKiB }.
 * Or both in one process (the "run in the same process": the ratio):
 *   node bench/engines.ts both REPEAT FILE...
 * Prints JSON: { bytes, sax, absolutize } (best seconds of each). The SAX passes run first, before absolutize is
 * loaded: absolutize adapts parse5's Tokenizer per instance (src/html/tokenizer-driver.ts), and once both kinds of
 * instance have run, V8's code for the shared Tokenizer methods is slower for both (measured: the SAX floor ~10%
 * slower after absolutize has run), which would flatter the ratio.
 */
import { readFileSync } from 'node:fs';
import { SAXParser } from 'parse5-sax-parser';

const [engine, repeatArg, ...files] = process.argv.slice(2);
const repeat = Number(repeatArg);
const docs = files.map((f) => readFileSync(f));
const total = docs.reduce((n, d) => n + d.length, 0);

/** The floor of a parse5 design: its SAX parser with no listeners, on the decoded text. */
async function saxPass(doc: Buffer): Promise<void> {
  const parser = new SAXParser();
  await new Promise<void>((resolve, reject) => {
    parser.on('finish', resolve);
    parser.on('error', reject);
    parser.end(doc.toString('utf8'));
  });
}

/** The stream, output collected (as lxml's serialization is). */
async function absolutizePass(doc: Buffer): Promise<void> {
  const { createHtmlRewriter } = await import('../dist/html/stream.js');
  const stream = createHtmlRewriter({ retrieval: { url: 'https://example.com/a/b/page.html' } });
  const out: Buffer[] = [];
  stream.on('data', (c: Buffer) => out.push(c));
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
    stream.end(doc);
  });
  Buffer.concat(out);
}

async function pass(engine: string): Promise<number> {
  const t0 = performance.now();
  for (const doc of docs) {
    if (engine === 'sax') await saxPass(doc);
    else await absolutizePass(doc);
  }
  return (performance.now() - t0) / 1000;
}

if (engine === 'both') {
  const best = { sax: Infinity, absolutize: Infinity };
  for (let r = 0; r < repeat; r++) best.sax = Math.min(best.sax, await pass('sax'));
  for (let r = 0; r < repeat; r++) best.absolutize = Math.min(best.absolutize, await pass('absolutize'));
  process.stdout.write(`${JSON.stringify({ bytes: total, ...best })}\n`);
} else {
  let best = Infinity;
  for (let r = 0; r < repeat; r++) best = Math.min(best, await pass(engine!));
  process.stdout.write(`${JSON.stringify({ bytes: total, seconds: best, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
}
