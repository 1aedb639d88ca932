import { describe, expect, it } from 'vitest';
import { createHtmlRewriter, rewriteHtmlBytes, transformWhole } from './stream.ts';
import type { HtmlStreamOptions } from './stream.ts';

const base = { retrieval: { url: 'http://example.com/dir/page.html' } };

/** Documents in the encodings whose raw text is not latin1 too (UTF-16 with its BOM, ISO-2022-JP), and passthrough. */
const documents: Array<[string, Buffer, HtmlStreamOptions]> = [
  ['utf-8', Buffer.from('<!doctype html><meta charset=utf-8><title>\u00e9</title><a href="a b.html">x</a><img src=/i.png>', 'utf8'), base],
  ['windows-1252 by default', Buffer.from('<p>caf\xe9 <a href="x?q=\xe9">x</a>', 'latin1'), base],
  ['utf-16le with its BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a href="rel.html">\u3042</a>', 'utf16le')]), base],
  ['iso-2022-jp', Buffer.from('<a href="r.html">\x1b$B$"\x1b(B</a>', 'latin1'), { ...base, charset: 'iso-2022-jp' }],
  // Input bytes the decoder still holds at the end (an escape cut short) come out last, after the raw text.
  ['iso-2022-jp ending in an escape cut short', Buffer.from('<a href="r.html">\x1b$B$"\x1b(B</a>\x1b$', 'latin1'), { ...base, charset: 'iso-2022-jp' }],
  ['replacement (passed through)', Buffer.from('<a href="r.html">x</a>', 'latin1'), { ...base, charset: 'iso-2022-kr' }],
  ['nothing to rewrite', Buffer.from('<p><a href="http://example.org/abs">x</a></p>', 'latin1'), base],
];

describe('rewriteHtmlBytes: a whole document without a stream', () => {
  for (const [name, input, options] of documents) {
    it(`${name}: the stream's output when a reference was rewritten, else null and the stream's output is the input`, async () => {
      const stream = createHtmlRewriter(options);
      const expected = await transformWhole(stream, input);
      const { output, stats } = rewriteHtmlBytes(input, options);
      expect(stats).toEqual(stream.stats);
      if (stream.stats.rewritten === 0) {
        expect(output).toBeNull();
        expect(expected.equals(input)).toBe(true);
      } else expect(output!.equals(expected)).toBe(true);
    });
  }

  it('keeps the held bytes of an escape cut short at the end', () => {
    expect(rewriteHtmlBytes(documents[4]![1], documents[4]![2]).output!.subarray(-2).toString('latin1')).toBe('\x1b$');
  });

  it('rewrites what it should', () => {
    expect(rewriteHtmlBytes(documents[0]![1], base).output!.toString('utf8')).toContain('href="http://example.com/dir/a%20b.html"');
    expect(rewriteHtmlBytes(documents[6]![1], base).output).toBeNull();
  });
});
