/** A worker thread of the WARC rewriter's pool (pool.ts): runs rewrite jobs, answers with their results. */
import { parentPort } from 'node:worker_threads';
import { runRewriteJob } from './record-job.ts';
import type { RewriteJob } from './record-job.ts';

parentPort!.on('message', (message: { seq: number; job: RewriteJob }) => {
  runRewriteJob(message.job).then(
    // Copied, not transferred: zlib's and Buffer's pooled memory cannot be moved to another thread.
    (result) => parentPort!.postMessage({ seq: message.seq, result }),
    (err: unknown) => parentPort!.postMessage({ seq: message.seq, error: { message: (err as Error).message, code: (err as { code?: string }).code } }),
  );
});
