/**
 * The least Node.js version absolutize runs on: package.json `engines.node` (">=22.19.0", undici 8's own), read
 * here so that it is written in one place. Imports nothing but node:fs, so that the CLI can check it before
 * anything that would fail on an older Node is loaded.
 */
import { readFileSync } from 'node:fs';

// One level under the package root, as src/, dist/ and bin/ (the bundled command, scripts/bundle.ts) all are.
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string; engines: { node: string } };
const engines = pkg.engines.node;

/** The package's version (package.json). */
export const PACKAGE_VERSION: string = pkg.version;

/** `[major, minor, patch]` of `engines.node`. */
export const LEAST_NODE: readonly number[] = (/^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(engines) ?? []).slice(1).map(Number);

/** Whether `version` (default: the running Node's) is older than LEAST_NODE. */
export function nodeIsTooOld(version: string = process.versions.node): boolean {
  const running = version.split('.').map(Number);
  const differs = LEAST_NODE.findIndex((n, i) => running[i] !== n); // the first of major, minor, patch that differs
  return differs !== -1 && running[differs]! < LEAST_NODE[differs]!;
}
