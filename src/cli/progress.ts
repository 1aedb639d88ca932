/**
 * A progress line for long batch work (SPEC §7), on a terminal only: redrawn in place on standard error, cleared
 * before any other line is written there so reports never interleave with it.
 */
import type { CliIo } from './io.ts';

export interface Progress {
  /** Redraws the line. */
  update(text: string): void;
  /** Writes a whole line to stderr above the progress line. */
  line(text: string): void;
  /** Removes the line. */
  done(): void;
}

export function createProgress(io: CliIo, enabled: boolean): Progress {
  const isTty = enabled && (io.stderr as { isTTY?: boolean }).isTTY === true;
  let shown = '';
  const columns = (): number => (io.stderr as { columns?: number }).columns ?? 80;
  const clear = (): void => {
    if (shown !== '') io.stderr.write('\r\x1b[K');
  };
  return {
    update(text) {
      if (!isTty) return;
      clear();
      shown = text.length >= columns() ? `${text.slice(0, columns() - 2)}…` : text;
      io.stderr.write(shown);
    },
    line(text) {
      clear();
      io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
      if (isTty && shown !== '') io.stderr.write(shown);
    },
    done() {
      clear();
      shown = '';
    },
  };
}
