/**
 * A retrieved response → the rewriter for its media type, with the retrieval URL (after redirects) as the base,
 * the `Content-Type` charset as the transport charset, and the response's `Content-Location`/`Content-Base`
 * as HTTP headers (not a base unless `honourHttpContentLocation`, SPEC §2).
 *
 * Apart from response-rewriter.ts (which adds retrieval) so that the WARC worker loads neither the MIME rewriters
 * unless a record needs them (libmime and its charset tables: ~55 ms of CPU at the worker's start) nor the fetch
 * layer.
 */
import type { EncodingDecision } from '../encoding/index.ts';
import type { BaseDecision } from '../base/base.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import type { MimeBodyRewriterStream, MimeRewriterStream } from '../mime/stream.ts';
import { createCssRewriter } from '../css/stream.ts';
import type { CssRewriterStream } from '../css/stream.ts';
import { AbsError } from '../errors.ts';
import { createHtmlRewriter } from '../html/stream.ts';
import type { HtmlRewriterStream } from '../html/stream.ts';
import type { HtmlWarning, RewriteChoices } from '../html/rewriter.ts';
import { createKindRewriter } from '../kinds/index.ts';
import type { KindRewriterStream } from '../kinds/index.ts';
import { rewriteKindFor } from './content-type.ts';
import type { ContentTypeInfo, RewriteKind } from './content-type.ts';
import { headerValue } from './header-value.ts';
import type { FetchedDocument } from './fetch.ts';

export interface ResponseRewriteOptions extends RewriteChoices {
  /** The fallback base (layer 5). */
  readonly fallback?: string | null | undefined;
  /** Honour the response's `Content-Base` / `Content-Location` as a base (HTML only). @default false */
  readonly honourHttpContentLocation?: boolean | undefined;
  /** The document's encoding, stated by the user: beats the `Content-Type` charset. */
  readonly charset?: string | undefined;
  /** Rewrite as this type whatever the `Content-Type` says. */
  readonly type?: 'html' | 'css' | undefined;
  readonly onWarning?: ((warning: HtmlWarning) => void) | undefined;
  readonly onReference?: ((reference: ReferenceRecord) => void) | undefined;
  readonly onBase?: ((decision: BaseDecision) => void) | undefined;
  /** The encoding an HTML or CSS body is read in, and what decided it (for `--explain`). */
  readonly onEncoding?: ((encoding: EncodingDecision) => void) | undefined;
}

export interface ResponseRewriter {
  readonly kind: RewriteKind;
  /** The rewriter, or null when the body passes through untouched (see `passthroughReason`). */
  readonly transform: HtmlRewriterStream | CssRewriterStream | MimeRewriterStream | MimeBodyRewriterStream | KindRewriterStream | null;
  /** Why the body is not rewritten, for a warning or a batch's skip message; null when it is. */
  readonly passthroughReason: string | null;
}

/** The kind of rewriting a response gets: the user's `type`, else the `Content-Type` dispatch. */
export function responseKind(contentType: ContentTypeInfo, type?: 'html' | 'css'): RewriteKind {
  return type ?? rewriteKindFor(contentType.essence);
}

/** The MIME rewriters (src/mime/stream.ts), which only a `mime` response needs. */
export type MimeRewriters = Pick<typeof import('../mime/stream.ts'), 'MimeBodyRewriterStream' | 'createMimeRewriter'>;

/**
 * The rewriter for a retrieved document (or none, for types that pass through), with the MIME rewriters given:
 * `createResponseRewriter` (response-rewriter.ts) passes them always; the WARC worker (src/warc/record-job.ts)
 * imports them only for a `mime` response, and passes null for any other.
 */
export function dispatchResponse(document: FetchedDocument, options: ResponseRewriteOptions, mime: MimeRewriters | null): ResponseRewriter {
  const kind = responseKind(document.contentType, options.type);
  const charset = options.charset ?? document.contentType.charset;
  const common = {
    retrieval: document.retrieval,
    fallback: options.fallback ?? null,
    resolver: options.resolver,
    limits: options.limits,
    onWarning: options.onWarning,
    onReference: options.onReference,
    onBase: options.onBase,
    onEncoding: options.onEncoding,
  };
  switch (kind) {
    case 'html':
      return {
        kind,
        passthroughReason: null,
        transform: createHtmlRewriter({
          ...common,
          charset,
          headers: {
            contentLocation: headerValue(document.headers['content-location']),
            contentBase: headerValue(document.headers['content-base']),
            http: true,
          },
          honourHttpContentLocation: options.honourHttpContentLocation,
          exactBase: options.exactBase,
          absolutizeFragments: options.absolutizeFragments,
          lazyLoad: options.lazyLoad,
        }),
      };
    case 'css':
      return { kind, passthroughReason: null, transform: createCssRewriter({ ...common, charset }) };
    case 'mime': {
      // message/rfc822 and MHTML files (application/x-mimearchive) are whole messages; a multipart/* body's
      // header is the response's Content-Type. The retrieval URL is the base beneath every part's own layers.
      const { onBase: _perPart, onEncoding: _perPartEncoding, ...layers } = common; // MIME reports a base per part, not one for the body
      const mimeOptions = { ...layers, exactBase: options.exactBase, absolutizeFragments: options.absolutizeFragments, lazyLoad: options.lazyLoad };
      const essence = document.contentType.essence ?? '';
      if (mime === null) throw new AbsError('a MIME response needs the MIME rewriters (dispatchResponse)', 'ABS_ERR_INTERNAL');
      const transform = essence.startsWith('multipart/') && document.contentType.raw !== null
        ? new mime.MimeBodyRewriterStream(document.contentType.raw, mimeOptions)
        : mime.createMimeRewriter(mimeOptions);
      return { kind, passthroughReason: null, transform };
    }
    case 'svg':
    case 'xhtml':
    case 'feed':
    case 'sitemap':
    case 'xml':
    case 'manifest':
    case 'js':
      return { kind, passthroughReason: null, transform: createKindRewriter(kind, { ...common, charset, absolutizeFragments: options.absolutizeFragments, lazyLoad: options.lazyLoad }) };
    case 'none':
      return { kind, passthroughReason: `${document.contentType.raw === null ? 'no Content-Type' : `Content-Type ${document.contentType.essence ?? JSON.stringify(document.contentType.raw)}`} is not rewritten: passed through untouched`, transform: null };
  }
}

