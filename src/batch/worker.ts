/** A worker thread of a job pool (pool.ts): runs each file job it is sent and answers with its result. */
import { parentPort } from 'node:worker_threads';
import { runFileJob } from './job.ts';
import type { FileJob, JobResult } from './job.ts';

parentPort?.on('message', ({ seq, job }: { seq: number; job: FileJob }) => {
  void runFileJob(job).then(
    (r) => parentPort!.postMessage({ ...r, seq } satisfies JobResult & { seq: number }),
    (err: unknown) =>
      parentPort!.postMessage({
        id: job.id,
        seq,
        status: 'failed',
        code: 'ABS_ERR_INTERNAL',
        kind: 'input',
        message: `${job.name}: ${(err as Error).message}`,
        records: 0,
        rewritten: 0,
        bytesIn: 0,
        bytesOut: 0,
        ms: 0,
        warnings: 0,
        copied: false,
      } satisfies JobResult & { seq: number }),
  );
});
