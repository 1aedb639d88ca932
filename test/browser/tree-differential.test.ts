/**
 * Tree construction against Chromium's DOM (issue 19): each shape the issue lists, with what Chromium 153
 * (`DOMParser`, scripting disabled) makes of it written into the test, and the differential over generated
 * documents (test/helpers/tree-differential.ts).
 *
 * The bounded run here checks TREE_DIFF_DOCS documents (default 2,000); the full run is
 *   TREE_DIFF_DOCS=20000 npx vitest run test/browser/tree-differential.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomOracle } from '../helpers/dom-oracle.ts';
import type { DomDump } from '../helpers/dom-oracle.ts';
import { compareDocument, differentialCorpus, rewrite } from '../helpers/tree-differential.ts';

const DOCS = Number(process.env['TREE_DIFF_DOCS'] ?? 2000);
const SEED = Number(process.env['TREE_DIFF_SEED'] ?? 19);

let oracle: DomOracle;
beforeAll(async () => {
  oracle = await DomOracle.open();
});
afterAll(async () => {
  await oracle.close();
});

/** The elements of Chromium's DOM as "ns:name" (attributes after a space), in tree order. */
function elements(dump: DomDump): string[] {
  return dump.nodes.flatMap((n) => (n.kind === 'element' ? [`${n.ns}:${n.name}${n.attrs.map(([k, v]) => ` ${k}=${v}`).join('')}`] : n.kind === 'text' ? [`"${n.data}"`] : []));
}

/** Our references (element attribute raw) and output for a document. */
async function ours(html: string): Promise<{ refs: string[]; output: string }> {
  const r = await rewrite(html);
  return { refs: r.references.map((x) => `${x.element} ${x.attribute ?? '#text'} ${x.raw}`), output: r.output };
}

const PAGE = 'http://absolutize.test/a/b/';

describe('each shape of issue 19, as Chromium 153 parses it', () => {
  it('CDATA at an integration point: Chromium reads a bogus comment and markup (as parse5 8.1; the standard says CDATA)', async () => {
    const html = '<svg><foreignObject><![CDATA[ > <img src="x.png"> ]]></foreignObject></svg><math><mi><![CDATA[ a<b ]]></mi></math>';
    const [dom] = await oracle.parse([html]);
    expect(elements(dom!)).toEqual(['html:html', 'html:head', 'html:body', 'svg:svg', 'svg:foreignObject', '" "', 'html:img src=x.png', '" ]]>"', 'mathml:math', 'mathml:mi']);
    const r = await ours(html);
    expect(r.refs).toEqual(['img src x.png']);
    // …and a CDATA at <desc> that holds "<textarea>" leaves everything after it as RCDATA text, in Chromium too.
    const desc = '<svg><desc><![CDATA[ if (a > b) el.innerHTML = "<textarea>"; ]]></desc></svg><a href=x>';
    const [d2] = await oracle.parse([desc]);
    expect(elements(d2!).slice(-2)).toEqual(['html:textarea', '""; ]]></desc></svg><a href=x>"']);
    expect((await ours(desc)).refs).toEqual([]);
  });

  it('<input> and a nested <select> close an open select', async () => {
    const html = '<select><input src="i.png" type=image><img src="a.png"></select><select><select><a href="b.html">';
    const [dom] = await oracle.parse([html]);
    expect(elements(dom!)).toEqual(['html:html', 'html:head', 'html:body', 'html:select', 'html:input src=i.png type=image', 'html:img src=a.png', 'html:select', 'html:a href=b.html']);
    const r = await ours(html);
    expect(r.refs).toEqual(['input src i.png', 'img src a.png', 'a href b.html']);
    // A nested select is dropped: its attributes are no reference.
    expect((await ours('<select><select src="s.png">')).refs).toEqual([]);
  });

  it('a <select> in a table selects no insertion mode: the table\'s own tags close it (no "in select in table")', async () => {
    // Each found by the 20,000-document differential, minimized against Chromium 153.
    const docs = [
      '<table><select><col href="c.html">',
      '<table><select><marquee><select><tr src="red">',
      '<table><select><p><svg><desc><select><input src="i.png">',
      '<table><select><input type=hidden src="h.png"><input src="i.png"><img src="j.png">',
      '<table><tr><select></select><td><select><option><img src="k.png"></select><td background="z.png">',
    ];
    const doms = await oracle.parse(docs);
    expect(doms.map((d) => elements(d).slice(3))).toEqual([
      ['html:select', 'html:table', 'html:colgroup', 'html:col href=c.html'],
      ['html:select', 'html:marquee', 'html:select', 'html:table', 'html:tbody', 'html:tr src=red'],
      ['html:select', 'html:p', 'svg:svg', 'svg:desc', 'html:select', 'html:input src=i.png', 'html:table'],
      ['html:select', 'html:input type=hidden src=h.png', 'html:input src=i.png', 'html:img src=j.png', 'html:table'],
      ['html:select', 'html:table', 'html:tbody', 'html:tr', 'html:td', 'html:select', 'html:option', 'html:img src=k.png', 'html:td background=z.png'],
    ]);
    const refs = await Promise.all(docs.map(async (d) => (await ours(d)).refs));
    expect(refs).toEqual([
      ['col href c.html'],
      ['tr src red'],
      ['input src i.png'],
      ['input src h.png', 'input src i.png', 'img src j.png'],
      ['img src k.png', 'td background z.png'],
    ]);
    expect((await ours(docs[0]!)).output).toBe(`<table><select><col href="${PAGE}c.html">`);
  });

  it('whitespace after </html> of a frameset document brings back a formatting element of the replaced body', async () => {
    // "After after frameset": whitespace is processed "in body", which reconstructs the active formatting
    // elements; other characters are ignored. Chromium 153 has the <a> (and its href) after the frameset.
    const docs = ['<o><a href="f2.html"><frameset></frameset></html> r', '<a href="f2.html"><frameset></frameset></html>r&#32;', '<a href="f2.html"><frameset></frameset></html>r'];
    const doms = await oracle.parse(docs);
    expect(doms.map((d) => elements(d))).toEqual([
      ['html:html', 'html:head', 'html:frameset', 'html:a href=f2.html', '" "'],
      ['html:html', 'html:head', 'html:frameset', 'html:a href=f2.html', '" "'],
      ['html:html', 'html:head', 'html:frameset'],
    ]);
    const rs = await Promise.all(docs.map((d) => ours(d)));
    expect(rs.map((r) => r.refs)).toEqual([['a href f2.html'], ['a href f2.html'], []]);
    expect(rs[0]!.output).toBe(`<o><a href="${PAGE}f2.html"><frameset></frameset></html> r`);
    expect(rs[2]!.output).toBe(docs[2]);
  });

  it('</select> pops through a <div>: a <style> after it is HTML (raw text), not SVG', async () => {
    const html = '<select><div><svg></select><style>p{background:url(s.png)}</style><a href="<x>">';
    const [dom] = await oracle.parse([html]);
    expect(elements(dom!).slice(3)).toEqual(['html:select', 'html:div', 'svg:svg', 'html:style', '"p{background:url(s.png)}"', 'html:a href=<x>']);
    expect((await ours(html)).output).toBe('<select><div><svg></select><style>p{background:url(http://absolutize.test/a/b/s.png)}</style><a href="http://absolutize.test/a/b/%3Cx%3E">');
  });

  it('</b>, </u>, </nobr> for a formatting element opened before the select leave svg/math inside it open; one opened inside pops them', async () => {
    const html = '<b><select><svg></b><style>g{fill:url(f.png)}</style></svg></select>';
    const [dom] = await oracle.parse([html, '<select><b><svg></b><style>x</style>']);
    expect(elements(dom!).slice(3)).toEqual(['html:b', 'html:select', 'svg:svg', 'svg:style', '"g{fill:url(f.png)}"']);
    expect((await ours(html)).refs).toEqual(['style #text f.png']);
    const [, inner] = await oracle.parse([html, '<select><b><svg></b><style>x</style>']);
    expect(elements(inner!).slice(3)).toEqual(['html:select', 'html:b', 'svg:svg', 'html:style', '"x"']);
    const cdata = '<u><select><math></u><mi><![CDATA[<a href="c.html">]]></mi></math>';
    const [d3] = await oracle.parse([cdata]);
    // (<mi> is a text integration point: the CDATA is a bogus comment there, its "]]>" text.)
    expect(elements(d3!).slice(3)).toEqual(['html:u', 'html:select', 'mathml:math', 'mathml:mi', '"]]>"']);
    expect((await ours(cdata)).refs).toEqual([]);
  });

  it('SVG <style> with CDATA, a comment and child markup: its child text is the stylesheet', async () => {
    const html = '<svg><style><![CDATA[a{b:url(c.png)}]]><!--x-->d{e:url(f.png)}<g>h{i:url(j.png)}</g>k{l:url(m&amp;.png)}</style></svg>';
    const [dom] = await oracle.parse([html]);
    expect(elements(dom!).slice(3)).toEqual(['svg:svg', 'svg:style', '"a{b:url(c.png)}"', '"d{e:url(f.png)}"', 'svg:g', '"h{i:url(j.png)}"', '"k{l:url(m&.png)}"']);
    const r = await ours(html);
    expect(r.output).toBe(`<svg><style><![CDATA[a{b:url(${PAGE}c.png)}]]><!--x-->d{e:url(${PAGE}f.png)}<g>h{i:url(j.png)}</g>k{l:url(${PAGE}m&amp;.png)}</style></svg>`);
  });

  it('an HTML <style> still open at the end of input is a stylesheet', async () => {
    const html = '<p><style>a{background:url(open.png)}';
    const [dom] = await oracle.parse([html]);
    expect(elements(dom!).slice(3)).toEqual(['html:p', 'html:style', '"a{background:url(open.png)}"']);
    expect((await ours(html)).output).toBe(`<p><style>a{background:url(${PAGE}open.png)}`);
  });

  it('start tags the tree builder drops are neither reported nor rewritten', async () => {
    const html = '<head><link href="h.css"></head><head><link href="h2.css"><frame src="f.html"><col background="c.png"><form><form action="f2"></form><frameset></frameset><a href="after.html"><frame src="f2.html">';
    const [dom] = await oracle.parse([html]);
    // Chromium: the <link>s go into the head (a second <head> is dropped, its <link> is not); the body that the
    // <frame>, <col> and <form>s implied is replaced by the frameset.
    expect(elements(dom!)).toEqual(['html:html', 'html:head', 'html:link href=h.css', 'html:link href=h2.css', 'html:frameset']);
    const r = await ours(html);
    expect(r.refs).toEqual(['link href h.css', 'link href h2.css']);
    expect(r.output).toBe(html.replace('"h.css"', `"${PAGE}h.css"`).replace('"h2.css"', `"${PAGE}h2.css"`));
    // A body that a <frameset> replaces is not in the document: nothing read in it is a reference.
    const replaced = '<a href="a.html"><video poster="p.jpg"></video><style>p{background:url(s.png)}</style><frameset><frame src="f.html"></frameset>';
    const [rb] = await oracle.parse([replaced]);
    expect(elements(rb!)).toEqual(['html:html', 'html:head', 'html:frameset', 'html:frame src=f.html']);
    expect((await ours(replaced)).refs).toEqual(['frame src f.html']);
    // A second <body> adds only the attributes the first lacks.
    const body = '<body background="a.png"><p><body background="b.png" text=red style="background:url(c.png)">';
    const [b] = await oracle.parse([body]);
    expect(elements(b!)[2]).toBe('html:body background=a.png text=red style=background:url(c.png)');
    expect((await ours(body)).refs).toEqual(['body background a.png', 'body style c.png']);
  });

  it('--exact-base takes the first <base href> in tree order: a foster-parented one comes before the table it is in', async () => {
    const html = '<table><tr><td><base href="A/"></td></tr><base href="B/"></table><a href="x">';
    const [dom] = await oracle.parse([html]);
    expect(dom!.baseURI).toBe(`${PAGE}B/`);
    expect(elements(dom!).slice(3, 5)).toEqual(['html:base href=B/', 'html:table']);
    expect((await ours(html)).output).toBe(`<table><tr><td><base href="${PAGE}A/"></td></tr><base href="${PAGE}B/"></table><a href="${PAGE}B/x">`);
    // A base before the table stays first; so does one in an earlier, closed table.
    const earlier = '<table><tr><td><base href="A/"></td></tr></table><table><base href="B/"></table><a href="x">';
    const [d2] = await oracle.parse([earlier]);
    expect(d2!.baseURI).toBe(`${PAGE}A/`);
    expect((await ours(earlier)).output).toContain(`<a href="${PAGE}A/x">`);
  });
});

describe('the Chromium differential', () => {
  it(`${DOCS} generated and injected documents: the same tree, values, text and references as Chromium's DOM`, async () => {
    const docs = differentialCorpus(DOCS, SEED);
    const rewritten = [];
    for (const d of docs) rewritten.push(await rewrite(d));
    const before = await oracle.parse(docs);
    const after = await oracle.parse(rewritten.map((r) => r.output));
    const failures: string[] = [];
    let selectedcontent = 0;
    for (let i = 0; i < docs.length; i++) {
      const diffs = compareDocument(before[i]!, after[i]!, rewritten[i]!.references);
      if (diffs.length === 0) continue;
      // Known, and listed: <selectedcontent> takes a copy of the selected <option>'s content, and what the
      // parser put in it is gone from Chromium's DOM ("update a select's selectedcontent", a DOM step after
      // tree construction); the rewriter still rewrites what was there.
      if (/<selectedcontent/i.test(docs[i]!) && diffs.every((d) => d.startsWith("reported, not in Chromium's DOM"))) {
        selectedcontent++;
        continue;
      }
      failures.push(`${JSON.stringify(docs[i])}\n  ${diffs.join('\n  ')}`);
    }
    console.info(`tree differential: ${docs.length} documents (seed ${SEED}), ${failures.length} with differences, ${selectedcontent} with <selectedcontent> content replaced`);
    expect(failures.slice(0, 20).join('\n\n')).toBe('');
    expect(selectedcontent).toBeLessThan(docs.length / 100);
  }, 3_600_000); // a guard against a hang (the full run is 20,000 documents), not a measure
});
