/**
 * `-o` and `--links` naming a special file — /dev/null, /dev/stdout, a FIFO — write into it, as cp and curl -o do:
 * the atomic rename used for regular files would replace the special file itself (run as root, `-o /dev/null`
 * turned /dev/null into a regular file for the whole machine). A FIFO stands for them here: mkfifo needs no root.
 */
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** Reads a FIFO with cat until the writer closes it; the reader is killed if no writer ever comes. */
function readFifo(path: string): { done: Promise<string>; stop: () => void } {
  const cat = spawn('cat', [path]);
  let text = '';
  cat.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  return { done: new Promise((resolve) => cat.on('close', () => resolve(text))), stop: () => cat.kill() };
}

describe('outputs that are special files', () => {
  for (const flag of ['-o', '--links']) {
    it(`${flag} FIFO writes into the FIFO and leaves it a FIFO, with no temporary file beside it`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'absolutize-special-'));
      scratchDirs.push(dir);
      const fifo = join(dir, 'fifo');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const reader = readFifo(fifo);
      const args = ['examples/page.html', '--url', 'https://example.com/docs/guide/page.html', flag, fifo];
      const r = await new Promise<ReturnType<typeof runCli>>((resolve) => setImmediate(() => resolve(runCli(flag === '--links' ? [...args, '-o', join(dir, 'page.html')] : args))));
      const timer = setTimeout(reader.stop, 10_000); // a hang guard: before the fix, no writer ever opened the FIFO
      const read = await reader.done;
      clearTimeout(timer);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(lstatSync(fifo).isFIFO()).toBe(true);
      expect(read).toContain(flag === '-o' ? '<base href="https://example.com/docs/guide/">' : '"resolved":"https://example.com/docs/guide/css/site.css"');
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    });
  }
});
