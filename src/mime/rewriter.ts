/**
 * MIME messages and MHTML (RFC 2045/2046, RFC 2557): what the structure scanner (`scanner.ts`) finds is written
 * back out as it came — header blocks, delimiter lines, preamble, epilogue and every part not rewritten, as
 * slices of the input — except the bodies of `text/html` and `text/css` leaves and of the kinds of
 * src/kinds (SVG, XHTML, feeds, other XML by its root, manifests, JavaScript: `kindOfContentType`, the decision
 * HTTP responses and WARC records use), which are decoded (transfer encoding; the bytes stay in their charset,
 * which the rewriter reads), rewritten, and encoded back with the same transfer encoding. A part in which nothing
 * changed is written from its original bytes.
 *
 * The base of each part (SPEC §2, RFC 2557 §5): its `<base href>` (HTML), its own Content-Base, then its
 * Content-Location (absolute, or relative resolved against the enclosing base), then the enclosing multipart or
 * message, recursively, then the retrieval URL, then the fallback (`thismessage:/` for RFC 2557 §5(e)).
 *
 * Memory: one rewritten part at a time, at most `maxMimePartBytes` of it.
 */
import { establishBase, headerUrlValue } from '../base/base.ts';
import type { BaseDecision, EntityHeaders, Retrieval } from '../base/base.ts';
import type { ReferenceRecord, SiteWarning } from '../base/reference-policy.ts';
import type { EncodingDecision } from '../encoding/index.ts';
import { createCssRewriter, CssRewriteCore } from '../css/stream.ts';
import { createHtmlRewriter, rewriteHtmlBytes, transformWhole } from '../html/stream.ts';
import type { HtmlWarning, RewriteChoices } from '../html/rewriter.ts';
import { resolveLabel } from '../encoding/index.ts';
import { createKindRewriter, kindOfContentType } from '../kinds/index.ts';
import type { ContentKind, KindRewriterStream } from '../kinds/index.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import type { Limits } from '../limits.ts';
import { decodedUrlHeader, firstField, isHeaderLine, LineEnds, parseFields } from './headers.ts';
import type { Entity, ScanHandler, ScanWarningCode } from './scanner.ts';
import { Spool } from './spool.ts';
import { StreamedPart } from './streamed-part.ts';
import { decodeBody, encodeBodyPieces, transferEncodingOf } from './transfer-encoding.ts';
import type { TransferEncoding } from './transfer-encoding.ts';

export interface MimeRewriteOptions extends RewriteChoices {
  /** Where the message or MHTML file was retrieved from (RFC 2557 §5(d)). */
  readonly retrieval?: Retrieval | null | undefined;
  /** The base when nothing else gives one; `thismessage:/` is RFC 2557 §5(e). */
  readonly fallback?: string | null | undefined;
  /**
   * Whether the top-level entity's own Content-Length is made the length of its rewritten body (an mbox keeps
   * it itself, as the archive's). @internal @default true
   */
  readonly ownLength?: boolean | undefined;
  /** Rewrite a relative `Content-Location` header value to the absolute URL it resolves to. @default false */
  readonly absolutizeContentLocation?: boolean | undefined;
  /** Every reference of every rewritten part, with the part's path. */
  readonly onReference?: ((reference: ReferenceRecord, part: string) => void) | undefined;
  readonly onWarning?: ((warning: HtmlWarning, part: string) => void) | undefined;
  /** Every entity's base decision, as its header ends (for `--explain`). */
  readonly onPart?: ((part: MimePartInfo) => void) | undefined;
  /** The encoding each rewritten HTML or CSS part is read in, and what decided it (for `--explain`). */
  readonly onEncoding?: ((encoding: EncodingDecision, part: string) => void) | undefined;
}

export interface MimePartInfo {
  /** IMAP-style section path: "1", "2.1"; "0" is the top-level entity of a multipart message. */
  readonly path: string;
  readonly contentType: string;
  readonly base: BaseDecision;
}

export interface MimeRewriteStats {
  parts: number;
  rewrittenParts: number;
  rewritten: number;
}

type Kind = 'html' | 'css' | ContentKind;

/**
 * The rewriter of a leaf by its media type: HTML, CSS, or a kind of src/kinds (`application/xhtml+xml` is
 * XHTML, parsed as XML as a browser parses it; `image/svg+xml`, feeds, `text/xml`, manifests, scripts).
 */
function kindOf(contentType: string): Kind | undefined {
  if (contentType === 'text/html') return 'html';
  if (contentType === 'text/css') return 'css';
  return kindOfContentType(contentType) ?? undefined;
}

/** The part being held: its body (still transfer-encoded). */
interface HeldPart {
  readonly entity: Entity;
  readonly kind: Kind;
  readonly encoding: TransferEncoding;
  readonly parentBase: BaseDecision | null;
  readonly headers: EntityHeaders;
  readonly chunks: Buffer[];
  size: number;
  /**
   * The header block, when it has a Content-Length (RFC 2616-style, as MHTML producers and some mailers write):
   * it is written with the body, its length made that of the body written.
   */
  readonly header: Buffer | null;
}

/** A part over maxMimePartBytes, rewritten in pieces as it comes (`StreamedPart`). */
interface Streaming {
  readonly entity: Entity;
  readonly part: StreamedPart;
  readonly stats: () => { rewritten: number };
  ended: boolean;
  /** The header block waiting for the body's length (see HeldPart), and the output held until it is known. */
  readonly header: Buffer | null;
  readonly spool: Spool | null;
  /** Encoded input bytes of the body. */
  inputBytes: number;
}

/** Where output goes; a promise returned means: wait for it before writing more (backpressure). */
export type Writer = (output: Buffer) => void | Promise<void>;

/**
 * A header block with the number in its first `key` field (Content-Length, Lines) moved by `delta`: only the
 * digits change (folding, spacing, line endings stay). Null when the field holds no plain number.
 */
export function replaceLength(header: Buffer, key: string, delta: number): Buffer | null {
  const field = parseFields(header).find((f) => f.key === key);
  if (field === undefined) return header;
  const value = header.toString('latin1', field.valueStart, field.end);
  const m = /^([ \t]*)(\d{1,15})([ \t]*(?:\r\n|\n|\r)?)$/.exec(value);
  if (m === null) return null;
  const next = Math.max(0, Number(m[2]) + delta);
  return Buffer.concat([header.subarray(0, field.valueStart), Buffer.from(`${m[1]}${next}${m[3]}`, 'latin1'), header.subarray(field.end)]);
}

/**
 * A held stylesheet is given to its rewriter in slices of this size, so that the text it holds at once stays
 * below V8's large-object size (strings over ~128 KiB get pages of their own, each new page faulted in; on the
 * mbox bench's VM a page fault costs ~15 µs). The output is the same however the input is cut.
 */
const CSS_SLICE_BYTES = 16 * 1024;

/** What is waiting to be written, in order: bytes, a held part to rewrite first, or a part being streamed. */
type Pending = Buffer | HeldPart | Streaming;

/**
 * The header values that give a base (RFC 2110 Content-Base, RFC 2557 Content-Location), each decoded once:
 * RFC 2047 encoded words, raw UTF-8 (RFC 6532).
 */
function entityHeaders(entity: Entity): EntityHeaders {
  const contentBase = decodedUrlHeader(entity.header, 'content-base');
  // Chromium's MHTML has no Content-Location on its top-level multipart, but names the saved page's URL in
  // Snapshot-Content-Location: the base of the parts that have none of their own (stylesheets saved from <style>).
  let contentLocation = decodedUrlHeader(entity.header, 'content-location');
  if ((contentLocation === undefined || contentLocation === '') && entity.parent === null) contentLocation = decodedUrlHeader(entity.header, 'snapshot-content-location');
  return { contentBase: contentBase === '' ? undefined : contentBase, contentLocation: contentLocation === '' ? undefined : contentLocation };
}

/**
 * Receives what the scanner finds and queues the output: input bytes as they are, and held parts to be
 * rewritten. `drain` writes the queue out, rewriting held parts in order.
 */
export class MimePartRewriter implements ScanHandler {
  readonly stats: MimeRewriteStats = { parts: 0, rewrittenParts: 0, rewritten: 0 };
  private readonly options: MimeRewriteOptions;
  private readonly limits: Limits;
  /** Bases of the multiparts and messages that enclose what is being read (leaves are not kept). */
  private readonly bases = new Map<Entity, BaseDecision>();
  private held: HeldPart | null = null;
  private streaming: Streaming | null = null;
  /** A message/delivery-status body being read for its header blocks (Python reads them as such). */
  private status: { entity: Entity; chunks: Buffer[]; size: number } | null = null;
  private queue: Pending[] = [];
  /** The top-level entity's header block, once read, and the length it is written with. */
  topHeader: { readonly entity: Entity; readonly outputLength: number } | null = null;
  /** The first item of `queue` not yet written (items before it are done; shift() would make drain quadratic). */
  private queueHead = 0;

  constructor(options: MimeRewriteOptions) {
    this.options = options;
    this.limits = options.limits ?? DEFAULT_LIMITS;
  }

  entity(entity: Entity): void {
    this.stats.parts++;
    const o = this.options;
    const headers = entityHeaders(entity);
    const parentBase = entity.parent === null ? null : (this.bases.get(entity.parent) ?? null);
    const base =
      parentBase === null
        ? establishBase({ retrieval: o.retrieval, fallback: o.fallback, headers }, { resolver: o.resolver })
        : establishBase({ encapsulating: parentBase, headers }, { resolver: o.resolver });
    if (entity.kind !== 'leaf') this.bases.set(entity, base);
    o.onPart?.({ path: entity.path, contentType: entity.type.contentType, base });
    const header = o.absolutizeContentLocation === true && base.source === 'content-location' ? this.absoluteContentLocation(entity, base) : entity.header.bytes;
    if (entity.parent === null) this.topHeader = { entity, outputLength: header.length };

    if (entity.type.contentType === 'message/delivery-status') this.status = { entity, chunks: [], size: 0 };
    const kind = entity.kind === 'leaf' ? kindOf(entity.type.contentType) : undefined;
    // A header value that is not a URL (the HTML rewriter says so itself for the HTML parts it reads).
    if (kind !== 'html') {
      for (const ignored of base.ignored) {
        if (ignored.byRule !== true) this.warn({ code: 'invalid-base-layer', message: `${ignored.source} ${JSON.stringify(ignored.raw)} not used: ${ignored.reason}`, detail: ignored.raw }, entity.path);
      }
    }
    const encoding = kind === undefined ? null : this.rewritableEncoding(entity);
    if (kind === undefined || encoding === null) {
      this.queue.push(header);
      return;
    }
    // A part that states its own length (RFC 2616-style Content-Length, as some MHTML producers write): its
    // header waits for the body, so that the length it states is the new body's.
    const deferred = firstField(entity.header, 'content-length') !== undefined && (entity.parent !== null || o.ownLength !== false) ? header : null;
    if (deferred === null) this.queue.push(header);
    this.held = { entity, kind, encoding, parentBase, headers, chunks: [], size: 0, header: deferred };
  }

  /** The transfer encoding of a part to rewrite, or null (with a warning) when it passes through. */
  private rewritableEncoding(entity: Entity): TransferEncoding | null {
    if (entity.depth > this.limits.maxMimeDepth) {
      this.warn({ code: 'mime-depth-limit', message: `part ${entity.path} is nested deeper than ${this.limits.maxMimeDepth} (maxMimeDepth): passed through unchanged` }, entity.path);
      return null;
    }
    const encoding = transferEncodingOf(entity.type.transferEncoding);
    if (encoding === null) {
      this.warn({ code: 'mime-unknown-transfer-encoding', message: `part ${entity.path}: unknown Content-Transfer-Encoding ${JSON.stringify(entity.type.transferEncoding)}: passed through unchanged` }, entity.path);
    }
    return encoding;
  }

  bytes(data: Buffer, leaf: Entity | null): void {
    if (this.streaming !== null && leaf === this.streaming.entity) {
      this.streaming.inputBytes += data.length;
      this.streaming.part.write(data);
      return;
    }
    const status = this.status;
    if (status !== null && leaf === status.entity && status.size < this.limits.maxMimeHeaderBytes) {
      status.chunks.push(data);
      status.size += data.length;
    }
    const held = this.held;
    if (held === null || leaf !== held.entity) {
      this.queue.push(data);
      return;
    }
    held.size += data.length;
    if (held.size > this.limits.maxMimePartBytes) {
      // Too large to hold: rewritten in pieces from here on, whatever its transfer encoding.
      this.streaming = this.startStreaming(held);
      this.streaming.inputBytes = held.size;
      this.queue.push(this.streaming);
      for (const c of held.chunks) this.streaming.part.write(c);
      this.streaming.part.write(data);
      this.held = null;
      return;
    }
    held.chunks.push(data);
  }

  end(entity: Entity): void {
    this.bases.delete(entity);
    if (this.streaming !== null && this.streaming.entity === entity) {
      this.streaming.ended = true;
      this.streaming = null;
    }
    if (this.status !== null && this.status.entity === entity) {
      this.checkStatusBlocks(entity, Buffer.concat(this.status.chunks));
      this.status = null;
    }
    if (this.held === null || this.held.entity !== entity) return;
    this.queue.push(this.held);
    this.held = null;
  }

  /**
   * message/delivery-status (RFC 3464) is header blocks separated by empty lines; Python parses each, and records
   * MissingHeaderBodySeparatorDefect for a block with a line that is not a header field. Warned the same way
   * (the part passes through: it holds no HTML).
   */
  private checkStatusBlocks(entity: Entity, body: Buffer): void {
    let inHeaders = true;
    let block = 1;
    const lines = new LineEnds(body);
    for (let i = 0; i < body.length; ) {
      const end = lines.after(i);
      const blank = body[i] === 0x0a || body[i] === 0x0d;
      if (blank) {
        if (!inHeaders || i > 0) block++;
        inHeaders = true;
      } else if (inHeaders && !isHeaderLine(body, i, end)) {
        inHeaders = false;
        this.warn({ code: 'mime-missing-header-separator', message: `part ${entity.path}: status block ${block} has a line that is not a header field` }, entity.path);
      }
      i = end;
    }
  }

  warning(code: ScanWarningCode, message: string, path: string): void {
    this.warn({ code, message }, path);
  }

  /** Writes out what is queued, in order; held parts are rewritten first. */
  async drain(write: Writer): Promise<void> {
    const put = async (b: Buffer): Promise<void> => {
      if (b.length === 0) return;
      const wait = write(b);
      if (wait !== undefined) await wait;
    };
    try {
      while (this.queueHead < this.queue.length) {
        const item = this.queue[this.queueHead]!;
        if (Buffer.isBuffer(item)) {
          this.queueHead++;
          // (Not through `put`: an async call, and its promise, per header block and slice.)
          if (item.length > 0) {
            const wait = write(item);
            if (wait !== undefined) await wait;
          }
          continue;
        }
        if ('part' in item) {
          // A streamed part: what its rewriter has written so far; the rest waits until it has ended. With its
          // header waiting for the length, the output goes to its spool first.
          const out = item.spool === null ? put : async (b: Buffer): Promise<void> => item.spool!.write(b);
          for (const b of item.part.output.splice(0)) await out(b);
          if (item.part.needsDrain && !item.ended) await item.part.waitDrain();
          if (!item.ended) {
            for (const b of item.part.output.splice(0)) await out(b);
            return;
          }
          this.queueHead++;
          await item.part.end();
          for (const b of item.part.output.splice(0)) await out(b);
          this.base64Warnings(item);
          const count = item.stats().rewritten;
          if (count > 0) {
            this.stats.rewrittenParts++;
            this.stats.rewritten += count;
          }
          if (item.header !== null && item.spool !== null) {
            await put(this.withContentLength(item.entity, item.header, item.inputBytes, item.spool.length));
            for await (const b of item.spool.drain()) await put(b);
          }
          continue;
        }
        this.queueHead++;
        const original = item.chunks.length === 1 ? item.chunks[0]! : Buffer.concat(item.chunks);
        const replacement = await this.rewritePart(item, original);
        if (replacement !== null) this.stats.rewrittenParts++;
        const body = replacement ?? [original];
        if (item.header !== null) await put(this.withContentLength(item.entity, item.header, original.length, body.reduce((n, b) => n + b.length, 0)));
        // (Not through `put`, as above: a rewritten stylesheet is thousands of pieces.)
        for (const b of body) {
          if (b.length === 0) continue;
          const wait = write(b);
          if (wait !== undefined) await wait;
        }
      }
    } finally {
      if (this.queueHead > 0) {
        this.queue = this.queue.slice(this.queueHead);
        this.queueHead = 0;
      }
    }
  }

  /**
   * The header block with its Content-Length made the length of the body written: the stated length plus what
   * the body grew or shrank by (so that a length that counted the body's own way — with or without a last line
   * ending — still counts it that way). Only the digits change; a value that is not a number stays.
   */
  private withContentLength(entity: Entity, header: Buffer, inputBytes: number, outputBytes: number): Buffer {
    if (inputBytes === outputBytes) return header;
    const changed = replaceLength(header, 'content-length', outputBytes - inputBytes);
    if (changed === null) {
      this.warn({ code: 'mime-content-length', message: `part ${entity.path}: its Content-Length is not a number: left as it is, though the body's length changed` }, entity.path);
      return header;
    }
    return changed;
  }

  /** What a streamed base64 part's decoding met (a held one is checked whole by `decodeBody`). */
  private base64Warnings(item: Streaming): void {
    const b = item.part.base64;
    if (b === null) return;
    const path = item.entity.path;
    if (b.ignored > 0) this.warn({ code: 'mime-undecodable-body', message: `part ${path}: ${b.ignored} characters outside the base64 alphabet were skipped (as Python's email skips them)` }, path);
    if (b.truncated) this.warn({ code: 'mime-undecodable-body', message: `part ${path}: the base64 body ends with one character of a quantum, which decodes to nothing` }, path);
    else if (b.padded) this.warn({ code: 'mime-base64-padding', message: `part ${path}: the base64 body's last quantum is short of padding: decoded as if padded` }, path);
  }

  /** A streamed part whose header waits for its length holds its output in a spool (memory, then a file). */
  private deferredOf(held: HeldPart): { header: Buffer | null; spool: Spool | null; inputBytes: number } {
    return { header: held.header, spool: held.header === null ? null : new Spool(this.limits.maxMimePartBytes), inputBytes: 0 };
  }

  /** The rewriter (HTML or CSS stream) of a part too large to hold, behind its transfer decoding. */
  private startStreaming(held: HeldPart): Streaming {
    const path = held.entity.path;
    const o = this.options;
    const onReference = o.onReference === undefined ? undefined : (r: ReferenceRecord): void => o.onReference!(r, path);
    const onWarning = (w: HtmlWarning): void => this.warn(w, path);
    const onEncoding = o.onEncoding && ((e: EncodingDecision): void => o.onEncoding!(e, path));
    const charset = held.entity.type.charset;
    const below = held.parentBase === null ? { retrieval: o.retrieval, fallback: o.fallback } : { encapsulating: held.parentBase };
    if (held.kind === 'html') {
      const html = createHtmlRewriter({ charset, ...below, headers: held.headers, resolver: o.resolver, absolutizeFragments: o.absolutizeFragments, lazyLoad: o.lazyLoad, exactBase: o.exactBase, limits: this.limits, onReference, onWarning, onEncoding });
      return { entity: held.entity, part: new StreamedPart(html, held.encoding), stats: () => html.stats, ended: false, ...this.deferredOf(held) };
    }
    if (held.kind !== 'css') {
      const kind = this.kindRewriter(held, held.kind, below, onReference, onWarning, onEncoding);
      return { entity: held.entity, part: new StreamedPart(kind, held.encoding), stats: () => kind.stats, ended: false, ...this.deferredOf(held) };
    }
    const base = establishBase({ ...below, headers: held.headers }, { resolver: o.resolver });
    const css = createCssRewriter({ charset, base, resolver: o.resolver, limits: this.limits, onReference, onWarning, onEncoding });
    return { entity: held.entity, part: new StreamedPart(css, held.encoding), stats: () => css.stats, ended: false, ...this.deferredOf(held) };
  }

  /**
   * The header block with the absolute URL in place of a relative Content-Location (the only field that
   * changes; it keeps its line ending).
   */
  private absoluteContentLocation(entity: Entity, base: BaseDecision): Buffer {
    const bytes = entity.header.bytes;
    const field = firstField(entity.header, 'content-location');
    if (field === undefined || base.url === null || base.raw === null || headerUrlValue(base.raw) === base.url) return bytes;
    let eol = 0;
    if (bytes[field.end - 1] === 0x0a) eol = bytes[field.end - 2] === 0x0d ? 2 : 1;
    else if (bytes[field.end - 1] === 0x0d) eol = 1;
    const start = field.valueStart - field.name.length - 1;
    return Buffer.concat([bytes.subarray(0, start), Buffer.from(`${field.name}: ${base.url}`, 'utf8'), bytes.subarray(field.end - eol)]);
  }

  /** The new body of a held part, in pieces (null: it stays as it was). */
  private async rewritePart(held: HeldPart, original: Buffer): Promise<Buffer[] | null> {
    const path = held.entity.path;
    const body = decodeBody(original, held.encoding);
    if (body === null) {
      this.warn({ code: 'mime-undecodable-body', message: `part ${path}: the ${held.encoding} body cannot be decoded: passed through unchanged` }, path);
      return null;
    }
    if (body.padded) this.warn({ code: 'mime-base64-padding', message: `part ${path}: the base64 body's last quantum is short of padding: decoded as if padded` }, path);
    const decoded = body.decoded;
    const o = this.options;
    const onReference = o.onReference === undefined ? undefined : (r: ReferenceRecord): void => o.onReference!(r, path);
    const onWarning = (w: HtmlWarning): void => this.warn(w, path);
    let rewritten: Buffer;
    let count: number;
    const charset = held.entity.type.charset;
    if (charset !== undefined && resolveLabel(charset) === null) {
      this.warn({ code: 'mime-unknown-charset', message: `part ${path}: unknown charset ${JSON.stringify(charset)}: the encoding is sniffed from the content` }, path);
    }
    // The top-level entity has no enclosing one: its layers beneath are the retrieval URL and the fallback.
    const below = held.parentBase === null ? { retrieval: o.retrieval, fallback: o.fallback } : { encapsulating: held.parentBase };
    if (held.kind === 'html') {
      // Not absolutizeHtml: that one listens to every reference (to return them), and a listened-to reference is
      // reported, its line found and its URL built even when nobody else listens. Without a stream: the output
      // is made only if a reference was rewritten.
      const html = rewriteHtmlBytes(decoded, {
        charset,
        ...below,
        headers: held.headers,
        resolver: o.resolver,
        absolutizeFragments: o.absolutizeFragments,
        lazyLoad: o.lazyLoad,
        exactBase: o.exactBase,
        limits: this.limits,
        onReference,
        onWarning,
        onEncoding: o.onEncoding && ((e) => o.onEncoding!(e, path)),
      });
      if (html.output === null) return null;
      rewritten = html.output;
      count = html.stats.rewritten;
    } else if (held.kind !== 'css') {
      const kind = this.kindRewriter(held, held.kind, below, onReference, onWarning, o.onEncoding && ((e) => o.onEncoding!(e, path)));
      rewritten = await transformWhole(kind, decoded);
      count = kind.stats.rewritten;
    } else {
      const base = establishBase({ ...below, headers: held.headers }, { resolver: o.resolver });
      // The whole stylesheet is here: its rewriter's core, without a stream around it, given it in slices.
      const css = new CssRewriteCore({ charset, base, resolver: o.resolver, limits: this.limits, onReference, onWarning, onEncoding: o.onEncoding && ((e) => o.onEncoding!(e, path)) });
      const out: Buffer[] = [];
      for (let i = 0; i < decoded.length; i += CSS_SLICE_BYTES) css.write(decoded.subarray(i, i + CSS_SLICE_BYTES), out);
      css.end(out);
      rewritten = out.length === 1 ? out[0]! : Buffer.concat(out);
      count = css.stats.rewritten;
    }
    if (count === 0 || rewritten.equals(decoded)) return null;
    this.stats.rewritten += count;
    return encodeBodyPieces(rewritten, held.encoding, original, body.lines);
  }

  /**
   * The rewriter of a part of a src/kinds kind. Its base is the part's (its Content-Base or Content-Location,
   * then the enclosing entity's, …: RFC 2557 §5), given as the encapsulating layer (the kinds read no MIME
   * headers); that URL is also the document's own (an SVG's same-document references, a module's URL).
   */
  private kindRewriter(held: HeldPart, kind: ContentKind, below: { retrieval?: Retrieval | null | undefined; fallback?: string | null | undefined; encapsulating?: BaseDecision }, onReference: ((r: ReferenceRecord) => void) | undefined, onWarning: (w: HtmlWarning) => void, onEncoding: ((e: EncodingDecision) => void) | undefined): KindRewriterStream {
    const o = this.options;
    const base = establishBase({ ...below, headers: held.headers }, { resolver: o.resolver });
    return createKindRewriter(kind, {
      ...(base.url === null ? {} : { retrieval: { url: base.url } }),
      encapsulating: base,
      fallback: o.fallback,
      resolver: o.resolver,
      charset: held.entity.type.charset,
      absolutizeFragments: o.absolutizeFragments,
      lazyLoad: o.lazyLoad,
      limits: this.limits,
      onReference,
      onWarning: onWarning as (w: SiteWarning) => void,
      onEncoding,
    });
  }

  private warn(warning: HtmlWarning, part: string): void {
    this.options.onWarning?.(warning, part);
  }
}
