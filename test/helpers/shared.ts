/** Paths into ../shared (beside the project root), which every developer and CI run has. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SHARED_DIR: string = fileURLToPath(new URL('../../../shared/', import.meta.url));

export function sharedPath(relative: string): string {
  return SHARED_DIR + relative;
}

export function readSharedJson<T>(relative: string): T {
  return JSON.parse(readFileSync(sharedPath(relative), 'utf8')) as T;
}
