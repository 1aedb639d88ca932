/**
 * A retrieved response → the rewriter for its media type (`createResponseRewriter`: response-dispatch.ts with
 * every rewriter loaded), and a URL retrieved and rewritten whole (`absolutizeUrl`).
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BaseDecision } from '../base/base.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import { MimeBodyRewriterStream, createMimeRewriter } from '../mime/stream.ts';
import type { FetchError, RedirectHop } from '../errors.ts';
import type { HtmlRewriteStats, HtmlWarning } from '../html/rewriter.ts';
import type { ContentTypeInfo, RewriteKind } from './content-type.ts';
import { fetchDocument, httpStatusError } from './fetch.ts';
import type { FetchOptions, FetchedDocument } from './fetch.ts';
import { dispatchResponse } from './response-dispatch.ts';
import type { MimeRewriters, ResponseRewriteOptions, ResponseRewriter } from './response-dispatch.ts';

export { responseKind } from './response-dispatch.ts';
export type { ResponseRewriteOptions, ResponseRewriter } from './response-dispatch.ts';

const MIME: MimeRewriters = { MimeBodyRewriterStream, createMimeRewriter };

/** Creates the rewriter for a retrieved document (or none, for types that pass through). */
export function createResponseRewriter(document: FetchedDocument, options: ResponseRewriteOptions = {}): ResponseRewriter {
  return dispatchResponse(document, options, MIME);
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
