/**
 * Content codings (RFC 9110 §8.4): gzip, deflate and br decoded with node:zlib streams, with the decoded size
 * bounded (`maxDecompressedBytes`) against decompression bombs, and the transferred size bounded
 * (`maxBodyBytes`). Past a limit the stream fails with a LimitExceededError, which destroys the source: the
 * rest is not downloaded.
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { createBrotliDecompress, createInflate, createInflateRaw } from 'node:zlib';
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

export interface DecoderOptions {
  /**
   * Called at the end of a body when bytes followed the end of a compressed stream (after a gzip member's
   * trailer, a zlib or raw DEFLATE stream's last block, a brotli stream's last meta-block). They are ignored,
   * as Chromium ignores them; `coding` is the coding whose stream they followed, `bytes` how many there were.
   */
  readonly onTrailingBytes?: ((coding: string, bytes: number) => void) | undefined;
}

/** Decoders for `codings`, last applied first. */
export function createDecoders(codings: readonly string[], options: DecoderOptions = {}): Transform[] {
  return [...codings].reverse().map((c) => new ContentDecoder(c, options.onTrailingBytes));
}

/** The gzip trailer (RFC 1952 §2.3): CRC32 and ISIZE, 4 bytes each. */
const GZIP_TRAILER_BYTES = 8;

const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;

/**
 * The header of a gzip member (RFC 1952 §2.3.1), read a byte at a time so that nothing is held:
 * ID1 ID2 CM FLG MTIME(4) XFL OS, then XLEN and the extra field if FEXTRA, a zero-terminated name if FNAME,
 * a zero-terminated comment if FCOMMENT, a CRC16 if FHCRC. As Chromium's GZipHeader, the values are not kept
 * and the CRC16 is not checked.
 */
/** An error as node:zlib raises them (the same words and codes), for a gzip header we read ourselves. */
function gzipError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code, errno: code === 'Z_BUF_ERROR' ? -5 : -3 });
}

type GzipHeaderState = 'fixed' | 'xlen' | 'extra' | 'name' | 'comment' | 'hcrc' | 'done';

export class GzipHeaderReader {
  #state: GzipHeaderState = 'fixed';
  #flags = 0;
  /** Bytes of the current field read (fixed part, XLEN, CRC16). */
  #count = 0;
  #xlen = 0;

  get done(): boolean {
    return this.#state === 'done';
  }

  /** Whether any byte of the header has been read. */
  get started(): boolean {
    return this.#state !== 'fixed' || this.#count > 0;
  }

  /** Reads header bytes from `bytes`; returns how many it took (all of them until the header is whole). */
  read(bytes: Uint8Array): number {
    let i = 0;
    while (i < bytes.length && this.#state !== 'done') {
      const b = bytes[i++]!;
      switch (this.#state) {
        case 'fixed':
          if ((this.#count === 0 && b !== 0x1f) || (this.#count === 1 && b !== 0x8b)) throw gzipError('incorrect header check', 'Z_DATA_ERROR');
          if (this.#count === 2 && b !== 8) throw gzipError('unknown compression method', 'Z_DATA_ERROR');
          if (this.#count === 3) this.#flags = b;
          if (++this.#count === 10) this.#next('fixed');
          break;
        case 'xlen':
          this.#xlen |= b << (8 * this.#count);
          if (++this.#count === 2) this.#state = this.#xlen === 0 ? this.#after('extra') : 'extra';
          break;
        case 'extra':
          if (--this.#xlen === 0) this.#next('extra');
          break;
        case 'name':
        case 'comment':
          if (b === 0) this.#next(this.#state);
          break;
        case 'hcrc':
          if (++this.#count === 2) this.#state = 'done';
          break;
      }
    }
    return i;
  }

  #next(after: 'fixed' | 'extra' | 'name' | 'comment'): void {
    this.#count = 0;
    this.#state = this.#after(after);
  }

  /** The state after `field`: the next optional field FLG announces, else the end. */
  #after(field: 'fixed' | 'extra' | 'name' | 'comment'): GzipHeaderState {
    const order = [['extra', FEXTRA], ['name', FNAME], ['comment', FCOMMENT], ['hcrc', FHCRC]] as const;
    const start = field === 'fixed' ? 0 : order.findIndex(([f]) => f === field) + 1;
    for (let k = start; k < order.length; k++) {
      const [f, flag] = order[k]!;
      if ((this.#flags & flag) !== 0) return f === 'extra' ? 'xlen' : f;
    }
    return 'done';
  }
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
 * - for "gzip", the member's header is read here (GzipHeaderReader) and its DEFLATE data inflated raw, as
 *   Chromium's GzipSourceStream does: bytes after the end of the compressed stream — after the first member's
 *   8-byte trailer, or after a zlib, raw DEFLATE or brotli stream's end — are ignored, the document is what was
 *   decoded, and `onTrailingBytes` says how many there were (Chromium ignores them silently: "matches the
 *   behavior of other browsers"). A second gzip member is such trailing bytes, as in Chromium.
 * - backpressure holds end to end: when our reader stops, the zlib stream is paused, its output buffer fills,
 *   its input is not accepted, and this stream stops accepting input in turn.
 */
class ContentDecoder extends Transform {
  readonly #coding: string;
  readonly #onTrailingBytes: ((coding: string, bytes: number) => void) | undefined;
  #inner: (Transform & { readonly bytesWritten: number }) | null = null;
  /** The first byte of a "deflate" body, held until the second decides zlib or raw. */
  #held: Buffer | null = null;
  readonly #gzipHeader: GzipHeaderReader | null;
  /** Bytes written to the zlib stream, and bytes received once it had ended (never written to it). */
  #fed = 0;
  #afterEnd = 0;
  #innerEnded = false;

  constructor(coding: string, onTrailingBytes?: (coding: string, bytes: number) => void) {
    super();
    this.#coding = coding;
    this.#onTrailingBytes = onTrailingBytes;
    this.#gzipHeader = coding === 'gzip' || coding === 'x-gzip' ? new GzipHeaderReader() : null;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    if (this.#gzipHeader !== null && !this.#gzipHeader.done) {
      try {
        chunk = chunk.subarray(this.#gzipHeader.read(chunk));
      } catch (err) {
        return callback(err as Error);
      }
      if (chunk.length === 0) return callback();
    }
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
    if (this.#innerEnded) {
      this.#afterEnd += chunk.length;
      return callback();
    }
    this.#fed += chunk.length;
    if (this.#inner!.write(chunk)) callback();
    else this.#inner!.once('drain', () => callback());
  }

  override _read(size: number): void {
    this.#inner?.resume();
    super._read(size);
  }

  override _flush(callback: TransformCallback): void {
    if (this.#gzipHeader !== null && this.#gzipHeader.started && !this.#gzipHeader.done) return callback(gzipError('unexpected end of file', 'Z_BUF_ERROR'));
    // A gzip member's header with no DEFLATE data after it is cut short as surely as one cut inside its header
    // (an empty body is empty; a header alone is not an empty document).
    if (this.#gzipHeader !== null && this.#gzipHeader.done && this.#inner === null) return callback(gzipError('unexpected end of file', 'Z_BUF_ERROR'));
    if (this.#inner === null && this.#held !== null) this.#start(this.#held);
    const inner = this.#inner;
    if (inner === null) return callback();
    const finish = (): void => {
      // zlib's bytesWritten is the input its engine consumed: what it did not is after the stream's end.
      let trailing = this.#fed - inner.bytesWritten + this.#afterEnd;
      if (this.#gzipHeader !== null) trailing = Math.max(0, trailing - GZIP_TRAILER_BYTES);
      if (trailing > 0) this.#onTrailingBytes?.(this.#coding, trailing);
      callback();
    };
    if (this.#innerEnded) return finish();
    inner.once('end', finish);
    if (this.#held !== null) {
      this.#fed += this.#held.length;
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
    const inner = c === 'br' ? createBrotliDecompress() : c !== 'deflate' ? createInflateRaw() : first.length >= 2 && isZlibHeader(first[0]!, first[1]!) ? createInflate() : createInflateRaw();
    inner.on('data', (d: Buffer) => {
      if (!this.push(d)) inner.pause();
    });
    inner.once('end', () => (this.#innerEnded = true));
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
