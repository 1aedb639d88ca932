/**
 * Issue 20 item 4: a damaged crawl is salvaged with exit "partial" — also when it is one file of a directory run
 * or of a batch manifest, where it used to count as "done" (exit 0). The job is an input failure there (directory
 * exit 1, batch 65), and its output is written: every whole record, the output a valid WARC.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { removeScratch, scratchDir } from '../batch/helpers.ts';

afterAll(removeScratch);
const scratch = (): string => scratchDir('absolutize-partial-');

// examples/crawl.warc.gz cut inside its fourth gzip member (docs/crawls.md shows the same cut).
const crawl = readFileSync(new URL('../../examples/crawl.warc.gz', import.meta.url));
const cut = crawl.subarray(0, 1500);

describe('a damaged WARC in a directory run or a batch', () => {
  it('directory: exit 1, ABS_ERR_WARC_PARTIAL named, the salvaged output written; the good file done', () => {
    const root = scratch();
    mkdirSync(join(root, 'in'));
    writeFileSync(join(root, 'in', 'cut.warc.gz'), cut);
    writeFileSync(join(root, 'in', 'whole.warc.gz'), crawl);
    const r = runCli(['in', '-o', 'out'], { cwd: root });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^absolutize: error \[ABS_ERR_WARC_PARTIAL\] \S*cut\.warc\.gz: the input is damaged/m);
    expect(r.stderr).toMatch(/1 rewritten, 0 unchanged, 0 copied, 1 failed/);
    const salvaged = gunzipSync(readFileSync(join(root, 'out', 'cut.warc.gz'))).toString('latin1');
    expect(salvaged).toContain('X-Absolutize-Unparsed');
    expect(salvaged.match(/^WARC\/1\.[01]\r$/gm)!.length).toBeGreaterThanOrEqual(4);
  });

  it('batch: the input failed (65), its output written', () => {
    const root = scratch();
    writeFileSync(join(root, 'cut.warc.gz'), cut);
    writeFileSync(join(root, 'manifest.txt'), 'cut.warc.gz\n');
    const r = runCli(['batch', 'manifest.txt', '-o', 'out'], { cwd: root });
    expect(r.status).toBe(65);
    expect(r.stderr).toContain('ABS_ERR_WARC_PARTIAL');
    expect(gunzipSync(readFileSync(join(root, 'out', 'cut.warc.gz'))).toString('latin1')).toContain('X-Absolutize-Unparsed');
  });
});
