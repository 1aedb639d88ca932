/**
 * HTTrack projects (`httrack URL -O DIR`): HTTrack renames what it saves (`/p.html?page=2` becomes
 * `p4658.html`, `/v.php` becomes `v.html`), so a file's name does not give its URL. The project's log
 * `DIR/hts-cache/new.txt` does: one tab-separated line per file retrieved, with its URL (column 8) and the file it
 * was saved as (column 9, the -O path first). `--host-dirs` on such a project takes each file's URL from there.
 *
 * HTTrack also rewrites the links of the pages it saves to its own file names, unless told to keep them (`-K4`,
 * "original links"); `DIR/hts-cache/doit.log` starts with the command line the project was made with.
 *
 * Memory: one entry per file of the project (the file's path below DIR and its URL): the mirror's own index.
 */
import { createReadStream } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readLines } from '../batch/lines.ts';

export interface HttrackProject {
  /** A file's path below the project folder (`127.0.0.1_8080/p4658.html`) → the URL HTTrack retrieved it from. */
  readonly urls: ReadonlyMap<string, string>;
  /** Whether the pages keep their original links (`-K4`, `-K5`) rather than HTTrack's names of its files. */
  readonly originalLinks: boolean;
}

/** The project in `dir`, or null when `dir` is no HTTrack project (no hts-cache/new.txt). */
export async function readHttrackProject(dir: string): Promise<HttrackProject | null> {
  const log = join(dir, 'hts-cache', 'new.txt');
  let top: Set<string>;
  try {
    top = new Set((await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name));
  } catch {
    return null;
  }
  const urls = new Map<string, string>();
  try {
    for await (const line of readLines(createReadStream(log), log)) {
      const columns = line.split('\t');
      const url = columns[7];
      const local = columns[8];
      if (url === undefined || local === undefined || local === '' || !/^https?:\/\//i.test(url)) continue; // the header, a failure
      // The saved file's path starts with the -O folder as HTTrack was given it: drop it up to the host folder.
      const segments = local.split('/');
      const host = segments.findIndex((s, i) => i < segments.length - 1 && top.has(s) && s !== 'hts-cache');
      if (host !== -1) urls.set(segments.slice(host).join('/'), url);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const command = (await readFile(join(dir, 'hts-cache', 'doit.log'), 'utf8').catch(() => '')).split('\n')[0] ?? '';
  // -K4 (original links) or -K5 (transparent proxy), alone or among other short options (-qK4%v0).
  const originalLinks = /(?:^|\s)-[^\s]*?(?<!%)K[45]/.test(command);
  return { urls, originalLinks };
}
