/**
 * A worker thread of `absolutize DIR -o OUTDIR` (directory-command.ts): runs the one-file command for each job
 * it is sent, its standard error into the job's file (the main thread appends those in path order), and
 * answers with the exit code. Standard output is this thread's own, which Node forwards to the process's: with
 * `-o` always given, a run writes nothing there.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parentPort } from 'node:worker_threads';
import type { DirectoryJob, DirectoryJobResult } from './directory-command.ts';
import { run } from './run.ts';

async function runJob(job: DirectoryJob): Promise<number> {
  const stderr = createWriteStream(job.stderrPath);
  let code: number;
  try {
    code = await run(job.args, { stdin: Readable.from([]), stdout: process.stdout, stderr });
  } catch (err) {
    stderr.write(`absolutize: error [ABS_ERR_INPUT] ${job.args[0]}: ${(err as Error).message}\n`);
    code = 1;
  }
  stderr.end();
  await finished(stderr);
  return code;
}

parentPort?.on('message', (job: DirectoryJob) => {
  void runJob(job).then((code) => parentPort!.postMessage({ id: job.id, code } satisfies DirectoryJobResult));
});
