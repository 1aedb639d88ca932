/**
 * Bytes in, bytes out: the HTML rewriter as a Node `Transform`, a web `TransformStream`, and a one-call
 * convenience for small documents. Thin adapters around HtmlRewriteCore.
 *
 * The encoding is decided as Chromium decides it before the first byte is tokenized: BOM, transport charset,
 * then a charset `<meta>` anywhere in the head as Chromium's tokenizer-based scan finds it (src/encoding/
 * meta-scan.ts; not the standard's byte prescan, which also reads `<meta>` in script text; input is held
 * meanwhile, up to `maxCharsetLookaheadBytes`), then an XML declaration, then the default (windows-1252). The document is tokenized as raw text (src/encoding/transcode.ts): one latin1 unit per
 * byte in ASCII-safe encodings, one unit per code unit in UTF-16, masked bytes in ISO-2022-JP; every byte the
 * rewriter does not replace is copied unchanged, including bytes that are invalid in the document's encoding.
 */
import { Duplex, Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { PRESCAN_BYTES, resolveLabel, sniffEncoding } from '../encoding/index.ts';
import type { EncodingDecision, SniffedEncoding } from '../encoding/index.ts';
import { MetaCharsetScanner } from '../encoding/meta-scan.ts';
import { IDENTITY_CODEC } from '../encoding/raw-text.ts';
import { isRewritableEncoding, transcoderFor } from '../encoding/transcode.ts';
import type { Transcoder } from '../encoding/transcode.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import { HtmlRewriteCore } from './rewriter.ts';
import type { HtmlRewriteOptions, HtmlRewriteStats, HtmlWarning, ReferenceRecord } from './rewriter.ts';
import type { BaseDecision } from '../base/base.ts';

/** The piece of held input given to the charset <meta> scan at once. */
const SCAN_SLICE_BYTES = 4096;
/** The largest piece of input tokenized at once (see HtmlRewriterStream.feed). */
const FEED_SLICE_BYTES = 64 * 1024;

export interface HtmlStreamOptions extends Omit<HtmlRewriteOptions, 'encoding'> {
  /** The transport charset (HTTP or MIME `Content-Type` charset, or `--charset`): beats `<meta>`. */
  readonly charset?: string | undefined;
  /** The encoding when nothing else says. @default 'windows-1252' */
  readonly defaultEncoding?: string | undefined;
  /** Called once the encoding is known. */
  readonly onEncoding?: ((encoding: EncodingDecision) => void) | undefined;
}

/**
 * Where `HtmlBytesRewriter` writes: bytes, and raw text to be turned into bytes in order (`fromRaw`). The stream
 * converts raw text at once; a whole document held in memory converts it only if something was rewritten.
 */
interface HtmlOutput {
  bytes(b: Buffer): void;
  raw(raw: string): void;
}

/**
 * The encoding decision and the rewriting of an HTML byte stream, without a stream around it: bytes in (`write`,
 * then `end`), output to an `HtmlOutput`. `HtmlRewriterStream` is it behind a Transform; `rewriteHtmlBytes` runs it
 * over a whole document (a MIME part).
 */
class HtmlBytesRewriter {
  stats: HtmlRewriteStats = { rewritten: 0, unchanged: 0, unresolvable: 0, warnings: 0 };
  base: BaseDecision | null = null;
  encoding: string | null = null;

  /** Whether the output may come in many small pieces (HtmlRewriteCore's `piecewise`): set before the first write. */
  piecewise = false;

  private readonly options: HtmlStreamOptions;
  private readonly out: HtmlOutput;
  private core: HtmlRewriteCore | null = null;
  private ended = false;
  private transcoder: Transcoder | null = null;
  private passthrough = false;
  private head: Buffer[] = [];
  private headLength = 0;
  /** The prescan's answer (the default, or an XML declaration's) while the head is scanned for a `<meta>`. */
  private prescanned: SniffedEncoding | null = null;
  private scanner: MetaCharsetScanner | null = null;

  constructor(options: HtmlStreamOptions, out: HtmlOutput) {
    this.options = options;
    this.out = out;
  }

  write(chunk: Buffer): void {
    if (this.core === null && !this.passthrough) {
      this.head.push(chunk);
      this.headLength += chunk.length;
      this.decide(chunk, false);
    } else if (this.passthrough) {
      this.out.bytes(chunk);
    } else {
      this.feed(chunk);
    }
  }

  end(): void {
    // Once only: a stream rewritten whole (rewriteWhole) and then ended as a stream comes here again, with its core
    // let go; deciding again would start a new document.
    if (this.ended) return;
    if (this.core === null && !this.passthrough) this.decide(Buffer.alloc(0), true);
    this.core?.end();
    if (this.transcoder !== null) {
      const rest = this.transcoder.endBytes();
      if (rest.length > 0) this.out.bytes(rest);
    }
    if (this.core !== null) {
      this.stats = this.core.stats;
      this.base = this.core.base;
      // The core is let go: it holds pieces of the document (the tokenizer's last input, tokens whose lazy
      // attribute values are slices of it). NOTE: a Node Writable outlives its use in the young generation: Node's
      // WritableState makes its `onwrite` closure in V8's old generation (`%InYoungGeneration`: never), whose
      // context holds the stream, so a finished stream and all it holds survive every scavenge until the next full
      // collection, and are promoted. Holding the core, the WARC rewriting thread promoted 88 MB of its 550 on the
      // bench crawl, 11 MB without (`--trace-gc-nvp`), and the run took 0.92× the CPU (8 alternating rounds).
      this.core = null;
    }
    this.ended = true;
  }

  /** The output bytes of raw text the core wrote (in order: the transcoder may keep state). */
  fromRaw(raw: string): Buffer {
    return this.transcoder!.fromRaw(raw);
  }

  /** Whether nothing has been written yet. */
  get fresh(): boolean {
    return this.core === null && !this.passthrough && this.headLength === 0 && !this.ended;
  }

  /** Whether raw text is the output bytes read as latin1, one unit a byte (every ASCII-safe encoding). */
  get rawIsLatin1(): boolean {
    return this.transcoder?.rawIsLatin1 === true;
  }

  /**
   * Decides the encoding once the held bytes allow it (`chunk`: the bytes just added), then starts rewriting
   * with everything held. A charset `<meta>` counts if it ends within `maxCharsetLookaheadBytes`: the rule
   * depends on offsets only, so the decision is the same however the input is chunked.
   */
  private decide(chunk: Buffer, isEnd: boolean): void {
    if (this.prescanned === null) {
      // A BOM (up to 3 bytes) beats the transport charset; an XML declaration is looked for in the first bytes.
      const transport = this.options.charset === undefined ? null : resolveLabel(this.options.charset);
      if (this.headLength < (transport === null ? PRESCAN_BYTES : 3) && !isEnd) return;
      const sniffed = sniffEncoding(this.held(), { transportCharset: this.options.charset, defaultEncoding: this.options.defaultEncoding, prescanMeta: false });
      if (sniffed.source === 'bom' || sniffed.source === 'transport') return this.start(sniffed);
      // An XML declaration ("meta" here) is what counts if no <meta> does: Chromium reads on for a <meta>.
      this.prescanned = sniffed;
      this.scanner = new MetaCharsetScanner();
      chunk = this.held();
    }
    const limit = (this.options.limits ?? DEFAULT_LIMITS).maxCharsetLookaheadBytes;
    // In slices: the scan usually ends within the first few KiB of a large chunk (a whole file).
    let found = null;
    for (let i = 0; i < chunk.length && found === null; i += SCAN_SLICE_BYTES) {
      found = this.scanner!.write(chunk.toString('latin1', i, Math.min(chunk.length, i + SCAN_SLICE_BYTES)), false);
    }
    if (found === null && isEnd) found = this.scanner!.write('', true);
    if (found !== null && found.encoding !== null && found.end <= limit) {
      return this.start({ encoding: found.encoding, source: 'meta', bomLength: 0 });
    }
    if (found !== null && found.encoding === null && found.end <= limit) return this.start(this.prescanned);
    if (found !== null || this.headLength > limit) {
      this.options.onWarning?.({
        code: 'charset-lookahead-limit',
        message: `no charset <meta> within the first ${limit} bytes: the document is read as ${this.prescanned.encoding}`,
      });
      return this.start(this.prescanned);
    }
    if (isEnd) this.start(this.prescanned);
  }

  /** The bytes held, as one buffer (concatenated once). */
  private held(): Buffer {
    if (this.head.length !== 1) this.head = [Buffer.concat(this.head)];
    return this.head[0]!;
  }

  /** Starts rewriting in the encoding decided, with the bytes held. */
  private start(sniffed: SniffedEncoding): void {
    const first = this.held();
    this.head = [];
    this.scanner = null;
    this.encoding = sniffed.encoding;
    this.options.onEncoding?.({ name: sniffed.encoding, source: sniffed.source });
    if (!isRewritableEncoding(sniffed.encoding)) {
      // "replacement" (labels such as iso-2022-kr): a browser shows one U+FFFD; nothing to rewrite.
      this.options.onWarning?.({
        code: 'encoding-not-rewritable',
        message: `documents in ${sniffed.encoding} are passed through unchanged (not rewritten)`,
      });
      this.passthrough = true;
      this.out.bytes(first);
      return;
    }
    const transcoder = transcoderFor(sniffed.encoding);
    this.transcoder = transcoder;
    const out = this.out;
    this.core = new HtmlRewriteCore({ ...this.options, encoding: transcoder.queryEncoding }, transcoder.codec, (raw) => out.raw(raw), { piecewise: this.piecewise });
    if (sniffed.bomLength > 0) out.bytes(first.subarray(0, sniffed.bomLength));
    const rest = first.subarray(sniffed.bomLength);
    if (rest.length > 0) this.feed(rest);
  }

  /**
   * Feeds the core in slices of at most FEED_SLICE_BYTES, so that a large chunk (a whole file) is tokenized,
   * rewritten and written out piece by piece: the tokens waiting for their edits stay few.
   */
  private feed(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i += FEED_SLICE_BYTES) {
      this.core!.write(this.transcoder!.toRaw(chunk.subarray(i, Math.min(chunk.length, i + FEED_SLICE_BYTES))));
    }
  }
}


/**
 * Creates a Node Transform that rewrites an HTML byte stream. Statistics, the base decision and the encoding are
 * available on the returned stream once it has finished.
 */
export class HtmlRewriterStream extends Transform {
  private readonly rewriter: HtmlBytesRewriter;
  /** Where `rewriteWhole` writes the output instead of pushing it. */
  private whole: WholeOutput | null = null;

  constructor(options: HtmlStreamOptions = {}) {
    super();
    this.rewriter = new HtmlBytesRewriter(options, {
      bytes: (b) => {
        if (this.whole === null) this.push(b);
        else this.whole.bytes(b);
      },
      raw: (raw) => {
        if (this.whole === null) this.push(this.rewriter.fromRaw(raw));
        else if (this.rewriter.rawIsLatin1) this.whole.latin1(raw);
        else this.whole.bytes(this.rewriter.fromRaw(raw));
      },
    });
  }

  /**
   * Rewrites `input` as the whole document, as writing it to the stream and ending it would, but without the
   * stream: no chunk pushed, no event, no buffer a piece of output. The output is written as it comes into one
   * buffer with `room` free bytes before and after it (transformWhole). The stream is not to be used afterwards.
   * NOTE: the raw text is written at once, not collected and joined at the end: the pieces are slices of the
   * tokenizer's input, and holding them kept all of it alive (on the bench crawl the rewriting thread promoted
   * 147 MB instead of 87, and its scavenges took 394 ms instead of 287; `--trace-gc-nvp`).
   */
  rewriteWhole(input: Uint8Array, room?: OutputRoom): Buffer {
    if (!this.isFresh) throw new Error('rewriteWhole: the stream was written to already');
    // Absolute URLs are longer than relative ones: room for an eighth more, then the buffer doubles.
    const whole = new WholeOutput(input.byteLength + (input.byteLength >>> 3) + 64, room);
    this.whole = whole;
    this.rewriter.piecewise = true;
    this.rewriter.write(Buffer.from(input.buffer, input.byteOffset, input.byteLength));
    this.rewriter.end();
    this.whole = null;
    return whole.done();
  }

  /** Whether nothing has been written to it yet (rewriteWhole takes only such a stream). */
  get isFresh(): boolean {
    return this.rewriter.fresh && this.writableLength === 0 && !this.writableEnded;
  }

  get stats(): HtmlRewriteStats {
    return this.rewriter.stats;
  }

  get base(): BaseDecision | null {
    return this.rewriter.base;
  }

  get encoding(): string | null {
    return this.rewriter.encoding;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    try {
      this.rewriter.write(chunk);
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.rewriter.end();
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }
}

/**
 * A whole HTML document held in memory (a MIME part), rewritten as `HtmlRewriterStream` would rewrite it, without a
 * stream: `output` is null when no reference was rewritten (the document stands as it is), and the raw text is
 * then never turned back into bytes (measured on the mbox bench: most held HTML parts have no relative reference,
 * and the stream's push, copy and concatenation of their output were ~3% of the main thread).
 */
export function rewriteHtmlBytes(input: Buffer, options: HtmlStreamOptions = {}): { readonly output: Buffer | null; readonly stats: HtmlRewriteStats } {
  const pieces: Array<Buffer | string> = [];
  const rewriter = new HtmlBytesRewriter(options, { bytes: (b) => pieces.push(b), raw: (raw) => pieces.push(raw) });
  rewriter.write(input);
  rewriter.end();
  const stats = rewriter.stats;
  if (stats.rewritten === 0) return { output: null, stats };
  const output = Buffer.concat(pieces.map((p) => (typeof p === 'string' ? rewriter.fromRaw(p) : p)));
  return { output, stats };
}

export function createHtmlRewriter(options: HtmlStreamOptions = {}): HtmlRewriterStream {
  return new HtmlRewriterStream(options);
}

/** The one adapter for web streams: a Node Transform as a web TransformStream (bytes in, bytes out). */
export function toWebTransform(transform: Transform): TransformStream<Uint8Array, Uint8Array> {
  return Duplex.toWeb(transform) as unknown as TransformStream<Uint8Array, Uint8Array>;
}

export interface HtmlResult<T> {
  readonly output: T;
  readonly stats: HtmlRewriteStats;
  readonly base: BaseDecision | null;
  readonly encoding: string;
  readonly warnings: HtmlWarning[];
  readonly references: ReferenceRecord[];
}

/**
 * The small-document path: rewrites a whole document held in memory. Bytes come back as bytes in the same
 * encoding; a string is taken as already-decoded text and comes back as a string (URL queries then use
 * `options.encoding`, default UTF-8).
 */
export async function absolutizeHtml(input: Uint8Array, options?: HtmlStreamOptions): Promise<HtmlResult<Buffer>>;
export async function absolutizeHtml(input: string, options?: HtmlRewriteOptions): Promise<HtmlResult<string>>;
export async function absolutizeHtml(input: Uint8Array | string, options: HtmlStreamOptions & HtmlRewriteOptions = {}): Promise<HtmlResult<Buffer | string>> {
  const warnings: HtmlWarning[] = [];
  const references: ReferenceRecord[] = [];
  const collect = {
    ...options,
    onWarning: (w: HtmlWarning) => {
      warnings.push(w);
      options.onWarning?.(w);
    },
    onReference: (r: ReferenceRecord) => {
      references.push(r);
      options.onReference?.(r);
    },
  };
  if (typeof input === 'string') {
    let output = '';
    const core = new HtmlRewriteCore(collect, IDENTITY_CODEC, (raw) => {
      output += raw;
    });
    core.write(input);
    core.end();
    return { output, stats: core.stats, base: core.base, encoding: options.encoding ?? 'utf-8', warnings, references };
  }
  const stream = createHtmlRewriter(collect);
  const output = await transformWhole(stream, input);
  return { output, stats: stream.stats, base: stream.base, encoding: stream.encoding ?? 'windows-1252', warnings, references };
}

/** Free bytes to leave around a whole output (transformWhole): a caller writes what goes before and after it there. */
export interface OutputRoom {
  readonly before: number;
  readonly after: number;
}

/**
 * A whole document's output, written into one buffer as it comes (HtmlRewriterStream.rewriteWhole, and the chunks
 * transformWhole collected from another stream), with `room` around it. The buffer starts at `capacity` (for
 * rewriteWhole the input's length and an eighth more) and doubles when that is not enough. It has no limit of its
 * own: it holds one document's output, as the chunks collected before did, and the document is already held whole
 * under its caller's limit (a WARC record's `maxWarcRecordBytes`, a MIME part's). The unused end goes with the
 * output (a WARC record is written in this buffer and moved to the writing thread whole): at most an eighth of the
 * input, or half the buffer once doubled.
 */
class WholeOutput {
  private buffer: Buffer;
  private at: number;
  private readonly before: number;
  private readonly after: number;

  constructor(capacity: number, room?: OutputRoom) {
    this.before = room?.before ?? 0;
    this.after = room?.after ?? 0;
    // Not from Buffer's pool: the bytes around the output are the caller's to write.
    this.buffer = Buffer.allocUnsafeSlow(this.before + capacity + this.after);
    this.at = this.before;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buffer.set(b, this.at);
    this.at += b.length;
  }

  /** Raw text that is the output's bytes read as latin1. */
  latin1(raw: string): void {
    this.reserve(raw.length);
    this.at += this.buffer.write(raw, this.at, raw.length, 'latin1');
  }

  done(): Buffer {
    return this.buffer.subarray(this.before, this.at);
  }

  private reserve(length: number): void {
    if (this.at + length + this.after <= this.buffer.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(2 * this.buffer.length, this.at + length + this.after));
    this.buffer.copy(bigger, 0, 0, this.at);
    this.buffer = bigger;
  }
}

/**
 * Writes all of `input` to a fresh stream and collects everything it outputs: the small-document calls. With
 * `room`, the output is joined into a buffer of its own with that many free bytes before and after it (the WARC
 * rewriter writes the record's head and end there instead of copying the output once more). An HTML stream rewrites
 * the document without its stream machinery (HtmlRewriterStream.rewriteWhole): the same bytes.
 */
export async function transformWhole(stream: Transform, input: Uint8Array, room?: OutputRoom): Promise<Buffer> {
  if (stream instanceof HtmlRewriterStream && stream.isFresh) return stream.rewriteWhole(input, room);
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  stream.end(Buffer.from(input.buffer, input.byteOffset, input.byteLength));
  await done;
  if (room === undefined) return Buffer.concat(chunks);
  let length = 0;
  for (const c of chunks) length += c.length;
  const whole = new WholeOutput(length, room);
  for (const c of chunks) whole.bytes(c);
  return whole.done();
}
