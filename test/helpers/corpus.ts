/**
 * The browser-agreement corpus: fixtures/browser/*.html, two pages encoded at load time
 * (windows-1252, Shift_JIS) and Roy Fielding's roytest pages read from ../shared (not copied).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMultibyteEncoder } from '@exodus/bytes/multi-byte.js';
import { createSinglebyteEncoder } from '@exodus/bytes/single-byte.js';
import type { ServedFile } from './server.ts';
import { sharedPath } from './shared.ts';

export const FIXTURE_DIR: string = fileURLToPath(new URL('../../fixtures/browser/', import.meta.url));

export interface CorpusPage {
  /** Short name, used in test titles. */
  name: string;
  /** Percent-encoded URL path where the page is really served on origin A (its "real URL"). */
  path: string;
  body: Buffer;
  contentType: string;
  /** Table rows (html-url-attributes.md) and reference kinds this page exercises. */
  covers: string;
}

function fixture(file: string): Buffer {
  return readFileSync(FIXTURE_DIR + file);
}

const encodeWindows1252 = createSinglebyteEncoder('windows-1252', { mode: 'fatal' });
const encodeShiftJis = createMultibyteEncoder('shift_jis', { mode: 'fatal' });

const HTML_PAGES: ReadonlyArray<{ file: string; covers: string }> = [
  {
    file: 'current.html',
    covers:
      '§1 a/area href+ping, link href (stylesheet, icon, preload+imagesrcset, modulepreload, alternate, canonical, manifest), ' +
      'img/source src+srcset (commas in URL, w/x descriptors, trailing commas, bad descriptors), picture, audio/video/source/track src, ' +
      'video poster, iframe/embed/script src, input type=image src, form action ("" too), formaction, blockquote/q/del/ins cite, ' +
      'object data, itemid/itemtype/itemprop, usemap, importmap, speculationrules, <template> contents; ' +
      'reference kinds ../ ./ ?q //host /abs #frag empty spaces &amp; mailto: javascript:',
  },
  {
    file: 'base.html',
    covers:
      '§1 base href="sub/dir/": empty/#frag/?q against the base, ../ above root, backslashes, tab/newline in URL, ' +
      'form without/with empty action (document URL, not base), meta refresh after base, <style> url() against base, srcdoc under a base',
  },
  { file: 'two-base.html', covers: '§1 base: base without href, then two base[href] (first wins; the second\'s own href)' },
  {
    file: 'refresh.html',
    covers:
      '§1 meta http-equiv=refresh content: 15 syntaxes (URL=, quotes, unterminated quote, ".5", no "url=", "URLx=", tab, entities), ' +
      'each also in a srcdoc iframe with delay 0 so Chromium really navigates',
  },
  {
    file: 'css.html',
    covers:
      '§1 style="" and <style>: url() unquoted/quoted/with spaces/escaped/entity-quoted, @import string/url()/media, ' +
      '@font-face src, image-set, -webkit-image-set, @media/@supports/@keyframes/@page, @namespace (must stay), url(#id), data:',
  },
  {
    file: 'svg.html',
    covers:
      '§3 SVG href/xlink:href on a, image, use, feImage, script, pattern, linearGradient, radialGradient, filter, textPath, ' +
      'mpath, animate, set, animateTransform, tref, cursor, color-profile, font-face-uri; presentation attributes fill, stroke, ' +
      'clip-path, mask, filter, marker-start/-mid/-end, cursor; SVG <style>; xmlns, xmlns:xlink, xml:base; foreignObject',
  },
  { file: 'mathml.html', covers: '§3 MathML href on any element, mglyph src, math altimg, definitionURL, style=""' },
  {
    file: 'legacy.html',
    covers:
      '§2 body/table/thead/tbody/tfoot/tr/td/th background, img lowsrc/dynsrc/longdesc/href, iframe longdesc, bgsound/layer/ilayer/fig/overlay src, ' +
      'object codebase/classid/archive/usemap, param value valuetype=ref, applet code/codebase/archive/object, embed pluginspage/pluginurl/href, ' +
      'head profile, html manifest, command/menuitem icon, isindex action, input usemap, datasrc, data-src/-srcset/-original/-lazy-src/-lazy-srcset, ' +
      '§3 RDFa about/resource/href/src/vocab/prefix, meta og:image/og:url/twitter:image/msapplication-* (optional rewrite)',
  },
  { file: 'frameset.html', covers: '§2 frame src/longdesc under a base, noframes' },
  {
    file: 'foreign-content.html',
    covers:
      'issue 11: <svg> closed by </a>, </p>, </div>, a table cell; ignored integration-point end tag; breakout start tag in nested <svg>; ' +
      'mglyph in a MathML text integration point; annotation-xml encoding=text/html; style, xmp, svg, title in <select> (customizable select parsing); ' +
      'then script, style, xmp, textarea, title text and later URLs',
  },
  {
    file: 'srcdoc.html',
    covers: '§1 iframe srcdoc: parent base applies inside, nested srcdoc (double escaping), srcdoc with its own base, srcdoc+src',
  },
];

/** Every corpus page, ready to serve. */
export function loadCorpus(): CorpusPage[] {
  const pages: CorpusPage[] = HTML_PAGES.map(({ file, covers }) => ({
    name: file,
    path: '/docs/' + file,
    body: fixture(file),
    contentType: 'text/html; charset=utf-8',
    covers,
  }));
  pages.push({
    name: 'windows-1252',
    path: '/docs/latin/page-1252.html',
    body: Buffer.from(encodeWindows1252(fixture('windows-1252.src.html').toString('utf8'))),
    contentType: 'text/html; charset=windows-1252',
    covers: 'windows-1252 from the HTTP header: non-ASCII path (UTF-8) and query (windows-1252), non-encodable query, CSS, srcdoc (UTF-8)',
  });
  pages.push({
    name: 'shift_jis',
    path: '/docs/%E6%97%A5%E6%9C%AC/sjis.html',
    body: Buffer.from(encodeShiftJis(fixture('shift_jis.src.html').toString('utf8'))),
    contentType: 'text/html',
    covers: 'Shift_JIS from <meta>, page URL with non-ASCII path, non-ASCII base, 0x5C/0x7E, CSS, srcdoc, formaction, refresh',
  });
  pages.push({
    name: 'utf8-labelled-gb2312',
    path: '/docs/gb/utf8-labelled-gb2312.html',
    body: fixture('utf8-labelled-gb2312.html'),
    contentType: 'text/html',
    covers: 'issue 11: a UTF-8 page whose <meta> says gb2312: <style> and style="" with bytes not valid in GBK, their url()s',
  });
  const roy = sharedPath('conformance/uri/fielding-roytest/');
  for (const file of readdirSync(roy).filter((f) => /^roytest\d+\.html$/.test(f)).sort()) {
    pages.push({
      name: file,
      path: '/docs/roy/' + file,
      body: readFileSync(roy + file),
      contentType: 'text/html',
      covers: 'Roy Fielding\'s RFC 2396 examples under an absolute <BASE>',
    });
  }
  return pages;
}

/** Files the pages use on origin A besides themselves (external stylesheet with its own relative url()s). */
export function corpusAssets(): Map<string, ServedFile> {
  return new Map([['/docs/assets/ext.css', { body: fixture('assets/ext.css'), contentType: 'text/css' }]]);
}

/**
 * Rows of html-url-attributes.md that the corpus must exercise, as [element, attribute] pairs that
 * must appear among the references collected from the original pages.
 */
export const REQUIRED_COVERAGE: ReadonlyArray<readonly [element: string, attribute: string]> = [
  // §1
  ['a', 'href'], ['area', 'href'], ['link', 'href'], ['base', 'href'],
  ['audio', 'src'], ['embed', 'src'], ['iframe', 'src'], ['img', 'src'], ['input', 'src'], ['script', 'src'],
  ['source', 'src'], ['track', 'src'], ['video', 'src'],
  ['img', 'srcset'], ['source', 'srcset'], ['link', 'imagesrcset'],
  ['form', 'action'], ['button', 'formaction'], ['input', 'formaction'],
  ['blockquote', 'cite'], ['del', 'cite'], ['ins', 'cite'], ['q', 'cite'],
  ['object', 'data'], ['video', 'poster'], ['a', 'ping'], ['area', 'ping'],
  ['html', 'itemid'], ['div', 'itemid'], ['div', 'itemtype'], ['span', 'itemprop'],
  ['meta', 'content'], ['div', 'style/background-image'], ['iframe', 'srcdoc'],
  ['style', 'sheet/0/@import'], ['script', 'importmap/imports/0/key'], ['script', 'speculationrules/prefetch/0/urls/0'],
  ['img', 'usemap'],
  // §2
  ['body', 'background'], ['table', 'background'], ['thead', 'background'], ['tbody', 'background'],
  ['tfoot', 'background'], ['tr', 'background'], ['td', 'background'], ['th', 'background'],
  ['img', 'longdesc'], ['iframe', 'longdesc'], ['frame', 'longdesc'],
  ['frame', 'src'], ['bgsound', 'src'], ['layer', 'src'], ['ilayer', 'src'], ['fig', 'src'], ['overlay', 'src'],
  ['img', 'lowsrc'], ['img', 'dynsrc'],
  ['object', 'codebase'], ['object', 'classid'], ['object', 'archive'],
  ['applet', 'archive'], ['applet', 'code'], ['applet', 'object'], ['applet', 'codebase'],
  ['head', 'profile'], ['html', 'manifest'], ['command', 'icon'], ['menuitem', 'icon'],
  ['input', 'usemap'], ['object', 'usemap'], ['param', 'value'], ['embed', 'pluginspage'], ['embed', 'pluginurl'],
  ['img', 'href'], ['embed', 'href'], ['isindex', 'action'], ['div', 'datasrc'],
  ['img', 'data-src'], ['img', 'data-srcset'], ['img', 'data-original'], ['img', 'data-lazy-src'], ['img', 'data-lazy-srcset'],
  ['svg', 'xml:base'], ['svg', 'xmlns'], ['svg', 'xmlns:xlink'],
  // §3
  ['a', 'xlink:href'], ['image', 'href'], ['image', 'xlink:href'], ['use', 'href'], ['use', 'xlink:href'],
  ['feImage', 'href'], ['feImage', 'xlink:href'], ['script', 'xlink:href'], ['pattern', 'xlink:href'],
  ['linearGradient', 'href'], ['radialGradient', 'href'], ['filter', 'href'], ['textPath', 'href'], ['mpath', 'href'],
  ['animate', 'href'], ['set', 'xlink:href'], ['animateTransform', 'href'], ['tref', 'xlink:href'], ['cursor', 'href'],
  ['color-profile', 'href'], ['font-face-uri', 'href'],
  ['rect', 'fill'], ['rect', 'stroke'], ['rect', 'clip-path'], ['rect', 'mask'], ['rect', 'filter'],
  ['path', 'marker-start'], ['path', 'marker-mid'], ['path', 'marker-end'], ['rect', 'cursor'],
  ['mrow', 'href'], ['mi', 'href'], ['math', 'href'], ['mglyph', 'src'], ['math', 'altimg'],
  ['csymbol', 'definitionURL'], ['ci', 'definitionURL'],
  ['div', 'about'], ['div', 'resource'], ['span', 'href'], ['span', 'src'], ['body', 'vocab'], ['body', 'prefix'],
];
