/**
 * SIGINT and SIGTERM (SPEC §7, "outputs written atomically"): every temporary file of the run is removed, one line
 * says how far the run got (`absolutize: interrupted: N of M written`), and the process ends as the signal says
 * (the signal is raised again with its default action, so the shell sees 128 + its number).
 */
import { unlinkSync } from 'node:fs';
import { liveTemporaryFiles } from './atomic-file.ts';

/** How far the current command is: outputs written of those it will write (a batch updates it as it goes). */
export const runProgress: { written: number; total: number | null } = { written: 0, total: 1 };

export function installInterruptHandlers(stderr: NodeJS.WritableStream & { fd?: number }): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const temp of liveTemporaryFiles) {
        try {
          unlinkSync(temp);
        } catch {
          // not created yet, or already renamed
        }
      }
      const total = runProgress.total === null ? '?' : String(runProgress.total);
      // Written synchronously: the process ends right after.
      const line = `absolutize: interrupted: ${runProgress.written} of ${total} written\n`;
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
