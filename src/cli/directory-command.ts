/**
 * `absolutize DIR -o OUTDIR [--url URL-of-DIR | --host-dirs] ...` and `absolutize FILE... -o OUTDIR`: a directory
 * tree (a mirrored site, a folder of saved mail) in, the same tree out; or several files, each into OUTDIR under
 * its own name (SPEC §7, "a file/directory/URL tool"; "batch over many inputs uses all cores").
 *
 * Both are batches of the job model (src/batch): each file whose extension names a type (.html, .css, .eml,
 * .mbox, …), or every file with `--type`, is rewritten on the job pool (`--jobs`, default: the cores Node may
 * use); every other file of a tree is copied byte for byte and every directory is made. With `--url`, a file's
 * retrieval URL is its path below DIR resolved against that URL, as a mirror keeps a site's paths; with
 * `--host-dirs` (wget, HTTrack), the first directory below DIR is the host: `DIR/example.com/a/b.html` is
 * `https://example.com/a/b.html` (`--scheme http` for http:), and a `?` in a file name (wget's `page.php?x=1`)
 * starts the query. File names that are not UTF-8 are kept as bytes. Reports come out in path order, whatever
 * order the workers finish in; a summary line ends the run.
 */
import { mkdir, mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import { AbsError } from '../errors.ts';
import type { FileJob, JobType } from '../batch/job.ts';
import { fsPathOf, joinPath, relativeBytes, showPath } from '../batch/paths.ts';
import type { FsPath } from '../batch/paths.ts';
import { createJobPool, parseJobs } from '../batch/pool.ts';
import { typeOfName } from '../batch/rewriters.ts';
import type { DocumentType, RewriteSettings } from '../batch/rewriters.ts';
import { runJobs } from '../batch/run-jobs.ts';
import { summaryLine } from '../batch/summary.ts';
import { checkOutputPath, createAtomicFile, temporaryName } from './atomic-file.ts';
import { copiedMailHint, printHint } from './hints.ts';
import type { Hint } from './hints.ts';
import { EXIT_INPUT, EXIT_OK, report } from './io.ts';
import type { CliIo } from './io.ts';
import { createProgress } from './progress.ts';

export interface DirectoryOptions {
  /** One directory, or several files. */
  readonly inputs: readonly string[];
  readonly output: string;
  readonly url: string | undefined;
  /** `--host-dirs`: the scheme of the URLs made from host directories; null without it. */
  readonly hostDirs: 'http' | 'https' | null;
  readonly links: string | undefined;
  readonly jobs: string | undefined;
  /** `--type`: every input is of this type; null: by extension. */
  readonly every: DocumentType | null;
  /** The rewrite options of each file (its `url` is set per file). */
  readonly settings: RewriteSettings;
}

interface Entry {
  readonly path: FsPath;
  /** The path below the directory, as bytes. */
  readonly rel: Buffer;
}

export async function directoryCommand(o: DirectoryOptions, io: CliIo): Promise<number> {
  const jobs = parseJobs(o.jobs);
  const outputDir = resolvePath(o.output);
  const outputReal = await realpath(outputDir).catch(() => outputDir);
  const several = o.inputs.length > 1 || !(await isDirectory(o.inputs[0]));
  const linksPath = o.links === undefined || o.links === '-' ? null : resolvePath(o.links);
  let inputDir = '';
  if (several) {
    // Each file into OUTDIR under its own name: no two the same, none an input, --links none of them.
    const names = new Map<string, string>();
    const inputs = new Set<string>();
    for (const input of o.inputs) {
      if (await isDirectory(input)) throw new AbsError(`${input} is a directory: give one directory, or files only`, 'ABS_ERR_USAGE');
      inputs.add(await realpath(input).catch(() => resolvePath(input)));
    }
    for (const input of o.inputs) {
      const target = join(outputReal, basename(input));
      const earlier = names.get(target);
      if (earlier !== undefined) throw new AbsError(`${earlier} and ${input} would both be written to ${target}`, 'ABS_ERR_USAGE');
      if (inputs.has(target)) throw new AbsError(`-o ${o.output}: ${input} would be written over the input ${target}`, 'ABS_ERR_USAGE');
      names.set(target, input);
    }
    if (linksPath !== null && (names.has(linksPath) || inputs.has(await realpath(linksPath).catch(() => linksPath)))) {
      throw new AbsError(`--links ${o.links} is an input or an output of this run`, 'ABS_ERR_USAGE');
    }
  } else {
    inputDir = await realpath(o.inputs[0]!);
    if (isWithin(outputReal, inputDir) || isWithin(inputDir, outputReal)) {
      throw new AbsError(`-o ${o.output} and ${o.inputs[0]} overlap: absolutize never writes over (or into) its input`, 'ABS_ERR_USAGE');
    }
    if (linksPath !== null && isWithin(await realpath(linksPath).catch(() => linksPath), inputDir)) {
      throw new AbsError(`--links ${o.links} is inside the input ${o.inputs[0]}: absolutize never writes into its input`, 'ABS_ERR_USAGE');
    }
  }
  if (linksPath !== null) await checkOutputPath(linksPath, '--links');
  // The URL names the directory: its files are below it.
  const dirUrl = o.url === undefined ? undefined : o.url.endsWith('/') ? o.url : `${o.url}/`;
  try {
    await mkdir(outputDir, { recursive: true });
  } catch (err) {
    report(io, 'error', 'ABS_ERR_OUTPUT', `${o.output}: ${(err as Error).message}`);
    return EXIT_INPUT;
  }

  const progress = createProgress(io, true);
  const scratch = await mkdtemp(join(tmpdir(), 'absolutize-'));
  const links = o.links === undefined ? null : o.links === '-' ? { stream: io.stdout, commit: async () => {}, abort: async () => {} } : createAtomicFile(o.links);
  const pool = createJobPool(jobs);
  let id = 0;
  const jobOf = (e: Entry, type: JobType, url: string | null): FileJob => {
    const n = id++;
    const output = joinPath(outputDir, fsPathOf(e.rel));
    return {
      id: n,
      input: e.path,
      name: showPath(e.path),
      output,
      outputTemp: temporaryName(output),
      links: links === null || type === 'copy' ? null : { path: join(scratch, `${n}.jsonl`), temp: null },
      stderrPath: join(scratch, `${n}.stderr`),
      type,
      settings: { ...o.settings, url },
      skipExisting: false,
    };
  };
  const fileUrl = (rel: Buffer): string | null => {
    if (o.hostDirs !== null) return hostDirUrl(o.hostDirs, rel);
    return dirUrl === undefined ? o.settings.url : new URL(encodePath(rel), dirUrl).href;
  };
  async function* source(): AsyncGenerator<FileJob> {
    if (several) {
      for (const input of o.inputs) {
        const type = o.every ?? typeOfName(input) ?? 'html';
        yield jobOf({ path: input, rel: Buffer.from(basename(input)) }, type, o.settings.url);
      }
      return;
    }
    for await (const item of walk(o.inputs[0]!, Buffer.alloc(0))) {
      if ('dir' in item) await mkdir(joinPath(outputDir, fsPathOf(item.dir)), { recursive: true });
      else if ('skipped' in item) {
        progress.line(`absolutize: warning [not-a-regular-file] ${showPath(item.skipped)}: a symbolic link or special file, not followed or copied\n`);
      } else {
        const type = o.every ?? typeOfName(showPath(item.rel)) ?? 'copy';
        if (type === 'copy' && mailHint === null) mailHint = await copiedMailHint(item.path, showPath(item.path));
        yield jobOf(item, type, type === 'copy' ? null : fileUrl(item.rel));
      }
    }
  }
  // hints.ts: the first copied file that is mail (a Maildir given without --type mime), said once after the run.
  let mailHint: Hint | null = null;
  let failed = 0;
  try {
    const summary = await runJobs(source(), { pool, progress, ordered: { stderr: io.stderr, links: links?.stream ?? null } });
    failed = summary.failed;
    await links?.commit();
    if (mailHint !== null) printHint(io, mailHint);
    io.stderr.write(summaryLine(summary));
  } catch (err) {
    await links?.abort();
    const e = err as NodeJS.ErrnoException;
    if (e.syscall === 'mkdir') {
      report(io, 'error', 'ABS_ERR_OUTPUT', `${e.message}`);
      return EXIT_INPUT;
    }
    if (e.syscall === 'scandir') {
      report(io, 'error', 'ABS_ERR_INPUT', `${e.message}`);
      return EXIT_INPUT;
    }
    throw err;
  } finally {
    progress.done();
    await pool.close();
    await rm(scratch, { recursive: true, force: true });
  }
  return failed === 0 ? EXIT_OK : EXIT_INPUT;
}

/** Whether `inner` is `outer` or below it ("../x" is not below; a name that starts with "..", like "..x", is). */
export function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Regular files below `root`, in byte order of their paths, each directory before what it holds (empty ones
 * too: a Maildir needs its tmp/); symbolic links and special files as `skipped`. Names are read as bytes.
 */
async function* walk(root: string, rel: Buffer): AsyncGenerator<Entry | { dir: Buffer } | { skipped: FsPath }> {
  const here = rel.length === 0 ? root : joinPath(root, fsPathOf(rel));
  const items = (await readdir(here, { withFileTypes: true, encoding: 'buffer' })) as unknown as Array<Dirent<Buffer>>;
  items.sort((a, b) => Buffer.compare(a.name, b.name));
  for (const item of items) {
    const r = rel.length === 0 ? Buffer.from(item.name) : Buffer.concat([rel, Buffer.from('/'), item.name]);
    const path = joinPath(root, fsPathOf(r));
    if (item.isDirectory()) {
      yield { dir: r };
      yield* walk(root, r);
    } else if (item.isFile()) yield { path, rel: r };
    else yield { skipped: path };
  }
}

/** Bytes a URL path keeps as they are (RFC 3986 pchar without pct-encoded, and "/"); every other byte is %XX. */
const PATH_KEEP = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;
/** A query keeps "?" too. */
const QUERY_KEEP = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

function percentEncode(bytes: Buffer, keep: RegExp): string {
  let out = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && keep.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A path below the directory as a relative URL path: every byte a URL path cannot hold as it is, percent-encoded. */
function encodePath(rel: Buffer): string {
  return percentEncode(rel, PATH_KEEP).replace(/^([^/]*:)/, './$1');
}

/** `--host-dirs`: `example.com/a/b.html` → `https://example.com/a/b.html`; `page.php?x=1` → `page.php?x=1` (a query). */
export function hostDirUrl(scheme: 'http' | 'https', rel: Buffer): string | null {
  const slash = rel.indexOf(0x2f);
  if (slash <= 0) return null; // a file directly in DIR has no host
  const host = rel.subarray(0, slash).toString('utf8');
  const rest = rel.subarray(slash);
  const lastSlash = rest.lastIndexOf(0x2f);
  const q = rest.indexOf(0x3f, lastSlash);
  const path = q === -1 ? rest : rest.subarray(0, q);
  const query = q === -1 ? '' : `?${percentEncode(rest.subarray(q + 1), QUERY_KEEP)}`;
  try {
    return new URL(`${scheme}://${host}${percentEncode(path, PATH_KEEP)}${query}`).href;
  } catch {
    return null;
  }
}

/** Whether INPUT names a directory (a file, "-", or a missing path does not). */
export async function isDirectory(input: string | undefined): Promise<boolean> {
  if (input === undefined || input === '-') return false;
  return (await stat(input).catch(() => null))?.isDirectory() === true;
}
