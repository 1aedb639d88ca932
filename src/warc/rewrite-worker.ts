/** A worker thread of the WARC rewriter's pool (pool.ts): runs rewrite jobs, answers with their results. */
import { parentPort } from 'node:worker_threads';
import { runRewriteJob } from './record-job.ts';
import type { JobResult, RewriteJob } from './record-job.ts';

/**
 * The result with its byte arrays moved rather than cloned. Only an array that is the whole of its buffer is
 * moved as it is; one that shares its buffer (Buffer's pool, a zlib output chunk) is first copied into its own.
 */
function transferable(result: JobResult): { result: JobResult; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const own = (bytes: Uint8Array): Uint8Array => {
    const mine = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer && !transfer.includes(bytes.buffer) ? bytes : new Uint8Array(bytes);
    transfer.push(mine.buffer as ArrayBuffer);
    return mine;
  };
  const payload = result.payload === undefined ? undefined : { ...result.payload, output: own(result.payload.output) };
  return { result: { ...result, replacement: result.replacement === null ? null : own(result.replacement), after: result.after.map(own), payload }, transfer };
}

parentPort!.on('message', (message: { seq: number; job: RewriteJob }) => {
  runRewriteJob(message.job).then(
    (r) => {
      const { result, transfer } = transferable(r);
      parentPort!.postMessage({ seq: message.seq, result }, transfer);
    },
    (err: unknown) => parentPort!.postMessage({ seq: message.seq, error: { message: (err as Error).message, code: (err as { code?: string }).code } }),
  );
});
