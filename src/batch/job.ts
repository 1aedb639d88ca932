/**
 * The job model of every batch (SPEC §7): an input (a file, a directory entry, a manifest line) → the rewriter
 * for its type → an output written atomically → a status record. A job is plain data, so that a worker thread
 * can run it (pool.ts); `runFileJob` is what runs it, in whichever thread.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { finished } from 'node:stream/promises';
import { AbsError } from '../errors.ts';
import type { HtmlWarning, ReferenceRecord } from '../html/rewriter.ts';
import { explain } from '../cli/absolutize-command.ts';
import { createAtomicFile } from '../cli/atomic-file.ts';
import { explainEncoding } from '../cli/explain-encoding.ts';
import { isWarcFile } from '../cli/warc-command.ts';
import type { AtomicFile } from '../cli/atomic-file.ts';
import { revivePath, showPath } from './paths.ts';
import { WARNING_RECORD_MARK, linkLine, warningLine, warningRecord } from './report-lines.ts';
import type { FsPath } from './paths.ts';
import { SNIFF_BYTES, createDocumentRewriter, typeOfBytes, typeOfName } from './rewriters.ts';
import type { DocumentStats, DocumentType, RewriteSettings } from './rewriters.ts';

/**
 * How a job's input is typed: a stated type, `copy` (bytes as they are), `sniff` (name, then first bytes, else
 * html), or `url` (the input is a URL, retrieved and rewritten by the HTTP path: fetch-command.ts).
 */
export type JobType = DocumentType | 'copy' | 'sniff' | 'url';

export interface FileJob {
  readonly id: number;
  /** The input file (bytes where its name is not UTF-8). */
  readonly input: FsPath;
  /** The name reports and links give it (the path as given, or the path below a directory). */
  readonly name: string;
  readonly output: FsPath;
  /** The temporary name of the output (chosen by whoever can remove it if interrupted). */
  readonly outputTemp: FsPath;
  /** `--links`: this job's report, written atomically beside its output (`temp` set) or into a scratch file. */
  readonly links: { readonly path: FsPath; readonly temp: FsPath | null } | null;
  /** Reports (warnings, --explain) go here, to be appended in order by the main thread; null: standard error. */
  readonly stderrPath: string | null;
  readonly type: JobType;
  readonly settings: RewriteSettings;
  /** An output that exists is done: skip the input (batch re-runs). */
  readonly skipExisting: boolean;
}

/**
 * Why a job failed, as the batch exit code tells it (sysexits): `input` the input cannot be read or is not what
 * its type says (65), `output` the output cannot be written (74), `transient` worth retrying (75: the network,
 * a full or busy disk).
 */
export type FailureKind = 'input' | 'output' | 'transient';

export interface JobResult {
  readonly id: number;
  readonly status: 'done' | 'skipped' | 'failed';
  readonly code: string | null;
  readonly kind: FailureKind | null;
  /** The one-line message of a failure. */
  readonly message: string | null;
  readonly records: number;
  readonly rewritten: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly ms: number;
  readonly warnings: number;
  /** Whether the input was rewritten (a document) or copied as it is. */
  readonly copied: boolean;
}

/** errno codes of the file system that are worth a retry: space, quota, a busy or stale (network) file system. */
const TRANSIENT_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'EAGAIN', 'EBUSY', 'ETIMEDOUT', 'ESTALE', 'EINTR', 'EMFILE', 'ENFILE', 'EIO']);

export function failureKindOfErrno(code: string | undefined, side: 'input' | 'output'): FailureKind {
  return code !== undefined && TRANSIENT_ERRNO.has(code) ? 'transient' : side;
}

export async function runFileJob(job: FileJob): Promise<JobResult> {
  const started = performance.now();
  const input = revivePath(job.input as string | Uint8Array);
  const output = revivePath(job.output as string | Uint8Array);
  const result = (r: Partial<JobResult> & Pick<JobResult, 'status'>): JobResult => ({
    id: job.id,
    code: null,
    kind: null,
    message: null,
    records: 0,
    rewritten: 0,
    bytesIn: 0,
    bytesOut: 0,
    warnings: 0,
    copied: job.type === 'copy',
    ...r,
    ms: Math.round(performance.now() - started),
  });
  if (job.skipExisting && (await stat(output).catch(() => null)) !== null) return result({ status: 'skipped' });

  const stderr: Writable = job.stderrPath === null ? process.stderr : createWriteStream(job.stderrPath);
  const fail = (kind: FailureKind, code: string, message: string): JobResult => {
    stderr.write(`absolutize: error [${code}] ${message}\n`);
    return result({ status: 'failed', kind, code, message });
  };
  try {
    // Open the input before anything is created, so that a missing input leaves no output behind.
    let handle;
    try {
      handle = await open(input, 'r');
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      return fail(failureKindOfErrno(e.code, 'input'), 'ABS_ERR_INPUT', `${job.name}: ${e.message}`);
    }
    let type: DocumentType | 'copy';
    if (job.type === 'url') throw new Error('a URL job is not a file job');
    if (job.type !== 'sniff') type = job.type;
    else {
      const head = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0).catch(() => ({ bytesRead: 0 }));
      type = typeOfName(showPath(input)) ?? typeOfBytes(head.subarray(0, bytesRead)) ?? ((await isWarcFile(input)) ? 'warc' : 'html');
    }
    // What the input is, for records a rewrite adds (rewriters.ts, `identity`): the same input, the same output.
    const st = await handle.stat();
    const identity = { seed: `${resolvePath(showPath(input))}\n${st.size}\n${st.mtimeMs}`, date: `${new Date(st.mtimeMs).toISOString().slice(0, 19)}Z` };
    const source = handle.createReadStream();
    return await rewrite(job, type, source, output, stderr, result, fail, identity);
  } finally {
    if (stderr !== process.stderr) {
      stderr.end();
      await finished(stderr).catch(() => {});
    }
  }
}

async function rewrite(
  job: FileJob,
  type: DocumentType | 'copy',
  source: Readable,
  output: FsPath,
  stderr: Writable,
  result: (r: Partial<JobResult> & Pick<JobResult, 'status'>) => JobResult,
  fail: (kind: FailureKind, code: string, message: string) => JobResult,
  identity: { seed: string; date: string },
): Promise<JobResult> {
  let warnings = 0;
  let links: { stream: Writable; file: AtomicFile | null } | null = null;
  let rewriter: ReturnType<typeof createDocumentRewriter> | null = null;
  let out: AtomicFile;
  try {
    if (type !== 'copy') {
      if (job.links !== null) {
        const path = revivePath(job.links.path as string | Uint8Array);
        const file = job.links.temp === null ? null : createAtomicFile(path, revivePath(job.links.temp as string | Uint8Array));
        links = { stream: file?.stream ?? (createWriteStream(path) as WriteStream), file };
      }
      const linkStream = links?.stream;
      rewriter = createDocumentRewriter(type, job.settings, {
        onReference:
          linkStream === undefined
            ? undefined
            : (r: ReferenceRecord, part: string | null) => linkStream.write(linkLine(job.name, r, part)),
        onWarning: (w: HtmlWarning, part?: string) => {
          warnings++;
          // A scratch file is read back by the main thread's reporter (run-jobs.ts): the record whole.
          stderr.write(job.stderrPath === null ? warningLine(job.name, w, part) : `${WARNING_RECORD_MARK}${JSON.stringify(warningRecord(job.name, w, part))}\n`);
        },
        document: job.name,
        identity,
        onLinkLine: linkStream === undefined ? undefined : (line) => linkStream.write(`${JSON.stringify(line)}\n`),
        onBase: job.settings.explain ? (d, what) => explain({ stderr } as never, what === null ? job.name : `${job.name} ${what}`, d) : undefined,
        onEncoding: job.settings.explain ? (e, what) => explainEncoding({ stderr } as never, what === null ? job.name : `${job.name} ${what}`, e, what === null ? '--charset' : "the part's Content-Type charset") : undefined,
      });
    }
    out = createAtomicFile(output, revivePath(job.outputTemp as string | Uint8Array));
  } catch (err) {
    source.destroy();
    if (links !== null) await (links.file?.abort() ?? Promise.resolve(links.stream.destroy()));
    if (err instanceof AbsError) return fail('input', err.code, `${job.name}: ${err.message}`);
    throw err;
  }

  let bytesIn = 0;
  let bytesOut = 0;
  let failedSide: 'input' | 'output' | null = null;
  source.once('error', () => (failedSide ??= 'input'));
  out.stream.once('error', () => (failedSide ??= 'output'));
  const countIn = new Transform({ transform: (c: Buffer, _e, cb) => ((bytesIn += c.length), cb(null, c)) });
  const countOut = new Transform({ transform: (c: Buffer, _e, cb) => ((bytesOut += c.length), cb(null, c)) });
  const abortAll = async (): Promise<void> => {
    await out.abort();
    if (links !== null) await (links.file?.abort() ?? Promise.resolve(links.stream.end()));
  };
  try {
    const stages = rewriter === null ? [source, countIn, countOut, out.stream] : [source, countIn, rewriter.stream, countOut, out.stream];
    await pipeline(stages as unknown as [Readable, Writable]);
  } catch (err) {
    await abortAll();
    const e = err as NodeJS.ErrnoException;
    if (err instanceof AbsError) return fail('input', err.code, `${job.name}: ${err.message}`);
    const side = (failedSide as 'input' | 'output' | null) ?? 'input';
    return fail(failureKindOfErrno(e.code, side), side === 'output' ? 'ABS_ERR_OUTPUT' : 'ABS_ERR_INPUT', `${side === 'output' ? showPath(output) : job.name}: ${e.message}`);
  }
  try {
    // The report first, then the output: an output that exists is a finished job (skipped on a re-run).
    if (links !== null) {
      if (links.file !== null) await links.file.commit();
      else {
        links.stream.end();
        await finished(links.stream);
      }
    }
    await out.commit();
  } catch (err) {
    await abortAll();
    const e = err as NodeJS.ErrnoException;
    return fail(failureKindOfErrno(e.code, 'output'), 'ABS_ERR_OUTPUT', `${showPath(output)}: ${e.message}`);
  }
  const stats: DocumentStats = (await rewriter?.stats()) ?? { records: 0, rewritten: 0 };
  // A damaged WARC/ARC salvaged (docs/crawls.md): the output is written and valid, and the input still failed —
  // the job is an input failure (exit 1; batch 65), never a silent "done".
  if (stats.partial === true) {
    return fail('input', 'ABS_ERR_WARC_PARTIAL', `${job.name}: the input is damaged: every whole record was written to ${showPath(output)} (partial)`);
  }
  return result({ status: 'done', records: stats.records, rewritten: stats.rewritten, bytesIn, bytesOut, warnings, copied: rewriter === null });
}
