/**
 * MHTML written by a real producer (issue "MIME, MHTML and mbox", Done when): Chromium saves a page with
 * relative style url(), <style>, a linked stylesheet and SVG hrefs (`Page.captureSnapshot`, as "Save as MHTML"
 * does); our rewrite makes every one of those references absolute, against each part's Content-Location.
 */
import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { createMimeRewriter } from '../../src/mime/stream.ts';
import { withBrowser } from '../helpers/chromium.ts';
import { startServer } from '../helpers/server.ts';
import { Readable } from 'node:stream';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>saved</title>
<link rel="stylesheet" href="css/site.css">
<style>.banner { background-image: url("img/banner.png"); }</style></head>
<body><div class="banner" style="background: url(img/inline.png)">x</div>
<img src="img/photo.png" alt="">
<svg width="20" height="20"><image href="img/icon.png" width="10" height="10"/><a href="../other/page.html"><text y="15">go</text></a></svg>
<a href="next.html">next</a></body></html>`;
const CSS = `body { background: url(../img/paper.png); }`;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cf00000301010018dd8db40000000049454e44ae426082', 'hex');

describe('MHTML saved by Chromium', () => {
  it('comes out with style url(), <style>, stylesheet and SVG references absolute', async () => {
    const server = await startServer(
      new Map([
        ['/site/docs/page.html', { body: Buffer.from(PAGE), contentType: 'text/html; charset=utf-8' }],
        ['/site/docs/css/site.css', { body: Buffer.from(CSS), contentType: 'text/css' }],
        ...['banner', 'inline', 'photo', 'icon', 'paper'].map((n) => [n === 'paper' ? '/site/docs/img/paper.png'.replace('docs/img', 'img') : `/site/docs/img/${n}.png`, { body: PNG, contentType: 'image/png' }] as const),
      ]),
    );
    try {
      const pageUrl = `${server.origin}/site/docs/page.html`;
      const mhtml = await withBrowser(async (browser) => {
        const page = await browser.newPage();
        await page.goto(pageUrl, { waitUntil: 'load' });
        const cdp = await page.context().newCDPSession(page);
        const { data } = (await cdp.send('Page.captureSnapshot', { format: 'mhtml' })) as { data: string };
        return Buffer.from(data, 'latin1');
      });
      // Chromium writes most attribute URLs absolute already, but not style attributes, SVG image hrefs, or url()
      // in stylesheets; the <style> becomes a part labelled cid:…, based on Snapshot-Content-Location.
      expect(mhtml.toString('latin1')).toContain(`Snapshot-Content-Location: ${pageUrl}`);
      const refs: Array<[string, string | null]> = [];
      const out: Buffer[] = [];
      const stream = createMimeRewriter({ onReference: (r) => refs.push([r.raw, r.resolved]) });
      for await (const c of Readable.from([mhtml]).pipe(stream)) out.push(c as Buffer);
      const abs = (raw: string, base = pageUrl): string => new URL(raw, base).href;
      const cssUrl = `${server.origin}/site/docs/css/site.css`;
      expect(refs).toEqual(
        expect.arrayContaining([
          ['img/banner.png', abs('img/banner.png')],
          ['img/inline.png', abs('img/inline.png')],
          ['img/icon.png', abs('img/icon.png')],
          ['../img/paper.png', abs('../img/paper.png', cssUrl)],
        ]),
      );
      expect(refs.filter(([raw, resolved]) => resolved === null || (!raw.includes(':') && resolved === raw))).toEqual([]);
      expect(stream.stats.rewrittenParts).toBeGreaterThanOrEqual(3);
      // Parsed back, the saved page's HTML holds the absolute URLs.
      const parsed = await simpleParser(Buffer.concat(out));
      const html = parsed.html as string;
      expect(html).toContain(abs('img/inline.png'));
      const stylesheets = parsed.attachments.filter((a) => a.contentType === 'text/css').map((a) => a.content.toString());
      expect(stylesheets.join('\n')).toContain(`url("${abs('img/banner.png')}")`);
      expect(stylesheets.join('\n')).toContain(`url("${abs('../img/paper.png', cssUrl)}")`);
      expect(html).toContain(`href="${abs('img/icon.png')}"`);
      expect(html).toContain(`href="${abs('../other/page.html')}"`);
    } finally {
      await server.close();
    }
  }, 120_000);
});
