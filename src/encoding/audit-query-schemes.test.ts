/**
 * Audit (legacy encodings): the query of a reference resolved against a ws: or wss: base is encoded in the
 * document's encoding, as Chromium encodes it (the URL Standard and whatwg-url say UTF-8 for ws and wss;
 * Chromium's URL canonicalizer uses the document's charset converter as for http). (Chromium does so for
 * non-special schemes too, foo://h/?%E9; src/uri/resolvers.test.ts holds the standard's UTF-8 there.) The
 * expected URLs are Chromium's `a.href` (measured with the bundled Chromium;
 * test/browser/audit-encoding-agreement.test.ts measures them again).
 */
import { describe, expect, it } from 'vitest';
import { QUERY_SCHEME_CASES } from '../../test/helpers/encoding-audit-cases.ts';
import { absolutizeHtml } from '../html/stream.ts';
import { browserResolver } from '../uri/index.ts';

const CASES = QUERY_SCHEME_CASES;

describe('queries against ws: and wss: bases are in the document encoding, as Chromium writes them', () => {
  for (const [encoding, base, reference, chromium] of CASES) {
    it(`${encoding}: ${JSON.stringify(reference)} against ${base}`, () => {
      expect(browserResolver.resolve(reference, base, { encoding }).href).toBe(chromium);
    });
  }

  it('a windows-1252 page with <base href="ws://…">: the rewritten href', async () => {
    const page = Buffer.from('<meta charset="windows-1252"><base href="ws://h/d/"><a href="x?q=\xe9&amp;r=\x80">x</a>', 'latin1');
    const { output } = await absolutizeHtml(page, { retrieval: { url: 'http://example.com/' } });
    expect(output.toString('latin1')).toContain('<a href="ws://h/d/x?q=%E9&amp;r=%80">');
  });

  it('UTF-8 documents and queries the base gave are unchanged', () => {
    expect(browserResolver.resolve('?é', 'ws://h/d/', { encoding: 'utf-8' }).href).toBe('ws://h/d/?%C3%A9');
    expect(browserResolver.resolve('#é', 'ws://h/d/?%C3%A9', { encoding: 'windows-1252' }).href).toBe('ws://h/d/?%C3%A9#%C3%A9');
    expect(browserResolver.resolve('é', 'wss://h/d/?q', { encoding: 'windows-1252' }).href).toBe('wss://h/d/%C3%A9');
  });
});
