/**
 * Audit (legacy encodings), measured in Chromium:
 *   1. a charset <meta> read attribute by attribute, duplicates included (src/encoding/audit-meta-attributes.test.ts
 *      has the same cases without a browser): our decision is Chromium's `document.characterSet`;
 *   2. queries against ws: and wss: bases (and http, file, ftp), in the document's encoding (src/encoding/
 *      audit-query-schemes.test.ts): our resolution is Chromium's `a.href`, in 24 encodings, for 60 characters
 *      (written as character references, so the pages are ASCII and Chromium's encoding detector stays out);
 *   3. seeded random pages in 14 encodings, with raw non-ASCII bytes in paths, queries, fragments and hosts and
 *      invalid byte sequences next to the references: the rewritten page, served elsewhere, resolves every
 *      reference as the original did; every byte outside the href values is unchanged; random chunkings give
 *      the same bytes.
 * `AUDIT_SEED=n` changes the random pages.
 */
import { createMultibyteEncoder } from '@exodus/bytes/multi-byte.js';
import { createSinglebyteEncoder } from '@exodus/bytes/single-byte.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { absolutizeHtml, createHtmlRewriter } from '../../src/html/stream.ts';
import { browserResolver } from '../../src/uri/index.ts';
import { useAgreementEnvironment } from '../helpers/agreement.ts';
import { randomChunks, seededRandom } from '../helpers/chunks.ts';
import { META_ATTRIBUTE_CASES, QUERY_SCHEME_CASES } from '../helpers/encoding-audit-cases.ts';

const env = useAgreementEnvironment([]);
let page: Page;
beforeAll(async () => {
  page = await env.browser().newPage();
});
afterAll(async () => {
  await page?.close();
});

interface ChromiumReading {
  charset: string;
  hrefs: string[];
  /** The body's text content. */
  text: string;
}

async function chromiumLinks(url: string): Promise<ChromiumReading> {
  await page.goto(url);
  return {
    charset: (await page.evaluate('document.characterSet')) as string,
    hrefs: (await page.evaluate('Array.from(document.links, (a) => a.href)')) as string[],
    text: (await page.evaluate('document.body?.textContent ?? ""')) as string,
  };
}

/**
 * The page `body` served at `path` of the first origin, and its rewrite (`rewrite` of the page's URL) served at
 * `/elsewhere/x` + `path` of the second, each as Chromium reads it.
 */
async function originalAndMoved(path: string, body: Buffer, contentType: string, rewrite: (url: string) => Promise<Buffer>): Promise<{ original: ChromiumReading; moved: ChromiumReading }> {
  const { a, b } = env.origins();
  const url = `${a.origin}${path}`;
  a.files.set(path, { body, contentType });
  b.files.set(`/elsewhere/x${path}`, { body: await rewrite(url), contentType });
  return { original: await chromiumLinks(url), moved: await chromiumLinks(`${b.origin}/elsewhere/x${path}`) };
}

const META_CASES: ReadonlyArray<readonly [string, string]> = [
  ...META_ATTRIBUTE_CASES,
  // After the 1024 bytes of the standard's prescan, in the head.
  [`<head><title>t</title><!--${'x'.repeat(1100)}--><meta charset="shift_jis" charset="euc-kr">`, 'EUC-KR'],
];

describe('a charset <meta> read attribute by attribute: ours and Chromium\'s document.characterSet', () => {
  it('duplicates, charset against content, http-equiv anywhere, ExtractCharset\'s quotes and controls', async () => {
    const { a } = env.origins();
    const differences: string[] = [];
    for (const [i, [meta, expected]] of META_CASES.entries()) {
      const body = Buffer.from(`${meta}<a href="x?q=&#26085;">r</a>`, 'latin1');
      a.files.set(`/meta/${i}.html`, { body, contentType: 'text/html' });
      const ours = await absolutizeHtml(body, { retrieval: { url: `${a.origin}/meta/${i}.html` } });
      const chromium = await chromiumLinks(`${a.origin}/meta/${i}.html`);
      if (chromium.charset !== expected || ours.encoding !== expected) differences.push(`${JSON.stringify(meta)}: Chromium ${chromium.charset}, ours ${ours.encoding}, recorded ${expected}`);
    }
    expect(differences).toEqual([]);
  });
});

const ENCODINGS = ['windows-1252', 'iso-8859-2', 'windows-1251', 'koi8-r', 'koi8-u', 'shift_jis', 'euc-jp', 'iso-2022-jp', 'gb18030', 'gbk', 'big5', 'euc-kr', 'windows-874', 'iso-8859-8', 'iso-8859-8-i', 'windows-1255', 'x-user-defined', 'macintosh', 'x-mac-cyrillic', 'iso-8859-16', 'windows-1258', 'ibm866', 'utf-16le', 'utf-16be'];
const CHARS = [0xe9, 0x20ac, 0xa5, 0x203e, 0x2212, 0xff5e, 0x301c, 0x2016, 0x2225, 0xffe0, 0xffe1, 0xffe2, 0xe5e5, 0x3000, 0x1f600, 0x80, 0xa0, 0xb7, 0x30fb, 0x2014, 0x2015, 0xe7c7, 0x1e3f, 0xfe10, 0x92, 0xf780, 0xf7ff, 0x44f, 0x434, 0x4e02, 0x4e00, 0x9f98, 0xca, 0x304, 0x2550, 0x5341, 0x5345, 0xac00, 0xd7a3, 0x3164, 0x2116, 0x2122, 0xfffd, 0xff, 0x104, 0xd9, 0x5d0, 0xe01, 0x1ea0, 0xfa0c, 0x2170, 0xffe4, 0xff07, 0x7e, 0x5c, 0x20, 0x22, 0x3c, 0x27, 0x60];
// (Not foo://h/d/: Chromium encodes a non-special query in the document's encoding too; src/uri/resolvers.test.ts
// holds the URL Standard's UTF-8 there. A known difference, in the report.)
const QUERY_BASES = ['http://example.org/dir/', 'ws://h/d/', 'wss://h/d/', 'file:///d/', 'ftp://h/d/'];
const QUERY_CASES = QUERY_SCHEME_CASES;
const ncr = (s: string): string => Array.from(s, (ch) => (ch.charCodeAt(0) < 0x80 ? ch : `&#${ch.codePointAt(0)};`)).join('');

function asciiPage(encoding: string, base: string, refs: readonly string[]): { body: Buffer; contentType: string } {
  const html = `<meta charset="${encoding}"><base href="${base}">${refs.map((r) => `<a href="${r}">x</a>`).join('\n')}`;
  if (!encoding.startsWith('utf-16')) return { body: Buffer.from(html, 'latin1'), contentType: 'text/html' };
  const body = Buffer.from(html, 'utf16le');
  if (encoding === 'utf-16be') body.swap16();
  return { body, contentType: `text/html; charset=${encoding}` };
}

describe('queries in the document encoding, against every kind of base: ours and Chromium\'s a.href', () => {
  it('the recorded cases', async () => {
    const { a } = env.origins();
    const differences: string[] = [];
    for (const [i, [encoding, base, ref, expected]] of QUERY_CASES.entries()) {
      const { body, contentType } = asciiPage(encoding, base, [ncr(ref)]);
      a.files.set(`/q/case-${i}.html`, { body, contentType });
      const [chromium] = (await chromiumLinks(`${a.origin}/q/case-${i}.html`)).hrefs;
      const ours = browserResolver.resolve(ref, base, { encoding }).href;
      if (chromium !== expected || ours !== expected) differences.push(`${encoding} ${base} ${JSON.stringify(ref)}: Chromium ${chromium}, ours ${ours}, recorded ${expected}`);
    }
    expect(differences).toEqual([]);
  });

  it('60 characters in 24 encodings against five bases, rewritten pages moved elsewhere', async () => {
    const differences: string[] = [];
    for (const base of QUERY_BASES) {
      for (const encoding of ENCODINGS) {
        const refs = CHARS.map((c) => `?q=&#${c};&p=${c.toString(16)}`);
        const { body, contentType } = asciiPage(encoding, base, refs);
        const slug = `${encodeURIComponent(base).replace(/%/g, '_')}/${encoding}.html`;
        let ours = '';
        const { original, moved } = await originalAndMoved(`/q/${slug}`, body, contentType, async (url) => {
          const rewritten = await absolutizeHtml(body, { retrieval: { url }, charset: contentType.includes('charset') ? encoding : undefined });
          ours = rewritten.encoding;
          return rewritten.output;
        });
        expect(original.hrefs).toHaveLength(CHARS.length);
        if (original.charset.toLowerCase() !== ours.toLowerCase()) differences.push(`${base} ${encoding}: Chromium ${original.charset}, ours ${ours}`);
        for (let i = 0; i < CHARS.length; i++) {
          if (original.hrefs[i] !== moved.hrefs[i]) differences.push(`${base} ${encoding} U+${CHARS[i]!.toString(16)}: Chromium ${original.hrefs[i]}, ours ${moved.hrefs[i]}`);
        }
      }
    }
    expect(differences.slice(0, 40)).toEqual([]);
  });
});

const MULTI_BYTE = new Set(['gbk', 'gb18030', 'big5', 'euc-jp', 'iso-2022-jp', 'shift_jis', 'euc-kr']);
function encoderFor(encoding: string): (s: string) => Buffer {
  if (encoding === 'utf-8') return (s) => Buffer.from(s, 'utf8');
  if (encoding === 'utf-16le') return (s) => Buffer.from(s, 'utf16le');
  if (encoding === 'utf-16be') return (s) => Buffer.from(s, 'utf16le').swap16();
  const e = MULTI_BYTE.has(encoding) ? createMultibyteEncoder(encoding, { mode: 'fatal' }) : createSinglebyteEncoder(encoding, { mode: 'fatal' });
  return (s) => Buffer.from(e(s));
}
const encodable = (encode: (s: string) => Buffer, s: string): boolean => {
  try {
    encode(s);
    return true;
  } catch {
    return false;
  }
};
// Bytes invalid in each encoding (a lead byte cut short, a bad escape), put next to references, never in them.
const INVALID: Record<string, number[]> = { shift_jis: [0x81], 'euc-jp': [0x8e], gbk: [0x81], gb18030: [0x81, 0x30], big5: [0x81], 'euc-kr': [0xc9], 'utf-8': [0xc3], 'iso-2022-jp': [0x1b, 0x28], 'windows-1252': [0x81] };
const RAW_ENCODINGS = ['windows-1252', 'iso-8859-2', 'windows-1251', 'koi8-r', 'shift_jis', 'euc-jp', 'iso-2022-jp', 'gb18030', 'gbk', 'big5', 'euc-kr', 'utf-16le', 'utf-16be', 'utf-8'];
const SEED = Number(process.env['AUDIT_SEED'] ?? 20261203);

describe(`random pages with raw non-ASCII references in 14 encodings (seed ${SEED})`, () => {
  it('resolve in Chromium as the originals do, bytes outside href values unchanged, any chunking the same', async () => {
    const random = seededRandom(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const report: string[] = [];
    for (const encoding of RAW_ENCODINGS) {
      const encode = encoderFor(encoding);
      const pool: string[] = [];
      for (const [from, to] of [[0xa0, 0x17f], [0x400, 0x45f], [0x3040, 0x30ff], [0x4e00, 0x4fff], [0xac00, 0xac80], [0x2010, 0x2040], [0xff01, 0xff9f]] as const) {
        for (let c = from; c <= to; c++) if (encodable(encode, String.fromCodePoint(c))) pool.push(String.fromCodePoint(c));
      }
      // (In ISO-2022-JP, ¥ and ‾ are written in JIS-Roman.)
      const chars = pool;
      const word = (): string => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick([...chars, 'a', '-', '_', '%41', ' ', '~', '\\'])).join('');
      const hosts = ['ex', 'mü', 'テスト', 'bücher'].filter((h) => encodable(encode, h));
      const dots = ['.', '。', '．'].filter((d) => encodable(encode, d));
      const refs: string[] = [];
      for (let i = 0; i < 40; i++) {
        const shape = Math.floor(random() * 8);
        const ref = [
          () => `${word()}/${word()}.html?${word()}=${word()}#${word()}`,
          () => `?${word()}`,
          () => `../${word()}?q=${word()}`,
          () => `#${word()}`,
          () => `//${pick(hosts)}${pick(dots)}example/${word()}?${word()}`,
          () => `/${word()}?${word()}&x=${word()}#${word()}?`,
          () => word(),
          () => ` ${word()}?${word()} `,
        ][shape]!();
        refs.push(ref);
      }
      const meta = encoding.startsWith('utf-16') ? '' : `<meta charset="${encoding}">`;
      const parts: Buffer[] = [encode(`<!DOCTYPE html><html><head>${meta}<title>${pick(chars)}</title></head><body>\n`)];
      refs.forEach((ref, i) => {
        parts.push(encode(`<a href="${ref}"`));
        if (i % 3 === 0 && INVALID[encoding]) parts.push(Buffer.from(INVALID[encoding]!));
        parts.push(encode(` title="${pick(chars)}">${pick(chars)}${pick(chars)}</a>`));
        if (i % 4 === 1 && INVALID[encoding]) parts.push(Buffer.from(INVALID[encoding]!));
        parts.push(encode('\n'));
      });
      const body = Buffer.concat(parts);
      const charset = encoding.startsWith('utf-16') ? encoding : undefined;
      const contentType = charset === undefined ? 'text/html' : `text/html; charset=${charset}`;
      let whole: { output: Buffer; encoding: string } = { output: body, encoding: '' };
      const { original, moved } = await originalAndMoved(`/raw/${encoding}/page.html`, body, contentType, async (url) => {
        const r = await absolutizeHtml(body, { retrieval: { url }, charset });
        for (let k = 0; k < 4; k++) {
          const rewriter = createHtmlRewriter({ retrieval: { url }, charset });
          const out: Buffer[] = [];
          rewriter.on('data', (d: Buffer) => out.push(d));
          const ended = new Promise((resolve) => rewriter.on('end', resolve));
          for (const chunk of randomChunks(body, random, 1 + Math.floor(random() * 64))) rewriter.write(chunk);
          rewriter.end();
          await ended;
          if (!Buffer.concat(out).equals(r.output)) report.push(`${encoding}: chunking ${k} gives other bytes`);
        }
        whole = r;
        return r.output;
      });
      if (original.charset.toLowerCase() !== whole.encoding.toLowerCase()) report.push(`${encoding}: Chromium ${original.charset}, ours ${whole.encoding}`);
      if (original.hrefs.length !== refs.length || moved.hrefs.length !== refs.length) report.push(`${encoding}: ${original.hrefs.length}/${moved.hrefs.length} links`);
      for (let i = 0; i < refs.length; i++) {
        if (refs[i]!.trim().startsWith('#')) continue; // same-document references stay as they are
        if (original.hrefs[i] !== moved.hrefs[i]) report.push(`${encoding} ${JSON.stringify(refs[i])}: Chromium ${original.hrefs[i]}, ours ${moved.hrefs[i]}`);
      }
      if (encoding !== 'iso-2022-jp') {
        const decode = (x: Buffer): string => (encoding === 'utf-16be' ? Buffer.from(x).swap16().toString('utf16le') : encoding === 'utf-16le' ? x.toString('utf16le') : x.toString('latin1'));
        const outside = (x: Buffer): string => decode(x).replace(/ href="[^"]*"/g, ' href=""');
        if (outside(whole.output) !== outside(body)) report.push(`${encoding}: bytes outside href values changed`);
      }
    }
    expect(report).toEqual([]);
  });
});

describe('ISO-2022-JP references next to the JIS-Roman state (src/encoding/audit-iso2022jp-roman.test.ts)', () => {
  it('¥/‾ in a reference is rewritten as Chromium resolves it; a value from JIS-Roman to ASCII leaves the text after it as it reads', async () => {
    const bytes = (s: string): Buffer => Buffer.from(s.replaceAll('<ESC>', '\x1b'), 'latin1');
    const pages: Record<string, { body: Buffer; rewritten: boolean }> = {
      yen: { body: bytes('<meta charset="iso-2022-jp"><a href="a<ESC>(J\\<ESC>(Bb.html?q=<ESC>(J~<ESC>(B">x</a><p>~\\</p>'), rewritten: true },
      'roman-outer': { body: bytes('<meta charset="iso-2022-jp"><ESC>(J<a href="x/<ESC>$BF|<ESC>(B">x</a><p>~\\</p>'), rewritten: false },
      'roman-plain': { body: bytes('<meta charset="iso-2022-jp"><ESC>(J<a href="x/y?a~b">x</a><p>~\\</p>'), rewritten: true },
    };
    for (const [name, { body, rewritten }] of Object.entries(pages)) {
      let output = body;
      const { original, moved } = await originalAndMoved(`/jis/${name}.html`, body, 'text/html', async (url) => (output = (await absolutizeHtml(body, { retrieval: { url } })).output));
      expect(moved.text, name).toBe(original.text);
      if (rewritten) expect(moved.hrefs, name).toEqual(original.hrefs);
      else expect(output, name).toEqual(body);
    }
  });
});

describe('valid bytes that do not encode back the same (src/encoding/audit-valid-bytes.test.ts)', () => {
  it('Shift_JIS F0 40, GBK four-byte, EUC-JP JIS X 0212 in paths and queries: rewritten as Chromium resolves them', async () => {
    const cases: Array<[string, number[]]> = [
      ['shift_jis', [0xf0, 0x40, 0x87, 0x40, 0xed, 0x40, 0xfa, 0x40, 0x5c, 0x7e, 0x81, 0x5f]],
      ['shift_jis', [0xf9, 0xfc, 0xee, 0xec]],
      ['gbk', [0x81, 0x30, 0x81, 0x30, 0x80, 0xa2, 0xe3]],
      ['gbk', [0x84, 0x31, 0xa4, 0x39, 0x81, 0x35, 0xf4, 0x37]],
      ['euc-jp', [0x8f, 0xb0, 0xa1, 0x8e, 0xb1, 0xa1, 0xc0, 0x8f, 0xa2, 0xaf]],
      ['big5', [0xfa, 0x40, 0x8e, 0x69, 0xa1, 0x40]],
    ];
    const differences: string[] = [];
    for (const [i, [charset, ref]] of cases.entries()) {
      const body = Buffer.concat([
        Buffer.from(`<meta charset="${charset}"><a href="`, 'latin1'), Buffer.from(ref), Buffer.from('/x?q=', 'latin1'), Buffer.from(ref),
        Buffer.from('#', 'latin1'), Buffer.from(ref), Buffer.from('">x</a><a href="?', 'latin1'), Buffer.from(ref), Buffer.from('">y</a>', 'latin1'),
      ]);
      const { original, moved } = await originalAndMoved(`/valid/${i}.html`, body, 'text/html', async (url) => (await absolutizeHtml(body, { retrieval: { url } })).output);
      if (JSON.stringify(original.hrefs) !== JSON.stringify(moved.hrefs)) differences.push(`${charset} ${Buffer.from(ref).toString('hex')}: Chromium ${original.hrefs.join(' ')}, ours ${moved.hrefs.join(' ')}`);
    }
    expect(differences).toEqual([]);
  });
});
