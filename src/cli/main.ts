#!/usr/bin/env -S node --max-semi-space-size=4
// The command-line entry point: the only place that touches process exit state.
// --max-semi-space-size=4 (MiB): V8's young generation otherwise grows to ~100 MB of RSS while streaming,
// though the live heap stays near 15 MB; capped, a 1 GiB stream peaked at 104 MiB (docs/performance.md).

import { accessSync, constants, mkdirSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEAST_NODE, nodeIsTooOld } from '../node-version.ts';

// V8's compiled code of every module is kept on disk and reused by the next run: a small HTML page took 0.26 s of
// CPU without it, 0.22 s with it warm (docs/performance.md#start-up). The cache is Node's: the directory
// $NODE_COMPILE_CACHE, else node-compile-cache/ in the system's temporary directory (docs/cli.md);
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. A directory that cannot be written only means no cache (Node says
// so in the status it returns, ignored here), and the guard keeps anything else from failing a run.
// enableCompileCache is missing before Node 22.1, which the version check below then refuses.
// The directory is made and checked first, without a recursive mkdir: Node 24 spins forever in a recursive mkdir
// under /proc (measured: TMPDIR=/proc/x hung the command), so a directory we cannot make or write means no
// cache. With NODE_COMPILE_CACHE set, Node has already enabled the cache there itself.
try {
  if (process.env['NODE_DISABLE_COMPILE_CACHE'] === undefined && process.env['NODE_COMPILE_CACHE'] === undefined && module.enableCompileCache !== undefined) {
    const dir = join(tmpdir(), 'node-compile-cache');
    try {
      mkdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    accessSync(dir, constants.W_OK);
    module.enableCompileCache(dir);
  }
} catch {
  // No cache: the run is only slower to start.
}

// The rest is imported only after this check: the library itself loads on an older Node (undici, which needs
// 22.19, is loaded only to retrieve URLs), but the command would then fail on its first URL; one line now is
// clearer than a run that works for files and not for URLs.
if (nodeIsTooOld()) {
  process.stderr.write(`absolutize: error [ABS_ERR_UNSUPPORTED_NODE] Node.js ${process.versions.node} is too old: absolutize needs Node.js ${LEAST_NODE.join('.')} or later\n`);
  process.exit(2);
}

// A reader that stops early (`absolutize … --links - | head`) closes the pipe: that ends the run quietly, as
// for any Unix filter, instead of an unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

// The top-level guard: no exception reaches the user as a stack trace, on any path — one line with a code, and
// exit 70 (EX_SOFTWARE). SIGINT/SIGTERM remove every temporary file and say how far the run got (interrupt.ts).
const internal = (err: unknown): void => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`absolutize: error [ABS_ERR_INTERNAL] ${message.split('\n')[0]} (a bug: please report it)\n`);
  process.exit(70);
};
process.on('uncaughtException', internal);
process.on('unhandledRejection', internal);
const { installInterruptHandlers } = await import('./interrupt.ts');
installInterruptHandlers(process.stderr);
const { run } = await import('./run.ts');
const code = await run(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).catch((err: unknown) => (internal(err), 70));
process.exitCode = code;
