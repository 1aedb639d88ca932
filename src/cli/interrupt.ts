/**
 * SIGINT and SIGTERM (SPEC §7, "outputs written atomically"): every temporary file of the run is removed, one line
 * says how far the run got (`absolutize: interrupted: N of M written`), and the process ends as the signal says
 * (the signal is raised again with its default action, so the shell sees 128 + its number).
 */
import { unlinkSync } from 'node:fs';
import { liveTemporaryFiles } from './atomic-file.ts';

/** How far the current command is: outputs written of those it will write (a batch updates it as it goes). */
export const runProgress: { written: number; total: number | null } = { written: 0, total: 1 };

/**
 * What must stop before the temporary files are removed: the batch pool's worker threads, which create their
 * outputs' temporary files themselves. A worker still running when the files are removed could create one after
 * (a SIGTERM test caught it once in five full runs); once `terminate()` has resolved, its file operations in
 * flight have completed, so a file it created is there to be removed.
 */
export const beforeInterruptCleanup: Set<() => Promise<unknown>> = new Set();

/** How long an interrupt waits for those to stop before it removes the files anyway (a hung worker). */
export const INTERRUPT_STOP_WAIT_MS = 2000;

export function installInterruptHandlers(stderr: NodeJS.WritableStream & { fd?: number }): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      if (beforeInterruptCleanup.size > 0) {
        // A second signal meanwhile ends the process at once (the listener is gone): the user insists.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...beforeInterruptCleanup].map((stop) => stop())),
          new Promise((resolve) => (timer = setTimeout(resolve, INTERRUPT_STOP_WAIT_MS))),
        ]);
        clearTimeout(timer);
      }
      for (const temp of liveTemporaryFiles) {
        try {
          unlinkSync(temp);
        } catch {
          // not created yet, or already renamed
        }
      }
      const total = runProgress.total === null ? '?' : String(runProgress.total);
      // Written synchronously: the process ends right after.
      // On a terminal, the progress line (reporter.ts) is erased first.
      const erase = (stderr as { isTTY?: boolean }).isTTY === true ? '\r\x1b[K' : '';
      const line = `${erase}absolutize: interrupted: ${runProgress.written} of ${total} written\n`;
      try {
        (stderr as { write(s: string): boolean }).write(line);
      } catch {
        // stderr closed: nothing to tell
      }
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    });
  }
}
