/**
 * The package stands on its own: `npm pack`, installed into a strict TypeScript project (`strict`,
 * `skipLibCheck: false`, `moduleResolution: nodenext`) that imports and uses the API: `tsc` passes, the project
 * runs, and the tarball holds no source map pointing at a source it does not ship and no declaration importing
 * a package without types.
 *
 * Offline: the tarball is unpacked into the project's node_modules/absolutize, and its dependencies (and
 * typescript, @types/node) are symbolic links to this checkout's own node_modules — no registry is asked.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INLINE_BELOW_BYTES } from '../../src/cli/warc-command.ts';
import { PROJECT_DIR } from '../helpers/cli.ts';

const pkg = JSON.parse(readFileSync(join(PROJECT_DIR, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> };
let work = '';
let files: string[] = [];
const consumer = (): string => join(work, 'consumer');

function run(command: string, args: readonly string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function link(name: string): void {
  const at = join(consumer(), 'node_modules', name);
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(join(PROJECT_DIR, 'node_modules', name), at, 'dir');
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'absolutize-pack-'));
  // --ignore-scripts: pack dist/ as `npm test` has just built it (prepare would build it again).
  const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], PROJECT_DIR);
  expect(packed.status, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info!.files.map((f) => f.path).sort();
  const installed = join(consumer(), 'node_modules', pkg.name);
  mkdirSync(installed, { recursive: true });
  const untar = run('tar', ['-xzf', join(work, info!.filename), '-C', installed, '--strip-components=1'], work);
  expect(untar.status, untar.stderr).toBe(0);
  for (const name of [...Object.keys(pkg.dependencies), 'typescript', '@types/node']) link(name);
  writeFileSync(join(consumer(), 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(consumer(), 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'], types: ['node'], strict: true, skipLibCheck: false, noEmit: true, exactOptionalPropertyTypes: true },
      include: ['main.ts'],
    }),
  );
  writeFileSync(join(consumer(), 'main.ts'), CONSUMER);
}, 300_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

// A consumer that uses each part of the API: HTML (string and stream), CSS, MIME, mbox, resolvers, base
// precedence, errors and limits, and the HTTP types.
const CONSUMER = `
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import {
  AbsError, absolutizeHtml, absolutizeMime, browserResolver, createCssRewriter, createHtmlRewriter, createMboxRewriter,
  establishBase, resolveLimits, rfc3986Resolver,
} from 'absolutize';
import type { BaseDecision, FetchedDocument, HtmlResult, MimePartInfo, ReferenceRecord, Warning } from 'absolutize';

const references: ReferenceRecord[] = [];
const html: HtmlResult<string> = await absolutizeHtml('<a href="x">', { retrieval: { url: 'http://h/d/p.html' }, onReference: (r) => references.push(r) });
const css = await text(Readable.from([Buffer.from('p{background:url(i.png)}')]).pipe(createCssRewriter({ fallback: 'http://c/' })));
const stream = await text(Readable.from([Buffer.from('<img src=a.png>')]).pipe(createHtmlRewriter({ retrieval: { url: 'http://s/' }, limits: resolveLimits({ maxTokenBytes: 1 << 20 }) })));
const parts: MimePartInfo[] = [];
const mail = await absolutizeMime(Buffer.from('Content-Type: text/html\\r\\nContent-Location: http://m/e/\\r\\n\\r\\n<img src="y.png">'), { onPart: (p) => parts.push(p) });
const mbox = createMboxRewriter({ fallback: 'thismessage:/' });
mbox.end();
const base: BaseDecision = establishBase({ retrieval: { url: 'http://r/' } });
const resolved: string | null = browserResolver.resolve('../q', 'http://a/b/c').href ?? rfc3986Resolver.resolve('q', 'http://a/').href;
const warning: Warning | undefined = html.warnings[0];
const status = (d: FetchedDocument): number => d.status;
try {
  resolveLimits({ maxTokenBytes: -1 });
} catch (err) {
  if (!(err instanceof AbsError)) throw err;
  console.log(JSON.stringify({ html: html.output, css, stream, mail: mail.output.toString(), parts: parts.length, base: base.url, resolved, references: references.length, code: err.code, warning: warning?.code ?? null, status: typeof status }));
}
`;

describe('the packed package', () => {
  it('ships bin, dist, docs, README, LICENSE and package.json only; no source map, no test, no source', () => {
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('bin/absolutize.js');
    expect(files).toContain('bin/rewrite-worker.js');
    expect(files).toContain('bin/worker.js');
    const outside = files.filter((f) => !f.startsWith('dist/') && !/^bin\/[a-z0-9-]+\.js$/i.test(f) && !/^docs\/[a-z-]+\.md$/.test(f) && !['README.md', 'LICENSE', 'package.json'].includes(f));
    // The README's table of docs/ links into the package too.
    expect(files).toContain('docs/cli.md');
    expect(outside).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map') || /\.test\.|\/src\/|\.ts$/.test(f.replace(/\.d\.ts$/, '')))).toEqual([]);
  });

  // The installed command is the bundle (scripts/bundle.ts): it must find package.json, its worker scripts and the
  // packages it loads at run time (undici, whatwg-url) from where npm puts it, and write what this checkout's does.
  it('the installed bin rewrites a page, an mbox and a crawl (through its worker script) as the checkout does', () => {
    const bin = join(consumer(), 'node_modules', pkg.name, 'bin', 'absolutize.js');
    // A crawl of INLINE_BELOW_BYTES or more is rewritten on worker threads (bin/rewrite-worker.js): the example's
    // gzip members again and again.
    const crawl = readFileSync(join(PROJECT_DIR, 'examples', 'crawl.warc.gz'));
    const big = join(work, 'big.warc.gz');
    writeFileSync(big, Buffer.concat(Array.from({ length: Math.ceil(INLINE_BELOW_BYTES / crawl.length) + 1 }, () => crawl)));
    for (const [input, args] of [
      [join(PROJECT_DIR, 'examples/page.html'), ['--url', 'https://example.com/docs/guide/page.html']],
      [join(PROJECT_DIR, 'examples/archive.mbox'), ['--url', 'http://example.org/list/']],
      [big, []],
    ] as const) {
      const out = (where: string): string => join(work, `${where}-${input.replace(/\W/g, '_')}`);
      const installed = run(process.execPath, [bin, input, ...args, '-o', out('installed')], consumer());
      expect(installed.status, installed.stderr).toBe(0);
      const here = run(process.execPath, [join(PROJECT_DIR, 'dist', 'cli', 'main.js'), input, ...args, '-o', out('dist')], consumer());
      expect(here.status, here.stderr).toBe(0);
      // A crawl's new records carry the time of the run and new record IDs: the same counts, then.
      if (input === big) expect(installed.stderr.replace(/ \d+ out,/, '')).toBe(here.stderr.replace(/ \d+ out,/, ''));
      else expect(readFileSync(out('installed')).equals(readFileSync(out('dist'))), input).toBe(true);
    }
    const version = run(process.execPath, [bin, '--version'], consumer());
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(PROJECT_DIR, 'package.json'), 'utf8')).version);
  });

  it('every declaration file imports only shipped files, node: modules and dependencies that ship their own types', () => {
    const declarations = files.filter((f) => f.endsWith('.d.ts'));
    const untyped: string[] = [];
    for (const f of declarations) {
      const source = readFileSync(join(consumer(), 'node_modules', pkg.name, f), 'utf8');
      for (const [, specifier] of source.matchAll(/\bfrom\s+'([^']+)'/g)) {
        if (specifier!.startsWith('.') || specifier!.startsWith('node:')) continue;
        const name = specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!;
        const dep = JSON.parse(readFileSync(join(PROJECT_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { types?: string; typings?: string; exports?: unknown };
        if (!(name in pkg.dependencies) || (dep.types === undefined && dep.typings === undefined && !JSON.stringify(dep.exports ?? '').includes('"types"'))) untyped.push(`${f}: ${specifier}`);
      }
    }
    expect(untyped).toEqual([]);
  });

  it('type-checks in a strict project with skipLibCheck false, and runs there', () => {
    const tsc = run(process.execPath, [join(PROJECT_DIR, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', consumer()], consumer());
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    const ran = run(process.execPath, ['main.ts'], consumer());
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({
      html: '<a href="http://h/d/x">',
      css: 'p{background:url(http://c/i.png)}',
      stream: '<img src=http://s/a.png>',
      mail: 'Content-Type: text/html\r\nContent-Location: http://m/e/\r\n\r\n<img src="http://m/e/y.png">',
      parts: 1,
      base: 'http://r/',
      resolved: 'http://a/q',
      references: 1,
      code: 'ABS_ERR_INVALID_OPTION',
      warning: null,
      status: 'function',
    });
  });
});
