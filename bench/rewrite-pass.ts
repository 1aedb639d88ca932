/** One document through the HTML stream, output collected (as lxml's serialization is): the pass the HTML benches time. */
import type { createHtmlRewriter as Create } from '../dist/html/stream.js';

export const BENCH_BASE = 'https://example.com/a/b/page.html';

/** `create` is passed in, so that a bench can time another build (bench/tokenizer-pass.ts's DIST). */
export async function rewritePass(create: typeof Create, doc: Buffer): Promise<Buffer> {
  const stream = create({ retrieval: { url: BENCH_BASE } });
  const out: Buffer[] = [];
  stream.on('data', (c: Buffer) => out.push(c));
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
    stream.end(doc);
  });
  return Buffer.concat(out);
}
