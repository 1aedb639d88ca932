/**
 * `absolutize DIR -o OUTDIR [--url URL-of-DIR] ...`: a directory tree (a mirrored site, a folder of saved mail)
 * in, the same tree out (SPEC §7, "a file/directory/URL tool"; "batch over many inputs uses all cores").
 *
 * Each file whose extension names a type (.html, .css, .eml, .mbox, …), or every file with `--type`, is rewritten
 * by the one-file command, in a pool of worker threads (`--jobs`, default: the cores Node may use); every other
 * file is copied byte for byte and every directory is made, so the output is the whole tree. With `--url`, a
 * file's retrieval URL is its path below DIR resolved against that URL, as a mirror keeps a site's paths.
 * Reports come out in path order, whatever order the workers finish in.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, stat, unlink } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import { AbsError } from '../errors.ts';
import { createAtomicFile } from './atomic-file.ts';
import { hintMailCopied } from './hints.ts';
import { EXIT_INPUT, EXIT_OK, report } from './io.ts';
import type { CliIo } from './io.ts';
import { createProgress } from './progress.ts';

/** What a worker is asked: one run of the one-file command, its standard error written to `stderrPath`. */
export interface DirectoryJob {
  readonly id: number;
  readonly args: readonly string[];
  readonly stderrPath: string;
}

/** What it answers: the run's exit code. */
export interface DirectoryJobResult {
  readonly id: number;
  readonly code: number;
}

export interface DirectoryOptions {
  readonly input: string;
  readonly output: string;
  readonly url: string | undefined;
  readonly links: string | undefined;
  readonly jobs: string | undefined;
  /** The options passed on to each file's run, as written (`--base`, `--resolver`, `--explain`, …). */
  readonly passOn: readonly string[];
  /** A file's type from its name (a file with none is copied as it is). */
  readonly typeOf: (name: string) => string | undefined;
}

interface Entry {
  readonly path: string;
  readonly rel: string;
}

export async function directoryCommand(o: DirectoryOptions, io: CliIo): Promise<number> {
  const inputDir = await realpath(o.input);
  const outputDir = resolvePath(o.output);
  const outputReal = await realpath(outputDir).catch(() => outputDir);
  if (isWithin(outputReal, inputDir) || isWithin(inputDir, outputReal)) {
    throw new AbsError(`-o ${o.output} and ${o.input} overlap: absolutize never writes over (or into) its input`, 'ABS_ERR_USAGE');
  }
  const jobs = o.jobs === undefined ? availableParallelism() : Number(o.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) throw new AbsError(`--jobs must be a whole number of at least 1, not ${JSON.stringify(o.jobs)}`, 'ABS_ERR_INVALID_OPTION');
  // The URL names the directory: its files are below it.
  const dirUrl = o.url === undefined ? undefined : o.url.endsWith('/') ? o.url : `${o.url}/`;

  const skipped: string[] = [];
  const dirs: string[] = [];
  const entries = await walk(o.input, '', dirs, skipped);
  for (const s of skipped) report(io, 'warning', 'not-a-regular-file', `${s}: a symbolic link or special file, not followed or copied`);
  const documents = entries.filter((e) => o.typeOf(e.rel) !== undefined);
  const others = entries.filter((e) => o.typeOf(e.rel) === undefined);
  const progress = createProgress(io, true);
  try {
    await mkdir(outputDir, { recursive: true });
    for (const dir of dirs) await mkdir(join(outputDir, dir), { recursive: true });
  } catch (err) {
    report(io, 'error', 'ABS_ERR_OUTPUT', `${o.output}: ${(err as Error).message}`);
    return EXIT_INPUT;
  }
  let failed = 0;
  for (const e of others) {
    try {
      await copyAtomically(e.path, join(outputDir, e.rel));
    } catch (err) {
      failed++;
      report(io, 'error', 'ABS_ERR_INPUT', `${e.path}: ${(err as Error).message}`);
    }
  }
  await hintMailCopied(io, others.map((e) => e.path));

  // Each run's reports (standard error, and its --links lines) go to files of its own in `scratch`, which are
  // appended to ours in path order as soon as every run before it is done, and removed: what is held waits on
  // disk, never in memory, however many files and reports there are.
  const scratch = await mkdtemp(join(tmpdir(), 'absolutize-'));
  const links = o.links === undefined ? null : o.links === '-' ? { stream: io.stdout, commit: async () => {}, abort: async () => {} } : createAtomicFile(o.links);
  const jobList: DirectoryJob[] = documents.map((e, id) => ({
    id,
    args: [
      e.path,
      '-o',
      join(outputDir, e.rel),
      ...(dirUrl === undefined ? [] : ['--url', new URL(e.rel.split(sep).map(encodeURIComponent).join('/'), dirUrl).href]),
      ...(links === null ? [] : ['--links', join(scratch, `${id}.jsonl`)]),
      ...o.passOn,
    ],
    stderrPath: join(scratch, `${id}.stderr`),
  }));
  const finishedJobs = new Set<number>();
  let next = 0;
  let emitting = Promise.resolve();
  const emitReady = async (): Promise<void> => {
    while (finishedJobs.has(next)) {
      finishedJobs.delete(next);
      const job = jobList[next++]!;
      progress.done();
      await appendFile(job.stderrPath, io.stderr);
      if (links !== null) await appendFile(join(scratch, `${job.id}.jsonl`), links.stream);
    }
  };
  try {
    await runPool(jobList, Math.min(jobs, Math.max(1, jobList.length)), (r) => {
      if (r.code !== EXIT_OK) failed++;
      finishedJobs.add(r.id);
      emitting = emitting.then(emitReady);
      progress.update(`absolutize: [${finishedJobs.size + next}/${jobList.length}] ${documents[r.id]!.rel}`);
    });
    await emitting;
    await links?.commit();
  } catch (err) {
    await links?.abort();
    throw err;
  } finally {
    progress.done();
    await rm(scratch, { recursive: true, force: true });
  }
  return failed === 0 ? EXIT_OK : EXIT_INPUT;
}

/** Whether `inner` is `outer` or below it ("../x" is not below; a name that starts with "..", like "..x", is). */
function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Regular files below `dir`, in path order, and every directory below it (`dirs`, empty ones too: a Maildir
 * needs its tmp/); symbolic links and special files are listed in `skipped`.
 */
async function walk(dir: string, rel: string, dirs: string[], skipped: string[]): Promise<Entry[]> {
  const out: Entry[] = [];
  const items = (await readdir(join(dir, rel), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const item of items) {
    const r = rel === '' ? item.name : join(rel, item.name);
    if (item.isDirectory()) {
      dirs.push(r);
      out.push(...(await walk(dir, r, dirs, skipped)));
    } else if (item.isFile()) out.push({ path: join(dir, r), rel: r });
    else skipped.push(join(dir, r));
  }
  return out;
}

async function copyAtomically(from: string, to: string): Promise<void> {
  const file = createAtomicFile(to);
  try {
    await pipeline(createReadStream(from), file.stream, { end: false });
    await file.commit();
  } catch (err) {
    await file.abort();
    throw err;
  }
}

/** The one-file command over `jobs` in `size` worker threads; `onResult` as each run ends. */
async function runPool(jobs: readonly DirectoryJob[], size: number, onResult: (r: DirectoryJobResult) => void): Promise<void> {
  if (jobs.length === 0) return;
  const script = new URL(import.meta.url.endsWith('.ts') ? './directory-worker.ts' : './directory-worker.js', import.meta.url);
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(script);
      const give = (): void => {
        if (next >= jobs.length) {
          void worker.terminate().then(() => resolve());
          return;
        }
        worker.postMessage(jobs[next++]);
      };
      worker.on('message', (r: DirectoryJobResult) => {
        onResult(r);
        give();
      });
      worker.on('error', reject);
      give();
    });
  await Promise.all(Array.from({ length: size }, one));
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

/** Whether INPUT names a directory (a file, "-", or a missing path does not). */
export async function isDirectory(input: string | undefined): Promise<boolean> {
  if (input === undefined || input === '-') return false;
  return (await stat(input).catch(() => null))?.isDirectory() === true;
}
