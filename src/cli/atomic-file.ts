/**
 * Outputs written atomically: into a temporary file beside the target, renamed over it only when complete.
 * A failed run leaves no half-written output (SPEC §7).
 */
import { createWriteStream } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { basename, dirname, join } from 'node:path';

export interface AtomicFile {
  readonly stream: Writable;
  /** Waits for the data to be written, then renames the temporary file over the target. */
  commit(): Promise<void>;
  /** Removes the temporary file. */
  abort(): Promise<void>;
}

export function createAtomicFile(path: string): AtomicFile {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
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
    },
    async abort() {
      stream.destroy();
      await unlink(temp).catch(() => {});
    },
  };
}
