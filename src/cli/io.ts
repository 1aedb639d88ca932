/** The streams a command talks to: the process's own in main.ts, in-memory ones in tests. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/** Exit codes (SPEC §7): 0 success, 1 an input (or reference) could not be processed, 2 usage error. */
export const EXIT_OK = 0;
export const EXIT_INPUT = 1;
export const EXIT_USAGE = 2;

/** One-line error or warning on stderr: `absolutize: error [CODE] message`. */
export function report(io: CliIo, level: 'error' | 'warning', code: string, message: string): void {
  io.stderr.write(`absolutize: ${level} [${code}] ${message}\n`);
}
