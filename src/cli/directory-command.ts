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
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, resolve as resolvePath, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import { AbsError } from '../errors.ts';
import { createAtomicFile } from './atomic-file.ts';
import { EXIT_INPUT, EXIT_OK, report } from './io.ts';
import type { CliIo } from './io.ts';
import { createProgress } from './progress.ts';

/** What a worker is asked: one run of the one-file command. */
export interface DirectoryJob {
  readonly id: number;
  readonly args: readonly string[];
}

/** What it answers: the exit code and what that run wrote to stdout and stderr. */
export interface DirectoryJobResult {
  readonly id: number;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
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
  const scratch = o.links === undefined ? null : await mkdtemp(join(tmpdir(), 'absolutize-links-'));
  let failed = 0;
  try {
    try {
      await mkdir(outputDir, { recursive: true });
      for (const dir of dirs) await mkdir(join(outputDir, dir), { recursive: true });
    } catch (err) {
      report(io, 'error', 'ABS_ERR_OUTPUT', `${o.output}: ${(err as Error).message}`);
      return EXIT_INPUT;
    }
    for (const e of others) {
      try {
        await copyAtomically(e.path, join(outputDir, e.rel));
      } catch (err) {
        failed++;
        progress.line(`absolutize: error [ABS_ERR_INPUT] ${e.path}: ${(err as Error).message}`);
      }
    }
    const jobList: DirectoryJob[] = documents.map((e, id) => ({
      id,
      args: [
        e.path,
        '-o',
        join(outputDir, e.rel),
        ...(dirUrl === undefined ? [] : ['--url', new URL(e.rel.split(sep).map(encodeURIComponent).join('/'), dirUrl).href]),
        ...(scratch === null ? [] : ['--links', join(scratch, `${id}.jsonl`)]),
        ...o.passOn,
      ],
    }));
    let done = 0;
    const results = await runPool(jobList, Math.min(jobs, Math.max(1, jobList.length)), (r) => {
      done++;
      progress.update(`absolutize: [${done}/${jobList.length}] ${documents[r.id]!.rel}`);
    });
    progress.done();
    // In path order: what each run reported, then the links report.
    for (const r of results) {
      if (r.stderr !== '') io.stderr.write(r.stderr);
      if (r.code !== EXIT_OK) failed++;
    }
    if (scratch !== null) await writeLinks(o.links!, scratch, results, io);
  } finally {
    progress.done();
    if (scratch !== null) await rm(scratch, { recursive: true, force: true });
  }
  return failed === 0 ? EXIT_OK : EXIT_INPUT;
}

/** Whether `inner` is `outer` or below it. */
function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel));
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

/** The one-file command over `jobs` in `size` worker threads; results in job order. */
async function runPool(jobs: readonly DirectoryJob[], size: number, onResult: (r: DirectoryJobResult) => void): Promise<DirectoryJobResult[]> {
  const results: DirectoryJobResult[] = new Array<DirectoryJobResult>(jobs.length);
  if (jobs.length === 0) return results;
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
        results[r.id] = r;
        onResult(r);
        give();
      });
      worker.on('error', reject);
      give();
    });
  await Promise.all(Array.from({ length: size }, one));
  return results;
}

/** The runs' link reports, one after another in path order, to `target` ("-": standard output). */
async function writeLinks(target: string, scratch: string, results: readonly DirectoryJobResult[], io: CliIo): Promise<void> {
  const file = target === '-' ? null : createAtomicFile(target);
  const sink = file === null ? io.stdout : file.stream;
  try {
    for (const r of results) {
      const text = await readFile(join(scratch, `${r.id}.jsonl`), 'utf8').catch(() => '');
      if (text !== '' && !sink.write(text)) await new Promise((resolve) => sink.once('drain', resolve));
    }
    await file?.commit();
  } catch (err) {
    await file?.abort();
    throw err;
  }
}

/** Whether INPUT names a directory (a file, "-", or a missing path does not). */
export async function isDirectory(input: string | undefined): Promise<boolean> {
  if (input === undefined || input === '-') return false;
  return (await stat(input).catch(() => null))?.isDirectory() === true;
}
