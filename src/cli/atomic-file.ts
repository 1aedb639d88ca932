/**
 * Outputs written atomically: into a temporary file beside the target, renamed over it only when complete.
 * A failed run leaves no half-written output (SPEC §7). Temporary names are random (crypto), so two outputs
 * of one run — or of two runs — never share one; every temporary file not yet renamed or removed is in
 * `liveTemporaryFiles`, which the interrupt handler (interrupt.ts) removes on SIGINT/SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, statSync } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { joinPath, splitPath } from '../batch/paths.ts';
import { AbsError } from '../errors.ts';
import type { FsPath } from '../batch/paths.ts';
import { report } from './io.ts';
import type { CliIo } from './io.ts';

export interface AtomicFile {
  readonly stream: Writable;
  /** Waits for the data to be written, then renames the temporary file over the target. */
  commit(): Promise<void>;
  /** Removes the temporary file. */
  abort(): Promise<void>;
}

/** Temporary files of this thread that exist or may exist (created, not yet renamed or removed). */
export const liveTemporaryFiles: Set<FsPath> = new Set();

/** A fresh temporary name beside `path`: `.NAME.<16 random hex digits>.tmp`. */
export function temporaryName(path: FsPath): FsPath {
  const { dir, name } = splitPath(path);
  const random = randomBytes(8).toString('hex');
  return typeof name === 'string' ? joinPath(dir, `.${name}.${random}.tmp`) : joinPath(dir, Buffer.concat([Buffer.from('.'), name, Buffer.from(`.${random}.tmp`)]));
}

/**
 * Whether `path` exists and is neither a regular file nor a directory: /dev/null, /dev/stdout, a FIFO, a terminal.
 * Such a target is written in place, as cp and curl -o write it: renaming a file over it would replace the device
 * itself (run as root, `-o /dev/null` turned /dev/null into a regular file for every process on the machine).
 */
function isSpecialFile(path: FsPath): boolean {
  try {
    const st = statSync(path);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

/** Writes straight into a special file (see isSpecialFile): nothing to rename, nothing to remove. */
function createDirectFile(path: FsPath): AtomicFile {
  const stream = createWriteStream(path, { flags: 'w' });
  const finished = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  finished.catch(() => {}); // as in createAtomicFile: commit() still sees a rejection
  return {
    stream,
    async commit() {
      if (!stream.writableEnded) stream.end();
      await finished;
    },
    async abort() {
      stream.destroy();
      if (!stream.closed) await new Promise<void>((resolve) => stream.once('close', () => resolve()));
    },
  };
}

/** `temp`: a temporary name chosen by the caller (a batch's main thread names its workers' files, to remove them if interrupted). */
export function createAtomicFile(path: FsPath, temp: FsPath = temporaryName(path)): AtomicFile {
  if (isSpecialFile(path)) return createDirectFile(path);
  liveTemporaryFiles.add(temp);
  const stream = createWriteStream(temp, { flags: 'wx' });
  const finished = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  // NOTE: a failed pipeline destroys the stream with its error; abort() never awaits `finished`, so mark the
  // rejection handled here (commit() still sees it) or Node ends the process on an unhandled rejection.
  finished.catch(() => {});
  return {
    stream,
    async commit() {
      if (!stream.writableEnded) stream.end();
      await finished;
      await rename(temp, path);
      liveTemporaryFiles.delete(temp);
    },
    async abort() {
      stream.destroy();
      // The file may still be being opened: wait for the stream to close before removing it.
      if (!stream.closed) await new Promise<void>((resolve) => stream.once('close', () => resolve()));
      await unlink(temp).catch(() => {});
      liveTemporaryFiles.delete(temp);
    },
  };
}

/**
 * Checked before anything is written: an output file's directory exists and the path is not a directory.
 * `what` names the option (`-o`, `--links`); the failure is ABS_ERR_OUTPUT, one line.
 */
export async function checkOutputPath(path: string, what: string): Promise<void> {
  const { stat } = await import('node:fs/promises');
  const { dirname } = await import('node:path');
  const dir = await stat(dirname(path)).catch((err: NodeJS.ErrnoException) => err);
  if (dir instanceof Error || !dir.isDirectory()) {
    throw new AbsError(`${what} ${path}: ${dir instanceof Error && dir.code !== 'ENOENT' ? dir.message : `the directory ${dirname(path)} does not exist`}`, 'ABS_ERR_OUTPUT');
  }
  if ((await stat(path).catch(() => null))?.isDirectory() === true) throw new AbsError(`${what} ${path}: is a directory`, 'ABS_ERR_OUTPUT');
}

/** What a single-input run writes beside its output: the link report, closed (put in place) or aborted. */
export interface LinkSink {
  write(line: string): void;
  close(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Puts a finished run's output and link report in place. One that cannot take its place (a directory in the
 * way, no permission to rename) is one ABS_ERR_OUTPUT line, and both are removed: false.
 */
export async function commitOutputs(io: CliIo, output: AtomicFile | null, links: LinkSink | null): Promise<boolean> {
  try {
    await output?.commit();
    await links?.close();
    return true;
  } catch (err) {
    await output?.abort();
    await links?.abort();
    report(io, 'error', 'ABS_ERR_OUTPUT', (err as Error).message);
    return false;
  }
}
