/**
 * The command line as users run it: `bin/`, built from tsc's `dist/` by esbuild (`npm run build` runs this after
 * tsc). Why: a run of the command loaded ~130 modules one by one (each resolved, its package.json read, stat'ed,
 * compiled from the cache and linked): an empty mbox run took 751 M instructions (callgrind), 400 M bundled
 * (docs/performance.md#start-up).
 *
 * - Entry points: the command (`bin/absolutize.js`, dist/cli/main.js) and the two worker scripts the command
 *   starts by a URL next to the code that starts them (`new URL('./rewrite-worker.js', import.meta.url)` in
 *   src/warc/pool.ts, `./worker.js` in src/batch/pool.ts): all three in one directory, chunks beside them.
 * - Code splitting keeps the command's lazy imports lazy: `--help` loads the command's entry and what it imports,
 *   a mail run never loads the WARC or URL-retrieval code, and the entry stays small so that it turns Node's
 *   compile cache on before the large chunks are compiled.
 * - Packages are bundled too, except those the code loads itself at run time with createRequire (undici,
 *   whatwg-url, es-module-lexer): esbuild leaves those calls alone, and Node resolves them from bin/ as from
 *   dist/. Only those: a package that is not our own dependency (iconv-lite under libmime) may not be found from
 *   bin/ once installed, and left out, @exodus/bytes's 23 modules cost more than they save (an empty mbox run:
 *   499 M instructions, against 475 M all bundled). CommonJS packages (libmime) call `require` for Node's own
 *   modules: the banner gives every file one.
 * - `bin/` sits one level under the package root like `dist/`, so `new URL('../package.json', import.meta.url)`
 *   (src/node-version.ts) finds the same file from both.
 */
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}bin`;

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: {
    absolutize: 'dist/cli/main.js',
    'rewrite-worker': 'dist/warc/rewrite-worker.js',
    worker: 'dist/batch/worker.js',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  chunkNames: 'chunk-[hash]',
  // Comments and layout out, names and syntax kept: a comment with one character past ASCII (a "…" or "§") made
  // V8 hold a whole chunk as two-byte text, decoded, scanned for line ends and hashed for the compile cache at
  // every start: an empty mbox run took 470 M instructions, 400 M without (callgrind).
  minifyWhitespace: true,
  banner: { js: "import { createRequire as __absolutizeCreateRequire } from 'node:module'; const require = __absolutizeCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
chmodSync(`${outdir}/absolutize.js`, 0o755);
