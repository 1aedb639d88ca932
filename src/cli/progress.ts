/**
 * A progress line for long work (SPEC §7), on a terminal only: redrawn in place on standard error, cleared
 * before any other line is written there so reports never interleave with it. Where standard error is the run's
 * reporter (reporter.ts, every run of the CLI), the line is the reporter's: shown once the run has lasted
 * PROGRESS_DELAY_MS, not at all under --quiet, and erased when the run ends.
 */
import type { CliIo } from './io.ts';
import { reporterOf, thousands } from './reporter.ts';

export interface Progress {
  /** Redraws the line. */
  update(text: string): void;
  /** Writes a whole line to stderr above the progress line. */
  line(text: string): void;
  /** Removes the line. */
  done(): void;
}

export function createProgress(io: CliIo, enabled: boolean): Progress {
  const reporter = reporterOf(io);
  if (reporter !== undefined) {
    return {
      update: (text) => {
        if (enabled) reporter.progress(text);
      },
      line: (text) => void io.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
      done: () => reporter.clearProgress(),
    };
  }
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

/** What a progress line says of a run: how far (bytes of a total), how fast, how long still, and what it counted. */
export interface ProgressFigures {
  readonly bytes: number;
  /** The input's size, where known (a regular file). */
  readonly total: number | null;
  /** When the run started (performance.now()). */
  readonly started: number;
  /** Records, messages or files so far, with their noun (`records`, `messages`), where there are some. */
  readonly count?: { readonly n: number; readonly of?: number | null | undefined; readonly noun: string } | undefined;
  /** The item being worked on (a file's name). */
  readonly item?: string | undefined;
}

/**
 * `absolutize: 41.9 MB of 500.0 MB (8%), 12.3 MB/s, ETA 0:37, 1,204 messages`, as wget and curl show it. The
 * estimate is the bytes left at the mean rate so far; without a total there is none.
 */
export function progressText(f: ProgressFigures): string {
  const seconds = Math.max(0.001, (performance.now() - f.started) / 1000);
  const rate = f.bytes / seconds;
  const parts: string[] = [];
  if (f.count !== undefined) parts.push(`${thousands(f.count.n)}${f.count.of != null ? `/${thousands(f.count.of)}` : ''} ${f.count.noun}`);
  if (f.total !== null && f.total > 0) {
    parts.push(`${megabytes(f.bytes)} of ${megabytes(f.total)} (${Math.min(100, Math.floor((100 * f.bytes) / f.total))}%)`);
  } else parts.push(megabytes(f.bytes));
  parts.push(`${megabytes(rate)}/s`);
  if (f.total !== null && f.total > f.bytes && rate > 0) parts.push(`ETA ${duration((f.total - f.bytes) / rate)}`);
  return `absolutize: ${parts.join(', ')}${f.item === undefined ? '' : ` ${f.item}`}`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** `0:37`, `12:05`, `1:02:03`. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
