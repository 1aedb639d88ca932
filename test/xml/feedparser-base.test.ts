/**
 * Acceptance (issue 22): the xml:base cases of feedparser's test suite (test/fixtures/feedparser-base, with its
 * licence) resolve as feedparser expects. Each file's `Expect:` names a URL feedparser computes for a member
 * (a link, an author URI, a docs URL) or a base, or HTML content with absolute links; we rewrite the file with
 * the URL feedparser fetches it from (its `Content-Location` header, which feedparser honours, for those that have
 * one) and check that the same absolute URLs come out, in the output and in the link report.
 * Cases that are not about a reference we rewrite are listed with the reason, never silently skipped.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReferenceRecord } from '../../src/base/reference-policy.ts';
import { transformWhole } from '../../src/html/stream.ts';
import { createXmlRewriter } from '../../src/xml/stream.ts';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'feedparser-base');
const files = readdirSync(DIR).filter((f) => f.endsWith('.xml')).sort();

/** Why a case is not checked here. */
function notOurs(file: string, expect: string): string | null {
  // RFC 4287 §4.2.6: an atom:id is an identifier (feed readers deduplicate on it): never rewritten.
  if (/\['id'\]/.test(expect)) return 'atom:id is an identifier, left as written';
  // base64-encoded content (mode="base64") is not markup in the document.
  if (file.includes('base64')) return 'base64 content is opaque bytes in the document';
  // CDF (Microsoft Channel Definition Format, 1997) is not a feed vocabulary we read.
  if (file.startsWith('cdf_')) return 'CDF is not Atom or RSS';
  // RSS <body> with no namespace: feedparser reads it as XHTML; it is in no namespace, so not XHTML.
  if (file.startsWith('http_item_body_')) return 'a <body> in no namespace is not XHTML';
  return null;
}

function expectedUrls(expect: string): { key: string; urls: string[] } {
  const m = /==\s*'((?:[^'\\]|\\.)*)'\s*$/.exec(expect)!;
  const value = m[1]!.replace(/\\u([0-9a-fA-F]{4})/g, (_s, h: string) => String.fromCharCode(parseInt(h, 16)));
  const key = /\['([a-z_]+)'\]\s*==/.exec(expect)?.[1] ?? '';
  if (/^https?:/.test(value)) return { key, urls: [value] };
  return { key, urls: [...value.matchAll(/(?:href|src)="([^"]+)"/g)].map((x) => x[1]!) };
}

/** `base` cases whose element holds no reference ("blah blah blah"): nothing to observe but the xml:base. */
const NO_REFERENCE_IN_ELEMENT = [
  'entry_summary_xml_base_inherit_3.xml', 'entry_summary_xml_base_inherit_4.xml',
  'feed_info_xml_base_inherit_3.xml', 'feed_info_xml_base_inherit_4.xml',
];

describe("feedparser's xml:base cases", () => {
  const checked: string[] = [];
  const skipped: Array<[string, string]> = [];
  for (const file of files) {
    const text = readFileSync(join(DIR, file), 'utf8');
    const expectLine = /^Expect:\s*(.*)$/m.exec(text)![1]!;
    const reason = notOurs(file, expectLine);
    if (reason !== null) {
      skipped.push([file, reason]);
      continue;
    }
    checked.push(file);
    it(file, async () => {
      const contentLocation = /^Header:\s*Content-Location:\s*(\S+)/m.exec(text)?.[1];
      const url = file.startsWith('http_') ? (contentLocation ?? `http://127.0.0.1:8097/tests/wellformed/base/${file}`) : null;
      const refs: ReferenceRecord[] = [];
      const out = (await transformWhole(createXmlRewriter({ retrieval: url === null ? null : { url }, dialect: 'feed', onReference: (r) => refs.push(r) }), Buffer.from(text))).toString('utf8');
      const { key, urls } = expectedUrls(expectLine);
      if (key === 'base') {
        // The base of an element shows in the link report of the references in it; an element with none
        // (text only) shows it in the xml:base that we write absolute, or not at all (inherited).
        if (refs.some((r) => r.base === urls[0])) return;
        expect(NO_REFERENCE_IN_ELEMENT, `${file}: ${expectLine}`).toContain(file);
        return;
      }
      if (file === 'feed_link_xml_base_iri.xml') {
        // href="" designates the base itself: left empty, under the (absolute) xml:base it resolves against.
        expect(out).toBe(text);
        return;
      }
      expect(urls.length, expectLine).toBeGreaterThan(0);
      for (const u of urls) {
        // feedparser writes IRIs; the browser resolver writes URIs (IDNA, percent-encoding).
        const uri = new URL(u).href;
        expect(refs.map((r) => r.resolved), `${expectLine}\n${out}`).toContain(uri);
        expect(out).toContain(uri);
      }
    });
  }
  it('covers the cases about references we rewrite', () => {
    expect(checked.length).toBeGreaterThanOrEqual(80);
    expect(skipped.length + checked.length).toBe(files.length);
  });
});
