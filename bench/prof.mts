import { readFileSync } from 'node:fs';
import { createHtmlRewriter } from '../dist/html/stream.js';
const doc = readFileSync('bench/out/link-dense.html');
async function pass(doc: Buffer) {
  const s = createHtmlRewriter({ retrieval: { url: 'https://example.com/a/b/page.html' } });
  s.on('data', () => {});
  await new Promise((res, rej) => { s.on('end', res); s.on('error', rej); s.end(doc); });
}
for (let r = 0; r < 3; r++) { const t = performance.now(); await pass(doc); console.log(((performance.now() - t) / 1000).toFixed(2), 's'); }
