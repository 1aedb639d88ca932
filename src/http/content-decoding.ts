/**
 * Content codings (RFC 9110 §8.4): gzip, deflate and br decoded with node:zlib streams, with the decoded size
 * bounded (`maxDecompressedBytes`) against decompression bombs, and the transferred size bounded
 * (`maxBodyBytes`). Past a limit the stream fails with a LimitExceededError, which destroys the source: the
 * rest is not downloaded.
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { AbsError, LimitExceededError } from '../errors.ts';

/** The codings we ask for and decode. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** Content codings applied one over another that we undo; more is not a real response (undici's fetch: 5). */
const MAX_CONTENT_CODINGS = 5;

/**
 * The codings of a `Content-Encoding` value, in the order they were applied ("identity" dropped).
 * Throws ABS_ERR_HTTP_CONTENT_ENCODING for a coding we cannot decode.
 */
export function parseContentEncoding(value: string | undefined): string[] {
  if (value === undefined) return [];
  const codings = value.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_CONTENT_CODINGS) {
    throw new AbsError(`Content-Encoding ${JSON.stringify(value)}: more than ${MAX_CONTENT_CODINGS} codings`, 'ABS_ERR_HTTP_CONTENT_ENCODING');
  }
  for (const c of codings) {
    if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(c)) {
      throw new AbsError(`Content-Encoding ${JSON.stringify(c)} is not supported (only gzip, deflate, br)`, 'ABS_ERR_HTTP_CONTENT_ENCODING');
    }
  }
  return codings;
}

/** Decoders for `codings`, last applied first. */
export function createDecoders(codings: readonly string[]): Transform[] {
  return [...codings].reverse().map((c) => (c === 'br' ? createBrotliDecompress() : c === 'deflate' ? createDeflateDecoder() : createGunzip()));
}

/**
 * "deflate" should be a zlib stream (RFC 9110 §8.4.1.2), but some servers send raw DEFLATE: as browsers and
 * undici's fetch do, the first byte decides (a zlib header has compression method 8 in its low nibble).
 */
function createDeflateDecoder(): Transform {
  let inner: Transform | null = null;
  return new Transform({
    transform(chunk: Buffer, _enc, callback: TransformCallback) {
      if (inner === null) {
        inner = (chunk[0]! & 0x0f) === 0x08 ? createInflate() : createInflateRaw();
        inner.on('data', (d: Buffer) => this.push(d));
        inner.on('error', (e) => this.destroy(e));
      }
      if (inner.write(chunk)) callback();
      else inner.once('drain', () => callback());
    },
    flush(callback: TransformCallback) {
      if (inner === null) return callback();
      inner.once('end', () => callback());
      inner.end();
    },
  });
}

/** Passes bytes through, failing with a LimitExceededError once more than `max` have passed. */
export function createByteLimit(limit: string, max: number): Transform & { readonly bytes: number } {
  let bytes = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, callback: TransformCallback) {
      const before = bytes;
      bytes += chunk.length;
      if (bytes <= max) return callback(null, chunk);
      // The bytes up to the limit go on (the output so far); then the stream fails.
      if (before < max) this.push(chunk.subarray(0, max - before));
      callback(new LimitExceededError(limit, max, 'bytes'));
    },
  });
  return Object.defineProperty(t, 'bytes', { get: () => bytes }) as Transform & { readonly bytes: number };
}
