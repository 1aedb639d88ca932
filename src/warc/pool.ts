/**
 * Worker threads for the WARC rewriter: records are independent, so their rewriting (the HTML or CSS rewriter,
 * digests, gzip) runs on every core while the reader walks the input; results are taken in input order.
 * The worker script is the built one (dist/warc/rewrite-worker.js): Node cannot run this project's TypeScript
 * sources directly.
 */
import { existsSync } from 'node:fs';
import module from 'node:module';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AbsError } from '../errors.ts';
import type { AbsErrorCode } from '../errors.ts';
import type { JobResult, RewriteJob } from './record-job.ts';

export class RewritePool {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, { resolve: (r: JobResult) => void; reject: (e: unknown) => void }>();
  private seq = 0;
  /** Jobs in flight on each worker: a job goes to the least busy. */
  private readonly busy: number[] = [];

  private readonly size: number;
  /** Called when every thread has said it has loaded the rewriters (rewrite-worker.ts). */
  private readonly onLoaded: (() => void) | undefined;
  private loaded = 0;

  constructor(size: number, onLoaded?: () => void) {
    this.size = size;
    this.onLoaded = onLoaded;
  }

  /** The threads start with the first job: a file with nothing to rewrite starts none. */
  private start(): void {
    const script = workerScript();
    // This thread's compile cache, for the workers to load the rewriters from (rewrite-worker.ts): Node's
    // directory for this version and flags is one level below the one given to enableCompileCache.
    const cache = module.getCompileCacheDir?.();
    const workerData = { compileCache: cache === undefined ? undefined : dirname(cache) };
    for (let i = 0; i < this.size; i++) {
      const w = new Worker(script, { workerData });
      const index = i;
      w.on('message', (m: { loaded: true } | { loaded?: undefined; seq: number; result?: JobResult; error?: { message: string; code?: string } }) => {
        if (m.loaded === true) {
          if (++this.loaded === this.size) this.onLoaded?.();
          return;
        }
        this.busy[index]!--;
        const entry = this.waiting.get(m.seq);
        if (entry === undefined) return;
        this.waiting.delete(m.seq);
        if (m.error !== undefined) entry.reject(m.error.code?.startsWith('ABS_ERR') === true ? new AbsError(m.error.message, m.error.code as AbsErrorCode) : new Error(m.error.message));
        else entry.resolve(m.result!);
      });
      w.on('error', (err) => {
        for (const e of this.waiting.values()) e.reject(err);
        this.waiting.clear();
      });
      this.workers.push(w);
      this.busy.push(0);
    }
  }

  /** Jobs sent and not yet answered on the least busy worker (0 before the threads start). */
  get load(): number {
    return this.busy.length === 0 ? 0 : Math.min(...this.busy);
  }

  /** Runs the job on the least busy worker. */
  run(job: RewriteJob): Promise<JobResult> {
    if (this.workers.length === 0) this.start();
    let index = 0;
    for (let i = 1; i < this.busy.length; i++) if (this.busy[i]! < this.busy[index]!) index = i;
    return this.post(index, job);
  }

  private post(index: number, job: RewriteJob): Promise<JobResult> {
    const seq = this.seq++;
    this.busy[index]!++;
    // The block is moved, not cloned: a lent block's buffer as it is (the worker sends it back), else a copy of
    // its own (a view's whole underlying buffer would be moved). Copying the bench crawl's 65 MB of rewritten
    // blocks was allocation this thread's garbage collector paid for.
    const block = job.lent === true ? job.block : new Uint8Array(job.block);
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.workers[index]!.postMessage({ seq, job: { ...job, block } }, [block.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

function workerScript(): URL {
  const built = new URL(import.meta.url.endsWith('.ts') ? '../../dist/warc/rewrite-worker.js' : './rewrite-worker.js', import.meta.url);
  if (!existsSync(built)) throw new AbsError('the WARC worker threads need the built package (npm run build)', 'ABS_ERR_USAGE');
  return built;
}
