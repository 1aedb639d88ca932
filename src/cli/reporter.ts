/**
 * The one reporter of every command (issue 21): everything a run writes to standard error passes through it.
 *
 * - Warnings a person can read: the first WARNINGS_SHOWN_PER_CODE of each code in full, then — at the end of
 *   the run, if any were held back — one line per code with its count. `--warnings FILE` writes every warning as
 *   a JSON line (written atomically when the run ends); `--quiet` shows errors only (no warnings, hints, progress
 *   or summary; `--warnings FILE` still gets every warning).
 * - The progress line (wget, curl, rsync): on a terminal only, drawn once the run has lasted PROGRESS_DELAY_MS,
 *   redrawn in place at most every PROGRESS_REDRAW_MS, cleared before any other line and erased at the end.
 *
 * Commands write their lines to `io.stderr` as before (the reporter is that stream: run.ts wraps the process's
 * standard error once per run); warning lines are recognised by their form, `absolutize: warning [CODE] …`.
 * Structured warnings (a document, part, line and column) come through `warning()`.
 */
import { Writable } from 'node:stream';
import { formatWarning } from '../batch/report-lines.ts';
import type { WarningRecord } from '../batch/report-lines.ts';
import { createAtomicFile } from './atomic-file.ts';
import type { AtomicFile } from './atomic-file.ts';
import type { CliIo } from './io.ts';

import { PROGRESS_DELAY_MS, WARNINGS_SHOWN_PER_CODE } from './usage.ts';

export { PROGRESS_DELAY_MS, WARNINGS_SHOWN_PER_CODE };
/** The progress line is redrawn at most this often. */
export const PROGRESS_REDRAW_MS = 200;

export interface ReporterOptions {
  /** `--quiet`: errors only. */
  readonly quiet: boolean;
  /** `--warnings FILE`: every warning as a JSON line. */
  readonly warningsFile: string | null;
}

const WARNING_LINE = /^absolutize: warning \[([^\]\s]+)\] (.*)$/;

export class Reporter {
  /** The stream commands write to (standard error as they see it). */
  readonly stream: Writable & { isTTY?: boolean; columns?: number };
  private readonly target: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  private readonly started = performance.now();
  private options: ReporterOptions = { quiet: false, warningsFile: null };
  private warningsOut: AtomicFile | null = null;
  private readonly counts = new Map<string, number>();
  private partial = '';
  private shown = '';
  private pending = '';
  private lastDraw = 0;
  private finished = false;

  constructor(target: NodeJS.WritableStream) {
    this.target = target as typeof this.target;
    const stream = new Writable({
      write: (chunk: Buffer | string, _encoding, callback) => {
        this.text(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
        callback();
      },
    }) as Writable & { isTTY?: boolean; columns?: number };
    // Commands ask standard error whether it is a terminal (a WARC is not written to one, say).
    Object.defineProperty(stream, 'isTTY', { get: () => this.target.isTTY === true });
    Object.defineProperty(stream, 'columns', { get: () => this.target.columns });
    // write() as a plain call (returning true) so that a line is out before the next statement runs.
    stream.write = ((chunk: Buffer | string, ...rest: unknown[]): boolean => {
      this.text(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      cb?.();
      return true;
    }) as typeof stream.write;
    this.stream = stream;
    REPORTERS.set(stream, this);
  }

  /** Sets --quiet and --warnings (a command calls this once it has read its options). */
  configure(options: ReporterOptions): void {
    this.options = options;
    if (options.warningsFile !== null && this.warningsOut === null) this.warningsOut = createAtomicFile(options.warningsFile);
  }

  get quiet(): boolean {
    return this.options.quiet;
  }

  /** Whether a progress line can be shown (standard error is a terminal and --quiet is not given). */
  get showsProgress(): boolean {
    return this.target.isTTY === true && !this.options.quiet;
  }

  /** Warnings seen, in all. */
  get warnings(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  /** A warning with where it was found. */
  warning(record: WarningRecord): void {
    this.count(record, formatWarning(record));
  }

  /** The progress line's text (drawn on a terminal once the run is PROGRESS_DELAY_MS old). */
  progress(text: string): void {
    if (!this.showsProgress || this.finished) return;
    this.pending = text;
    const now = performance.now();
    if (now - this.started < PROGRESS_DELAY_MS || now - this.lastDraw < PROGRESS_REDRAW_MS) return;
    this.lastDraw = now;
    this.draw();
  }

  /** Erases the progress line (it is drawn again on the next progress()). */
  clearProgress(): void {
    if (this.shown !== '') this.target.write('\r\x1b[K');
    this.shown = '';
  }

  /** The run is over: the progress line erased, the count of each code held back, the warnings file committed. */
  async finish(): Promise<void> {
    if (this.partial !== '') this.text('\n');
    this.clearProgress();
    this.finished = true;
    const held = [...this.counts].filter(([, n]) => n > WARNINGS_SHOWN_PER_CODE);
    if (held.length > 0 && !this.options.quiet) {
      const where = this.warningsOut === null ? '--warnings FILE writes every one' : `every one is in ${this.options.warningsFile}`;
      for (const [code, n] of this.counts) {
        this.write(`absolutize: [${code}] ${thousands(n)} warning${n === 1 ? '' : 's'}${n > WARNINGS_SHOWN_PER_CODE ? `, the first ${WARNINGS_SHOWN_PER_CODE} shown` : ''}\n`);
      }
      this.write(`absolutize: ${thousands(this.warnings)} warnings in all (${where})\n`);
    }
    if (this.warningsOut !== null) {
      const out = this.warningsOut;
      this.warningsOut = null;
      await out.commit();
    }
  }

  /** Removes the warnings file's temporary file (a run that failed before it could write anything). */
  async abort(): Promise<void> {
    await this.warningsOut?.abort();
    this.warningsOut = null;
  }

  private text(chunk: string): void {
    const text = this.partial + chunk;
    const lines = text.split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    const m = WARNING_LINE.exec(line);
    if (m !== null) {
      this.count({ document: null, part: null, code: m[1]!, message: m[2]!, line: null, column: null }, `${line}\n`);
      return;
    }
    // --quiet: errors (and the lines of an error's own text) only.
    if (this.options.quiet && !line.startsWith('absolutize: error')) return;
    this.write(`${line}\n`);
  }

  private count(record: WarningRecord, text: string): void {
    const n = (this.counts.get(record.code) ?? 0) + 1;
    this.counts.set(record.code, n);
    if (this.warningsOut !== null) this.warningsOut.stream.write(`${JSON.stringify(record)}\n`);
    if (this.options.quiet || n > WARNINGS_SHOWN_PER_CODE) return;
    this.write(text);
  }

  /** A whole line above the progress line. */
  private write(text: string): void {
    const redraw = this.shown !== '';
    this.clearProgress();
    this.target.write(text);
    if (redraw) this.draw();
  }

  private draw(): void {
    const columns = this.target.columns ?? 80;
    const text = this.pending;
    this.clearProgress();
    this.shown = [...text].length >= columns ? `${[...text].slice(0, columns - 2).join('')}…` : text;
    this.target.write(this.shown);
  }
}

const REPORTERS = new WeakMap<object, Reporter>();

/** The reporter that is this stream, if it is one. */
export function reporterOfStream(stream: object): Reporter | undefined {
  return REPORTERS.get(stream);
}

/** The reporter behind a command's standard error, if run.ts made one (in-process tests may give a plain stream). */
export function reporterOf(io: CliIo): Reporter | undefined {
  return REPORTERS.get(io.stderr);
}

/** Sets --quiet and --warnings FILE for this run (a no-op where standard error is not a reporter). */
export function configureReporter(io: CliIo, values: { quiet?: boolean | undefined; warnings?: string | undefined }): void {
  reporterOf(io)?.configure({ quiet: values.quiet === true, warningsFile: values.warnings ?? null });
}

/**
 * An integer with thousands separators, as `toLocaleString('en-US')` writes it (`1,204`), without ICU: the first
 * `toLocaleString` of a process loads ICU's locale data, ~26 ms of CPU, once a run.
 */
export function thousands(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
