#!/usr/bin/env node
// The command-line entry point: the only place that touches process exit state.
import { run } from './run.ts';

// A reader that stops early (`absolutize … --links - | head`) closes the pipe: that ends the run quietly, as
// for any Unix filter, instead of an unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const code = await run(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
