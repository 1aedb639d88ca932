/**
 * A WARC run's reading thread decides the input's type and reads records; the rewriting happens in a worker
 * (src/warc/pool.ts). The modules the command loads before that decision must not pull in the rewriters: every
 * module a thread loads costs CPU to compile and heap that every full collection marks (~60 ms of CPU and ~200
 * modules a run, measured on the bench crawl). The rewriters come in by `import()` where they are used.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../helpers/cli.ts';

/** The project's modules (under dist/) that importing `modules` loads, in a fresh process. */
function loadedBy(modules: readonly string[]): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ load(url, context, next) { if (url.includes('/dist/')) seen.push(url.slice(url.indexOf('/dist/') + 6)); return next(url, context); } });
    for (const m of ${JSON.stringify(modules)}) await import(new URL(m, ${JSON.stringify(`file://${PROJECT_DIR}`)}).href);
    process.stdout.write(JSON.stringify(seen));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: PROJECT_DIR, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as string[];
}

// html/microsyntax.js (the refresh and srcset grammars) is a small pure module that WARC headers use too.
const REWRITERS = /^html\/(?!microsyntax\.js$)|^(css|mime|xml|js|manifest)\/|^kinds\/index\.js$|^batch\/rewriters\.js$/;

describe('the command loads no rewriter before it knows the input is not a crawl', () => {
  it('the one-document command, the WARC command and what tells a type', () => {
    const loaded = loadedBy(['dist/cli/absolutize-command.js', 'dist/cli/warc-command.js', 'dist/http/content-type.js', 'dist/batch/document-types.js']);
    expect(loaded).toContain('cli/warc-command.js');
    expect(loaded.filter((m) => REWRITERS.test(m))).toEqual([]);
  });

  it('the rewriters module itself still loads them (the test sees loads)', () => {
    expect(loadedBy(['dist/batch/rewriters.js']).filter((m) => REWRITERS.test(m)).length).toBeGreaterThan(10);
  });
});
