/**
 * `--jobs`: file jobs run on a pool of worker threads (one rewrite each at a time), or in this thread when one
 * job at a time is asked. The one place the CLI's parallelism lives.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { beforeInterruptCleanup } from '../cli/interrupt.ts';
import { AbsError } from '../errors.ts';
import { runFileJob } from './job.ts';
import type { FileJob, JobResult } from './job.ts';

export interface JobPool {
  readonly size: number;
  run(job: FileJob): Promise<JobResult>;
  close(): Promise<void>;
}

/** `--jobs N` as written (undefined: the cores Node may use). */
export function parseJobs(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new AbsError(`--jobs must be a whole number of at least 1, not ${JSON.stringify(value)}`, 'ABS_ERR_INVALID_OPTION');
  return n;
}

export function createJobPool(size: number): JobPool {
  if (size <= 1) return { size: 1, run: runFileJob, close: async () => {} };
  const script = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
  const idle: Worker[] = [];
  const all: Worker[] = [];
  const waiting: Array<(w: Worker) => void> = [];
  const pending = new Map<number, { resolve: (r: JobResult) => void; reject: (e: unknown) => void }>();
  let seq = 0;
  const release = (w: Worker): void => {
    const next = waiting.shift();
    if (next !== undefined) next(w);
    else idle.push(w);
  };
  const acquire = (): Promise<Worker> => {
    const w = idle.pop();
    if (w !== undefined) return Promise.resolve(w);
    if (all.length < size) {
      // The young generation as the CLI's own (main.ts: --max-semi-space-size=4, i.e. 3 × 4 MiB).
      const worker = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: 12 } });
      all.push(worker);
      worker.on('message', (r: JobResult & { seq: number }) => {
        const p = pending.get(r.seq);
        pending.delete(r.seq);
        release(worker);
        p?.resolve(r);
      });
      worker.on('error', (err) => {
        for (const p of pending.values()) p.reject(err);
        pending.clear();
      });
      return Promise.resolve(worker);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  // On SIGINT/SIGTERM the workers are stopped before their temporary files are removed (interrupt.ts).
  const stopAll = (): Promise<unknown> => Promise.all(all.map((w) => w.terminate()));
  beforeInterruptCleanup.add(stopAll);
  return {
    size,
    async run(job) {
      const worker = await acquire();
      const s = seq++;
      return new Promise<JobResult>((resolve, reject) => {
        pending.set(s, { resolve, reject });
        worker.postMessage({ seq: s, job });
      });
    },
    async close() {
      beforeInterruptCleanup.delete(stopAll);
      await stopAll();
    },
  };
}
