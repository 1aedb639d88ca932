/**
 * `import 'absolutize'` on a Node.js older than `engines` (22.19): HTML, CSS and MIME work, because undici (which
 * throws while loading on such a Node) is loaded only to retrieve a URL; retrieving says which Node it needs.
 *
 * The old Node is simulated in this suite's own Node: a preload reports version 20.20.2 and removes
 * `zlib.createZstdDecompress`, whose absence is what makes undici 8 throw at load time on Node 20. Where a real
 * old Node is installed (Debian's /usr/bin/node 20 on the development machines) it is run too.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeIsTooOld } from '../../src/node-version.ts';
import { PROJECT_DIR } from '../helpers/cli.ts';

const SIMULATE_NODE_20 = 'data:text/javascript,import zlib from "node:zlib";delete zlib.createZstdDecompress;Object.defineProperty(process.versions,"node",{value:"20.20.2"})';

// Uses the built package by its name (the package's own `exports`), as a dependent project would.
const SCRIPT = `
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
const a = await import('absolutize');
const retrieval = { url: 'http://h/d/p.html' };
const html = await a.absolutizeHtml('<a href="x">', { retrieval });
const css = await text(Readable.from([Buffer.from('p{background:url(i.png)}')]).pipe(a.createCssRewriter({ retrieval })));
const mail = await a.absolutizeMime(Buffer.from('Content-Type: text/html\\r\\nContent-Location: http://m/e/\\r\\n\\r\\n<img src="y.png">'));
let fetching;
try { a.createFetchAgent(); fetching = 'no error'; } catch (e) { fetching = e.code + ' ' + e.message; }
console.log(JSON.stringify({ node: process.versions.node, html: html.output, css, mail: mail.output.toString(), fetching }));
`;

function runOn(node: string, preload: readonly string[]): Record<string, string> {
  const r = spawnSync(node, [...preload, '--input-type=module', '-e', SCRIPT], { cwd: PROJECT_DIR, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>;
}

describe('the library on a Node.js older than engines allows', () => {
  const runtimes: Array<[string, readonly string[]]> = [[process.execPath, ['--import', SIMULATE_NODE_20]]];
  const debianNode = '/usr/bin/node';
  if (existsSync(debianNode)) {
    const version = spawnSync(debianNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (nodeIsTooOld(version)) runtimes.push([debianNode, []]);
  }

  it.each(runtimes)('imports and rewrites HTML, CSS and MIME; retrieval names the Node it needs (%s)', (node, preload) => {
    const r = runOn(node, preload);
    expect(nodeIsTooOld(r['node'])).toBe(true);
    expect(r['html']).toBe('<a href="http://h/d/x">');
    expect(r['css']).toBe('p{background:url(http://h/d/i.png)}');
    expect(r['mail']).toContain('<img src="http://m/e/y.png">');
    expect(r['fetching']).toBe(`ABS_ERR_UNSUPPORTED_NODE retrieving URLs needs Node.js 22.19.0 or later (undici 8); this is Node.js ${r['node']}`);
  });

  it('nodeIsTooOld compares major, minor, patch with engines (22.19.0)', () => {
    expect(['20.20.2', '22.18.9', '21.99.0', '22.9.0'].map((v) => nodeIsTooOld(v))).toEqual([true, true, true, true]);
    expect(['22.19.0', '22.20.0', '23.0.0', '24.21.0', '100.0.0'].map((v) => nodeIsTooOld(v))).toEqual([false, false, false, false, false]);
  });
});
