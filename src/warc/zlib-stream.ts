/**
 * One zlib stream a thread keeps for every gzip member it inflates, instead of a new one a member as
 * `inflateRawSync` makes: each of those builds a node:zlib Transform stream and its native handle, and zlib
 * allocates its state anew (3,145 members on the bench crawl, ~1% of the run's CPU in the stream constructors
 * alone, `perf record -e cpu-clock`).
 *
 * The stream is driven through its handle's synchronous write, as node:zlib's own `processChunkSync` drives it:
 * `_handle.writeSync(flush, in, inOff, inLen, out, outOff, outLen)` with the lengths left in `_writeState`, and
 * `reset()` (inflateReset) between members. These are node:zlib internals, unchanged since Node 10; where they
 * are not as expected the one-call function is used, and a unit test checks that this Node's are (and that
 * the results are inflateRawSync's, after corrupt members too). Inflating has one answer, whatever state the
 * stream was in before its reset.
 *
 * NOTE: deflating is not done so. A deflate stream reset and used again (deflateReset) gives other bytes than a
 * new one, now and then, in Chromium's zlib that Node ships (the unit test's property found one on its 21st
 * case: data left in the window from the member before changes the matches chosen); written members must be
 * the bytes gzipSync gives.
 */
import { constants, createInflateRaw, inflateRawSync } from 'node:zlib';
import type { InflateRaw } from 'node:zlib';

interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
}

/** What one call gives: the output and the input it used, or zlib's error, or more output than allowed. */
export type ZlibResult = { readonly data: Buffer; readonly used: number } | { readonly error: Error } | { readonly tooLarge: true };

class ReusedStream {
  private stream: InflateRaw | null = null;
  private handle: ZlibHandle | null = null;
  private state: Uint32Array = new Uint32Array(2);
  private readonly make: () => InflateRaw;

  constructor(make: () => InflateRaw) {
    this.make = make;
  }

  /** The handle, reset for a new member; null where node:zlib's internals are not as expected. */
  private ready(): ZlibHandle | null {
    if (this.stream !== null && this.handle !== null && !this.stream.destroyed) {
      this.handle.reset();
      return this.handle;
    }
    const stream = this.make();
    const internals = stream as unknown as { _handle?: Partial<ZlibHandle> | null; _writeState?: unknown };
    const handle = internals._handle;
    if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function' || !(internals._writeState instanceof Uint32Array) || internals._writeState.length !== 2) {
      stream.destroy();
      return null;
    }
    // zlib's errors come back from writeSync through the stream (destroyed with it); its 'error' event follows.
    stream.on('error', () => {});
    this.stream = stream;
    this.handle = handle as ZlibHandle;
    this.state = internals._writeState;
    return this.handle;
  }

  /**
   * Runs `input` from `from` through the stream with `flush`, into output chunks of `chunkSize` bytes (joined
   * when more than one), as node:zlib's processChunkSync does; null where the stream cannot be driven.
   */
  run(input: Uint8Array, from: number, flush: number, chunkSize: number, maxOutput: number): ZlibResult | null {
    const handle = this.ready();
    if (handle === null) return null;
    const stream = this.stream!;
    const state = this.state;
    const chunks: Buffer[] = [];
    let total = 0;
    let out = Buffer.allocUnsafe(chunkSize);
    let outOff = 0;
    let inOff = from;
    let inLen = input.length - from;
    for (;;) {
      handle.writeSync(flush, input, inOff, inLen, out, outOff, out.length - outOff);
      if (stream.destroyed) {
        this.stream = null;
        this.handle = null;
        return { error: stream.errored ?? new Error('zlib stream closed') };
      }
      const availOut = state[0]!;
      const availIn = state[1]!;
      inOff += inLen - availIn;
      inLen = availIn;
      const have = out.length - outOff - availOut;
      if (have > 0) {
        chunks.push(out.subarray(outOff, outOff + have));
        outOff += have;
        total += have;
        if (total > maxOutput) return { tooLarge: true };
      }
      if (availOut !== 0) break;
      out = Buffer.allocUnsafe(chunkSize);
      outOff = 0;
    }
    const data = total === 0 ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
    return { data, used: inOff - from };
  }
}

let inflateStream: ReusedStream | null = null;

/**
 * `inflateRawSync(bytes.subarray(from), { info: true, finishFlush: Z_SYNC_FLUSH, maxOutputLength, chunkSize })`
 * through this thread's kept stream: the inflated data and how many input bytes the DEFLATE stream took.
 */
export function inflateRawFrom(bytes: Buffer, from: number, maxOutput: number, chunkSize: number): ZlibResult {
  inflateStream ??= new ReusedStream(() => createInflateRaw());
  const r = inflateStream.run(bytes, from, constants.Z_SYNC_FLUSH, chunkSize, maxOutput);
  if (r !== null) return r;
  try {
    const one = inflateRawSync(bytes.subarray(from), { info: true, finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: maxOutput, chunkSize }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    return { data: one.buffer, used: one.engine.bytesWritten };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { tooLarge: true };
    return { error: err as Error };
  }
}

/** Whether this Node's zlib streams can be kept and driven as above (tests: else the one-call functions run). */
export function zlibStreamsSupported(): boolean {
  const stream = createInflateRaw() as unknown as { _handle?: Partial<ZlibHandle> | null; _writeState?: unknown; destroy(): void };
  const ok = typeof stream._handle?.writeSync === 'function' && typeof stream._handle.reset === 'function' && stream._writeState instanceof Uint32Array;
  stream.destroy();
  return ok;
}
