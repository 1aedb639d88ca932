/**
 * Standalone CSS (`text/css`, `--type css`) as a stream: bytes in, bytes out, only URL tokens changed.
 * CSS has no embedded base: the base is the retrieval URL, else the fallback (SPEC §2).
 *
 * The stylesheet is cut into pieces at top-level `;` and `}` tokens, after which nothing that follows can change
 * how earlier text tokenizes or which of its tokens are URLs. A piece is decoded in the stylesheet's encoding,
 * its URL tokens rewritten, and the new text spliced into the raw bytes, so all other bytes pass unchanged.
 * Memory: one piece, at most `maxTokenBytes` (a stylesheet with no cut point for that long passes through).
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { establishBase } from '../base/base.ts';
import type { BaseDecision } from '../base/base.ts';
import { ReferencePolicy } from '../base/reference-policy.ts';
import type { DocumentContextOptions, ReferenceStats, SiteWarning } from '../base/reference-policy.ts';
import { sniffCssEncoding } from '../encoding/index.ts';
import type { EncodingDecision } from '../encoding/index.ts';
import { decodeRawText, holdsUndecodable } from '../encoding/raw-text.ts';
import type { RawCodec } from '../encoding/raw-text.ts';
import { isRewritableEncoding, transcoderFor } from '../encoding/transcode.ts';
import type { Transcoder } from '../encoding/transcode.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import type { Limits } from '../limits.ts';
import { browserResolver } from '../uri/browser.ts';
import { findCssUrls, replacementText, scanCss } from './rewrite-css.ts';

export interface CssStreamOptions extends DocumentContextOptions {
  /**
   * The base decision already made for the stylesheet's own entity (a MIME part with its Content-Location):
   * used as it is, so that the link report names the layer that gave it, as --explain does. Beats the layers above.
   */
  readonly base?: BaseDecision | undefined;
  /** The transport charset (`Content-Type` charset or `--charset`). */
  readonly charset?: string | undefined;
  /** The referring document's encoding ("environment encoding"), the fallback before UTF-8. */
  readonly environmentEncoding?: string | undefined;
  /** Called once the encoding is known (BOM, transport charset, `@charset`, environment or UTF-8). */
  readonly onEncoding?: ((encoding: EncodingDecision) => void) | undefined;
}

/** Held bytes before a cut is looked for; larger pieces mean fewer tokenizer passes over the same text. */
const CUT_AFTER_BYTES = 1 << 16;
/** Bytes the `@charset` rule may take at the start (https://drafts.csswg.org/css-syntax-3/#determine-the-fallback-encoding: 1024). */
const CHARSET_PRESCAN_BYTES = 1024;

/**
 * The stylesheet rewriter as a pure core: bytes in (`write`, then `end`), output appended to the array given.
 * `CssRewriterStream` is it behind a Transform; a whole stylesheet held in memory (a MIME part) is rewritten by
 * it directly, without a stream.
 */
export class CssRewriteCore {
  stats: ReferenceStats & { warnings: number } = { rewritten: 0, unchanged: 0, unresolvable: 0, warnings: 0 };
  base: BaseDecision | null = null;
  encoding: string | null = null;

  private readonly options: CssStreamOptions;
  private readonly limits: Limits;
  private codec: RawCodec | null = null;
  private transcoder: Transcoder | null = null;
  private policy: ReferencePolicy | null = null;
  private raw = '';
  /**
   * The bytes `raw` was read from, while raw text is those bytes as latin1 (before the encoding is known, and in
   * an ASCII-safe encoding) and they lie in one memory (one input chunk, or chunks that follow each other in one
   * buffer, as the slices of a held MIME part do): text written out unchanged is then handed on as a slice of
   * them, not made bytes again from the text (measured on the mbox bench, turning stylesheets back into bytes was
   * ~2.5% of the main thread). Null otherwise.
   */
  private rawBytes: Buffer | null = null;
  /** Line and column of raw[0], for reports. */
  private line = 1;
  private column = 1;
  private passthrough = false;
  /** Where output goes during the current call. */
  private out: Buffer[] = [];

  constructor(options: CssStreamOptions = {}) {
    this.options = options;
    this.limits = options.limits ?? DEFAULT_LIMITS;
  }

  /** Bytes of the stylesheet; what can be written now is appended to `out`. */
  write(chunk: Buffer, out: Buffer[]): void {
    this.out = out;
    try {
      this.writeChunk(chunk);
    } finally {
      // The output array is the caller's: not kept past the call.
      this.out = [];
    }
  }

  /** The end of the stylesheet: the rest is appended to `out`. */
  end(out: Buffer[]): void {
    this.out = out;
    try {
      this.endInput();
    } finally {
      this.out = [];
    }
  }

  private writeChunk(chunk: Buffer): void {
    if (this.passthrough) {
      this.push(chunk);
      return;
    }
    // Before the encoding is known, raw text is latin1 (start() reads it again in the encoding).
    const latin1 = this.transcoder === null || this.transcoder.rawIsLatin1 === true;
    const held = this.rawBytes;
    if (!latin1) this.rawBytes = null;
    else if (this.raw.length === 0) this.rawBytes = chunk;
    else if (held !== null && held.buffer === chunk.buffer && held.byteOffset + held.length === chunk.byteOffset) this.rawBytes = Buffer.from(held.buffer, held.byteOffset, held.length + chunk.length);
    else this.rawBytes = null;
    this.raw += this.transcoder === null ? chunk.toString('latin1') : this.transcoder.toRaw(chunk);
    if (this.codec === null) {
      if (this.raw.length < CHARSET_PRESCAN_BYTES) return;
      this.start();
      if (this.passthrough) return;
    }
    if (this.raw.length >= CUT_AFTER_BYTES) this.rewriteUpToCut(false);
    if (this.raw.length > this.limits.maxTokenBytes) {
      this.warn({ code: 'token-limit', message: `no place to cut the stylesheet within ${this.limits.maxTokenBytes} bytes: the rest passes through unchanged` });
      this.emitRaw(this.raw.length);
      this.raw = '';
      this.rawBytes = null;
      this.passthrough = true;
      this.push(this.transcoder!.endBytes());
    }
  }

  private endInput(): void {
    if (!this.passthrough) {
      if (this.codec === null) this.start();
    }
    if (!this.passthrough) {
      this.rewriteUpToCut(true);
      const rest = this.transcoder!.endBytes();
      if (rest.length > 0) this.push(rest);
    }
    if (this.policy !== null) Object.assign(this.stats, this.policy.stats);
    // What is left of the input goes now, not with this core: a finished stream, and the core it holds, stays
    // alive until V8's next full collection (src/html/stream.ts HtmlBytesRewriter.end says why), and `rawBytes`
    // may be a view of a whole record's buffer.
    this.raw = '';
    this.rawBytes = null;
  }

  private push(b: Buffer): void {
    this.out.push(b);
  }

  private start(): void {
    const bytes = this.rawBytes?.subarray(0, CHARSET_PRESCAN_BYTES) ?? Buffer.from(this.raw.slice(0, CHARSET_PRESCAN_BYTES), 'latin1');
    const sniffed = sniffCssEncoding(bytes, { transportCharset: this.options.charset, environmentEncoding: this.options.environmentEncoding });
    this.encoding = sniffed.encoding;
    this.options.onEncoding?.({ name: sniffed.encoding, source: sniffed.source });
    if (!isRewritableEncoding(sniffed.encoding)) {
      // "replacement" (labels such as iso-2022-kr): a browser reads one U+FFFD; nothing to rewrite.
      this.warn({ code: 'encoding-not-rewritable', message: `a stylesheet in ${sniffed.encoding} is passed through unchanged` });
      this.emitRaw(this.raw.length);
      this.raw = '';
      this.rawBytes = null;
      this.passthrough = true;
      return;
    }
    this.transcoder = transcoderFor(sniffed.encoding);
    this.codec = this.transcoder.codec;
    const o = this.options;
    this.base = o.base ?? establishBase({ fallback: o.fallback, retrieval: o.retrieval, encapsulating: o.encapsulating });
    this.policy = new ReferencePolicy(this.base, {
      resolver: o.resolver ?? browserResolver,
      encoding: this.transcoder.queryEncoding,
      onReference: o.onReference,
      onWarning: (w) => this.warn(w),
    });
    o.onBase?.(this.base);
    if (sniffed.bomLength > 0) this.push(this.rawBytes?.subarray(0, sniffed.bomLength) ?? Buffer.from(this.raw.slice(0, sniffed.bomLength), 'latin1'));
    // The text held so far is latin1: in an ASCII-safe encoding it is the raw text already (no copy there and back).
    const held = this.raw.slice(sniffed.bomLength);
    if (this.transcoder.rawIsLatin1 === true) {
      this.raw = held;
      this.rawBytes = this.rawBytes?.subarray(sniffed.bomLength) ?? null;
    } else {
      this.raw = this.transcoder.toRaw(this.rawBytes?.subarray(sniffed.bomLength) ?? Buffer.from(held, 'latin1'));
      this.rawBytes = null;
    }
  }

  /** Rewrites and writes out the held text up to its last cut point (or all of it at the end). */
  private rewriteUpToCut(atEnd: boolean): void {
    const raw = this.raw;
    // A cut in raw bytes must not split a character: ";" and LF are never trail bytes in the ASCII-safe
    // multi-byte encodings (Shift_JIS, EUC-*, GB18030, Big5 trail bytes are 0x30-0x39 or >= 0x40).
    const rawEnd = atEnd ? raw.length : Math.max(raw.lastIndexOf(';'), raw.lastIndexOf('\n')) + 1;
    if (rawEnd <= 0) return;
    const rawBytes = this.rawBytes;
    const decoded = decodeRawText(raw.slice(0, rawEnd), this.codec!, rawBytes?.subarray(0, rawEnd));
    if (decoded === null) {
      this.warn({ code: 'undecodable-value', message: `stylesheet bytes not valid in ${this.encoding}: passed through unchanged`, line: this.line, column: this.column });
      this.emitRaw(rawEnd);
      this.advance(raw.slice(0, rawEnd));
      this.raw = raw.slice(rawEnd);
      this.rawBytes = rawBytes?.subarray(rawEnd) ?? null;
      return;
    }
    // At the end everything is rewritten; before it, up to the last cut (references past it wait for the rest).
    const scan = atEnd ? { references: findCssUrls(decoded.value, { context: 'stylesheet' }), cut: decoded.value.length } : scanCss(decoded.value, { context: 'stylesheet' });
    const cut = scan.cut;
    if (cut <= 0) return;
    const text = decoded.value.slice(0, cut);
    // Output as text (made bytes once, below), or, with the raw text's bytes at hand, as their slices and the
    // replacements' bytes.
    let out = '';
    const pieces: Buffer[] | null = rawBytes === null ? null : this.out;
    let copied = 0;
    for (const ref of scan.references) {
      if (ref.end > cut) break;
      const site = { element: 'stylesheet', attribute: null, line: ref.line + this.line - 1, column: ref.line === 1 ? ref.column + this.column - 1 : ref.column };
      if (holdsUndecodable(decoded, ref.start, ref.end)) {
        // Undecodable bytes cost only the URL that holds them: its U+FFFD re-encoded would change those bytes.
        this.warn({ code: 'undecodable-value', message: `a stylesheet URL with bytes not valid in ${this.encoding}: left as it is`, line: site.line, column: site.column });
        continue;
      }
      const url = this.policy!.apply(ref.value, site);
      if (url === null) continue;
      const start = decoded.toRaw(ref.start);
      const replacement = this.codec!.encode(replacementText(text.slice(ref.start, ref.end), url), 'css');
      if (pieces === null) out += raw.slice(copied, start) + replacement;
      else {
        if (start > copied) pieces.push(rawBytes!.subarray(copied, start));
        pieces.push(Buffer.from(replacement, 'latin1'));
      }
      copied = decoded.toRaw(ref.end);
    }
    const rawCut = decoded.toRaw(cut);
    if (pieces === null) {
      out += raw.slice(copied, rawCut);
      this.emit_(out);
    } else if (rawCut > copied) pieces.push(rawBytes!.subarray(copied, rawCut));
    this.advance(text);
    this.raw = raw.slice(rawCut);
    this.rawBytes = rawBytes?.subarray(rawCut) ?? null;
  }

  /**
   * Line and column moved past `text` (CSS newlines: CR LF, CR, LF, FF), counted by a global regex's `test`
   * (which makes no match objects), not by a split into a string per line: measured on the mbox bench's pieces,
   * 16-20 ms against 26-29 for the split (and 45-52 for indexOf per newline, 160-175 for a loop over units).
   */
  private advance(text: string): void {
    let breaks = 0;
    let lastLineStart = 0;
    const newline = CSS_NEWLINE;
    newline.lastIndex = 0;
    while (newline.test(text)) {
      breaks++;
      lastLineStart = newline.lastIndex;
    }
    if (breaks > 0) {
      this.line += breaks;
      this.column = 1;
    }
    this.column += text.length - lastLineStart;
  }

  /** Writes out raw[0, end) unchanged (its bytes, when at hand). */
  private emitRaw(end: number): void {
    if (end === 0) return;
    if (this.rawBytes !== null) this.push(this.rawBytes.subarray(0, end));
    else this.emit_(this.raw.slice(0, end));
  }

  private emit_(raw: string): void {
    if (raw.length > 0) this.push(this.transcoder === null ? Buffer.from(raw, 'latin1') : this.transcoder.fromRaw(raw));
  }

  private warn(w: SiteWarning): void {
    this.stats.warnings++;
    this.options.onWarning?.(w);
  }
}

/** A CSS newline (https://drafts.csswg.org/css-syntax-3/#newline, before preprocessing): CR LF, CR, LF, FF. */
const CSS_NEWLINE = /\r\n?|[\n\f]/g;

/** A stylesheet as a Node Transform: `CssRewriteCore` behind a thin adapter. */
export class CssRewriterStream extends Transform {
  private readonly core: CssRewriteCore;

  constructor(options: CssStreamOptions = {}) {
    super();
    this.core = new CssRewriteCore(options);
  }

  /** Counts, once the stream has finished. */
  get stats(): ReferenceStats & { warnings: number } {
    return this.core.stats;
  }

  get base(): BaseDecision | null {
    return this.core.base;
  }

  get encoding(): string | null {
    return this.core.encoding;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    const out: Buffer[] = [];
    this.core.write(chunk, out);
    for (const b of out) this.push(b);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    const out: Buffer[] = [];
    this.core.end(out);
    for (const b of out) this.push(b);
    callback();
  }
}

export function createCssRewriter(options: CssStreamOptions = {}): CssRewriterStream {
  return new CssRewriterStream(options);
}
