/**
 * undici, loaded on first use. undici 8 throws while loading on Node.js older than 22.19 (it reads
 * `zlib.createZstdDecompress` at import time); loaded here only when a URL is retrieved, `import 'absolutize'`
 * works on such a Node for HTML, CSS and MIME, and retrieval says in one line which Node it needs
 * (ABS_ERR_UNSUPPORTED_NODE) instead of a TypeError from inside undici.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import { AbsError } from '../errors.ts';
import { LEAST_NODE, nodeIsTooOld } from '../node-version.ts';

let loaded: typeof Undici | undefined;

export function undici(): typeof Undici {
  if (loaded !== undefined) return loaded;
  if (nodeIsTooOld()) {
    throw new AbsError(
      `retrieving URLs needs Node.js ${LEAST_NODE.join('.')} or later (undici 8); this is Node.js ${process.versions.node}`,
      'ABS_ERR_UNSUPPORTED_NODE',
    );
  }
  loaded = createRequire(import.meta.url)('undici') as typeof Undici;
  return loaded;
}
