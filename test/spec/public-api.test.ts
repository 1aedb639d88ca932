/**
 * The library as a user imports it: `import … from 'absolutize'` (package.json `exports`, the built dist/), in a
 * Node process of its own. Every capability of the CLI has its stream and its small-document call there.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../helpers/cli.ts';

function runModule(source: string): unknown {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd: PROJECT_DIR, encoding: 'utf8', timeout: 300_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe("import … from 'absolutize'", () => {
  it('has HTML, CSS, MIME and mbox streams, small-document calls, web streams and the resolvers', () => {
    const result = runModule(String.raw`
import { Readable } from 'node:stream';
import * as abs from 'absolutize';
const out = {};
out.exports = ['absolutizeHtml', 'createHtmlRewriter', 'createCssRewriter', 'rewriteCss', 'absolutizeMime', 'createMimeRewriter', 'createMboxRewriter', 'toWebTransform', 'browserResolver', 'rfc3986Resolver', 'establishBase', 'absolutizeUrl', 'AbsError']
  .filter((name) => abs[name] === undefined);
out.html = (await abs.absolutizeHtml('<a href="../x">', { retrieval: { url: 'http://h/a/b' } })).output;
const message = Buffer.from('Content-Base: http://mail.example/d/\r\nContent-Type: text/html\r\n\r\n<a href="x.html">x</a>\r\n');
const mime = await abs.absolutizeMime(message);
out.mime = { output: mime.output.toString(), references: mime.references.map((r) => [r.part, r.resolved]), parts: mime.parts.map((p) => [p.path, p.base.url]) };
// A web TransformStream around the mbox stream.
const mbox = 'From a@b Sat Nov 21 10:00:00 2026\nContent-Base: http://one.example/\nContent-Type: text/html\n\n<img src="i.png">\n';
const web = Readable.toWeb(Readable.from([Buffer.from(mbox)])).pipeThrough(abs.toWebTransform(abs.createMboxRewriter()));
let text = '';
for await (const chunk of web) text += Buffer.from(chunk).toString();
out.mbox = text;
out.css = (await new Promise((resolve) => {
  const s = abs.createCssRewriter({ retrieval: { url: 'http://h/css/s.css' } });
  let t = '';
  s.on('data', (c) => (t += c));
  s.on('end', () => resolve(t));
  s.end('p{background:url(../i.png)}');
}));
process.stdout.write(JSON.stringify(out));
`);
    expect(result).toEqual({
      exports: [],
      html: '<a href="http://h/x">',
      mime: {
        output: 'Content-Base: http://mail.example/d/\r\nContent-Type: text/html\r\n\r\n<a href="http://mail.example/d/x.html">x</a>\r\n',
        references: [['1', 'http://mail.example/d/x.html']],
        parts: [['1', 'http://mail.example/d/']],
      },
      mbox: 'From a@b Sat Nov 21 10:00:00 2026\nContent-Base: http://one.example/\nContent-Type: text/html\n\n<img src="http://one.example/i.png">\n',
      css: 'p{background:url(http://h/i.png)}',
    });
  });
});
