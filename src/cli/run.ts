/**
 * argv → command. Returns the exit code; never calls process.exit (main.ts does).
 */
import { existsSync } from 'node:fs';
import { AbsError } from '../errors.ts';
import { PACKAGE_VERSION } from '../node-version.ts';
import { EXIT_INPUT, EXIT_OK, EXIT_USAGE, report } from './io.ts';
import type { CliIo } from './io.ts';
import { wrapHelp } from './help.ts';
import { nearestFlag } from './options.ts';
import { MAIN_HELP } from './usage.ts';

// Each command's module is imported once the command is chosen: `--version` and `--help` load only the modules
// above, and a run loads only what it needs (start-up, docs/performance.md).

export const HELP: string = MAIN_HELP;

/** The package version (package.json, read by ../node-version.ts). */
export function version(): string {
  return PACKAGE_VERSION;
}

/**
 * Runs one command. Everything it writes to standard error passes through the run's reporter (reporter.ts):
 * warnings counted by code, the progress line, --quiet and --warnings FILE; the reporter ends the run (the
 * progress line erased, the counts of warnings held back, the warnings file committed).
 */
export async function run(argv: readonly string[], processIo: CliIo): Promise<number> {
  const answer = helpOrVersion(argv);
  if (answer !== null) {
    processIo.stdout.write(answer);
    return EXIT_OK;
  }
  const { Reporter } = await import('./reporter.ts');
  const reporter = new Reporter(processIo.stderr);
  const io: CliIo = { ...processIo, stderr: reporter.stream };
  let code = await dispatch(argv, io);
  try {
    await reporter.finish();
  } catch (err) {
    report(io, 'error', 'ABS_ERR_OUTPUT', `--warnings: ${(err as Error).message}`);
    code = code === EXIT_OK ? EXIT_INPUT : code;
  }
  return code;
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const [first, ...rest] = argv;
    if (first === 'resolve') return await (await import('./resolve-command.ts')).resolveCommand(rest, io);
    if (first === 'batch') return await (await import('../batch/batch-command.ts')).batchCommand(rest, io);
    if (first === 'batch-report') return await (await import('../batch/batch-report.ts')).batchReportCommand(rest, io);
    if (first !== undefined) mistypedCommand(first);
    return await (await import('./absolutize-command.ts')).absolutizeCommand(argv, io);
  } catch (err) {
    return reportError(err, io);
  }
}

const COMMANDS = ['resolve', 'batch', 'batch-report'];

/**
 * What the main command prints for -h/--help or -V/--version (help first, as before), or null when the run does
 * anything else: a command, or a first argument that is a typo of one (an error, reported by dispatch).
 */
function helpOrVersion(argv: readonly string[]): string | null {
  const first = argv[0];
  if (first !== undefined && (COMMANDS.includes(first) || commandNear(first) !== null)) return null;
  if (argv.includes('-h') || argv.includes('--help')) return wrapHelp(HELP);
  if (argv.includes('-V') || argv.includes('--version')) return `${version()}\n`;
  return null;
}

/**
 * A first argument that is no file, no URL and no option, but a typo away from a command (`absolutize bacth …`),
 * is a usage error that names the command: read as an input it failed later with an unrelated message.
 */
function mistypedCommand(first: string): void {
  const command = commandNear(first);
  if (command !== null) throw new AbsError(`${JSON.stringify(first)} is neither a file nor a command; did you mean \`absolutize ${command}\`? (see --help)`, 'ABS_ERR_USAGE');
}

/** The command `first` is a typo of, if it is no file, no URL and no option. */
function commandNear(first: string): string | null {
  if (first.startsWith('-') || /[./:\\]/.test(first) || existsSync(first)) return null;
  return nearestFlag(first, COMMANDS);
}

function reportError(err: unknown, io: CliIo): number {
  if (err instanceof AbsError) {
    report(io, 'error', err.code, err.message);
    return err.code === 'ABS_ERR_USAGE' || err.code === 'ABS_ERR_INVALID_OPTION' || err.code === 'ABS_ERR_ENCODING_UNSUPPORTED' || err.code === 'ABS_ERR_INVALID_BASE'
      ? EXIT_USAGE
      : EXIT_INPUT;
  }
  // node:util parseArgs throws TypeError with code ERR_PARSE_ARGS_* for unknown or malformed options.
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    report(io, 'error', 'ABS_ERR_USAGE', (err as Error).message);
    return EXIT_USAGE;
  }
  throw err;
}
