/**
 * Bytes in, bytes out: a MIME message or MHTML file (`createMimeRewriter`), and an mbox archive of them
 * (`createMboxRewriter`). Thin adapters around MimePartRewriter and mailsplit.
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { Splitter } from 'mailsplit';
import { DEFAULT_LIMITS } from '../limits.ts';
import { MimePartRewriter } from './rewriter.ts';
import type { MimePartInfo, MimeRewriteOptions, MimeRewriteStats } from './rewriter.ts';
import type { HtmlWarning, ReferenceRecord } from '../html/rewriter.ts';
import { transformWhole } from '../html/stream.ts';

/** The parts of mailsplit 5.4's Splitter and MimeNode that `descendIntoAttachedMessages` wraps. */
interface SplitterInternals {
  node: { contentType: string | false; disposition: string | false; parseHeaders(): void } | null;
  newNode(parent: unknown): void;
}

/**
 * SPEC §5: nested `message/rfc822` to any depth. mailsplit parses a message/rfc822 part as a message only when
 * its Content-Disposition is not `attachment` (with defaultInlineEmbedded), so a message forwarded as an
 * attachment would pass through with its HTML unrewritten, while an HTML file attachment is rewritten. This
 * hides that disposition from the Splitter's check, on this Splitter's nodes only; the header bytes written
 * out are the node's own, so nothing in the output changes but the rewritten parts inside.
 * NOTE: depends on the pinned mailsplit 5.4's private `newNode` and the check in its `_process` (HEAD state);
 * test/mime/mime.test.ts ("forwarded as an attachment") fails if either changes.
 */
function descendIntoAttachedMessages(splitter: Splitter): void {
  const s = splitter as unknown as SplitterInternals;
  const newNode = s.newNode;
  if (typeof newNode !== 'function') return;
  s.newNode = function (this: SplitterInternals, parent: unknown): void {
    newNode.call(this, parent);
    const node = this.node;
    if (node === null || typeof node.parseHeaders !== 'function') return;
    const parseHeaders = node.parseHeaders;
    node.parseHeaders = function (this: NonNullable<SplitterInternals['node']>): void {
      parseHeaders.call(this);
      if (this.contentType === 'message/rfc822' && this.disposition === 'attachment') this.disposition = false;
    };
  };
}

/**
 * A MIME message (RFC 5322 + MIME) or MHTML document, rewritten part by part: bytes are written to mailsplit's
 * Splitter, whose objects MimePartRewriter writes back out, each output buffer matched with the input bytes it
 * stands for.
 *
 * Nothing is lost when mailsplit gives up (a header block over `maxMimeHeaderBytes`, or any other error it
 * raises): the input bytes not yet accounted for by an output buffer are kept (`pending`), and on failure they,
 * and everything after them, pass through unchanged with a `mime-structure-error` warning. `pending` is bounded
 * by the part being held (`maxMimePartBytes`), the header block being read (`maxMimeHeaderBytes`) and the
 * Splitter's stream buffer.
 */
export class MimeRewriterStream extends Transform {
  private readonly splitter: Splitter;
  private readonly parts: MimePartRewriter;
  private readonly done: Promise<void>;
  private readonly options: MimeRewriteOptions;
  private pending: Buffer[] = [];
  private failed = false;
  /** The end of the input after its last line feed, held until the line is whole. */
  private partialLine: Buffer[] = [];
  private partialLineBytes = 0;
  private readonly maxLineBytes: number;

  constructor(options: MimeRewriteOptions = {}) {
    super();
    this.options = options;
    const limits = options.limits ?? DEFAULT_LIMITS;
    // defaultInlineEmbedded: a message/rfc822 part is parsed as a message unless it is an attachment.
    this.splitter = new Splitter({ maxHeadSize: limits.maxMimeHeaderBytes, defaultInlineEmbedded: true });
    descendIntoAttachedMessages(this.splitter);
    this.maxLineBytes = limits.maxMimeLineBytes;
    this.parts = new MimePartRewriter(options, (output, inputLength) => this.emit_(output, inputLength));
    this.done = pipeline(this.splitter, this.parts).catch((err: unknown) => this.fail(err));
  }

  /** Counts, once the stream has finished. */
  get stats(): MimeRewriteStats {
    return this.parts.stats;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    if (this.failed) {
      this.push(chunk);
      return callback();
    }
    this.pending.push(chunk);
    // NOTE: mailsplit 5.4.6 loses bytes when a chunk it is given ends inside a line (found by the chunking
    // tests; test/mime/mime.test.ts has a reproduction). It gets whole lines only; the rest waits here.
    const lf = chunk.lastIndexOf(0x0a);
    if (lf === -1) {
      this.partialLine.push(chunk);
      this.partialLineBytes += chunk.length;
      if (this.partialLineBytes > this.maxLineBytes) this.fail(new Error(`a line longer than maxMimeLineBytes (${this.maxLineBytes})`));
      return callback();
    }
    const lines = this.partialLineBytes === 0 ? chunk.subarray(0, lf + 1) : Buffer.concat([...this.partialLine, chunk.subarray(0, lf + 1)]);
    this.partialLine = lf + 1 < chunk.length ? [chunk.subarray(lf + 1)] : [];
    this.partialLineBytes = chunk.length - lf - 1;
    if (this.splitter.write(lines)) return callback();
    let called = false;
    const once = (): void => {
      if (!called) {
        called = true;
        callback();
      }
    };
    this.splitter.once('drain', once);
    this.done.then(once, once);
  }

  override _flush(callback: TransformCallback): void {
    if (this.failed) {
      this.splitter.destroy();
      return callback();
    }
    this.splitter.end(this.partialLineBytes > 0 ? Buffer.concat(this.partialLine) : undefined);
    this.done.then(
      () => callback(),
      (err: unknown) => callback(err as Error),
    );
  }

  /** Output for input bytes that are now accounted for. */
  private emit_(output: Buffer, inputLength: number): void {
    if (this.failed) return;
    this.push(output);
    let n = inputLength;
    while (n > 0 && this.pending.length > 0) {
      const head = this.pending[0]!;
      if (head.length <= n) {
        this.pending.shift();
        n -= head.length;
      } else {
        this.pending[0] = head.subarray(n);
        n = 0;
      }
    }
  }

  /** mailsplit gave up: the input not yet written out, and all that follows, passes through unchanged. */
  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.options.onWarning?.(
      { code: 'mime-structure-error', message: `the message cannot be split further (${(err as Error).message}): the rest passes through unchanged` },
      '0',
    );
    this.push(Buffer.concat(this.pending));
    this.pending = [];
  }
}

export function createMimeRewriter(options: MimeRewriteOptions = {}): MimeRewriterStream {
  return new MimeRewriterStream(options);
}

/** What `absolutizeMime` returns: the message, and what the stream reported, each with its part's path. */
export interface MimeResult {
  readonly output: Buffer;
  readonly stats: MimeRewriteStats;
  readonly parts: MimePartInfo[];
  readonly warnings: Array<HtmlWarning & { readonly part: string }>;
  readonly references: Array<ReferenceRecord & { readonly part: string }>;
}

/** The small-message path: one message or MHTML file held in memory, rewritten as createMimeRewriter would. */
export async function absolutizeMime(input: Uint8Array, options: MimeRewriteOptions = {}): Promise<MimeResult> {
  const parts: MimePartInfo[] = [];
  const warnings: Array<HtmlWarning & { readonly part: string }> = [];
  const references: Array<ReferenceRecord & { readonly part: string }> = [];
  const stream = createMimeRewriter({
    ...options,
    onPart: (p) => {
      parts.push(p);
      options.onPart?.(p);
    },
    onWarning: (w, part) => {
      warnings.push({ ...w, part });
      options.onWarning?.(w, part);
    },
    onReference: (r, part) => {
      references.push({ ...r, part });
      options.onReference?.(r, part);
    },
  });
  const output = await transformWhole(stream, input);
  return { output, stats: stream.stats, parts, warnings, references };
}

export interface MboxRewriteOptions extends Omit<MimeRewriteOptions, 'onReference' | 'onWarning' | 'onPart' | 'onEncoding'> {
  /** `message` counts from 1, in archive order. */
  readonly onReference?: ((reference: Parameters<NonNullable<MimeRewriteOptions['onReference']>>[0], part: string, message: number) => void) | undefined;
  readonly onWarning?: ((warning: Parameters<NonNullable<MimeRewriteOptions['onWarning']>>[0], part: string, message: number) => void) | undefined;
  readonly onPart?: ((part: Parameters<NonNullable<MimeRewriteOptions['onPart']>>[0], message: number) => void) | undefined;
  readonly onEncoding?: ((encoding: Parameters<NonNullable<MimeRewriteOptions['onEncoding']>>[0], part: string, message: number) => void) | undefined;
}

const FROM = Buffer.from('From ');

/**
 * An mbox archive: messages separated by `From ` lines at the start of the file or after an empty line (mboxo
 * and mboxrd alike; `>From ` lines inside messages are message text and stay as they are). Each message runs
 * through its own MIME rewriter; the separator lines pass through. Memory: one message's pipeline at a time.
 */
export class MboxRewriterStream extends Transform {
  messages = 0;
  readonly stats: MimeRewriteStats = { parts: 0, rewrittenParts: 0, rewritten: 0 };
  private readonly options: MboxRewriteOptions;
  private current: MimeRewriterStream | null = null;
  /** Bytes at the start of a line, too few yet to tell whether they begin "From ". */
  private carry: Buffer = Buffer.alloc(0);
  private atLineStart = true;
  private previousLineBlank = true;
  /** Inside a separator line: its bytes go straight out. */
  private inSeparator = false;

  constructor(options: MboxRewriteOptions = {}) {
    super();
    this.options = options;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.consume(Buffer.concat([this.carry, chunk]), false).then(() => callback(), (err: unknown) => callback(err as Error));
  }

  override _flush(callback: TransformCallback): void {
    this.consume(this.carry, true)
      .then(() => this.endMessage())
      .then(() => callback(), (err: unknown) => callback(err as Error));
  }

  private async consume(data: Buffer, isEnd: boolean): Promise<void> {
    this.carry = Buffer.alloc(0);
    let i = 0;
    let segmentStart = 0; // bytes [segmentStart, i) go to the current message
    while (i < data.length) {
      if (this.inSeparator) {
        const eol = data.indexOf(0x0a, i);
        const end = eol === -1 ? data.length : eol + 1;
        this.push(data.subarray(i, end));
        i = segmentStart = end;
        if (eol !== -1) {
          this.inSeparator = false;
          this.atLineStart = true;
          this.previousLineBlank = false;
        }
        continue;
      }
      if (this.atLineStart) {
        if (data.length - i < FROM.length && !isEnd) {
          await this.writeMessage(data.subarray(segmentStart, i));
          this.carry = Buffer.from(data.subarray(i));
          return;
        }
        if (this.previousLineBlank && data.subarray(i, i + FROM.length).equals(FROM)) {
          await this.writeMessage(data.subarray(segmentStart, i));
          await this.endMessage();
          this.inSeparator = true;
          segmentStart = i;
          continue;
        }
      }
      const eol = data.indexOf(0x0a, i);
      const end = eol === -1 ? data.length : eol + 1;
      if (eol !== -1) {
        const line = data.subarray(i, end);
        this.previousLineBlank = line.length === 1 || (line.length === 2 && line[0] === 0x0d);
        this.atLineStart = true;
      } else {
        this.atLineStart = false;
        this.previousLineBlank = false;
      }
      i = end;
    }
    await this.writeMessage(data.subarray(segmentStart, i));
  }

  /** Writes bytes of the current message, starting one if needed (text before the first separator is one too). */
  private async writeMessage(bytes: Buffer): Promise<void> {
    if (bytes.length === 0) return;
    if (this.current === null) this.startMessage();
    if (!this.current!.write(bytes)) await new Promise((resolve) => this.current!.once('drain', resolve));
  }

  private startMessage(): void {
    const index = ++this.messages;
    const o = this.options;
    const stream = createMimeRewriter({
      ...o,
      onReference: o.onReference && ((r, part) => o.onReference!(r, part, index)),
      onWarning: o.onWarning && ((w, part) => o.onWarning!(w, part, index)),
      onPart: o.onPart && ((p) => o.onPart!(p, index)),
      onEncoding: o.onEncoding && ((e, part) => o.onEncoding!(e, part, index)),
    });
    stream.on('data', (c: Buffer) => this.push(c));
    this.current = stream;
  }

  private async endMessage(): Promise<void> {
    const stream = this.current;
    if (stream === null) return;
    this.current = null;
    stream.end();
    await finished(stream);
    this.stats.parts += stream.stats.parts;
    this.stats.rewrittenParts += stream.stats.rewrittenParts;
    this.stats.rewritten += stream.stats.rewritten;
  }
}

export function createMboxRewriter(options: MboxRewriteOptions = {}): MboxRewriterStream {
  return new MboxRewriterStream(options);
}

/**
 * The body of a `multipart/*` entity whose header lives elsewhere (an HTTP response's Content-Type): the
 * MIME rewriter reads it behind a header block made of that Content-Type, which is dropped from the output
 * again, byte for byte.
 */
export class MimeBodyRewriterStream extends Transform {
  readonly inner: MimeRewriterStream;
  private toDrop: number;

  constructor(contentType: string, options: MimeRewriteOptions = {}) {
    super();
    const header = Buffer.from(`Content-Type: ${contentType.replace(/[\r\n]+/g, ' ')}\r\n\r\n`, 'latin1');
    this.toDrop = header.length;
    this.inner = createMimeRewriter(options);
    this.inner.on('data', (c: Buffer) => {
      const drop = Math.min(this.toDrop, c.length);
      this.toDrop -= drop;
      if (drop < c.length) this.push(c.subarray(drop));
    });
    this.inner.write(header);
  }

  get stats(): MimeRewriteStats {
    return this.inner.stats;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.inner.write(chunk, (err) => callback(err ?? undefined));
  }

  override _flush(callback: TransformCallback): void {
    this.inner.end();
    finished(this.inner).then(
      () => callback(),
      (err: unknown) => callback(err as Error),
    );
  }
}
