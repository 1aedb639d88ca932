/**
 * The least Node.js version absolutize runs on: package.json `engines.node` (">=22.19.0", undici 8's own), read
 * here so that it is written in one place. Imports nothing but node:fs, so that the CLI can check it before
 * anything that would fail on an older Node is loaded.
 */
import { readFileSync } from 'node:fs';

const engines = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

/** `[major, minor, patch]` of `engines.node`. */
export const LEAST_NODE: readonly number[] = (/^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(engines) ?? []).slice(1).map(Number);

/** Whether `version` (default: the running Node's) is older than LEAST_NODE. */
export function nodeIsTooOld(version: string = process.versions.node): boolean {
  const running = version.split('.').map(Number);
  const differs = LEAST_NODE.findIndex((n, i) => running[i] !== n); // the first of major, minor, patch that differs
  return differs !== -1 && running[differs]! < LEAST_NODE[differs]!;
}
