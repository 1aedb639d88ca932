/**
 * Audit (legacy encodings): ISO-2022-JP references next to the JIS-Roman state (ESC ( J), whole and in every
 * chunking. Chromium's readings are recorded below (bundled Chromium; test/browser/audit-encoding-agreement.test.ts
 * measures them again):
 *   - a reference with ¥ or ‾ (which the ISO-2022-JP encoder writes in JIS-Roman) is rewritten as Chromium
 *     resolves it (it was left relative, with undecodable-value);
 *   - a reference in a tag written in JIS-Roman, whose value switches to JIS X 0208 and back to ASCII, is left as
 *     it is: rewritten, it was written back in JIS-Roman, so that the "~\" after it read as "‾¥" (text outside the
 *     reference changed).
 */
import { TextDecoder } from '@exodus/bytes/encoding.js';
import { describe, expect, it } from 'vitest';
import { absolutizeHtml, createHtmlRewriter } from '../html/stream.ts';
import { chunkings } from '../../test/helpers/chunks.ts';

const bytes = (s: string): Buffer => Buffer.from(s.replaceAll('<ESC>', '\x1b'), 'latin1');
const decode = (b: Buffer): string => new TextDecoder('iso-2022-jp').decode(b);
const URL_ = 'http://example.jp/d/p.html';

async function rewriteChunks(chunks: readonly Buffer[]): Promise<Buffer> {
  const rewriter = createHtmlRewriter({ retrieval: { url: URL_ } });
  const out: Buffer[] = [];
  rewriter.on('data', (d: Buffer) => out.push(d));
  const ended = new Promise((resolve) => rewriter.on('end', resolve));
  for (const c of chunks) rewriter.write(c);
  rewriter.end();
  await ended;
  return Buffer.concat(out);
}

describe('ISO-2022-JP references and the JIS-Roman state', () => {
  it('¥ and ‾ in a reference (JIS-Roman inside the value): rewritten as Chromium resolves it', async () => {
    const input = bytes('<meta charset="iso-2022-jp"><a href="a<ESC>(J\\<ESC>(Bb.html?q=<ESC>(J~<ESC>(B">x</a><p>~\\</p>');
    const r = await absolutizeHtml(input, { retrieval: { url: URL_ } });
    expect(r.warnings.map((w) => w.code)).toEqual([]);
    // Chromium: http://…/d/a%C2%A5b.html?q=%1B(J~%1B(B
    expect(r.output.toString('latin1')).toBe('<meta charset="iso-2022-jp"><a href="http://example.jp/d/a%C2%A5b.html?q=%1B(J~%1B(B">x</a><p>~\\</p>');
    for (const chunks of chunkings(input, 20)) expect(await rewriteChunks(chunks)).toEqual(r.output);
  });

  it('a value that starts in JIS-Roman and ends in ASCII is left as it is, and the text after it keeps its meaning', async () => {
    const input = bytes('<meta charset="iso-2022-jp"><ESC>(J<a href="x/<ESC>$BF|<ESC>(B">x</a><p>~\\</p>');
    const r = await absolutizeHtml(input, { retrieval: { url: URL_ } });
    expect(r.output).toEqual(input);
    expect(decode(r.output)).toContain('<p>~\\</p>'); // Chromium's text: "x~\"
    expect(r.warnings.map((w) => w.code)).toEqual(['undecodable-value']);
    for (const chunks of chunkings(input, 20)) expect(await rewriteChunks(chunks)).toEqual(r.output);
  });

  it('values in JIS-Roman without escapes are still rewritten, and the state is restored after them', async () => {
    const input = bytes('<meta charset="iso-2022-jp"><ESC>(J<a href="x/y?a~b">x</a><p>~\\</p>');
    const r = await absolutizeHtml(input, { retrieval: { url: URL_ } });
    // Chromium: http://…/d/x/y?a%1B(J~b%1B(B, and the text "x‾¥" after it.
    expect(r.output.toString('latin1')).toBe('<meta charset="iso-2022-jp">\x1b(J<a href="\x1b(Bhttp://example.jp/d/x/y?a%1B(J~b%1B(B\x1b(J">x</a><p>~\\</p>');
    expect(decode(r.output)).toContain('<p>\u203e\u00a5</p>');
  });
});
