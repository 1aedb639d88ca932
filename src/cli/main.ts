#!/usr/bin/env node
// The command-line entry point: the only place that calls process.exit.
import { run } from './run.ts';

const code = await run(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
