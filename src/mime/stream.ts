/**
 * Bytes in, bytes out: a MIME message or MHTML file (`createMimeRewriter`), and an mbox archive of them
 * (`createMboxRewriter`). Thin adapters around the pure cores: MimeScanner (structure), MimePartRewriter
 * (bases and rewritten parts) and MboxSplitter (messages).
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import { DEFAULT_LIMITS } from '../limits.ts';
import { MboxSplitter } from './mbox.ts';
import { MimePartRewriter } from './rewriter.ts';
import type { MimePartInfo, MimeRewriteOptions, MimeRewriteStats, Writer } from './rewriter.ts';
import { replaceLength } from './rewriter.ts';
import { firstField } from './headers.ts';
import { Spool } from './spool.ts';
import type { Limits } from '../limits.ts';
import { MimeScanner } from './scanner.ts';
import type { HtmlWarning, ReferenceRecord } from '../html/rewriter.ts';
import { transformWhole } from '../html/stream.ts';

/** One message: the scanner hands what it finds to the part rewriter, whose queue is written out by `drain`. */
class MessageRewriter {
  readonly parts: MimePartRewriter;
  private readonly scanner: MimeScanner;

  constructor(options: MimeRewriteOptions) {
    this.parts = new MimePartRewriter(options);
    this.scanner = new MimeScanner(this.parts, options.limits ?? DEFAULT_LIMITS);
  }

  write(chunk: Buffer, out: Writer): Promise<void> {
    this.scanner.push(chunk);
    return this.parts.drain(out);
  }

  end(out: Writer): Promise<void> {
    this.scanner.end();
    return this.parts.drain(out);
  }
}

/**
 * A MIME message (RFC 5322 + MIME) or MHTML document, rewritten part by part. Output is the input's own byte
 * ranges, and rewritten bodies in place of theirs: nothing can be lost or doubled.
 */
export class MimeRewriterStream extends Transform {
  private readonly message: MessageRewriter;
  private readonly paced = new Pacer(this);
  private readonly out: Writer = (b) => this.paced.push(b);

  constructor(options: MimeRewriteOptions = {}) {
    super();
    this.message = new MessageRewriter(options);
  }

  /** Counts, once the stream has finished. */
  get stats(): MimeRewriteStats {
    return this.message.parts.stats;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.message.write(chunk, this.out).then(
      () => {
        void this.paced.flush();
        callback();
      },
      (err: unknown) => {
        // What was written before the error goes out first, as it did before output was batched.
        void this.paced.flush();
        callback(err as Error);
      },
    );
  }

  override _read(size: number): void {
    this.paced.wanted();
    super._read(size);
  }

  override _flush(callback: TransformCallback): void {
    this.message.end(this.out).then(
      () => {
        void this.paced.flush();
        callback();
      },
      (err: unknown) => {
        // What was written before the error goes out first, as it did before output was batched.
        void this.paced.flush();
        callback(err as Error);
      },
    );
  }
}

/** Output is handed on in pieces of at least this many bytes (or at the end of each input chunk). */
const BATCH_BYTES = 64 * 1024;

/**
 * Backpressure for output written from inside one `_transform` call (a spooled part replayed, a streamed part's
 * output): when `push` says the readable side is full, the writer waits until it is read from. Small pieces
 * (header blocks, delimiter lines, the slices of a message between its rewritten parts) are gathered into one
 * buffer of BATCH_BYTES before they are pushed: measured on the mbox bench, a push and a write per piece were
 * ~3% of the main thread.
 */
class Pacer {
  private waiters: Array<() => void> = [];
  private batch: Buffer[] = [];
  private batchBytes = 0;
  constructor(private readonly stream: Transform) {}

  push(b: Buffer): void | Promise<void> {
    if (b.length === 0) return undefined;
    if (this.batchBytes === 0 && b.length >= BATCH_BYTES) return this.pushNow(b);
    this.batch.push(b);
    this.batchBytes += b.length;
    return this.batchBytes >= BATCH_BYTES ? this.flush() : undefined;
  }

  /** Pushes what is gathered (at the end of an input chunk, and of the input). */
  flush(): void | Promise<void> {
    if (this.batchBytes === 0) return undefined;
    const out = this.batch.length === 1 ? this.batch[0]! : Buffer.concat(this.batch, this.batchBytes);
    this.batch = [];
    this.batchBytes = 0;
    return this.pushNow(out);
  }

  private pushNow(b: Buffer): void | Promise<void> {
    if (this.stream.push(b)) return undefined;
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** The readable side wants more. */
  wanted(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
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

/**
 * An mbox archive: MboxSplitter finds the messages (its module comment gives the rule: From_ lines, mboxcl2
 * Content-Length); each message is rewritten on its own, the separator lines pass through. Memory: one
 * message's rewriter at a time.
 */
export class MboxRewriterStream extends Transform {
  messages = 0;
  readonly stats: MimeRewriteStats = { parts: 0, rewrittenParts: 0, rewritten: 0 };
  private readonly options: MboxRewriteOptions;
  private readonly limits: Limits;
  private readonly splitter: MboxSplitter;
  private current: MessageRewriter | null = null;
  private readonly paced = new Pacer(this);
  /** The current message: its input bytes and line endings, and, when its header states lengths, its output held. */
  private message: MessageState = new MessageState(null, true);
  private readonly out: Writer = (b) => {
    const m = this.message;
    if (!m.decided) {
      m.decided = true;
      const top = m.rewriter?.parts.topHeader ?? null;
      // mboxcl/mboxcl2: a Content-Length (and Lines) in the message header counts its body, and the archive is
      // read by it: the message is held (memory, then a temporary file) until its new lengths are known.
      if (top !== null && (firstField(top.entity.header, 'content-length') !== undefined || firstField(top.entity.header, 'lines') !== undefined)) {
        m.spool = new Spool(this.limits.maxMimeHeaderBytes + this.limits.maxMimePartBytes);
        for (const data of m.undecided) m.inLines += countLineFeeds(data);
      }
      m.undecided.length = 0;
    }
    if (m.spool !== null) {
      m.spool.write(b);
      m.outLines += countLineFeeds(b);
      return undefined;
    }
    return this.paced.push(b);
  };

  constructor(options: MboxRewriteOptions = {}) {
    super();
    this.options = options;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.splitter = new MboxSplitter(this.limits);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.handle(this.splitter.push(chunk)).then(
      () => {
        void this.paced.flush();
        callback();
      },
      (err: unknown) => {
        // What was written before the error goes out first, as it did before output was batched.
        void this.paced.flush();
        callback(err as Error);
      },
    );
  }

  override _flush(callback: TransformCallback): void {
    this.handle(this.splitter.end())
      .then(() => this.endMessage())
      .then(
        () => {
          void this.paced.flush();
          callback();
        },
        (err: unknown) => {
          // What was written before the error goes out first, as it did before output was batched.
          void this.paced.flush();
          callback(err as Error);
        },
      );
  }

  override _read(size: number): void {
    this.paced.wanted();
    super._read(size);
  }

  private async handle(events: ReturnType<MboxSplitter['push']>): Promise<void> {
    for (const e of events) {
      if (e.type === 'separator') {
        await this.endMessage();
        this.startMessage();
        const wait = this.paced.push(e.line);
        if (wait !== undefined) await wait;
      } else if (e.type === 'bytes') {
        if (this.current === null) this.startMessage();
        const m = this.message;
        if (m.spool !== null) {
          m.inBytes += e.data.length;
          m.inLines += countLineFeeds(e.data);
        } else if (!m.decided) {
          // Its lines are counted only if the message turns out to be held (most are not: a count per line of
          // every message was ~5% of the run's main thread on the mbox bench).
          m.inBytes += e.data.length;
          m.undecided.push(e.data);
        }
        await this.current!.write(e.data, this.out);
      } else {
        // The splitter did not honour this message's Content-Length: it is left as it was.
        this.message.lengthIgnored = true;
        this.options.onWarning?.({ code: 'mbox-content-length', message: e.message }, '0', Math.max(this.messages, 1));
      }
    }
  }

  private startMessage(): void {
    const index = ++this.messages;
    const o = this.options;
    this.current = new MessageRewriter({
      ...o,
      // The message's own Content-Length is the archive's (mboxcl2): this stream keeps it, below.
      ownLength: false,
      onReference: o.onReference && ((r, part) => o.onReference!(r, part, index)),
      onWarning: o.onWarning && ((w, part) => o.onWarning!(w, part, index)),
      onPart: o.onPart && ((p) => o.onPart!(p, index)),
      onEncoding: o.onEncoding && ((e, part) => o.onEncoding!(e, part, index)),
    });
    this.message = new MessageState(this.current, false);
  }

  private async endMessage(): Promise<void> {
    const message = this.current;
    if (message === null) return;
    this.current = null;
    await message.end(this.out);
    const s = message.parts.stats;
    this.stats.parts += s.parts;
    this.stats.rewrittenParts += s.rewrittenParts;
    this.stats.rewritten += s.rewritten;
    const { spool, inBytes, inLines, outLines, lengthIgnored } = this.message;
    this.message = new MessageState(null, true);
    if (spool !== null) await this.writeHeld(spool, message, inBytes, inLines, outLines, this.messages, lengthIgnored);
  }

  /** A held mboxcl/mboxcl2 message: its header with Content-Length and Lines moved by what the body grew by, then the rest. */
  private async writeHeld(spool: Spool, message: MessageRewriter, inBytes: number, inLines: number, outAllLines: number, index: number, lengthIgnored: boolean): Promise<void> {
    const top = message.parts.topHeader!;
    const header = spool.head(top.outputLength);
    let from = 0;
    if (header !== null && spool.length !== inBytes - top.entity.header.bytes.length + top.outputLength) {
      let fixed: Buffer | null = header;
      const outLines = outAllLines - countLineFeeds(header);
      const delta = spool.length - top.outputLength - (inBytes - top.entity.header.bytes.length);
      const bodyInLines = inLines - countLineFeeds(top.entity.header.bytes);
      if (!lengthIgnored) fixed = replaceLength(fixed, 'content-length', delta);
      if (fixed !== null) fixed = replaceLength(fixed, 'lines', outLines - bodyInLines);
      if (fixed === null) {
        this.options.onWarning?.({ code: 'mbox-content-length', message: `message ${index}: its Content-Length or Lines is not a plain number: left as it is, though its body's length changed` }, '0', index);
      } else {
        const wait = this.paced.push(fixed);
        if (wait !== undefined) await wait;
        from = top.outputLength;
      }
    }
    for await (const b of spool.drain(from)) {
      const wait = this.paced.push(b);
      if (wait !== undefined) await wait;
    }
  }
}

/** What MboxRewriterStream keeps of the message it is in: one shape for every message. */
class MessageState {
  inBytes = 0;
  inLines = 0;
  outLines = 0;
  spool: Spool | null = null;
  lengthIgnored = false;
  /**
   * Input read while `decided` is false, whose lines are counted if the message is held. Bounded by
   * maxMimeHeaderBytes: the message is decided once its top header goes out, and MessageRewriter writes the top
   * header before any of its body (rewriter.ts: the mbox sets `ownLength: false`, so its top header is never deferred).
   */
  readonly undecided: Buffer[] = [];
  decided: boolean;
  readonly rewriter: MessageRewriter | null;

  constructor(rewriter: MessageRewriter | null, decided: boolean) {
    this.rewriter = rewriter;
    this.decided = decided;
  }
}

/** The number of LF bytes in `b` (lines, as mbox `Lines:` counts them). */
function countLineFeeds(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(0x0a); i !== -1; i = b.indexOf(0x0a, i + 1)) n++;
  return n;
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
