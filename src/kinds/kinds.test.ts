import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import { chunkings } from '../../test/helpers/chunks.ts';
import { findModuleReferences, initModuleLexer, sourceMappingUrl } from '../js/module-references.ts';
import { findManifestUrls } from '../manifest/manifest.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import { createKindRewriter, detectKind, kindOfContentType, sniffKind } from './index.ts';
import type { ContentKind, KindRewriterOptions } from './index.ts';

async function run(kind: ContentKind, input: string | Buffer, url: string, options: KindRewriterOptions = {}): Promise<{ out: string; refs: ReferenceRecord[]; warnings: string[] }> {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  let first: { out: string; refs: ReferenceRecord[]; warnings: string[] } | null = null;
  for (const chunks of chunkings(bytes, 4)) {
    const refs: ReferenceRecord[] = [];
    const warnings: string[] = [];
    const out: Buffer[] = [];
    for await (const c of Readable.from(chunks, { objectMode: false }).pipe(createKindRewriter(kind, { retrieval: { url }, onReference: (r) => refs.push(r), onWarning: (w) => warnings.push(w.code), ...options }))) out.push(c as Buffer);
    const r = { out: Buffer.concat(out).toString('utf8'), refs, warnings };
    if (first === null) first = r;
    else expect(r).toEqual(first);
  }
  return first!;
}

describe('JavaScript modules', () => {
  const src = `import { a } from './a.js';\nimport b from "../b.js" with { type: "json" };\nexport { c } from './c.js';\nimport 'bare';\nimport x from 'https://cdn.example/x.js';\nimport y from 'lib/y.js';\nconst m = await import('./lazy.js');\nimport(name);\nimport('./' + name);\nconst w = new URL('./a.wasm', import.meta.url);\nconst w2 = new  URL(\n  "b\\u002ewasm" ,\n  import.meta.url\n);\nconst no1 = foo('./no.wasm', import.meta.url);\nconst no2 = new URL('./no.wasm', document.baseURI);\nconst no3 = new URL(/* c */ './no.wasm', import.meta.url);\n// import './commented.js'\nconst s = "import './in-string.js'";\nconst t = \`import('./in-template.js')\`;\n//# sourceMappingURL=app.js.map\n`;
  it('rewrites URL-like specifiers, literal dynamic imports and new URL(literal, import.meta.url); nothing else', async () => {
    const { out, refs } = await run('js', src, 'https://ex.com/js/app.js');
    expect(out).toBe(src
      .replace("'./a.js'", "'https://ex.com/js/a.js'")
      .replace('"../b.js"', '"https://ex.com/b.js"')
      .replace("'./c.js'", "'https://ex.com/js/c.js'")
      .replace("import('./lazy.js')", "import('https://ex.com/js/lazy.js')")
      .replace("'./a.wasm'", "'https://ex.com/js/a.wasm'")
      .replace('"b\\u002ewasm"', '"https://ex.com/js/b.wasm"')
      .replace('sourceMappingURL=app.js.map', 'sourceMappingURL=https://ex.com/js/app.js.map'));
    expect(refs.map((r) => r.attribute)).toEqual(['import', 'import', 'import', 'dynamic-import', 'new-url', 'new-url', 'source-map']);
    expect(refs[0]).toMatchObject({ element: 'script', line: 1, column: 19, baseSource: 'retrieval' });
  });
  it('a classic script (no module syntax): only literal import() and its source map; a syntax error leaves it all', async () => {
    await initModuleLexer();
    expect(findModuleReferences(`fetch('./x.json'); import('./y.js'); location = './z';`)?.map((r) => r.value)).toEqual(['./y.js']);
    const classic = await run('js', `var x = 1;\n//# sourceMappingURL=x.js.map`, 'https://ex.com/x.js');
    expect(classic.out).toBe(`var x = 1;\n//# sourceMappingURL=https://ex.com/x.js.map`);
    const broken = await run('js', `import { from './a.js';`, 'https://ex.com/x.js');
    expect(broken.out).toBe(`import { from './a.js';`);
  });
  it('sourceMappingURL: only in trailing comment lines', () => {
    expect(sourceMappingUrl('x();\n//# sourceMappingURL=a.map\nfoo();\n')).toBeNull();
    expect(sourceMappingUrl('x();\n//# sourceMappingURL=a.map\n// trailing\n\n')?.value).toBe('a.map');
    expect(sourceMappingUrl('x(); //# sourceMappingURL=a.map')).toBeNull();
  });
  it('non-UTF-8 bytes pass through; a BOM is kept', async () => {
    const bad = Buffer.from([0x69, 0x6d, 0x70, 0xff]);
    const r = await run('js', bad, 'https://ex.com/x.js');
    expect(Buffer.from(r.out, 'utf8').equals(Buffer.from(bad.toString('utf8'), 'utf8'))).toBe(true);
    expect(r.warnings).toEqual(['undecodable-value']);
    expect((await run('js', "\ufeffimport './a.js';", 'https://ex.com/j/x.js')).out).toBe("\ufeffimport 'https://ex.com/j/a.js';");
  });
  it('maxWholeTextBytes: at the limit rewritten, past it passed through', async () => {
    const text = "import './a.js';";
    for (const [limit, rewritten] of [[text.length, true], [text.length - 1, false]] as const) {
      const r = await run('js', text, 'https://ex.com/x.js', { limits: { ...DEFAULT_LIMITS, maxWholeTextBytes: limit } });
      expect(r.out.includes('https://ex.com/a.js')).toBe(rewritten);
      expect(r.warnings.includes('document-too-large')).toBe(!rewritten);
    }
  });
});

describe('web app manifests', () => {
  it('every URL member against the manifest URL, in place; id left as it is', async () => {
    const manifest = `{"name":"A","start_url":"./?a=1","scope" : "../","id":"x",\n"icons":[{"src":"i/1.png","sizes":"1x1"},{"src":"https://cdn.example/2.png"}],\n"screenshots":[{"src":"s.png"}],"shortcuts":[{"url":"/n","icons":[{"src":"n.png"}]}],"share_target":{"action":"share"},"protocol_handlers":[{"protocol":"web+x","url":"h?%s"}]}`;
    const { out, refs } = await run('manifest', manifest, 'https://ex.com/app/m.webmanifest');
    expect(out).toBe(manifest.replace('"./?a=1"', '"https://ex.com/app/?a=1"').replace('"../"', '"https://ex.com/"').replace('"i/1.png"', '"https://ex.com/app/i/1.png"').replace('"s.png"', '"https://ex.com/app/s.png"').replace('"/n"', '"https://ex.com/n"').replace('"n.png"', '"https://ex.com/app/n.png"').replace('"share"', '"https://ex.com/app/share"').replace('"h?%s"', '"https://ex.com/app/h?%s"'));
    expect(refs.map((r) => r.attribute)).toEqual(['start_url', 'scope', 'icons[0].src', 'icons[1].src', 'screenshots[0].src', 'shortcuts[0].url', 'shortcuts[0].icons[0].src', 'share_target.action', 'protocol_handlers[0].url']);
    expect(refs[0]).toMatchObject({ element: 'manifest', line: 1 });
  });
  it('invalid JSON is left as it is', async () => {
    expect(findManifestUrls('{"start_url": "a",}')).toBeNull();
    const r = await run('manifest', '{"start_url": "a",}', 'https://ex.com/m.json');
    expect(r.out).toBe('{"start_url": "a",}');
    expect(r.warnings).toEqual(['invalid-json']);
  });
});

describe('which rewriter', () => {
  it('by content type, then by the first bytes, then by name', () => {
    expect(kindOfContentType('image/svg+xml')).toBe('svg');
    expect(kindOfContentType('application/atom+xml')).toBe('feed');
    expect(kindOfContentType('application/x-javascript')).toBe('js');
    expect(kindOfContentType('application/manifest+json')).toBe('manifest');
    expect(kindOfContentType('text/plain')).toBeNull();
    expect(sniffKind(Buffer.from('\ufeff<?xml version="1.0"?>\n<!-- c --><!DOCTYPE rss [<!ENTITY x "y">]>\n<rss version="2.0">'))).toBe('feed');
    expect(sniffKind(Buffer.from('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'))).toBe('sitemap');
    expect(sniffKind(Buffer.from('<html xmlns="http://www.w3.org/1999/xhtml">'))).toBe('xhtml');
    expect(sniffKind(Buffer.from('<!doctype html><html>'))).toBeNull();
    expect(detectKind({ essence: 'text/xml', head: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg">') })).toBe('svg');
    expect(detectKind({ essence: 'application/xml', head: Buffer.from('<config/>') })).toBe('xml');
    expect(detectKind({ essence: null, name: 'a/b.webmanifest' })).toBe('manifest');
  });
});

describe('inline module scripts in HTML', () => {
  it('imports and new URL(…, import.meta.url) against the document base (Chromium: import.meta.url is the base); classic scripts untouched', async () => {
    const { absolutizeHtml } = await import('../html/stream.ts');
    const html = `<base href="/b/"><script type="module">import a from './a.js'; const w = new URL('w.wasm', import.meta.url);</script><script>import('./classic.js')</script><script type=module>import {</script>`;
    const r = await absolutizeHtml(Buffer.from(html), { retrieval: { url: 'https://ex.com/dir/page.html' } });
    expect(r.output.toString()).toBe(`<base href="https://ex.com/b/"><script type="module">import a from 'https://ex.com/b/a.js'; const w = new URL('https://ex.com/b/w.wasm', import.meta.url);</script><script>import('./classic.js')</script><script type=module>import {</script>`);
    expect(r.warnings.map((w) => w.code)).toEqual(['invalid-script']);
  });
});
