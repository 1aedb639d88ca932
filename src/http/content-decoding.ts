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
import { escapeControls } from './printable.ts';

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
    throw new AbsError(`Content-Encoding ${escapeControls(JSON.stringify(value))}: more than ${MAX_CONTENT_CODINGS} codings`, 'ABS_ERR_HTTP_CONTENT_ENCODING');
  }
  for (const c of codings) {
    if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(c)) {
      throw new AbsError(`Content-Encoding ${escapeControls(JSON.stringify(c))} is not supported (only gzip, deflate, br)`, 'ABS_ERR_HTTP_CONTENT_ENCODING');
    }
  }
  return codings;
}

/** Decoders for `codings`, last applied first. */
export function createDecoders(codings: readonly string[]): Transform[] {
  return [...codings].reverse().map((c) => new ContentDecoder(c));
}

/**
 * "deflate" should be a zlib stream (RFC 9110 §8.4.1.2), but some servers send raw DEFLATE; browsers accept
 * both. The first two bytes decide, as in Chromium's GzipSourceStream: a zlib header (RFC 1950 §2.2) has
 * compression method 8 and window size at most 32 KiB in CMF, and CMF·256 + FLG a multiple of 31.
 */
export function isZlibHeader(cmf: number, flg: number): boolean {
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

/**
 * One content coding undone, its zlib stream made when the first bytes arrive:
 * - an empty body stays empty, whatever its `Content-Encoding` says (servers label empty responses "gzip");
 *   no bytes are not corrupt data;
 * - for "deflate", the first two bytes choose zlib or raw DEFLATE (`isZlibHeader`);
 * - backpressure holds end to end: when our reader stops, the zlib stream is paused, its output buffer fills,
 *   its input is not accepted, and this stream stops accepting input in turn.
 */
class ContentDecoder extends Transform {
  readonly #coding: string;
  #inner: Transform | null = null;
  /** The first byte of a "deflate" body, held until the second decides zlib or raw. */
  #held: Buffer | null = null;

  constructor(coding: string) {
    super();
    this.#coding = coding;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    if (this.#inner === null) {
      const bytes: Buffer = this.#held === null ? chunk : Buffer.concat([this.#held, chunk]);
      this.#held = null;
      if (this.#coding === 'deflate' && bytes.length < 2) {
        this.#held = bytes;
        return callback();
      }
      this.#start(bytes);
      chunk = bytes;
    }
    if (this.#inner!.write(chunk)) callback();
    else this.#inner!.once('drain', () => callback());
  }

  override _read(size: number): void {
    this.#inner?.resume();
    super._read(size);
  }

  override _flush(callback: TransformCallback): void {
    if (this.#inner === null && this.#held !== null) this.#start(this.#held);
    const inner = this.#inner;
    if (inner === null) return callback();
    inner.once('end', () => callback());
    if (this.#held !== null) {
      inner.end(this.#held);
      this.#held = null;
    } else inner.end();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.#inner?.destroy();
    callback(err);
  }

  #start(first: Buffer): void {
    const c = this.#coding;
    const inner = c === 'br' ? createBrotliDecompress() : c !== 'deflate' ? createGunzip() : first.length >= 2 && isZlibHeader(first[0]!, first[1]!) ? createInflate() : createInflateRaw();
    inner.on('data', (d: Buffer) => {
      if (!this.push(d)) inner.pause();
    });
    inner.on('error', (e) => this.destroy(e));
    this.#inner = inner;
  }
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
