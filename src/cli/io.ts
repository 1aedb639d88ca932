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
/** A damaged WARC/ARC input (cut short, corrupt members, bytes that are no record): every whole record was written. */
export const EXIT_PARTIAL = 3;

/** One-line error or warning on stderr: `absolutize: error [CODE] message`. */
export function report(io: CliIo, level: 'error' | 'warning', code: string, message: string): void {
  io.stderr.write(`absolutize: ${level} [${code}] ${inFlags(message)}\n`);
}

/**
 * The library's option names as the command line spells them. Library messages name options (`use exactBase
 * to honour it`, `limit maxBodyBytes exceeded`); the CLI says the flag instead. Limits that have no flag keep
 * their name (documented in src/limits.ts).
 */
export const FLAG_FOR_OPTION: Readonly<Record<string, string>> = {
  exactBase: '--exact-base',
  absolutizeFragments: '--fragments',
  lazyLoad: '--lazy-load',
  absolutizeContentLocation: '--content-location',
  maxRedirects: '--max-redirects',
  connectTimeoutMs: '--connect-timeout',
  headersTimeoutMs: '--headers-timeout',
  bodyTimeoutMs: '--body-timeout',
  maxBodyBytes: '--max-body-size',
  maxDecompressedBytes: '--max-decompressed-size',
  maxConcurrentRequests: '--concurrency',
  maxConnectionsPerOrigin: '--per-host',
  deadlineMs: '--deadline',
};
// "limit maxBodyBytes must be…" → "--max-body-size must be…": the flag is the limit.
const OPTION_NAME = new RegExp(`(?:\\blimit )?\\b(${Object.keys(FLAG_FOR_OPTION).join('|')})\\b`, 'g');

/** `message` with every library option name that has a flag replaced by the flag. */
export function inFlags(message: string): string {
  return message.replace(OPTION_NAME, (_match, name: string) => FLAG_FOR_OPTION[name]!);
}
