/**
 * `node bench/xml-tokenizers.ts [MB]`: the two streaming XML tokenizers the XML rewriter could sit on, over the
 * same generated feed and SVG (default 4 MiB each), fed in 64 KiB chunks, no-op handlers: saxes (a conforming
 * XML parser; gives the position of the event just read, not of each attribute value) and htmlparser2's
 * Tokenizer in XML mode (gives the offsets of every tag name, attribute value, text run and CDATA section,
 * which is what splicing needs). Then the whole XML rewriter (src/xml) over the same input.
 * Prints MB/s, best of 5 rounds.
 */
import { Tokenizer } from 'htmlparser2';
import { SaxesParser } from 'saxes';
import { XmlRewriteCore } from '../src/xml/rewriter.ts';
import { byteCodec } from '../src/encoding/byte-codec.ts';

const mb = Number(process.argv[2] ?? 4);

function feed(bytes: number): string {
  let s = '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://example.org/blog/">\n';
  for (let i = 0; s.length < bytes; i++) {
    s += `<entry xml:base="${i}/"><title type="text">Entry ${i} &amp; more</title><link rel="alternate" href="post-${i}.html"/><id>tag:example.org,2026:${i}</id>`;
    s += `<content type="html">&lt;p&gt;Some text with &lt;a href="rel/${i}.html"&gt;a link&lt;/a&gt; and &lt;img src="img/${i}.png" alt="x"&gt;. Lorem ipsum dolor sit amet, consectetur adipiscing elit.&lt;/p&gt;</content></entry>\n`;
  }
  return `${s}</feed>\n`;
}

function svg(bytes: number): string {
  let s = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100">\n';
  for (let i = 0; s.length < bytes; i++) {
    s += `<g id="g${i}" transform="translate(${i % 100} ${i % 37})"><path d="M0 0 L${i % 50} ${i % 20} C 10 20 30 40 50 60 Z" fill="url(#grad)" stroke="#333"/><use xlink:href="#g0"/><image href="tiles/${i}.png" width="10" height="10"/><text x="1" y="2">Label ${i}</text></g>\n`;
  }
  return `${s}</svg>\n`;
}

const CHUNK = 64 * 1024;
function chunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += CHUNK) out.push(text.slice(i, i + CHUNK));
  return out;
}

function time(run: () => void): number {
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    run();
    best = Math.min(best, performance.now() - t0);
  }
  return best / 1000;
}

const noop = (): void => {};
for (const [name, text] of [['feed', feed(mb << 20)], ['svg', svg(mb << 20)]] as const) {
  const parts = chunks(text);
  const bytes = Buffer.byteLength(text);
  const saxes = time(() => {
    const p = new SaxesParser({ xmlns: false, position: true });
    p.on('opentag', noop);
    p.on('text', noop);
    p.on('closetag', noop);
    p.on('cdata', noop);
    for (const c of parts) p.write(c);
    p.close();
  });
  const hp2 = time(() => {
    const t = new Tokenizer({ xmlMode: true, decodeEntities: false }, {
      onattribdata: noop, onattribentity: noop, onattribend: noop, onattribname: noop, oncdata: noop, onclosetag: noop, oncomment: noop,
      ondeclaration: noop, onend: noop, onopentagend: noop, onopentagname: noop, onprocessinginstruction: noop, onselfclosingtag: noop, ontext: noop, ontextentity: noop,
    });
    for (const c of parts) t.write(c);
    t.end();
  });
  let rewritten = 0;
  const rewriter = time(() => {
    const core = new XmlRewriteCore({ retrieval: { url: 'https://example.org/feeds/all.xml' } }, byteCodec('utf-8'), noop);
    for (const c of parts) core.write(c);
    core.end();
    rewritten = core.stats.rewritten;
  });
  const rate = (s: number): string => `${(bytes / s / 1e6).toFixed(1)} MB/s`;
  console.log(`${name} ${(bytes / 1e6).toFixed(1)} MB: saxes ${rate(saxes)}, htmlparser2 Tokenizer (xmlMode) ${rate(hp2)}, XML rewriter ${rate(rewriter)} (${rewritten} references rewritten)`);
}
