/** Runs the built command-line tool (bin/absolutize.js, what `npm run absolutize` and the installed bin run: scripts/bundle.ts). */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PROJECT_DIR: string = fileURLToPath(new URL('../../', import.meta.url));
export const CLI: string = `${PROJECT_DIR}bin/absolutize.js`;

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], options: { input?: string | Buffer; cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? PROJECT_DIR,
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 300_000, // a hang guard, not a measure: on a busy 2-core machine a directory run can take a while
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
