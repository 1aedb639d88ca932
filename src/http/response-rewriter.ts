/**
 * A retrieved response → the rewriter for its media type, with the retrieval URL (after redirects) as the base,
 * the `Content-Type` charset as the transport charset, and the response's `Content-Location`/`Content-Base`
 * as HTTP headers (not a base unless `honourHttpContentLocation`, SPEC §2).
 */
import type { EncodingDecision } from '../encoding/index.ts';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BaseDecision } from '../base/base.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import { MimeBodyRewriterStream, createMimeRewriter } from '../mime/stream.ts';
import type { MimeRewriterStream } from '../mime/stream.ts';
import { createCssRewriter } from '../css/stream.ts';
import type { CssRewriterStream } from '../css/stream.ts';
import type { FetchError, RedirectHop } from '../errors.ts';
import { createHtmlRewriter } from '../html/stream.ts';
import type { HtmlRewriterStream } from '../html/stream.ts';
import type { HtmlRewriteStats, HtmlWarning, RewriteChoices } from '../html/rewriter.ts';
import { createKindRewriter } from '../kinds/index.ts';
import type { KindRewriterStream } from '../kinds/index.ts';
import { rewriteKindFor } from './content-type.ts';
import type { ContentTypeInfo, RewriteKind } from './content-type.ts';
import { fetchDocument, headerValue, httpStatusError } from './fetch.ts';
import type { FetchOptions, FetchedDocument } from './fetch.ts';

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

/** Creates the rewriter for a retrieved document (or none, for types that pass through). */
export function createResponseRewriter(document: FetchedDocument, options: ResponseRewriteOptions = {}): ResponseRewriter {
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
      const transform = essence.startsWith('multipart/') && document.contentType.raw !== null
        ? new MimeBodyRewriterStream(document.contentType.raw, mimeOptions)
        : createMimeRewriter(mimeOptions);
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

/** `onWarning` hears the retrieval's warnings (FetchOptions) and the rewriting's. */
export interface AbsolutizeUrlOptions extends Omit<FetchOptions, 'onWarning'>, ResponseRewriteOptions {
  /** Rewrite and return the body of a 4xx/5xx response instead of failing with `ABS_ERR_HTTP_STATUS`. @default false */
  readonly keepErrorBodies?: boolean | undefined;
}

export interface UrlResult {
  /** The rewritten document (or the body untouched, when `rewritten` is false). */
  readonly output: Buffer;
  /** The final URL, after redirects (credentials removed): the retrieval base. */
  readonly url: string;
  readonly requestedUrl: string;
  readonly chain: readonly RedirectHop[];
  readonly status: number;
  readonly contentType: ContentTypeInfo;
  readonly kind: RewriteKind;
  readonly rewritten: boolean;
  readonly base: BaseDecision | null;
  readonly encoding: string | null;
  readonly stats: HtmlRewriteStats | null;
  readonly warnings: HtmlWarning[];
  readonly references: ReferenceRecord[];
  /** The status error, when `keepErrorBodies` kept a 4xx/5xx body. */
  readonly error: FetchError | null;
}

/**
 * The small-document path over HTTP: retrieves `url` (following redirects), rewrites the body by its media type
 * with the final URL as the base, and returns it with the chain and statistics. Rejects with a FetchError for a
 * failed retrieval (and a 4xx/5xx status unless `keepErrorBodies`), or a LimitExceededError when the body
 * exceeds `maxBodyBytes` or `maxDecompressedBytes` (the document is then incomplete and is not returned).
 */
export async function absolutizeUrl(url: string, options: AbsolutizeUrlOptions = {}): Promise<UrlResult> {
  const warnings: HtmlWarning[] = [];
  const document = await fetchDocument(url, {
    ...options,
    onWarning: (w) => {
      warnings.push(w);
      options.onWarning?.(w);
    },
  });
  const error = httpStatusError(document);
  if (error !== null && options.keepErrorBodies !== true) {
    document.body.destroy();
    throw error;
  }
  const references: ReferenceRecord[] = [];
  const rewriter = createResponseRewriter(document, {
    ...options,
    onWarning: (w) => {
      warnings.push(w);
      options.onWarning?.(w);
    },
    onReference: (r) => {
      references.push(r);
      options.onReference?.(r);
    },
  });
  if (rewriter.passthroughReason !== null) {
    const w: HtmlWarning = { code: 'content-type-not-rewritten', message: `${document.url}: ${rewriter.passthroughReason}` };
    warnings.push(w);
    options.onWarning?.(w);
  }
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  if (rewriter.transform === null) await pipeline(document.body, sink);
  else await pipeline(document.body, rewriter.transform, sink);
  const t = rewriter.transform;
  return {
    output: Buffer.concat(chunks),
    url: document.url,
    requestedUrl: document.requestedUrl,
    chain: document.chain,
    status: document.status,
    contentType: document.contentType,
    kind: rewriter.kind,
    rewritten: t !== null,
    base: t !== null && 'base' in t ? t.base : null,
    encoding: t !== null && 'encoding' in t ? t.encoding : null,
    stats: t !== null && 'base' in t ? t.stats : null,
    warnings,
    references,
    error,
  };
}
