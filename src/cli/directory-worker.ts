/**
 * A worker thread of `absolutize DIR -o OUTDIR` (directory-command.ts): runs the one-file command for each job
 * it is sent, and answers with the exit code and what the run wrote, so that the main thread prints reports in
 * path order.
 */
import { Readable, Writable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import type { DirectoryJob, DirectoryJobResult } from './directory-command.ts';
import { run } from './run.ts';

function collector(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      callback();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

parentPort?.on('message', (job: DirectoryJob) => {
  const stdout = collector();
  const stderr = collector();
  void run(job.args, { stdin: Readable.from([]), stdout: stdout.stream, stderr: stderr.stream }).then(
    (code) => parentPort!.postMessage({ id: job.id, code, stdout: stdout.text(), stderr: stderr.text() } satisfies DirectoryJobResult),
    (err: unknown) => parentPort!.postMessage({ id: job.id, code: 1, stdout: stdout.text(), stderr: `${stderr.text()}absolutize: error [ABS_ERR_INPUT] ${job.args[0]}: ${(err as Error).message}\n` } satisfies DirectoryJobResult),
  );
});
