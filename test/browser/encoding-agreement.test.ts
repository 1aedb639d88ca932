/**
 * Acceptance (issue 19 item 5): encodings as Chromium decides and reads them. Each page is served at one origin
 * and path, rewritten, served from another origin and path, and every reference must resolve in Chromium as it
 * did in the original (the harness of rewriter-agreement.test.ts):
 *   - a Shift_JIS page whose charset <meta> comes 1.1, 2, 3, 5 and 60 KB into the head (after the 1024 bytes
 *     of the standard's prescan), and one whose first "<meta charset>" is inside script text (Chromium's scan
 *     skips it; the byte prescan does not);
 *   - UTF-16LE/BE pages (BOM, transport charset) and ISO-2022-JP pages (<meta>, transport charset).
 * The encoding decision itself is compared with Chromium's `document.characterSet` on pages whose bytes are all
 * ASCII (so that Chromium's encoding detector, which guesses an undeclared page's encoding from its non-ASCII
 * bytes, cannot decide instead of the <meta>): <meta> at many offsets, in and after the head, in raw text.
 * Stylesheets in UTF-16 and ISO-2022-JP: Chromium loads each original and rewritten sheet from a page, and
 * must request the same images.
 */
import { createMultibyteEncoder } from '@exodus/bytes/multi-byte.js';
import { describe, expect, it } from 'vitest';
import { createCssRewriter } from '../../src/css/stream.ts';
import { absolutizeHtml, transformWhole } from '../../src/html/stream.ts';
import { runAgreement, useAgreementEnvironment } from '../helpers/agreement.ts';
import { loadAndCollect } from '../helpers/chromium.ts';
import { formatMismatches } from '../helpers/compare.ts';
import type { CorpusPage } from '../helpers/corpus.ts';
import { FIXTURE_DIR } from '../helpers/corpus.ts';
import { readFileSync } from 'node:fs';

const encodeShiftJis = createMultibyteEncoder('shift_jis', { mode: 'fatal' });
const encodeJp = createMultibyteEncoder('iso-2022-jp', { mode: 'fatal' });

/** The Shift_JIS fixture's text (UTF-8 source), its charset <meta> line taken out. */
const SOURCE = readFileSync(FIXTURE_DIR + 'shift_jis.src.html', 'utf8');
const META_LINE = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">\n';
const HEAD_START = '<!DOCTYPE html>\n<html>\n<head>\n';
expect(SOURCE.startsWith(HEAD_START + META_LINE)).toBe(true);
const REST = SOURCE.slice(HEAD_START.length + META_LINE.length);

/** The fixture with its <meta> starting at byte `metaAt`, after ASCII head content (a comment). */
function lateMeta(metaAt: number, before = HEAD_START): string {
  const pad = metaAt - before.length - '<!---->\n'.length;
  return `${before}<!--${'x'.repeat(pad)}-->\n${META_LINE}${REST}`;
}

function utf16(text: string, bigEndian: boolean, bom: boolean): Buffer {
  const b = Buffer.from((bom ? '\ufeff' : '') + text, 'utf16le');
  if (bigEndian) b.swap16();
  return b;
}

const withCharset = (label: string): string => SOURCE.replace('charset=Shift_JIS', `charset=${label}`);

const pages: CorpusPage[] = [
  ...[1134, 2048, 3072, 5120, 61440].map((at) => ({
    name: `shift_jis-meta-at-${at}`,
    path: `/docs/%E6%97%A5%E6%9C%AC/late-${at}.html`,
    body: Buffer.from(encodeShiftJis(lateMeta(at))),
    contentType: 'text/html',
    covers: `Shift_JIS from a <meta> at byte ${at} of the head`,
  })),
  {
    name: 'shift_jis-meta-in-script-first',
    path: '/docs/%E6%97%A5%E6%9C%AC/script-first.html',
    body: Buffer.from(encodeShiftJis(`${HEAD_START}<script>var s = '<meta charset="euc-jp">';</script>\n${META_LINE}${REST}`)),
    contentType: 'text/html',
    covers: '"<meta charset=euc-jp>" in script text, then the real <meta>',
  },
  { name: 'utf-16le-bom', path: '/docs/u16/le-bom.html', body: utf16(withCharset('utf-16'), false, true), contentType: 'text/html', covers: 'UTF-16LE from its BOM' },
  { name: 'utf-16be-bom', path: '/docs/u16/be-bom.html', body: utf16(withCharset('utf-16'), true, true), contentType: 'text/html; charset=utf-16le', covers: 'UTF-16BE from its BOM (beats the transport charset)' },
  { name: 'utf-16le-transport', path: '/docs/u16/le.html', body: utf16(withCharset('utf-16'), false, false), contentType: 'text/html; charset=utf-16le', covers: 'UTF-16LE from the transport charset, no BOM' },
  { name: 'utf-16be-transport', path: '/docs/u16/be.html', body: utf16(withCharset('utf-16'), true, false), contentType: 'text/html; charset=utf-16be', covers: 'UTF-16BE from the transport charset, no BOM' },
  { name: 'utf-16-transport', path: '/docs/u16/plain.html', body: utf16(withCharset('utf-16'), false, false), contentType: 'text/html; charset=utf-16', covers: '"utf-16" (UTF-16LE) from the transport charset' },
  { name: 'iso-2022-jp-meta', path: '/docs/%E6%97%A5%E6%9C%AC/jis.html', body: Buffer.from(encodeJp(withCharset('ISO-2022-JP'))), contentType: 'text/html', covers: 'ISO-2022-JP from <meta>' },
  {
    name: 'iso-2022-jp-transport',
    path: '/docs/%E6%97%A5%E6%9C%AC/jis-http.html',
    body: Buffer.from(encodeJp(withCharset('ISO-2022-JP'))),
    contentType: 'text/html; charset=iso-2022-jp',
    covers: 'ISO-2022-JP from the transport charset',
  },
];

const env = useAgreementEnvironment(pages);

function charsetOf(contentType: string): string | undefined {
  return /;\s*charset=["']?([^;"'\s]+)/i.exec(contentType)?.[1];
}

describe('pages in legacy and non-ASCII-safe encodings agree with Chromium', () => {
  it('every reference of every page, relocated to another origin and path', async () => {
    const encodings = new Map<string, string>();
    const results = await runAgreement(
      async (bytes, url, contentType) => {
        const r = await absolutizeHtml(bytes, { retrieval: { url }, charset: charsetOf(contentType) });
        encodings.set(url, r.encoding);
        return r.output;
      },
      { browser: env.browser(), origins: env.origins(), pages },
    );
    const report = results.filter((r) => r.mismatches.length > 0).map((r) => `${r.page} (${r.originalUrl}):\n${formatMismatches(r.mismatches)}`);
    expect(report.join('\n\n')).toBe('');
    expect(results).toHaveLength(pages.length);
    // Rewritten indeed (not passed through): every page has non-ASCII references, and Chromium resolved them.
    for (const r of results) {
      expect(r.original.refs.length, r.page).toBeGreaterThan(10);
      expect(r.rewritten.refs.length, r.page).toBe(r.original.refs.length);
    }
    const encodingOf = (name: string): string | undefined => encodings.get(results.find((r) => r.page === name)!.originalUrl);
    expect(encodingOf('shift_jis-meta-at-61440')).toBe('Shift_JIS');
    expect(encodingOf('shift_jis-meta-in-script-first')).toBe('Shift_JIS');
    expect(encodingOf('utf-16be-bom')).toBe('UTF-16BE');
    expect(encodingOf('iso-2022-jp-meta')).toBe('ISO-2022-JP');
    // Chromium's answer for the Shift_JIS query (検索=東京 in Shift_JIS), once the late <meta> is honoured:
    const late = results.find((r) => r.page === 'shift_jis-meta-at-1134')!;
    const ref = late.original.refs.find((x) => x.raw.startsWith('日本語/ページ.html'));
    expect(ref?.resolved).toBe(`${new URL(late.originalUrl).origin}/docs/%E6%97%A5%E6%9C%AC/%E8%B3%87%E6%96%99/%E6%97%A5%E6%9C%AC%E8%AA%9E/%E3%83%9A%E3%83%BC%E3%82%B8.html?%8C%9F%8D%F5=%93%8C%8B%9E&%94%BC%8Ap=%B1%B2%B3`);
    // …and for UTF-16: the query in UTF-8 (URL Standard).
    const u16 = results.find((r) => r.page === 'utf-16le-bom')!;
    expect(u16.original.refs.find((x) => x.raw.startsWith('日本語/ページ.html'))?.resolved).toContain('?%E6%A4%9C%E7%B4%A2=%E6%9D%B1%E4%BA%AC&');
  });
});

const SHEET = 'div.a { background-image: url(画像/背景.png?色=青) }\ndiv.b { background-image: url("plain/b.png?q=1") }\ndiv.c { background-image: url(../up/c.png) }\n';
const SHEET_PAGE = '<!DOCTYPE html><meta charset="utf-8"><link rel="stylesheet" href="sheet.css"><div class="a">a</div><div class="b">b</div><div class="c">c</div>';

describe('stylesheets in UTF-16 and ISO-2022-JP agree with Chromium', () => {
  for (const [name, body, contentType] of [
    ['UTF-16LE with BOM', utf16(SHEET, false, true), 'text/css'],
    ['UTF-16BE from the transport charset', utf16(SHEET, true, false), 'text/css; charset=utf-16be'],
    ['ISO-2022-JP from the transport charset', Buffer.from(encodeJp(SHEET)), 'text/css; charset=iso-2022-jp'],
  ] as const) {
    it(`${name}: the rewritten sheet, elsewhere, makes Chromium request the same images`, async () => {
      const { a, b } = env.origins();
      const slug = name.replace(/\W+/g, '-');
      const originalDir = `/docs/css/${slug}/`;
      const rewrittenDir = `/elsewhere/css/${slug}/deeper/`;
      a.files.set(originalDir + 'sheet.css', { body, contentType });
      a.files.set(originalDir + 'page.html', { body: Buffer.from(SHEET_PAGE), contentType: 'text/html' });
      const rewritten = await transformWhole(createCssRewriter({ retrieval: { url: a.origin + originalDir + 'sheet.css' }, charset: charsetOf(contentType) }), body);
      b.files.set(rewrittenDir + 'sheet.css', { body: rewritten, contentType });
      b.files.set(rewrittenDir + 'page.html', { body: Buffer.from(SHEET_PAGE), contentType: 'text/html' });
      const allowedOrigins = [a.origin, b.origin];
      const original = await loadAndCollect(env.browser(), a.origin + originalDir + 'page.html', { allowedOrigins });
      const moved = await loadAndCollect(env.browser(), b.origin + rewrittenDir + 'page.html', { allowedOrigins });
      const images = (requests: string[]): string[] => requests.filter((u) => !u.endsWith('/sheet.css'));
      expect(images(original.requests)).toHaveLength(3);
      expect(images(moved.requests)).toEqual(images(original.requests));
    });
  }
});

describe('the encoding decision: ours and Chromium\'s document.characterSet, on ASCII pages', () => {
  it('a charset <meta> in and after the head, in raw text, in foreign content, at many offsets', async () => {
    const pad = (n: number): string => `<!--${'x'.repeat(Math.max(0, n - 7))}-->`;
    const M = '<meta charset="shift_jis">';
    const P = '<meta http-equiv="Content-Type" content="text/html; charset=euc-jp">';
    const variants: Record<string, string> = {};
    for (const at of [500, 1000, 1024, 1100, 1134, 2048, 3072, 5120, 61440, 200_000]) {
      variants[`head-${at}`] = `<!DOCTYPE html><html><head><title>t</title>${pad(at - 41)}${M}</head><body><a href="x">x</a>`;
      variants[`pragma-${at}`] = `<html><head>${pad(at - 12)}${P}</head>`;
      variants[`body-${at}`] = `<html><head><title>t</title></head><body><p>${pad(at - 44)}${M}`;
    }
    Object.assign(variants, {
      'body-text-2000': `<html><head></head><body>${'word '.repeat(400)}${M}`,
      'body-text-to-1000': `<html><head></head><body>${'w'.repeat(1000 - 25)}${M}`,
      'body-text-to-1030': `<html><head></head><body>${'w'.repeat(1030 - 25)}${M}`,
      'head-text-3000': `<html><head><title>t</title>${'word '.repeat(600)}${M}`,
      'body-tags': `<html><head></head><body>${'<p>word</p>'.repeat(500)}${M}`,
      'head-links-5000': `<html><head>${'<link rel="x" href="y">'.repeat(220)}${M}`,
      'head-style-script': `<html><head><style>${'p{}'.repeat(400)}</style><script>${'var a;'.repeat(300)}</script>${M}`,
      svg: `<html><body><svg>${pad(1500)}${M}</svg>`,
      template: `<html><head><template>${pad(1500)}${M}</template></head>`,
      noscript: `<html><head><noscript>${pad(1500)}${M}</noscript></head>`,
      'script-text': `<html><head><script>${pad(1500)}"${M}"</script>${P}`,
      'title-text': `<html><head><title>${'t'.repeat(1500)}${M}</title>${P}`,
      textarea: `<html><body><textarea>${pad(1500)}${M}</textarea>`,
      'after-html': `<html><body>${pad(1500)}</body></html>${M}`,
      'two-metas': `<html><head>${pad(1500)}<meta charset="euc-jp">${M}`,
      'bad-then-good': `<html><head>${pad(1500)}<meta charset="no-such">${M}`,
      'utf-16-label': `<html><head>${pad(1500)}<meta charset="utf-16be">`,
      'xml-declaration': `<?xml version="1.0" encoding="euc-jp"?><html><head>${pad(1500)}${M}`,
      'xml-declaration-only': `<?xml version="1.0" encoding="euc-jp"?><html><head>${pad(1500)}`,
      'xml-declaration-short': `<?xml version="1.0" encoding="euc-jp"?><html><head>`,
      'content-only': `<html><head>${pad(1500)}<meta content="text/html; charset=euc-jp">`,
    });
    const { a } = env.origins();
    const ours = new Map<string, string>();
    for (const [name, text] of Object.entries(variants)) {
      a.files.set(`/decide/${name}.html`, { body: Buffer.from(text, 'latin1'), contentType: 'text/html' });
      ours.set(name, (await absolutizeHtml(Buffer.from(text, 'latin1'), { retrieval: { url: `${a.origin}/decide/${name}.html` } })).encoding);
    }
    const differences: string[] = [];
    const context = await env.browser().newContext({ serviceWorkers: 'block' });
    try {
      const page = await context.newPage();
      for (const name of Object.keys(variants)) {
        await page.goto(`${a.origin}/decide/${name}.html`);
        const chromium = (await page.evaluate('document.characterSet')) as string;
        if (chromium.toLowerCase() !== ours.get(name)!.toLowerCase()) differences.push(`${name}: Chromium ${chromium}, ours ${ours.get(name)}`);
      }
    } finally {
      await context.close();
    }
    expect(differences).toEqual([]);
    // The shapes of the issue, as Chromium decided them:
    expect(ours.get('head-1134')).toBe('Shift_JIS');
    expect(ours.get('head-61440')).toBe('Shift_JIS');
    expect(ours.get('body-2048')).toBe('windows-1252');
  });
});
