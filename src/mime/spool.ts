/**
 * Output held back until something after it is known (an mbox message's new Content-Length, which stands in
 * its header, before the body it counts): in memory up to a limit, past it in a temporary file, so that a part
 * of any size can be held without holding it in memory. The file is removed when the spool is read or dropped.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const READ_BYTES = 1 << 20;

export class Spool {
  private readonly memoryLimit: number;
  private chunks: Buffer[] = [];
  private inMemory = 0;
  private dir: string | null = null;
  private fd: number | null = null;
  private onDisk = 0;
  /** Bytes held in all. */
  length = 0;

  constructor(memoryLimit: number) {
    this.memoryLimit = memoryLimit;
  }

  write(b: Buffer): void {
    if (b.length === 0) return;
    this.length += b.length;
    if (this.fd === null && this.inMemory + b.length <= this.memoryLimit) {
      this.chunks.push(b);
      this.inMemory += b.length;
      return;
    }
    if (this.fd === null) {
      this.dir = mkdtempSync(join(tmpdir(), 'absolutize-spool-'));
      this.fd = openSync(join(this.dir, 'held'), 'w+', 0o600);
      // Memory keeps its head (where a header to change is); the rest goes to the file.
    }
    writeSync(this.fd, b, 0, b.length, this.onDisk);
    this.onDisk += b.length;
  }

  /** The first `n` bytes held in memory (a header), concatenated, or null when fewer are. */
  head(n: number): Buffer | null {
    if (this.inMemory < n) return null;
    return Buffer.concat(this.chunks).subarray(0, n);
  }

  /** Everything held, from byte `from` on, in order, in pieces; the spool is then empty and its file gone. */
  async *drain(from = 0): AsyncGenerator<Buffer> {
    try {
      let skip = from;
      for (const c of this.chunks) {
        if (skip >= c.length) {
          skip -= c.length;
          continue;
        }
        yield skip > 0 ? c.subarray(skip) : c;
        skip = 0;
      }
      this.chunks = [];
      if (this.fd !== null) {
        for (let at = skip; at < this.onDisk; ) {
          const b = Buffer.allocUnsafe(Math.min(READ_BYTES, this.onDisk - at));
          const n = readSync(this.fd, b, 0, b.length, at);
          if (n <= 0) break;
          at += n;
          yield b.subarray(0, n);
        }
      }
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    this.chunks = [];
    if (this.fd !== null) closeSync(this.fd);
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    this.fd = null;
    this.dir = null;
  }
}
