/**
 * Bytes in, bytes out: the XML rewriter (SVG, XHTML, Atom/RSS feeds, sitemaps) as a Node `Transform`.
 *
 * The encoding is decided as an XML processor does (https://www.w3.org/TR/xml/#sec-guessing): BOM, the transport
 * charset, the XML declaration's `encoding`, else UTF-8. In an ASCII-safe encoding the document is tokenized as
 * latin1 text, one unit per byte, so every byte not rewritten is copied as it came; UTF-16 passes through.
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { BaseDecision } from '../base/base.ts';
import { bomSniff, byteCodec, isAsciiSafeForMarkup, resolveLabel } from '../encoding/index.ts';
import type { EncodingDecision } from '../encoding/index.ts';
import { XmlRewriteCore } from './rewriter.ts';
import type { XmlDialect, XmlRewriteOptions, XmlRewriteStats } from './rewriter.ts';
import { xmlDeclarationEncoding } from './xml-text.ts';

/** Bytes read before the encoding is decided: enough for an XML declaration. */
const DECLARATION_BYTES = 1024;
const FEED_SLICE_BYTES = 64 * 1024;

export interface XmlStreamOptions extends Omit<XmlRewriteOptions, 'encoding'> {
  /** The transport charset (`Content-Type` charset or `--charset`): beats the XML declaration. */
  readonly charset?: string | undefined;
  readonly onEncoding?: ((encoding: EncodingDecision) => void) | undefined;
}

export class XmlRewriterStream extends Transform {
  stats: XmlRewriteStats = { rewritten: 0, unchanged: 0, unresolvable: 0, warnings: 0 };
  base: BaseDecision | null = null;
  encoding: string | null = null;
  dialect: XmlDialect | null = null;

  private readonly options: XmlStreamOptions;
  private core: XmlRewriteCore | null = null;
  private passthrough = false;
  private head: Buffer[] = [];
  private headLength = 0;

  constructor(options: XmlStreamOptions = {}) {
    super();
    this.options = options;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    try {
      if (this.passthrough) this.push(chunk);
      else if (this.core === null) {
        this.head.push(chunk);
        this.headLength += chunk.length;
        if (this.headLength >= DECLARATION_BYTES) this.start();
      } else this.feed(chunk);
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      if (this.core === null && !this.passthrough) this.start();
      if (this.core !== null) {
        this.core.end();
        this.stats = this.core.stats;
        this.base = this.core.base;
        this.dialect = this.core.dialect;
      }
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  private start(): void {
    const first = Buffer.concat(this.head);
    this.head = [];
    const bom = bomSniff(first);
    const transport = this.options.charset === undefined ? null : resolveLabel(this.options.charset);
    const declared = bom === null && transport === null ? xmlDeclarationEncoding(first.toString('latin1', 0, DECLARATION_BYTES)) : null;
    const fromDeclaration = declared === null ? null : resolveLabel(declared);
    const decision: EncodingDecision = bom !== null ? { name: bom.encoding, source: 'bom' } : transport !== null ? { name: transport, source: 'transport' } : fromDeclaration !== null ? { name: fromDeclaration, source: 'meta' } : { name: 'UTF-8', source: 'default' };
    this.encoding = decision.name;
    this.options.onEncoding?.(decision);
    if (!isAsciiSafeForMarkup(decision.name)) {
      this.options.onWarning?.({ code: 'encoding-not-rewritable', message: `documents in ${decision.name} are passed through unchanged (not rewritten)` });
      this.passthrough = true;
      this.push(first);
      return;
    }
    this.core = new XmlRewriteCore({ ...this.options, encoding: decision.name }, byteCodec(decision.name), (raw) => {
      this.push(Buffer.from(raw, 'latin1'));
    });
    const bomLength = bom?.length ?? 0;
    if (bomLength > 0) this.push(first.subarray(0, bomLength));
    this.feed(first.subarray(bomLength));
  }

  private feed(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i += FEED_SLICE_BYTES) this.core!.write(chunk.toString('latin1', i, Math.min(chunk.length, i + FEED_SLICE_BYTES)));
  }
}

export function createXmlRewriter(options: XmlStreamOptions = {}): XmlRewriterStream {
  return new XmlRewriterStream(options);
}
