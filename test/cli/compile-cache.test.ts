/**
 * The CLI turns on Node's compile cache (src/cli/main.ts). A temporary directory it cannot use must only mean no
 * cache: Node 24's recursive mkdir spins forever under /proc, and TMPDIR=/proc/x once hung every run.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, PROJECT_DIR } from '../helpers/cli.ts';

// The runner's own cache settings left out, or main.ts would skip the code under test.
const { NODE_COMPILE_CACHE: _cache, NODE_DISABLE_COMPILE_CACHE: _disabled, ...BASE_ENV } = process.env;

function runWith(env: Record<string, string>): { status: number | null; stdout: string; signal: NodeJS.Signals | null } {
  const r = spawnSync(process.execPath, [CLI, 'examples/page.html', '--url', 'https://example.com/docs/'], {
    cwd: PROJECT_DIR,
    env: { ...BASE_ENV, ...env },
    encoding: 'utf8',
    timeout: 60_000, // a hang guard: the run takes well under a second
  });
  return { status: r.status, stdout: r.stdout, signal: r.signal };
}

describe('the compile cache never fails or hangs a run', () => {
  const expected = runWith({ NODE_DISABLE_COMPILE_CACHE: '1' });
  it.each(['/proc/x', '/proc', '/nonexistent/deep', '/dev/null'])('TMPDIR=%s', (dir) => {
    expect(expected.status).toBe(0);
    const r = runWith({ TMPDIR: dir });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(expected.stdout);
  });
});
