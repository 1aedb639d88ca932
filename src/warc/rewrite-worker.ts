/**
 * A worker thread of the WARC rewriter's pool (pool.ts): runs rewrite jobs, answers with their results.
 *
 * Node's compile cache (`module.enableCompileCache`, turned on by the CLI) is the enabling thread's only: a
 * worker compiled the rewriters' ~230 modules from source on every run. The pool passes the cache's directory,
 * and it is enabled here before the job module and the rewriters are imported, so they load from the cache.
 */
import module from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { JobResult, RewriteJob } from './record-job.ts';

const cacheDir = (workerData as { compileCache?: string } | null)?.compileCache;
if (cacheDir !== undefined && module.enableCompileCache !== undefined) {
  try {
    module.enableCompileCache(cacheDir);
  } catch {
    // No cache: the thread is only slower to start.
  }
}
const { runRewriteJob } = await import('./record-job.ts');
// undici's MIME type parser, which the first response would load (a module outside the bundle, content-type.ts):
// loaded after the CLI's flags, its cached code was rejected and compiled from source on every run.
(await import('../http/content-type.ts')).mimeTypeParser();
// Loaded: V8 flags the CLI sets from now on no longer cost this thread the code caches of what it loaded (pool.ts).
parentPort!.postMessage({ loaded: true });

/**
 * The result with its byte arrays moved rather than cloned. Only an array that is the whole of its buffer is
 * moved as it is; one that shares its buffer (Buffer's pool, a zlib output chunk) is first copied into its own.
 * A payload in room of its own (record-job.ts recordRoom) is moved with its whole buffer: its record is written
 * in the room.
 */
function transferable(result: JobResult, lent: Uint8Array | null): { result: JobResult; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const own = (bytes: Uint8Array): Uint8Array => {
    const mine = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer && !transfer.includes(bytes.buffer) ? bytes : new Uint8Array(bytes);
    transfer.push(mine.buffer as ArrayBuffer);
    return mine;
  };
  const moved = (bytes: Uint8Array): Uint8Array => {
    if (!transfer.includes(bytes.buffer as ArrayBuffer)) transfer.push(bytes.buffer as ArrayBuffer);
    return bytes;
  };
  const payload = result.payload === undefined ? undefined : { ...result.payload, output: result.payload.inRoom === true ? moved(result.payload.output) : own(result.payload.output) };
  const movedResult: JobResult = { ...result, replacement: result.replacement === null ? null : own(result.replacement), after: result.after.map(own), payload };
  // A lent block goes back as it came (a view of the buffer the reader's thread moved here) for a record copied;
  // a rewritten one's records need only what that thread kept (record-job.ts KeptOriginal).
  if (lent === null || result.action === 'rewritten') return { result: movedResult, transfer };
  if (!transfer.includes(lent.buffer as ArrayBuffer)) transfer.push(lent.buffer as ArrayBuffer);
  return { result: { ...movedResult, block: lent }, transfer };
}

parentPort!.on('message', (message: { seq: number; job: RewriteJob }) => {
  runRewriteJob(message.job).then(
    (r) => {
      const { result, transfer } = transferable(r, message.job.lent === true ? message.job.block : null);
      parentPort!.postMessage({ seq: message.seq, result }, transfer);
    },
    (err: unknown) => parentPort!.postMessage({ seq: message.seq, error: { message: (err as Error).message, code: (err as { code?: string }).code } }),
  );
});
