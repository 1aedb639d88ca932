import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chunkings } from '../../test/helpers/chunks.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import { resolveLimits } from '../limits.ts';
import { createCssRewriter, CssRewriteCore } from './stream.ts';
import type { CssStreamOptions } from './stream.ts';

const retrieval = { url: 'http://example.com/css/site.css' };

/** Output (asserted the same for every chunking) and what was reported. */
async function rewrite(input: Buffer, options: CssStreamOptions = { retrieval }): Promise<{ output: Buffer; references: ReferenceRecord[]; codes: string[] }> {
  let first: { output: Buffer; references: ReferenceRecord[]; codes: string[] } | undefined;
  for (const chunks of chunkings(input, 4)) {
    const references: ReferenceRecord[] = [];
    const codes: string[] = [];
    const stream = Readable.from(chunks, { objectMode: false }).pipe(
      createCssRewriter({ ...options, onReference: (r) => references.push(r), onWarning: (w) => codes.push(w.code) }),
    );
    const out: Buffer[] = [];
    for await (const c of stream) out.push(c as Buffer);
    const result = { output: Buffer.concat(out), references, codes };
    if (first === undefined) first = result;
    else {
      expect(result.output.toString('latin1')).toBe(first.output.toString('latin1'));
      expect(result.references).toEqual(first.references);
    }
  }
  return first!;
}

describe('CSS stream', () => {
  it('rewrites url(), @import and image-set() and keeps every other byte, however the input is chunked', async () => {
    const css = `@charset "utf-8";\n@import url("reset.css") screen;\n@import 'print.css' print;\n` +
      `/* url(comment.png) */\nbody { background: url( '../img/a b.png' ) no-repeat; content: "url(x)"; }\n` +
      `.h { background-image: image-set("h.png" 1x, url(h2.png) 2x); mask: url(#m); }\n` +
      `@font-face { src: url(f.woff2) format("woff2"); }\n@media print { a { background: url(/abs.png) } }\n`;
    const r = await rewrite(Buffer.from(css));
    expect(r.output.toString()).toBe(
      `@charset "utf-8";\n@import url("http://example.com/css/reset.css") screen;\n@import 'http://example.com/css/print.css' print;\n` +
        `/* url(comment.png) */\nbody { background: url( 'http://example.com/img/a%20b.png' ) no-repeat; content: "url(x)"; }\n` +
        `.h { background-image: image-set("http://example.com/css/h.png" 1x, url(http://example.com/css/h2.png) 2x); mask: url(#m); }\n` +
        `@font-face { src: url(http://example.com/css/f.woff2) format("woff2"); }\n@media print { a { background: url(http://example.com/abs.png) } }\n`,
    );
    expect(r.references.map((x) => x.line)).toEqual([2, 3, 5, 6, 6, 6, 7, 8]);
  });

  it('uses the fallback base only when there is no retrieval URL, and leaves everything with no base', async () => {
    expect((await rewrite(Buffer.from('a{b:url(x.png)}'), { fallback: 'http://f/d/' })).output.toString()).toBe('a{b:url(http://f/d/x.png)}');
    const none = await rewrite(Buffer.from('a{b:url(x.png)}'), {});
    expect(none.output.toString()).toBe('a{b:url(x.png)}');
    expect(none.codes).toContain('no-base');
  });

  it('decodes by @charset, encodes the query in that encoding, and keeps invalid bytes', async () => {
    const input = Buffer.concat([Buffer.from('@charset "windows-1252";\na{b:url(x.png?q='), Buffer.from([0xe9]), Buffer.from(')}/*'), Buffer.from([0x81]), Buffer.from('*/')]);
    const r = await rewrite(input);
    expect(r.output).toEqual(
      Buffer.concat([Buffer.from('@charset "windows-1252";\na{b:url(http://example.com/css/x.png?q=%E9)}/*'), Buffer.from([0x81]), Buffer.from('*/')]),
    );
  });

  it('passes a piece longer than the token limit through unchanged, with a warning', async () => {
    const long = `a{b:url(x.png)} /* ${'z'.repeat(3000)} */ c{d:url(y.png)}`;
    const r = await rewrite(Buffer.from(long), { retrieval, limits: resolveLimits({ maxTokenBytes: 1024 }) });
    expect(r.output.toString()).toContain('url(y.png)');
    expect(r.codes).toContain('token-limit');
  });

  it('rewrites every URL of a stylesheet with an undecodable byte but the one holding it; the byte stays (issue 11)', async () => {
    const css = Buffer.concat([Buffer.from('@charset "utf-8";\n/* caf'), Buffer.from([0xe9]), Buffer.from(' */\na { background: url(a.png) }\nb { background: url("caf'), Buffer.from([0xe9]), Buffer.from('.png") }\nc { background: url(c.png) }\n')]);
    const r = await rewrite(css);
    expect(r.output).toEqual(
      Buffer.concat([Buffer.from('@charset "utf-8";\n/* caf'), Buffer.from([0xe9]), Buffer.from(' */\na { background: url(http://example.com/css/a.png) }\nb { background: url("caf'), Buffer.from([0xe9]), Buffer.from('.png") }\nc { background: url(http://example.com/css/c.png) }\n')]),
    );
    expect(r.codes).toEqual(['undecodable-value']);
  });
});

describe('CSS stream: where a reference is, past the first cut', () => {
  it('line and column of each reference, with every kind of CSS newline, in a stylesheet rewritten in pieces', async () => {
    // Over 64 KiB (CUT_AFTER_BYTES), so the text before a cut is counted by `advance` and the rest goes on from there.
    const newlines = ['\n', '\r\n', '\r', '\f'];
    let css = '';
    const expected: Array<{ line: number; column: number }> = [];
    let line = 1;
    for (let n = 0; css.length < 200_000; n++) {
      const pad = ' '.repeat(n % 7);
      const column = (css.length - Math.max(css.lastIndexOf('\n'), css.lastIndexOf('\r'), css.lastIndexOf('\f'))) + pad.length + 'a { b: '.length;
      expected.push({ line, column });
      css += `${pad}a { b: url(i${n}.png) }${newlines[n % 4]}${n % 5 === 0 ? `/* x${newlines[(n + 1) % 4]} */;` : ''}`;
      line += 1 + (n % 5 === 0 ? 1 : 0);
    }
    const references: ReferenceRecord[] = [];
    const bytes = Buffer.from(css, 'latin1');
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 10_000) chunks.push(bytes.subarray(at, at + 10_000));
    const stream = Readable.from(chunks, { objectMode: false }).pipe(createCssRewriter({ retrieval, onReference: (r) => references.push(r) }));
    for await (const _ of stream) void _;
    expect(references.map((r) => ({ line: r.line, column: r.column }))).toEqual(expected);
  });
});

describe('CssRewriteCore over slices of one buffer (a held MIME part)', () => {
  // Over CUT_AFTER_BYTES (64 KiB), so that it is rewritten in pieces; UTF-8 with a few non-ASCII characters.
  const rule = (i: number): string => `.c${i} { background: url(img/${i}.png); content: "\u00e9\u20ac"; }\n`;
  const css = Buffer.from(`@charset "utf-8";\n${Array.from({ length: 3000 }, (_, i) => rule(i)).join('')}`, 'utf8');

  it('the same output as the stream, and its unchanged text handed on as slices of the input, not copies', async () => {
    const { output } = await rewrite(css);
    for (const slice of [1 << 14, 1000, css.length]) {
      const core = new CssRewriteCore({ retrieval });
      const out: Buffer[] = [];
      for (let i = 0; i < css.length; i += slice) core.write(css.subarray(i, i + slice), out);
      core.end(out);
      expect(Buffer.concat(out).equals(output)).toBe(true);
      expect(core.stats.rewritten).toBe(3000);
      // Every piece but the replacements (the rewritten URLs) lies in the input's memory.
      const copied = out.filter((b) => b.buffer !== css.buffer).map((b) => b.toString('latin1'));
      expect(copied.length).toBe(3000);
      expect(copied.every((t) => /^url\(http:\/\/example\.com\/css\/img\/\d+\.png\)$/.test(t))).toBe(true);
      // Ended, it holds no view of the input: a finished stream, and the core it holds, stays alive until V8's
      // next full collection (HtmlBytesRewriter.end in src/html/stream.ts says why).
      expect(Reflect.get(core, 'rawBytes')).toBeNull();
      expect(Reflect.get(core, 'raw')).toBe('');
    }
  });
});
