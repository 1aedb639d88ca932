/**
 * MIME messages and MHTML (RFC 2045/2046, RFC 2557) as a stream: mailsplit's Splitter cuts the message into
 * header blocks, framing lines and body lines; this transform rewrites the bodies of `text/html`,
 * `application/xhtml+xml` and `text/css` parts; mailsplit's Joiner writes everything back. Header blocks,
 * boundaries, preamble, epilogue and every other part are the Splitter's own bytes, unchanged.
 *
 * The base of each part (SPEC §2, RFC 2557 §5): its `<base href>` (HTML), its own Content-Base, then its
 * Content-Location (absolute, or relative resolved against the enclosing base), then the enclosing multipart or
 * message, recursively, then the retrieval URL, then the fallback (`thismessage:/` for RFC 2557 §5(e)).
 *
 * A rewritten part is decoded (transfer encoding; its bytes stay in their charset, which the HTML/CSS rewriter
 * reads), rewritten, and encoded back with the same transfer encoding. A part in which nothing changed is written
 * from its original bytes. Memory: one part at a time, at most `maxMimePartBytes`.
 */
import { Writable } from 'node:stream';
import type { MimeChunk, MimeNode } from './mailsplit-objects.ts';
import { establishBase, headerUrlValue } from '../base/base.ts';
import type { BaseDecision, EntityHeaders, Retrieval } from '../base/base.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import type { EncodingDecision } from '../encoding/index.ts';
import { createCssRewriter } from '../css/stream.ts';
import { absolutizeHtml } from '../html/stream.ts';
import type { HtmlWarning, RewriteChoices } from '../html/rewriter.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import type { Limits } from '../limits.ts';
import { decodeBody, encodeBody, transferEncodingOf } from './transfer-encoding.ts';
import type { TransferEncoding } from './transfer-encoding.ts';

export interface MimeRewriteOptions extends RewriteChoices {
  /** Where the message or MHTML file was retrieved from (RFC 2557 §5(d)). */
  readonly retrieval?: Retrieval | null | undefined;
  /** The base when nothing else gives one; `thismessage:/` is RFC 2557 §5(e). */
  readonly fallback?: string | null | undefined;
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

type Kind = 'html' | 'css';

const KINDS: Readonly<Record<string, Kind>> = { 'text/html': 'html', 'application/xhtml+xml': 'html', 'text/css': 'css' };

interface PartState {
  readonly path: string;
  readonly depth: number;
  readonly base: BaseDecision;
  children: number;
}

/** The part being held: its body lines (still transfer-encoded). */
interface HeldPart {
  readonly node: MimeNode;
  readonly kind: Kind;
  readonly path: string;
  readonly encoding: TransferEncoding;
  readonly parentBase: BaseDecision | null;
  readonly headers: EntityHeaders;
  readonly chunks: MimeChunk[];
  size: number;
}

/** The header values that give a base (RFC 2110 Content-Base, RFC 2557 Content-Location); RFC 2047 decoded. */
function entityHeaders(node: MimeNode): EntityHeaders {
  const contentBase = node.headers.getFirst('content-base');
  // Chromium's MHTML has no Content-Location on its top-level multipart, but names the saved page's URL in
  // Snapshot-Content-Location: the base of the parts that have none of their own (stylesheets saved from <style>).
  const contentLocation = node.headers.getFirst('content-location') || (node.root ? node.headers.getFirst('snapshot-content-location') : '');
  return { contentBase: contentBase === '' ? undefined : contentBase, contentLocation: contentLocation === '' ? undefined : contentLocation };
}

/**
 * What MimePartRewriter writes: output bytes, and how many input bytes they stand for (the same bytes, or a
 * part's rewritten body), in input order.
 */
export type MimeSink = (output: Buffer, inputLength: number) => void;

/**
 * Takes mailsplit Splitter's objects and writes the message back out through `sink` (the Joiner's job, done
 * here so that every output buffer is matched with the input bytes it accounts for).
 */
export class MimePartRewriter extends Writable {
  readonly stats: MimeRewriteStats = { parts: 0, rewrittenParts: 0, rewritten: 0 };
  private readonly options: MimeRewriteOptions;
  private readonly limits: Limits;
  private readonly states = new Map<MimeNode, PartState>();
  private held: HeldPart | null = null;
  private readonly sink: MimeSink;

  constructor(options: MimeRewriteOptions, sink: MimeSink) {
    super({ objectMode: true });
    this.options = options;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.sink = sink;
  }

  override _write(obj: MimeNode | MimeChunk, _enc: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (obj.type === 'body' && this.held !== null && obj.node === this.held.node) {
      this.hold(obj);
      return callback();
    }
    this.finishHeld().then(
      () => {
        if (obj.type === 'node') {
          const headerLength = obj.getHeaders().length;
          this.onNode(obj);
          this.sink(obj.getHeaders(), headerLength);
        } else {
          this.emitChunk(obj);
        }
        callback();
      },
      (err: unknown) => callback(err as Error),
    );
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.finishHeld().then(
      () => callback(),
      (err: unknown) => callback(err as Error),
    );
  }

  private emitChunk(chunk: MimeChunk): void {
    if (chunk.value.length > 0) this.sink(chunk.value, chunk.value.length);
  }

  /** A header block has ended: decide the entity's base, and start holding its body if it is rewritten. */
  private onNode(node: MimeNode): void {
    this.stats.parts++;
    const parent = node.parentNode === false ? undefined : this.states.get(node.parentNode);
    const path = this.pathOf(node, parent);
    const depth = parent === undefined ? 0 : parent.depth + 1;
    const headers = entityHeaders(node);
    const o = this.options;
    const base =
      parent === undefined
        ? establishBase({ retrieval: o.retrieval, fallback: o.fallback, headers }, { resolver: o.resolver })
        : establishBase({ encapsulating: parent.base, headers }, { resolver: o.resolver });
    // Only entities that contain others are looked up again (as parents): leaves are not kept, so memory grows
    // with the number of multiparts and messages, not of parts.
    if (node.multipart !== false || node.messageNode === true) this.states.set(node, { path, depth, base, children: 0 });
    if (o.absolutizeContentLocation === true && base.source === 'content-location') this.absolutizeContentLocation(node, base);
    const contentType = node.contentType === false ? 'text/plain' : node.contentType;
    o.onPart?.({ path, contentType, base });

    const kind = node.multipart === false && node.messageNode !== true ? KINDS[contentType] : undefined;
    if (kind === undefined) return;
    if (depth > this.limits.maxMimeDepth) {
      this.warn({ code: 'mime-depth-limit', message: `part ${path} is nested deeper than ${this.limits.maxMimeDepth}: passed through unchanged` }, path);
      return;
    }
    const encoding = transferEncodingOf(node.encoding);
    if (encoding === null) {
      this.warn({ code: 'mime-unknown-transfer-encoding', message: `part ${path}: unknown Content-Transfer-Encoding ${JSON.stringify(node.encoding)}: passed through unchanged` }, path);
      return;
    }
    this.held = { node, kind, path, encoding, parentBase: parent?.base ?? null, headers, chunks: [], size: 0 };
  }

  /**
   * Writes the absolute URL in place of a relative Content-Location (the only header line that changes; the
   * block keeps its line endings).
   */
  private absolutizeContentLocation(node: MimeNode, base: BaseDecision): void {
    if (base.url === null || base.raw === null || headerUrlValue(base.raw) === base.url) return;
    const eol = node.getHeaders().includes('\r\n') ? '\r\n' : '\n';
    node.headers.update('Content-Location', base.url);
    (node as { getHeaders(): Buffer }).getHeaders = () => node.headers.build(eol);
  }

  /** IMAP-style section numbers (RFC 3501 §6.4.5). */
  private pathOf(node: MimeNode, parent: PartState | undefined): string {
    if (parent === undefined) return node.multipart === false ? '1' : '0';
    const parentNode = node.parentNode as MimeNode;
    if (parentNode.messageNode === true) {
      // The message inside a message/rfc822 part: its body is that part's section.
      return node.multipart === false ? `${parent.path}.1` : parent.path;
    }
    parent.children++;
    return parent.path === '0' ? `${parent.children}` : `${parent.path}.${parent.children}`;
  }

  private hold(chunk: MimeChunk): void {
    const held = this.held!;
    held.size += chunk.value.length;
    if (held.size > this.limits.maxMimePartBytes) {
      this.warn({ code: 'mime-part-too-large', message: `part ${held.path} is larger than ${this.limits.maxMimePartBytes} bytes: passed through unchanged` }, held.path);
      for (const c of held.chunks) this.emitChunk(c);
      this.emitChunk(chunk);
      this.held = null;
      return;
    }
    held.chunks.push(chunk);
  }

  /** Rewrites the held part, or writes its original lines when nothing changed or it cannot be decoded. */
  private async finishHeld(): Promise<void> {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    const original = Buffer.concat(held.chunks.map((c) => c.value));
    const replacement = await this.rewritePart(held, original);
    if (replacement === null) {
      for (const c of held.chunks) this.emitChunk(c);
      return;
    }
    this.stats.rewrittenParts++;
    this.sink(replacement, original.length);
  }

  private async rewritePart(held: HeldPart, original: Buffer): Promise<Buffer | null> {
    const decoded = decodeBody(original, held.encoding);
    if (decoded === null) {
      this.warn({ code: 'mime-undecodable-body', message: `part ${held.path}: the ${held.encoding} body cannot be decoded: passed through unchanged` }, held.path);
      return null;
    }
    const o = this.options;
    const onReference = o.onReference === undefined ? undefined : (r: ReferenceRecord): void => o.onReference!(r, held.path);
    const onWarning = (w: HtmlWarning): void => this.warn(w, held.path);
    let rewritten: Buffer;
    let count: number;
    const charset = held.node.charset === false ? undefined : held.node.charset;
    if (held.kind === 'html') {
      // The top-level entity has no enclosing one: its layers beneath are the retrieval URL and the fallback.
      const r = await absolutizeHtml(decoded, {
        charset,
        ...(held.parentBase === null ? { retrieval: o.retrieval, fallback: o.fallback } : { encapsulating: held.parentBase }),
        headers: held.headers,
        resolver: o.resolver,
        absolutizeFragments: o.absolutizeFragments,
        lazyLoad: o.lazyLoad,
        exactBase: o.exactBase,
        limits: this.limits,
        onReference,
        onWarning,
        onEncoding: o.onEncoding && ((e) => o.onEncoding!(e, held.path)),
      });
      rewritten = r.output;
      count = r.stats.rewritten;
    } else {
      const below = held.parentBase === null ? { retrieval: o.retrieval, fallback: o.fallback } : { encapsulating: held.parentBase };
      const base = establishBase({ ...below, headers: held.headers }, { resolver: o.resolver });
      const css = createCssRewriter({ charset, encapsulating: base, resolver: o.resolver, limits: this.limits, onReference, onWarning, onEncoding: o.onEncoding && ((e) => o.onEncoding!(e, held.path)) });
      const out: Buffer[] = [];
      css.on('data', (c: Buffer) => out.push(c));
      await new Promise<void>((resolve, reject) => {
        css.on('end', resolve);
        css.on('error', reject);
        css.end(decoded);
      });
      rewritten = Buffer.concat(out);
      count = css.stats.rewritten;
    }
    if (count === 0 || rewritten.equals(decoded)) return null;
    this.stats.rewritten += count;
    return encodeBody(rewritten, held.encoding, original);
  }

  private warn(warning: HtmlWarning, part: string): void {
    this.options.onWarning?.(warning, part);
  }
}
