/**
 * File names as the file system has them: a name that is not valid UTF-8 (wget saves `index.html?q=caf\xe9`
 * from a Latin-1 query) is kept as its bytes, a Buffer, which every node:fs call takes as a path; a name that is
 * valid UTF-8 stays a string. Reports show a lossy string.
 */
import { basename, dirname, join, relative } from 'node:path';

export type FsPath = string | Buffer;

/** The name as a string where its bytes are UTF-8 (and say the same read back), else the bytes. */
export function fsPathOf(bytes: Buffer): FsPath {
  const text = bytes.toString('utf8');
  return Buffer.byteLength(text) === bytes.length && Buffer.from(text).equals(bytes) ? text : Buffer.from(bytes);
}

export function joinPath(dir: FsPath, ...names: FsPath[]): FsPath {
  if (typeof dir === 'string' && names.every((n) => typeof n === 'string')) return join(dir, ...(names as string[]));
  let out = Buffer.from(dir);
  for (const n of names) {
    if (n.length === 0) continue;
    out = Buffer.concat([out.length > 0 && out[out.length - 1] !== 0x2f ? Buffer.concat([out, Buffer.from('/')]) : out, Buffer.from(n)]);
  }
  return out;
}

/** The directory and last name of a path, keeping bytes as bytes. */
export function splitPath(path: FsPath): { dir: FsPath; name: FsPath } {
  if (typeof path === 'string') return { dir: dirname(path), name: basename(path) };
  const slash = path.lastIndexOf(0x2f);
  return slash === -1 ? { dir: '.', name: Buffer.from(path) } : { dir: fsPathOf(path.subarray(0, Math.max(slash, 1))), name: Buffer.from(path.subarray(slash + 1)) };
}

/** For reports and JSON: the path as text (bytes that are not UTF-8 become U+FFFD). */
export function showPath(path: FsPath): string {
  return typeof path === 'string' ? path : path.toString('utf8');
}

/** `path` below `root`, as bytes (for a URL: a name that is not UTF-8 is percent-encoded byte by byte). */
export function relativeBytes(root: string, path: FsPath): Buffer {
  if (typeof path === 'string') return Buffer.from(relative(root, path));
  const prefix = Buffer.from(root.endsWith('/') ? root : `${root}/`);
  return path.subarray(0, prefix.length).equals(prefix) ? path.subarray(prefix.length) : Buffer.from(path);
}

/** A path that went through structured clone (a worker message) comes back a Uint8Array: a Buffer again. */
export function revivePath(path: string | Uint8Array): FsPath {
  return typeof path === 'string' ? path : Buffer.from(path.buffer, path.byteOffset, path.byteLength);
}
