#!/usr/bin/env -S node --max-semi-space-size=4
// The command-line entry point: the only place that touches process exit state.
// --max-semi-space-size=4 (MiB): V8's young generation otherwise grows to ~100 MB of RSS while streaming,
// though the live heap stays near 15 MB; capped, a 1 GiB stream peaked at 104 MiB (README, Performance).
import { run } from './run.ts';

// A reader that stops early (`absolutize … --links - | head`) closes the pipe: that ends the run quietly, as
// for any Unix filter, instead of an unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const code = await run(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
