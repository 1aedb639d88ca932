/**
 * The rewriter for an input's type: the one dispatch of every job (a file, a directory entry, a manifest line).
 * An input's type comes from `--type`, else its name's extension, else (batch inputs) its first bytes.
 *
 * WARC/ARC: detected here (by extension and by first bytes) as the type `warc`; its rewriter is the per-file
 * entry point of src/warc (createWarcRewriter), one entry of `STREAM_REWRITERS` below.
 */
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { BaseDecision } from '../base/base.ts';
import type { EncodingDecision } from '../encoding/index.ts';
import { createCssRewriter } from '../css/stream.ts';
import { AbsError } from '../errors.ts';
import type { HtmlWarning, ReferenceRecord } from '../html/rewriter.ts';
import { createHtmlRewriter } from '../html/stream.ts';
import type { MimePartInfo } from '../mime/rewriter.ts';
import { createMboxRewriter, createMimeRewriter } from '../mime/stream.ts';
import { getResolver } from '../uri/index.ts';
import type { ResolverName } from '../uri/index.ts';
import { createWarcRewriter } from '../warc/rewriter.ts';
import { CONTENT_KINDS, createKindRewriter } from '../kinds/index.ts';
import type { DocumentType } from './document-types.ts';
import type { ContentKind } from '../kinds/index.ts';
import type { WarcLinkLine } from '../warc/rewriter.ts';

export { DOCUMENT_TYPES, SNIFF_BYTES, parseTypeOption, typeOfBytes, typeOfName } from './document-types.ts';
export type { DocumentType } from './document-types.ts';

/** The options of the one-document command that shape a rewrite: plain data, so that a worker thread can get them. */
export interface RewriteSettings {
  readonly url: string | null;
  readonly base: string | null;
  readonly resolver: ResolverName;
  readonly charset: string | undefined;
  readonly explain: boolean;
  readonly exactBase: boolean;
  readonly fragments: boolean;
  readonly lazyLoad: boolean;
  readonly contentLocation: boolean;
  /** WARC: `replace` (default) or `conversion` (--warc-output); `linkKeys` (--link-keys); HTTP Content-Location honoured. */
  readonly warcOutput?: 'replace' | 'conversion' | undefined;
  readonly linkKeys?: boolean | undefined;
  /** WARC: --warc-header-references (header references of records copied for their payload rewritten too). */
  readonly warcHeaderReferences?: boolean | undefined;
  readonly httpContentLocation?: boolean | undefined;
}

/** What a rewrite reports as it goes: references (with their part: null, "2.1", or "MESSAGE:PATH"), warnings, bases. */
export interface RewriteCallbacks {
  readonly onReference?: ((r: ReferenceRecord, part: string | null) => void) | undefined;
  readonly onWarning: (w: HtmlWarning, part?: string) => void;
  /** --explain: a base decision, for the document or a part (`what` names the part). */
  readonly onBase?: ((decision: BaseDecision, what: string | null) => void) | undefined;
  /** --explain: the encoding of the document or of a rewritten part (`what` names the part), and its source. */
  readonly onEncoding?: ((encoding: EncodingDecision, what: string | null) => void) | undefined;
  /** WARC: the input's name (the `document` of its report lines), and each report line as it is (record, reference, redirect). */
  readonly document?: string | undefined;
  readonly onLinkLine?: ((line: WarcLinkLine) => void) | undefined;
  /**
   * Records this rewrite writes (a WARC's warcinfo, conversion and metadata records) take their ids and date
   * from the input (`seed`: its path, size and time; `date`: its modification time), not from chance and the
   * clock: the same input gives the same bytes, in whichever shard, attempt or run (issue 13).
   */
  readonly identity?: { readonly seed: string; readonly date: string } | undefined;
}

/** The n-th record id of an input: a UUID (RFC 9562 version 8) from SHA-256 of its seed and n. */
function derivedRecordIds(seed: string): () => string {
  let n = 0;
  return () => {
    const h = createHash('sha256').update(`${seed}\0${n++}`).digest('hex');
    const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
    return `<urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}>`;
  };
}

export interface DocumentStats {
  readonly records: number;
  readonly rewritten: number;
  readonly partial?: boolean;
}

export interface DocumentRewriter {
  /** Bytes in, rewritten bytes out (a Transform; a WARC rewriter is a Duplex). */
  readonly stream: Duplex;
  /** Asked when the stream has ended: documents or records (a message of an mbox, a WARC record), and references changed. */
  /** `partial`: a damaged WARC/ARC was salvaged (every whole record written; src/warc/rewriter.ts). */
  stats(): DocumentStats | Promise<DocumentStats>;
}

/**
 * Stream rewriters that live in modules of their own, by type (the WARC entry point). A type with none here and
 * none below is reported as not supported by this build.
 */
export const STREAM_REWRITERS: Partial<Record<DocumentType, (settings: RewriteSettings, callbacks: RewriteCallbacks) => DocumentRewriter>> = {
  ...Object.fromEntries(CONTENT_KINDS.map((kind) => [kind, (s: RewriteSettings, c: RewriteCallbacks): DocumentRewriter => kindRewriter(kind, s, c)])),
  warc: (s, c) => {
    const stream = createWarcRewriter({
      output: s.warcOutput ?? 'replace',
      resolver: getResolver(s.resolver),
      fallback: s.base,
      exactBase: s.exactBase,
      absolutizeFragments: s.fragments,
      lazyLoad: s.lazyLoad,
      honourHttpContentLocation: s.httpContentLocation === true,
      linkKeys: s.linkKeys === true,
      rewriteHeaderReferences: s.warcHeaderReferences === true,
      document: c.document,
      onLink: c.onLinkLine,
      newRecordId: c.identity === undefined ? undefined : derivedRecordIds(c.identity.seed),
      now: c.identity?.date,
      onWarning: (w) => c.onWarning({ ...w, message: `${w.message} (at offset ${w.offset})` } as HtmlWarning),
    });
    return {
      stream,
      stats: async () => {
        const summary = await stream.summary;
        return { records: summary.records, rewritten: summary.references, partial: summary.partial };
      },
    };
  },
};

export function createDocumentRewriter(type: DocumentType, s: RewriteSettings, c: RewriteCallbacks): DocumentRewriter {
  const resolver = getResolver(s.resolver);
  const common = { retrieval: s.url === null ? null : { url: s.url }, fallback: s.base, resolver };
  const documentOptions = { exactBase: s.exactBase, absolutizeFragments: s.fragments, lazyLoad: s.lazyLoad };
  const onBase = c.onBase === undefined ? undefined : (d: BaseDecision): void => c.onBase!(d, null);
  const onReference = c.onReference === undefined ? undefined : (r: ReferenceRecord): void => c.onReference!(r, null);
  const onEncoding = c.onEncoding === undefined ? undefined : (e: EncodingDecision): void => c.onEncoding!(e, null);
  const explainPart = (p: MimePartInfo, prefix = ''): void => c.onBase!(p.base, `part ${prefix}${p.path} (${p.contentType})`);
  const mimeCommon = { ...common, absolutizeContentLocation: s.contentLocation, ...documentOptions };
  switch (type) {
    case 'html': {
      const stream = createHtmlRewriter({ ...common, charset: s.charset, ...documentOptions, onWarning: (w) => c.onWarning(w), onReference, onBase, onEncoding });
      return { stream, stats: () => ({ records: 1, rewritten: stream.stats.rewritten }) };
    }
    case 'css': {
      const stream = createCssRewriter({ ...common, charset: s.charset, onWarning: (w) => c.onWarning(w), onReference, onBase, onEncoding });
      return { stream, stats: () => ({ records: 1, rewritten: stream.stats.rewritten }) };
    }
    case 'mime': {
      const stream = createMimeRewriter({
        ...mimeCommon,
        onReference: c.onReference,
        onWarning: c.onWarning,
        onPart: c.onBase === undefined ? undefined : (p) => explainPart(p),
        onEncoding: c.onEncoding && ((e, part) => c.onEncoding!(e, `part ${part}`)),
      });
      return { stream, stats: () => ({ records: 1, rewritten: stream.stats.rewritten }) };
    }
    case 'mbox': {
      const stream = createMboxRewriter({
        ...mimeCommon,
        onReference: c.onReference && ((r, part, message) => c.onReference!(r, `${message}:${part}`)),
        onWarning: (w, part, message) => c.onWarning(w, `${message}:${part}`),
        onPart: c.onBase === undefined ? undefined : (p, message) => explainPart(p, `${message}:`),
        onEncoding: c.onEncoding && ((e, part, message) => c.onEncoding!(e, `part ${message}:${part}`)),
      });
      return { stream, stats: () => ({ records: stream.messages, rewritten: stream.stats.rewritten }) };
    }
    default: {
      const plugged = STREAM_REWRITERS[type];
      if (plugged === undefined) throw new AbsError(`${type} input is not supported by this build`, 'ABS_ERR_INPUT');
      return plugged(s, c);
    }
  }
}

/** SVG, XHTML, feeds, sitemaps, XML, manifests and JavaScript modules (src/kinds). */
function kindRewriter(kind: ContentKind, s: RewriteSettings, c: RewriteCallbacks): DocumentRewriter {
  const stream = createKindRewriter(kind, {
    retrieval: s.url === null ? null : { url: s.url },
    fallback: s.base,
    resolver: getResolver(s.resolver),
    charset: s.charset,
    absolutizeFragments: s.fragments,
    lazyLoad: s.lazyLoad,
    onWarning: (w) => c.onWarning(w),
    onReference: c.onReference === undefined ? undefined : (r) => c.onReference!(r, null),
    onBase: c.onBase === undefined ? undefined : (d) => c.onBase!(d, null),
    onEncoding: c.onEncoding === undefined ? undefined : (e) => c.onEncoding!(e, null),
  });
  return { stream, stats: () => ({ records: 1, rewritten: stream.stats.rewritten }) };
}
