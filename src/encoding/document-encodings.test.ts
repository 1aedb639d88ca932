/**
 * Documents in every encoding a page can be in, through the HTML and CSS streams and as MIME parts: the encoding
 * decided as Chromium decides it (a charset <meta> anywhere in the head), UTF-16 and ISO-2022-JP rewritten and
 * written back in their own encoding. Every input whole, byte by byte and in random chunks.
 * (What Chromium resolves for the same bytes: test/browser/encoding-agreement.test.ts.)
 */
import { Readable } from 'node:stream';
import { TextDecoder } from '@exodus/bytes/encoding.js';
import { createMultibyteEncoder } from '@exodus/bytes/multi-byte.js';
import { describe, expect, it } from 'vitest';
import { chunkings, feedChunks } from '../../test/helpers/chunks.ts';
import { createCssRewriter } from '../css/stream.ts';
import type { CssStreamOptions } from '../css/stream.ts';
import { absolutizeHtml } from '../html/stream.ts';
import type { HtmlStreamOptions } from '../html/stream.ts';
import { resolveLimits } from '../limits.ts';
import { absolutizeMime } from '../mime/stream.ts';

const retrieval = { url: 'http://example.com/dir/page.html' };
const encodeShiftJis = createMultibyteEncoder('shift_jis', { mode: 'fatal' });
const encodeJp = createMultibyteEncoder('iso-2022-jp', { mode: 'fatal' });
const utf16 = (text: string, bigEndian: boolean, bom: boolean): Buffer => {
  const b = Buffer.from((bom ? '\ufeff' : '') + text, 'utf16le');
  if (bigEndian) b.swap16();
  return b;
};
const decode = (bytes: Uint8Array, encoding: string): string => new TextDecoder(encoding).decode(bytes);

/** The output of every chunking, checked to be one and the same. */
async function rewriteAllChunkings(input: Buffer, options: HtmlStreamOptions): Promise<Buffer> {
  const outputs = await Promise.all(chunkings(input, 4).map((chunks) => feedChunks(chunks, options)));
  for (const o of outputs) expect(o.toString('latin1')).toBe(outputs[0]!.toString('latin1'));
  return outputs[0]!;
}

async function cssAllChunkings(input: Buffer, options: CssStreamOptions): Promise<Buffer> {
  const outputs: Buffer[] = [];
  for (const chunks of chunkings(input, 4)) {
    const parts: Buffer[] = [];
    for await (const c of Readable.from(chunks, { objectMode: false }).pipe(createCssRewriter(options))) parts.push(c as Buffer);
    outputs.push(Buffer.concat(parts));
  }
  for (const o of outputs) expect(o.toString('latin1')).toBe(outputs[0]!.toString('latin1'));
  return outputs[0]!;
}

/** A Shift_JIS page whose charset <meta> starts at `metaAt`, after head content (a comment) of that length. */
function lateMetaPage(metaAt: number, before = '<!DOCTYPE html><html><head><title>t</title>'): Buffer {
  const pad = metaAt - before.length - '<!---->'.length;
  const head = `${before}<!--${'x'.repeat(pad)}-->`;
  expect(head.length).toBe(metaAt);
  const text = `${head}<meta charset="shift_jis"></head><body><a href="日本/ページ.html?q=あ">あ</a></body></html>`;
  return Buffer.from(encodeShiftJis(text));
}

describe('a charset <meta> anywhere in the head (Chromium; the standard\'s "change the encoding")', () => {
  for (const metaAt of [1134, 2048, 3072, 5120, 61440]) {
    it(`Shift_JIS from a <meta> at byte ${metaAt}`, async () => {
      const encodings: string[] = [];
      const out = await rewriteAllChunkings(lateMetaPage(metaAt), { retrieval, onEncoding: (e) => encodings.push(`${e.name} ${e.source}`) });
      expect(encodings[0]).toBe('Shift_JIS meta');
      // Path in UTF-8, query in Shift_JIS (あ = 82 A0), as Chromium resolves it (test/browser/encoding-agreement.test.ts).
      expect(out.toString('latin1')).toContain('href="http://example.com/dir/%E6%97%A5%E6%9C%AC/%E3%83%9A%E3%83%BC%E3%82%B8.html?q=%82%A0"');
    });
  }

  it('not after a tag that cannot be in a head, past the first 1024 bytes (Chromium stops there)', async () => {
    const page = lateMetaPage(1500, '<!DOCTYPE html><html><head><title>t</title></head><body><p>');
    const r = await absolutizeHtml(page, { retrieval });
    expect(r.encoding).toBe('windows-1252');
  });

  it('not inside <script> or <title> text; yes after them', async () => {
    const inScript = `<html><head><script>var s = '<meta charset="shift_jis">';${' '.repeat(1100)}</script><title><meta charset="euc-jp"></title><meta charset="gbk"></head>`;
    expect((await absolutizeHtml(Buffer.from(inScript), { retrieval })).encoding).toBe('GBK');
  });

  it('a <meta> naming UTF-16 means UTF-8; x-user-defined means windows-1252', async () => {
    const pad = `<html><head><!--${'x'.repeat(1100)}-->`;
    expect((await absolutizeHtml(Buffer.from(`${pad}<meta charset="utf-16le">`), { retrieval })).encoding).toBe('UTF-8');
    expect((await absolutizeHtml(Buffer.from(`${pad}<meta http-equiv="content-type" content="text/html; charset=x-user-defined">`), { retrieval })).encoding).toBe('windows-1252');
    // content= without http-equiv: not a pragma.
    expect((await absolutizeHtml(Buffer.from(`${pad}<meta content="text/html; charset=shift_jis">`), { retrieval })).encoding).toBe('windows-1252');
  });

  it('the transport charset and a BOM beat a late <meta>', async () => {
    expect((await absolutizeHtml(lateMetaPage(2048), { retrieval, charset: 'euc-jp' })).encoding).toBe('EUC-JP');
    expect((await absolutizeHtml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), lateMetaPage(2048)]), { retrieval })).encoding).toBe('UTF-8');
  });

  it('maxCharsetLookaheadBytes: a <meta> ending at limit-1 or limit counts, at limit+1 not (warning); same for every chunking', async () => {
    const page = lateMetaPage(2000);
    const metaEnd = 2000 + '<meta charset="shift_jis">'.length;
    for (const [limit, expected] of [
      [metaEnd + 1, 'Shift_JIS'],
      [metaEnd, 'Shift_JIS'],
      [metaEnd - 1, 'windows-1252'],
    ] as const) {
      const warnings: string[] = [];
      const encodings: string[] = [];
      const options = { retrieval, limits: resolveLimits({ maxCharsetLookaheadBytes: limit }), onWarning: (w: { code: string }) => warnings.push(w.code), onEncoding: (e: { name: string }) => encodings.push(e.name) };
      await rewriteAllChunkings(page, options);
      expect(new Set(encodings), `limit ${limit}`).toEqual(new Set([expected]));
      expect(warnings.includes('charset-lookahead-limit'), `limit ${limit}`).toBe(expected === 'windows-1252');
    }
  });

  it('output is held no longer than needed: a page with no <meta> and a short head is rewritten as windows-1252', async () => {
    const page = Buffer.from(`<html><head><title>x</title></head><body>${'<p>text</p>'.repeat(200)}<a href="?q=\xe9">`, 'latin1');
    const out = await rewriteAllChunkings(page, { retrieval });
    expect(out.toString('latin1')).toContain('href="http://example.com/dir/page.html?q=%E9"');
  });
});

const PAGE = '<!DOCTYPE html><html><head><meta charset="CHARSET"><title>日本語のページ</title><style>p { background: url(画像/背景.png?色=青) }</style></head>' +
  '<body><a href="日本/ページ.html?検索=東京&amp;x=1">漢字</a> <img srcset="小.png 1x, 画像/大.png?幅=2 2x"><a href="plain.html">a</a>' +
  '<div style="background:url(\'s.png\')">s</div></body></html>';

const UTF16_REWRITES: ReadonlyArray<readonly [string, string]> = [
  ['url(画像/背景.png?色=青)', 'url(http://example.com/dir/%E7%94%BB%E5%83%8F/%E8%83%8C%E6%99%AF.png?%E8%89%B2=%E9%9D%92)'],
  ['href="日本/ページ.html?検索=東京&amp;x=1"', 'href="http://example.com/dir/%E6%97%A5%E6%9C%AC/%E3%83%9A%E3%83%BC%E3%82%B8.html?%E6%A4%9C%E7%B4%A2=%E6%9D%B1%E4%BA%AC&amp;x=1"'],
  ['srcset="小.png 1x, 画像/大.png?幅=2 2x"', 'srcset="http://example.com/dir/%E5%B0%8F.png 1x, http://example.com/dir/%E7%94%BB%E5%83%8F/%E5%A4%A7.png?%E5%B9%85=2 2x"'],
  ['href="plain.html"', 'href="http://example.com/dir/plain.html"'],
  ["url('s.png')", "url('http://example.com/dir/s.png')"],
];

/** The query of a URL, percent-decoded and read in `encoding`. */
function queryText(url: string, encoding: string): string {
  const query = url.slice(url.indexOf('?') + 1);
  const bytes = Buffer.from(query.replace(/%([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
  return decode(bytes, encoding);
}

describe('UTF-16 documents: rewritten, written back in UTF-16; queries in UTF-8 (URL Standard)', () => {
  const expectations = (text: string): void => {
    expect(text).toContain('href="http://example.com/dir/%E6%97%A5%E6%9C%AC/%E3%83%9A%E3%83%BC%E3%82%B8.html?%E6%A4%9C%E7%B4%A2=%E6%9D%B1%E4%BA%AC&amp;x=1">漢字</a>');
    expect(text).toContain('url(http://example.com/dir/%E7%94%BB%E5%83%8F/%E8%83%8C%E6%99%AF.png?%E8%89%B2=%E9%9D%92)');
    expect(text).toContain('srcset="http://example.com/dir/%E5%B0%8F.png 1x, http://example.com/dir/%E7%94%BB%E5%83%8F/%E5%A4%A7.png?%E5%B9%85=2 2x"');
    expect(text).toContain('href="http://example.com/dir/plain.html"');
    expect(text).toContain('<title>日本語のページ</title>');
  };
  for (const [name, bigEndian, bom, charset, meta] of [
    ['UTF-16LE with BOM', false, true, undefined, 'utf-16'],
    ['UTF-16BE with BOM (BOM beats the transport charset)', true, true, 'utf-16le', 'utf-16'],
    ['UTF-16LE from the transport charset, no BOM', false, false, 'utf-16le', 'utf-16'],
    ['UTF-16BE from the transport charset, no BOM', true, false, 'utf-16be', 'shift_jis'],
  ] as const) {
    it(name, async () => {
      const input = utf16(PAGE.replace('CHARSET', meta), bigEndian, bom);
      const out = await rewriteAllChunkings(input, { retrieval, charset });
      const encoding = bigEndian ? 'utf-16be' : 'utf-16le';
      if (bom) expect(out.subarray(0, 2).equals(input.subarray(0, 2))).toBe(true);
      expectations(decode(out, encoding));
      // Only rewritten values changed: the rest, decoded, is the same text.
      let expected = PAGE.replace('CHARSET', meta);
      for (const [from, to] of UTF16_REWRITES) expected = expected.replace(from, to);
      expect(decode(out, encoding).replace(/^\ufeff/, '')).toBe(expected);
    });
  }

  it('an odd byte at the end passes through', async () => {
    const input = Buffer.concat([utf16('<a href="x">', false, true), Buffer.of(0x41)]);
    const out = await rewriteAllChunkings(input, { retrieval });
    expect(out.subarray(-1)[0]).toBe(0x41);
    expect(decode(out.subarray(0, -1), 'utf-16le')).toBe('<a href="http://example.com/dir/x">');
  });
});

describe('ISO-2022-JP documents: rewritten, written back with the shift state right around every splice', () => {
  it('a page with JIS X 0208 text and URLs, from its <meta> and from the transport charset', async () => {
    for (const charset of [undefined, 'iso-2022-jp']) {
      const input = Buffer.from(encodeJp(PAGE.replace('CHARSET', 'iso-2022-jp')));
      const out = await rewriteAllChunkings(input, { retrieval, charset });
      const text = decode(out, 'iso-2022-jp');
      expect(text).not.toContain('\ufffd');
      // Path in UTF-8, query in ISO-2022-JP (percent-encoded escapes and JIS bytes), as Chromium encodes it.
      const href = /<a href="([^"]*)">漢字<\/a>/.exec(text)?.[1] ?? '';
      expect(href.slice(0, href.indexOf('?'))).toBe('http://example.com/dir/%E6%97%A5%E6%9C%AC/%E3%83%9A%E3%83%BC%E3%82%B8.html');
      expect(queryText(href, 'iso-2022-jp')).toBe('検索=東京&amp;x=1');
      expect(href).toContain('%1B$B');
      expect(text).toContain('href="http://example.com/dir/plain.html"');
      expect(text).toContain('<title>日本語のページ</title>');
      // Escapes: never two in a row (a decoder error), and the output ends in the ASCII state.
      expect(out.toString('latin1')).not.toMatch(/\x1b[($][@BJI]\x1b/);
    }
  });

  it('a splice in the JIS-Roman state (0x7E is "‾" there): written in ASCII, then back to JIS-Roman', async () => {
    const input = Buffer.from('<meta charset="iso-2022-jp">\x1b(J<a href="~u/x">\\</a>', 'latin1');
    const out = await rewriteAllChunkings(input, { retrieval });
    // The unchanged tail "u/x" of the value stays as it was, in JIS-Roman.
    expect(out.toString('latin1')).toBe('<meta charset="iso-2022-jp">\x1b(J<a href="\x1b(Bhttp://example.com/dir/%E2%80%BE\x1b(Ju/x">\\</a>');
    expect(decode(out, 'iso-2022-jp')).toBe('<meta charset="iso-2022-jp"><a href="http://example.com/dir/%E2%80%BEu/x">¥</a>');
  });

  it('markup-like bytes inside JIS X 0208 text are not markup', async () => {
    // 0x3C 0x61 ("<a") are one JIS X 0208 character here.
    const input = Buffer.from('<meta charset="iso-2022-jp">\x1b$B<a\x1b(B href="x.html"<a href="y.html">', 'latin1');
    const out = await rewriteAllChunkings(input, { retrieval });
    expect(out.toString('latin1')).toBe('<meta charset="iso-2022-jp">\x1b$B<a\x1b(B href="x.html"<a href="http://example.com/dir/y.html">');
  });
});

describe('stylesheets in UTF-16 and ISO-2022-JP', () => {
  const css = 'a { background: url(画像/背景.png?色=青) } b { background: url("plain.png") }';
  it('UTF-16LE (BOM) and UTF-16BE (transport charset)', async () => {
    const le = await cssAllChunkings(utf16(css, false, true), { retrieval });
    expect(decode(le, 'utf-16le')).toBe('a { background: url(http://example.com/dir/%E7%94%BB%E5%83%8F/%E8%83%8C%E6%99%AF.png?%E8%89%B2=%E9%9D%92) } b { background: url("http://example.com/dir/plain.png") }');
    const be = await cssAllChunkings(utf16(css, true, false), { retrieval, charset: 'utf-16be' });
    expect(decode(be, 'utf-16be')).toBe(decode(le, 'utf-16le'));
  });

  it('ISO-2022-JP (environment encoding)', async () => {
    const out = await cssAllChunkings(Buffer.from(encodeJp(css)), { retrieval, environmentEncoding: 'iso-2022-jp' });
    const text = decode(out, 'iso-2022-jp');
    // The serializer escapes "(" in an unquoted url() ("\("), which CSS reads back as "(".
    const url = (/url\(((?:\\.|[^)])*)\)/.exec(text)?.[1] ?? '').replace(/\\(.)/g, '$1');
    expect(url.slice(0, url.indexOf('?'))).toBe('http://example.com/dir/%E7%94%BB%E5%83%8F/%E8%83%8C%E6%99%AF.png');
    expect(queryText(url, 'iso-2022-jp')).toBe('色=青');
    expect(text.slice(text.indexOf(')'))).toBe(') } b { background: url("http://example.com/dir/plain.png") }');
  });
});

describe('MIME parts in UTF-16 and ISO-2022-JP', () => {
  it('an ISO-2022-JP text/html part (7bit) and a UTF-16 text/css part (base64)', async () => {
    const html = Buffer.from(encodeJp('<a href="ページ.html?q=東京">東京</a><a href="b.html">b</a>\r\n')).toString('latin1');
    const css = utf16('p { background: url(背景.png) }', false, true).toString('base64');
    const message = Buffer.from(
      'MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="b"\r\nContent-Location: http://example.com/mail/\r\n\r\n' +
        `--b\r\nContent-Type: text/html; charset=ISO-2022-JP\r\nContent-Transfer-Encoding: 7bit\r\n\r\n${html}\r\n` +
        `--b\r\nContent-Type: text/css; charset=utf-16\r\nContent-Transfer-Encoding: base64\r\n\r\n${css}\r\n--b--\r\n`,
      'latin1',
    );
    const r = await absolutizeMime(message);
    expect(r.warnings.map((w) => w.code)).toEqual([]);
    const out = r.output.toString('latin1');
    const htmlOut = out.slice(out.indexOf('7bit\r\n\r\n') + 8, out.indexOf('\r\n--b\r\nContent-Type: text/css'));
    const htmlText = decode(Buffer.from(htmlOut, 'latin1'), 'iso-2022-jp');
    const href = /href="([^"]*)">東京/.exec(htmlText)?.[1] ?? '';
    expect(queryText(href, 'iso-2022-jp')).toBe('q=東京');
    expect(htmlText.replace(href, 'U')).toBe('<a href="U">東京</a><a href="http://example.com/mail/b.html">b</a>\r\n');
    expect(href.startsWith('http://example.com/mail/%E3%83%9A%E3%83%BC%E3%82%B8.html?q=')).toBe(true);
    const b64 = out.slice(out.indexOf('base64\r\n\r\n') + 10, out.lastIndexOf('\r\n--b--'));
    expect(decode(Buffer.from(b64.replace(/\r\n/g, ''), 'base64'), 'utf-16le')).toBe('p { background: url(http://example.com/mail/%E8%83%8C%E6%99%AF.png) }');
  });
});
