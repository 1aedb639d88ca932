/**
 * What kind of run the command line asks for — URLs, a crawl file, a directory — decided without loading the
 * modules that carry the run out: each command is imported only once it is chosen (start-up, docs/performance.md).
 */
import { open, stat } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { constants, inflateRawSync } from 'node:zlib';
import { AbsError } from '../errors.ts';
import { gzipHeaderLength, isGzipMagic } from '../warc/gzip-member.ts';
import { sniffRecordFormat } from '../warc/record.ts';
import type { FetchCommandValues } from './fetch-command.ts';

const URL_ARGUMENT = /^https?:\/\//i;

/** True when the command's inputs are URLs (or an input list) rather than a file or standard input. */
export function isFetchInvocation(positionals: readonly string[], values: FetchCommandValues): boolean {
  if (values['input-list'] !== undefined) return true;
  if (positionals.length === 0 || !positionals.some((p) => URL_ARGUMENT.test(p))) return false;
  const file = positionals.find((p) => !URL_ARGUMENT.test(p));
  if (file !== undefined) throw new AbsError(`${JSON.stringify(file)}: URLs and files cannot be mixed in one run`, 'ABS_ERR_USAGE');
  return true;
}

/** A file name a crawl file has: .warc, .arc, .warc.gz, .arc.gz (the directory mode's extension table). */
export function isWarcName(name: string): boolean {
  return /\.w?arc(\.gz)?$/i.test(name);
}

/** Whether a file is WARC or ARC by its first bytes (gzip: the start of its first member, inflated). */
export async function isWarcFile(path: string | Buffer): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return false;
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    let head = buffer.subarray(0, bytesRead);
    if (isGzipMagic(head)) {
      const h = gzipHeaderLength(head);
      if (h === null) return false;
      try {
        head = inflateRawSync(head.subarray(h), { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 1 << 16 });
      } catch {
        return false;
      }
    }
    return sniffRecordFormat(head) !== null;
  } finally {
    await handle.close();
  }
}

/** Whether `inner` is `outer` or below it ("../x" is not below; a name that starts with "..", like "..x", is). */
export function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether INPUT names a directory (a file, "-", or a missing path does not). */
export async function isDirectory(input: string | undefined): Promise<boolean> {
  if (input === undefined || input === '-') return false;
  return (await stat(input).catch(() => null))?.isDirectory() === true;
}
