/**
 * A rewritten part too large to hold (over `maxMimePartBytes`), in bounded pieces whatever its encoding and line
 * length: its transfer encoding is decoded segment by segment as the bytes come (`codec.ts`: quoted-printable
 * and base64; 7bit, 8bit and binary need none), the decoded bytes stream through the HTML or CSS rewriter, and
 * its output is encoded back as it comes (`Reencoder`: unchanged segments copied, the rest encoded afresh).
 * Memory: the segments the rewriter has not yet answered for (its base lookahead, `maxBaseLookaheadBytes`), one
 * segment of output, and the encoders' few bytes of state — never a whole line or part.
 */
import type { Transform } from 'node:stream';
import { Base64Decoder, QuotedPrintableDecoder, Reencoder } from './codec.ts';
import { encodedStyleOf } from './transfer-encoding.ts';
import type { TransferEncoding } from './transfer-encoding.ts';

const EMPTY = Buffer.alloc(0);

export class StreamedPart {
  /** Output ready to be written, in order. */
  readonly output: Buffer[] = [];
  private readonly encoding: TransferEncoding;
  private readonly rewriter: Transform;
  private readonly done: Promise<void>;
  private readonly decoder: QuotedPrintableDecoder | Base64Decoder | null;
  private reencoder: Reencoder | null = null;
  private finalEol = false;
  /** Output bytes encoded and written (for a Content-Length). */
  outputBytes = 0;

  constructor(rewriter: Transform, encoding: TransferEncoding) {
    this.rewriter = rewriter;
    this.encoding = encoding;
    this.decoder = encoding === 'quoted-printable' ? new QuotedPrintableDecoder() : encoding === 'base64' ? new Base64Decoder() : null;
    rewriter.on('data', (c: Buffer) => this.onOutput(c));
    this.done = new Promise<void>((resolve, reject) => {
      rewriter.on('end', resolve);
      rewriter.on('error', reject);
    });
  }

  /** Encoded body bytes of the part. */
  write(data: Buffer): void {
    if (data.length === 0) return;
    const last = data[data.length - 1];
    this.finalEol = last === 0x0a || last === 0x0d;
    if (this.decoder === null) {
      this.rewriter.write(data);
      return;
    }
    this.decoded(this.decoder.push(data, false));
  }

  /** base64 characters outside the alphabet that were skipped, and how its last quantum ended. */
  get base64(): { readonly ignored: number; readonly padded: boolean; readonly truncated: boolean } | null {
    return this.decoder instanceof Base64Decoder ? this.decoder : null;
  }

  private decoded(segments: ReturnType<QuotedPrintableDecoder['push']>): void {
    if (segments.length === 0) return;
    // The original's line style, from its first lines.
    this.reencoder ??= new Reencoder(this.encoding as 'base64' | 'quoted-printable', encodedStyleOf(segments));
    // Segments first: the rewriter may answer while it is written to.
    this.reencoder.addSegments(segments);
    const pieces = segments.map((s) => s.decoded);
    this.rewriter.write(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
  }

  /** Whether the rewriter wants its buffer drained before more is written. */
  get needsDrain(): boolean {
    return this.rewriter.writableNeedDrain;
  }

  waitDrain(): Promise<void> {
    return new Promise((resolve) => this.rewriter.once('drain', resolve));
  }

  /** The part's body has ended: the rest is decoded, rewritten and encoded. */
  async end(): Promise<void> {
    if (this.decoder !== null) this.decoded(this.decoder.push(EMPTY, true));
    this.rewriter.end();
    await this.done;
    if (this.reencoder !== null) this.push(this.reencoder.writeBytes(EMPTY, true, this.finalEol));
  }

  /** Rewritten bytes: encoded back, or as they are (7bit, 8bit, binary). */
  private onOutput(chunk: Buffer): void {
    if (this.decoder === null) {
      this.push(chunk);
      return;
    }
    // Output before any segment cannot be (the rewriter writes only what it was given), but is kept correct.
    this.reencoder ??= new Reencoder(this.encoding as 'base64' | 'quoted-printable', encodedStyleOf([]));
    this.push(this.reencoder.writeBytes(chunk, false));
  }

  private push(b: Buffer): void {
    if (b.length === 0) return;
    this.outputBytes += b.length;
    this.output.push(b);
  }
}
