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
import { mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import { AbsError } from '../errors.ts';
import type { FileJob, JobType } from '../batch/job.ts';
import { fsPathOf, joinPath, relativeBytes, showPath } from '../batch/paths.ts';
import type { FsPath } from '../batch/paths.ts';
import { createJobPool, parseJobs } from '../batch/pool.ts';
import { isSniffed, sniffFile, typeOfMirrorName } from '../batch/sniff.ts';
import type { DocumentType, RewriteSettings } from '../batch/rewriters.ts';
import { runJobs } from '../batch/run-jobs.ts';
import { summaryLine } from '../batch/summary.ts';
import { checkOutputPath, createAtomicFile, temporaryName } from './atomic-file.ts';
import { copiedMailHint, printHint } from './hints.ts';
import type { Hint } from './hints.ts';
import { EXIT_INPUT, EXIT_OK, report } from './io.ts';
import type { CliIo } from './io.ts';
import { readHttrackProject } from './httrack.ts';
import type { HttrackProject } from './httrack.ts';
import { createProgress } from './progress.ts';
import { isDirectory, isWithin } from './detect.ts';

export { isDirectory, isWithin };

export interface DirectoryOptions {
  /** One directory, or several files. */
  readonly inputs: readonly string[];
  readonly output: string;
  readonly url: string | undefined;
  /** `--root DIR` (FILE... with a --url that ends in "/"): file URLs and outputs are paths below it; default: the current directory. */
  readonly root?: string | undefined;
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
  // --host-dirs on an HTTrack project: each file's URL from the project's log (httrack.ts), its name renamed.
  let httrack: HttrackProject | null = null;
  // FILE... with a --url that ends in "/" is a directory run over those files: each file's URL is the URL plus
  // its path below --root (default: the current directory), and its output that path below OUTDIR.
  const rootDir = several && o.url?.endsWith('/') === true ? resolvePath(o.root ?? '.') : null;
  if (o.root !== undefined && rootDir === null) throw new AbsError(`--root needs a --url that ends in "/" (the URL of ${o.root})`, 'ABS_ERR_USAGE');
  const relOfInput = (input: string): string => {
    if (rootDir === null) return basename(input);
    const rel = relative(rootDir, resolvePath(input));
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      throw new AbsError(`${input} is not below ${o.root ?? 'the current directory'}: give --root DIR, the directory whose URL --url ${o.url} is`, 'ABS_ERR_USAGE');
    }
    return rel.split(sep).join('/');
  };
  if (several) {
    // Each file into OUTDIR under its own name (its path below --root): no two the same, none an input, --links none of them.
    const names = new Map<string, string>();
    const inputs = new Set<string>();
    for (const input of o.inputs) {
      if (await isDirectory(input)) throw new AbsError(`${input} is a directory: give one directory, or files only`, 'ABS_ERR_USAGE');
      inputs.add(await realpath(input).catch(() => resolvePath(input)));
    }
    for (const input of o.inputs) {
      const target = join(outputReal, relOfInput(input));
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
    if (o.hostDirs !== null) {
      await checkHostDirs(o.inputs[0]!);
      httrack = await readHttrackProject(o.inputs[0]!);
    }
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
    if (o.hostDirs !== null) return httrack?.urls.get(showPath(rel)) ?? hostDirUrl(o.hostDirs, rel);
    return dirUrl === undefined ? o.settings.url : new URL(encodeWithQuery(rel), dirUrl).href;
  };
  async function* source(): AsyncGenerator<FileJob> {
    if (several) {
      for (const input of o.inputs) {
        const rel = Buffer.from(relOfInput(input));
        if (rootDir !== null && rel.includes(0x2f)) await mkdir(join(outputDir, dirname(relOfInput(input))), { recursive: true });
        // A file named on the command line is a document: by name, else by content, else HTML.
        const type = o.every ?? typeOfMirrorName(input) ?? (await sniffFile(input)) ?? 'html';
        yield jobOf({ path: input, rel }, type, rootDir === null ? o.settings.url : fileUrl(rel));
      }
      return;
    }
    for await (const item of walk(o.inputs[0]!, Buffer.alloc(0))) {
      if ('dir' in item) await mkdir(joinPath(outputDir, fsPathOf(item.dir)), { recursive: true });
      else if ('skipped' in item) {
        progress.line(`absolutize: warning [not-a-regular-file] ${showPath(item.skipped)}: a symbolic link or special file, not followed or copied\n`);
      } else {
        // By name (before any "?" of a wget name), else by content as a browser sniffs it, else copied.
        const name = showPath(item.rel);
        const type = o.every ?? typeOfMirrorName(name) ?? (isSniffed(name) ? await sniffFile(item.path) : null) ?? 'copy';
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
    if (httrack !== null && !httrack.originalLinks) {
      printHint(io, {
        code: 'httrack-local-links',
        message: `${o.inputs[0]} is an HTTrack project made without -K4: HTTrack rewrote its pages' links to the names it saved files under (p4658.html for /p.html?page=2), and made absolute they name files the site does not have; mirror again with httrack -K4 (original links) and rewrite that`,
      });
    }
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

/**
 * A path below the directory as a relative URL: a "?" in the last name starts the query, as wget names the page
 * of `/p.html?page=2` `p.html?page=2` (every other byte a URL cannot hold as it is, percent-encoded).
 */
function encodeWithQuery(rel: Buffer): string {
  const { path, query } = splitQuery(rel);
  return `${encodePath(path)}${query}`;
}

function splitQuery(rel: Buffer): { path: Buffer; query: string } {
  const q = rel.indexOf(0x3f, rel.lastIndexOf(0x2f) + 1);
  return q === -1 ? { path: rel, query: '' } : { path: rel.subarray(0, q), query: `?${percentEncode(rel.subarray(q + 1), QUERY_KEEP)}` };
}

/**
 * `--host-dirs`: `example.com/a/b.html` → `https://example.com/a/b.html`; `page.php?x=1` → `page.php?x=1` (a
 * query). A port is written as wget writes it (`127.0.0.1:8080`; `+` where `:` cannot be in a name) or as HTTrack
 * does (`127.0.0.1_8080`).
 */
export function hostDirUrl(scheme: 'http' | 'https', rel: Buffer): string | null {
  const slash = rel.indexOf(0x2f);
  if (slash <= 0) return null; // a file directly in DIR has no host
  const host = hostOfDirName(rel.subarray(0, slash).toString('utf8'));
  if (host === null) return null;
  const { path, query } = splitQuery(rel.subarray(slash));
  try {
    return new URL(`${scheme}://${host}${percentEncode(path, PATH_KEEP)}${query}`).href;
  } catch {
    return null;
  }
}

/**
 * The host (and port) a mirror's top directory names, or null if the name is not a host name: a domain name
 * with a dot, `localhost`, an IPv4 or bracketed IPv6 address; a port after `:`, `+` (wget) or `_` (HTTrack).
 */
export function hostOfDirName(name: string): string | null {
  const m = /^(.+?)(?:[:+_](\d{1,5}))?$/.exec(name);
  if (m === null) return null;
  const host = m[1]!;
  const port = m[2] === undefined ? '' : `:${m[2]}`;
  const named = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}-]*[\p{L}\p{N}]\.?$/u.test(host) && !/^\d+(?:\.\d+)*$/.test(host);
  const ipv4 = /^(?:\d{1,3}\.){3}\d{1,3}$/.test(host);
  if (!(named || ipv4 || host === 'localhost' || /^\[[0-9a-f:.]+\]$/i.test(host))) return null;
  try {
    return new URL(`http://${host}${port}/`).host;
  } catch {
    return null;
  }
}

/** What HTTrack writes beside the host folders of a project (not hosts). */
const HTTRACK_ENTRIES = new Set(['hts-cache', 'hts-tmp']);

/**
 * `--host-dirs` on a folder whose folders are not host names (the host folder itself, say: its `docs/` would be
 * the host `https://docs/`) is refused, with what to give instead.
 */
async function checkHostDirs(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  const bad = entries.filter((e) => e.isDirectory() && !HTTRACK_ENTRIES.has(e.name) && hostOfDirName(e.name) === null).map((e) => e.name);
  if (bad.length === 0) return;
  const self = hostOfDirName(basename(resolvePath(dir)));
  const instead = self !== null ? `; ${dir} looks like a host folder itself: give it with --url https://${self}/ instead of --host-dirs, or give the folder that holds it` : '; give the folder that holds the host folders (as wget -m makes it), or this one with --url URL';
  throw new AbsError(`--host-dirs: ${dir} holds ${bad.slice(0, 3).map((b) => `${b}/`).join(', ')}${bad.length > 3 ? ` and ${bad.length - 3} more` : ''}, not host names${instead}`, 'ABS_ERR_USAGE');
}
