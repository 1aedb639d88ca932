/**
 * `absolutize batch MANIFEST -o OUTDIR [options]` (SPEC §7 "Scale", issue 13): the inputs a manifest names (one
 * a line: a path, relative to the manifest's directory or absolute, or an http(s) URL; blank lines and `#`
 * comments skipped), each rewritten to one output at a path derived only from the input, in deterministic
 * shards, idempotently, with one JSON status line per input on standard output.
 *
 * - Output of a path: OUTDIR/PATH for a relative path that stays below the manifest's directory, else
 *   OUTDIR/@root/ABSOLUTE-PATH; of a URL: OUTDIR/@url/NAME (NAME from the URL as `-o DIR` names it). Written to a
 *   temporary name in OUTDIR/.absolutize/tmp/MANIFEST-SHARD/ and renamed; `--links` writes OUTPUT.links.jsonl first.
 *   An output that exists is done: `skipped` (`--force` redoes it).
 * - Shard I of N takes the inputs whose 0-based index (counting input lines only) is I mod N: `--shard I/N`, else
 *   SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT (or `--shards N`), JOB_COMPLETION_INDEX
 *   (Kubernetes Indexed Jobs) or AWS_BATCH_JOB_ARRAY_INDEX with `--shards N`; none: 0/1.
 * - Status lines also go to OUTDIR/.absolutize/status-I-of-N.jsonl (appended; `batch-report` reads them) and the
 *   manifest is kept as OUTDIR/.absolutize/manifest-SHA256.txt.
 * - Exit (sysexits): 0 all done or skipped, 65 an input failed, 74 an output failed, 75 transient (retry), 64 usage.
 * - Memory: one process holds at most BATCH_LIMITS.window short records and `--jobs` documents being rewritten,
 *   each within the rewriters' named limits (docs/batch.md, docs/performance.md: about 170 MiB with one job, 150 MiB more for each further job).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, resolve as resolvePath, sep } from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { AbsError } from '../errors.ts';
import { outputFileName } from '../http/output-name.ts';
import { checkOutputPath, liveTemporaryFiles } from '../cli/atomic-file.ts';
import type { CliIo } from '../cli/io.ts';
import { report } from '../cli/io.ts';
import { createProgress } from '../cli/progress.ts';
import { wrapHelp } from '../cli/help.ts';
import { configureReporter } from '../cli/reporter.ts';
import { settingsOf } from '../cli/absolutize-command.ts';
import { HTTP_HELP, HTTP_OPTIONS, createUrlJobRunner, hostKey, httpLimitsOf } from '../cli/fetch-command.ts';
import { parseCommandLine, validateEncodingLabel } from '../cli/options.ts';
import type { FileJob, JobResult } from './job.ts';
import { inputLines, readLines } from './lines.ts';
import { createJobPool, parseJobs } from './pool.ts';
import { parseTypeOption } from './document-types.ts';
import { runJobs } from './run-jobs.ts';
import { summaryLine } from './summary.ts';

/** sysexits.h */
export const EX_OK = 0;
export const EX_USAGE = 64;
export const EX_DATAERR = 65;
export const EX_IOERR = 74;
export const EX_TEMPFAIL = 75;

export const BATCH_HELP: string = `Usage: absolutize batch MANIFEST -o OUTDIR [options]
       absolutize batch-report OUTDIR

Rewrites every input a manifest names (one a line: a path relative to the manifest's directory or absolute,
or an http(s) URL; "-" or --manifest - reads the lines from standard input) into OUTDIR, one output per
input at a path derived only from the input; an output that exists is skipped, so a re-run after any
failure is safe. Prints one JSON status line per input on standard output.

Options (and every rewrite option of absolutize: -b/--base, -t/--type, --resolver, --charset, -e/--explain, ...):
  -o, --output OUTDIR   where outputs go (OUTDIR/PATH, OUTDIR/@root/ABSOLUTE-PATH, OUTDIR/@url/NAME)
  --shard I/N           take inputs I, I+N, I+2N, ... (0-based); default from SLURM_ARRAY_TASK_ID,
                        JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX, else 0/1
  --shards N            the shard count when the scheduler gives only the index
  --force               rewrite inputs whose output exists
  --links               write OUTPUT.links.jsonl next to each output
  -j, --jobs N          files rewritten at once (default: the cores Node may use)
  -q, --quiet           errors only on standard error (the status lines still on standard output)
  --warnings FILE       every warning as a JSON line (standard error shows 5 of each code, then counts)

URL lines are retrieved under the HTTP options of absolutize URL...:
${HTTP_HELP}
Exit status (sysexits): 0 all done or skipped, 65 an input failed, 74 an output could not be written,
75 a transient failure (network, storage): retry, 64 usage.
`;

export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** The shard: `--shard I/N`, else the array index a scheduler sets, else 0/1. */
export function resolveShard(shard: string | undefined, shards: string | undefined, env: NodeJS.ProcessEnv): Shard {
  const whole = (s: string | undefined, what: string): number | undefined => {
    if (s === undefined || s === '') return undefined;
    if (!/^\d+$/.test(s)) throw new AbsError(`${what} must be a whole number, not ${JSON.stringify(s)}`, 'ABS_ERR_USAGE');
    return Number(s);
  };
  let index: number | undefined;
  let count = whole(shards, '--shards');
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard);
    if (m === null) throw new AbsError(`--shard must be I/N (0 ≤ I < N), not ${JSON.stringify(shard)}`, 'ABS_ERR_USAGE');
    index = Number(m[1]);
    if (count !== undefined && count !== Number(m[2])) throw new AbsError(`--shard ${shard} and --shards ${shards} disagree`, 'ABS_ERR_USAGE');
    count = Number(m[2]);
  } else if (env['SLURM_ARRAY_TASK_ID'] !== undefined) {
    index = whole(env['SLURM_ARRAY_TASK_ID'], 'SLURM_ARRAY_TASK_ID')! - (whole(env['SLURM_ARRAY_TASK_MIN'], 'SLURM_ARRAY_TASK_MIN') ?? 0);
    count ??= whole(env['SLURM_ARRAY_TASK_COUNT'], 'SLURM_ARRAY_TASK_COUNT');
  } else if (env['JOB_COMPLETION_INDEX'] !== undefined) index = whole(env['JOB_COMPLETION_INDEX'], 'JOB_COMPLETION_INDEX');
  else if (env['AWS_BATCH_JOB_ARRAY_INDEX'] !== undefined) index = whole(env['AWS_BATCH_JOB_ARRAY_INDEX'], 'AWS_BATCH_JOB_ARRAY_INDEX');
  if (index === undefined) return { index: 0, count: count ?? 1 };
  if (count === undefined) throw new AbsError(`the array index ${index} is set but not the shard count: give --shards N`, 'ABS_ERR_USAGE');
  if (count < 1 || index >= count) throw new AbsError(`shard ${index}/${count}: need 0 ≤ I < N`, 'ABS_ERR_USAGE');
  return { index, count };
}

const URL_LINE = /^https?:\/\//i;

/** The output of a manifest line: derived from the line alone (never from the shard or the attempt). */
export function outputOf(line: string, manifestDir: string, outDir: string): { input: string; output: string; url: string | null } {
  if (URL_LINE.test(line)) {
    let name: string;
    try {
      name = outputFileName(line, 'none');
    } catch {
      name = `invalid.${createHash('sha256').update(line).digest('hex').slice(0, 10)}`;
    }
    return { input: line, output: join(outDir, '@url', name), url: line };
  }
  const input = resolvePath(manifestDir, line);
  const rel = isAbsolute(line) ? null : normalize(line);
  const below = rel !== null && rel !== '..' && !rel.startsWith(`..${sep}`) && rel !== '.' && !rel.startsWith(`.absolutize${sep}`) && !rel.startsWith(`@`);
  return { input, output: below ? join(outDir, rel) : join(outDir, '@root', input), url: null };
}

export interface StatusLine {
  /** The manifest line as written. */
  readonly input: string;
  readonly output: string;
  readonly status: JobResult['status'];
  readonly code: string | null;
  /**
   * Why a failed input failed (job.ts, FailureKind): `input` and `output` fail again on a re-run as they are;
   * `transient` is worth re-submitting. Absent in lines of older versions.
   */
  readonly kind?: JobResult['kind'] | undefined;
  readonly records: number;
  readonly rewritten: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly ms: number;
  readonly manifest: string;
  readonly shard: string;
}

export async function batchCommand(argv: readonly string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    return await batch(argv, io, env);
  } catch (err) {
    if (err instanceof AbsError) {
      report(io, 'error', err.code, err.message);
      return err.code === 'ABS_ERR_OUTPUT' ? EX_IOERR : err.code === 'ABS_ERR_INPUT' || err.code === 'ABS_ERR_LIMIT' ? EX_DATAERR : EX_USAGE;
    }
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      report(io, 'error', 'ABS_ERR_USAGE', (err as Error).message);
      return EX_USAGE;
    }
    throw err;
  }
}

async function batch(argv: readonly string[], io: CliIo, env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    {
      output: { type: 'string', short: 'o' },
      manifest: { type: 'string' },
      shard: { type: 'string' },
      shards: { type: 'string' },
      force: { type: 'boolean', default: false },
      links: { type: 'boolean', default: false },
      jobs: { type: 'string', short: 'j' },
      help: { type: 'boolean', short: 'h', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      warnings: { type: 'string' },
      base: { type: 'string', short: 'b' },
      type: { type: 'string', short: 't', default: 'auto' },
      resolver: { type: 'string', default: 'browser' },
      charset: { type: 'string' },
      explain: { type: 'boolean', short: 'e', default: false },
      'exact-base': { type: 'boolean', default: false },
      fragments: { type: 'boolean', default: false },
      'lazy-load': { type: 'boolean', default: false },
      'content-location': { type: 'boolean', default: false },
      ...HTTP_OPTIONS,
    },
  );
  if (values.help) {
    io.stdout.write(wrapHelp(BATCH_HELP));
    return EX_OK;
  }
  if (values.warnings !== undefined) await checkOutputPath(values.warnings, '--warnings');
  configureReporter(io, values);
  const manifestArg = values.manifest ?? positionals[0];
  if (positionals.length > (values.manifest === undefined ? 1 : 0)) throw new AbsError('one MANIFEST (or --manifest), then options', 'ABS_ERR_USAGE');
  if (manifestArg === undefined) throw new AbsError('give MANIFEST (a file of inputs, one a line; - for standard input)', 'ABS_ERR_USAGE');
  if (values.output === undefined) throw new AbsError('give -o OUTDIR', 'ABS_ERR_USAGE');
  const shard = resolveShard(values.shard, values.shards, env);
  const jobs = parseJobs(values.jobs);
  const type = parseTypeOption(values.type);
  const charset = values.charset === undefined ? undefined : validateEncodingLabel(values.charset);
  const settings = settingsOf({ ...values, url: undefined }, charset);
  // URL lines are retrieved under the same HTTP options as \`absolutize URL...\` (checked before anything runs).
  const httpLimits = httpLimitsOf(values);
  const outDir = resolvePath(values.output);
  const fromStdin = manifestArg === '-';
  const manifestDir = fromStdin ? process.cwd() : dirname(resolvePath(manifestArg));
  if (!fromStdin && manifestDir === outDir) throw new AbsError(`-o ${values.output} is the manifest's directory: each relative input would be its own output`, 'ABS_ERR_USAGE');
  const shardTag = `${shard.index}-of-${shard.count}`;
  const state = join(outDir, '.absolutize');
  try {
    await mkdir(state, { recursive: true });
  } catch (err) {
    throw new AbsError(`-o ${values.output}: ${(err as Error).message}`, 'ABS_ERR_OUTPUT');
  }

  // The manifest's SHA-256 goes into every status line, so it is read once before: a file twice, standard
  // input once, into a copy kept in OUTDIR/.absolutize (a scheduler's pipe cannot be read again).
  let manifestPath: string;
  let sha: string;
  try {
    if (fromStdin) {
      manifestPath = join(state, `.stdin.${randomBytes(8).toString('hex')}.tmp`);
      liveTemporaryFiles.add(manifestPath);
      sha = await hashCopy(io.stdin as NodeJS.ReadableStream, createWriteStream(manifestPath));
    } else {
      manifestPath = resolvePath(manifestArg);
      sha = await hashCopy(createReadStream(manifestPath), null);
    }
  } catch (err) {
    throw new AbsError(`manifest ${manifestArg}: ${(err as Error).message}`, 'ABS_ERR_INPUT');
  }
  // Temporary files of this shard of this manifest: a re-run first removes what a killed attempt left. (Two runs
  // of one shard of one manifest at the same time are not supported; different shards or manifests never meet.)
  const tmpDir = join(state, 'tmp', `${sha.slice(0, 16)}-${shardTag}`);
  try {
    await rm(tmpDir, { recursive: true, force: true });
    await mkdir(tmpDir, { recursive: true });
    const kept = join(state, `manifest-${sha}.txt`);
    if ((await stat(kept).catch(() => null)) === null) {
      const temp = join(tmpDir, `manifest.${randomBytes(8).toString('hex')}`);
      await copyFile(manifestPath, temp);
      await rename(temp, kept);
    }
    if (fromStdin) {
      await unlink(manifestPath).catch(() => {});
      liveTemporaryFiles.delete(manifestPath);
      manifestPath = kept;
    }
  } catch (err) {
    throw new AbsError(`-o ${values.output}: ${(err as Error).message}`, 'ABS_ERR_OUTPUT');
  }

  const statusFile = createWriteStream(join(state, `status-${shardTag}.jsonl`), { flags: 'a' });
  const progress = createProgress(io, true);
  const pool = createJobPool(jobs);
  const shardText = `${shard.index}/${shard.count}`;
  // URL lines: retrieved on this thread (the network waits, the pool rewrites files), one agent for the run.
  let fetcher: ReturnType<typeof createUrlJobRunner> | null = null;
  const byId = new Map<number, { input: string; output: string }>();
  // Jobs are numbered in the order they are read (their reports come out in that order); the manifest index
  // names their temporary files.
  let sequence = 0;
  async function* source(): AsyncGenerator<FileJob> {
    for await (const { index, text } of inputLines(readLines(createReadStream(manifestPath), `manifest ${manifestArg}`))) {
      if (index % shard.count !== shard.index) continue;
      const o = outputOf(text, manifestDir, outDir);
      const temp = (suffix: string): string => join(tmpDir, `${index}.${randomBytes(8).toString('hex')}${suffix}`);
      if (o.url !== null) fetcher ??= createUrlJobRunner(io, progress, settings, charset, values.links, { limits: httpLimits, values });
      const id = sequence++;
      byId.set(id, { input: text, output: o.output });
      yield {
        id,
        input: o.url ?? o.input,
        name: text,
        output: o.output,
        outputTemp: temp('.tmp'),
        links: values.links ? { path: `${o.output}.links.jsonl`, temp: temp('.links.tmp') } : null,
        // Reports (warnings, --explain) of a file job: a scratch file, appended in order through the reporter.
        stderrPath: o.url !== null ? null : join(tmpDir, `${index}.${randomBytes(8).toString('hex')}.stderr`),
        type: o.url !== null ? 'url' : type === 'auto' ? 'sniff' : type,
        settings,
        skipExisting: !values.force,
      };
    }
  }
  let summary;
  try {
    summary = await runJobs(source(), {
      pool,
      progress,
      ordered: { stderr: io.stderr, links: null },
      noun: 'inputs',
      concurrency: jobs + httpLimits.maxConcurrentRequests,
      keyOf: (job) => (job.type === 'url' ? `url:${hostKey(job.input as string)}` : ''),
      perKey: (key) => (key === '' ? jobs : httpLimits.maxConnectionsPerOrigin),
      runner: (job) => (job.type === 'url' ? fetcher!(job) : undefined),
      prepare: async (job) => {
        if (job.input === job.output) return { kind: 'input', code: 'ABS_ERR_USAGE', message: `${job.name}: its output would be the input itself` };
        await mkdir(dirname(job.output as string), { recursive: true });
        return null;
      },
      onResult: async (job, r) => {
        const where = byId.get(job.id)!;
        byId.delete(job.id);
        const line: StatusLine = { input: where.input, output: where.output, status: r.status, code: r.code, ...(r.kind === null ? {} : { kind: r.kind }), records: r.records, rewritten: r.rewritten, bytesIn: r.bytesIn, bytesOut: r.bytesOut, ms: r.ms, manifest: sha, shard: shardText };
        const text = `${JSON.stringify(line)}\n`;
        if (!statusFile.write(text)) await once(statusFile, 'drain');
        if (!io.stdout.write(text)) await once(io.stdout, 'drain');
      },
    });
  } finally {
    await pool.close();
    await (fetcher as ReturnType<typeof createUrlJobRunner> | null)?.close();
    statusFile.end();
    await finished(statusFile).catch(() => {});
  }
  await rm(tmpDir, { recursive: true, force: true });
  io.stderr.write(summaryLine(summary));
  return summary.transient > 0 ? EX_TEMPFAIL : summary.output > 0 ? EX_IOERR : summary.input > 0 ? EX_DATAERR : EX_OK;
}

/** SHA-256 of a stream, copied into `copy` as it is read (when given). */
async function hashCopy(source: NodeJS.ReadableStream, copy: WriteStream | null): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      hash.update(chunk);
      if (copy !== null && !copy.write(chunk)) await once(copy, 'drain');
    }
  } finally {
    copy?.end();
  }
  if (copy !== null) await finished(copy);
  return hash.digest('hex');
}
