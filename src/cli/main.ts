#!/usr/bin/env -S node --max-semi-space-size=4
// The command-line entry point: the only place that touches process exit state.
// --max-semi-space-size=4 (MiB): V8's young generation otherwise grows to ~100 MB of RSS while streaming,
// though the live heap stays near 15 MB; capped, a 1 GiB stream peaked at 104 MiB (README, Performance).

// The rest is imported only after this check: undici 8 throws at import time on Node 20, which would greet a
// user of an old Node with a stack trace instead of this line (package.json `engines`).
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`absolutize: error [ABS_ERR_UNSUPPORTED_NODE] Node.js ${process.versions.node} is too old: absolutize needs Node.js 22.19 or later\n`);
  process.exit(2);
}

// A reader that stops early (`absolutize … --links - | head`) closes the pipe: that ends the run quietly, as
// for any Unix filter, instead of an unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const { run } = await import('./run.ts');
const code = await run(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
