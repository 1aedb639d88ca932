/**
 * A batch of file jobs (job.ts) from a lazy source, on the streaming scheduler (scheduler.ts) and the job pool
 * (pool.ts): the one loop of directory mode, several file inputs and `absolutize batch`. It keeps the live
 * temporary names for the interrupt handler, the progress line, the counts of the summary line, and — when
 * asked — each job's reports (a scratch file each) appended in input order, whatever order the jobs end in.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { liveTemporaryFiles } from '../cli/atomic-file.ts';
import { runProgress } from '../cli/interrupt.ts';
import { duration, progressText } from '../cli/progress.ts';
import type { Progress } from '../cli/progress.ts';
import { reporterOfStream } from '../cli/reporter.ts';
import { readLines } from './lines.ts';
import { WARNING_RECORD_MARK, formatWarning } from './report-lines.ts';
import type { WarningRecord } from './report-lines.ts';
import { BATCH_LIMITS } from '../limits.ts';
import type { FileJob, JobResult } from './job.ts';
import type { JobPool } from './pool.ts';
import { runStreaming } from './scheduler.ts';
import type { Summary } from './summary.ts';
import { emptySummary, addToSummary } from './summary.ts';

export interface RunJobsOptions {
  readonly pool: JobPool;
  readonly progress: Progress;
  /**
   * Reports in input order: each job writes its standard error (`stderrPath`) and links (`links.path`, no temp)
   * to scratch files, appended here to `stderr` and `links` in job-id order and removed.
   */
  readonly ordered?: { readonly stderr: NodeJS.WritableStream; readonly links: NodeJS.WritableStream | null } | undefined;
  /** As each job ends (in the order they end); awaited. */
  readonly onResult?: ((job: FileJob, result: JobResult) => void | Promise<void>) | undefined;
  /** Runs a job instead of the pool (a job that is not a file, such as a URL), or undefined for the pool. */
  readonly runner?: ((job: FileJob) => Promise<JobResult> | undefined) | undefined;
  /** Before a job runs (its output's directory made, say): a failure instead of running it, or null. */
  readonly prepare?: ((job: FileJob) => Promise<Pick<JobResult, 'kind' | 'code' | 'message'> | null>) | undefined;
  /** Jobs at once (default: the pool's size), and per key (default: no limit per key). */
  readonly concurrency?: number | undefined;
  readonly keyOf?: ((job: FileJob) => string) | undefined;
  readonly perKey?: number | ((key: string) => number) | undefined;
  /** What the progress line counts (default `files`). */
  readonly noun?: string | undefined;
}

/** The status record of a job that failed before it ran. */
function failedBeforeRun(job: FileJob, f: Pick<JobResult, 'kind' | 'code' | 'message'>): JobResult {
  return { id: job.id, status: 'failed', ...f, records: 0, rewritten: 0, bytesIn: 0, bytesOut: 0, ms: 0, warnings: 0, copied: false };
}

export async function runJobs(jobs: AsyncIterable<FileJob>, o: RunJobsOptions): Promise<Summary> {
  const started = performance.now();
  const summary = emptySummary();
  let read = 0;
  runProgress.written = 0;
  runProgress.total = 0;
  const ended = new Map<number, FileJob>();
  let nextToEmit = 0;
  let emitting = Promise.resolve();
  const emitReady = async (): Promise<void> => {
    while (ended.has(nextToEmit)) {
      const job = ended.get(nextToEmit)!;
      ended.delete(nextToEmit++);
      o.progress.done();
      if (job.stderrPath !== null) await appendReports(job.stderrPath, o.ordered!.stderr);
      if (job.links !== null && job.links.temp === null && o.ordered?.links != null) await appendFile(job.links.path as string, o.ordered.links);
    }
  };
  let allRead = false;
  const counted = (async function* () {
    for await (const job of jobs) {
      runProgress.total = ++read;
      yield job;
    }
    allRead = true;
  })();
  const keyOf = o.keyOf ?? ((): string => '');
  await runStreaming(counted, { concurrency: o.concurrency ?? o.pool.size, perKey: o.perKey ?? Infinity, keyOf, window: BATCH_LIMITS.window }, async (job) => {
    const temps = [job.outputTemp, ...(job.links?.temp != null ? [job.links.temp] : [])];
    for (const t of temps) liveTemporaryFiles.add(t);
    let result: JobResult;
    try {
      let failure: Pick<JobResult, 'kind' | 'code' | 'message'> | null = null;
      try {
        failure = (await o.prepare?.(job)) ?? null;
      } catch (err) {
        failure = { kind: 'output', code: 'ABS_ERR_OUTPUT', message: (err as Error).message };
      }
      if (failure !== null) o.progress.line(`absolutize: error [${failure.code}] ${failure.message}`);
      result = failure !== null ? failedBeforeRun(job, failure) : await (o.runner?.(job) ?? o.pool.run(job));
    } finally {
      for (const t of temps) liveTemporaryFiles.delete(t);
    }
    if (result.status === 'done') runProgress.written++;
    addToSummary(summary, result);
    if (o.ordered !== undefined) {
      ended.set(job.id, job);
      emitting = emitting.then(emitReady);
      // The reports wait on disk for the jobs before them; their records here are bounded by the window.
      if (ended.size > BATCH_LIMITS.window) await emitting;
    }
    await o.onResult?.(job, result);
    // `absolutize: 120/450 files, 35.2 MB, 12.1 MB/s, ETA 0:27, 1 failed NAME`: the count of all once all are read.
    const finished = summary.done + summary.skipped + summary.failed;
    const seconds = (performance.now() - started) / 1000;
    const eta = allRead && finished > 0 && finished < read ? `, ETA ${duration(((read - finished) * seconds) / finished)}` : '';
    const text = progressText({ bytes: summary.bytesIn, total: null, started, count: { n: finished, of: allRead ? read : null, noun: o.noun ?? 'files' } });
    o.progress.update(`${text}${eta}${summary.failed > 0 ? `, ${summary.failed} failed` : ''} ${job.name}`);
  });
  await emitting;
  o.progress.done();
  summary.ms = Math.round(performance.now() - started);
  return summary;
}

/**
 * Appends a job's reports (a scratch file; missing: nothing) to standard error and removes the file: a warning
 * record (WARNING_RECORD_MARK, job.ts) goes to the run's reporter whole, every other line as it is.
 */
async function appendReports(path: string, sink: NodeJS.WritableStream): Promise<void> {
  const reporter = reporterOfStream(sink);
  try {
    for await (const line of readLines(createReadStream(path), path)) {
      if (line.startsWith(WARNING_RECORD_MARK)) {
        const record = JSON.parse(line.slice(WARNING_RECORD_MARK.length)) as WarningRecord;
        if (reporter !== undefined) reporter.warning(record);
        else if (!sink.write(formatWarning(record))) await once(sink, 'drain');
      } else if (!sink.write(`${line}\n`)) await once(sink, 'drain');
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await unlink(path).catch(() => {});
}

/**
 * Appends a scratch file (missing: nothing) to `sink`, which stays open, and removes it. (Not pipeline(): with
 * `end: false` it leaves its listeners on `sink`, one set per file.)
 */
async function appendFile(path: string, sink: NodeJS.WritableStream): Promise<void> {
  try {
    for await (const chunk of createReadStream(path)) {
      if (!sink.write(chunk as Buffer)) await once(sink, 'drain');
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await unlink(path).catch(() => {});
}
