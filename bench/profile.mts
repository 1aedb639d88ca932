import { readFileSync, readdirSync } from 'node:fs';
import { createHtmlRewriter } from '../dist/html/stream.js';
const dir = 'node_modules/htmlparser-benchmark/files/';
const docs = readdirSync(dir).map((f) => readFileSync(dir + f));
async function pass(doc: Buffer) {
  const s = createHtmlRewriter({ retrieval: { url: 'https://example.com/a/b/page.html' } });
  const out: Buffer[] = [];
  s.on('data', (c) => out.push(c));
  await new Promise((res, rej) => { s.on('end', res); s.on('error', rej); s.end(doc); });
}
for (let r = 0; r < 5; r++) { const t = performance.now(); for (const d of docs) await pass(d); console.log(((performance.now() - t) / 1000).toFixed(2), 's'); }
