// Public API of absolutize. Named exports only; everything else is internal.
export { AbsError, LimitExceededError } from './errors.ts';
export type { AbsErrorCode, Warning, WarningCode } from './errors.ts';
export { browserResolver, rfc3986Resolver, getResolver, classifyReference, stripAsciiWhitespace } from './uri/index.ts';
export type { ReferenceKind, Resolution, ResolveOptions, Resolver, ResolverName } from './uri/index.ts';
export { establishBase, headerUrlValue, NO_BASE } from './base/index.ts';
export type { BaseDecision, BaseLayers, BaseOptions, BaseSource, EntityHeaders, IgnoredLayer, Retrieval } from './base/index.ts';
export { absolutizeHtml, createHtmlRewriter, HtmlRewriterStream, toWebTransform } from './html/stream.ts';
export type { HtmlResult, HtmlStreamOptions } from './html/stream.ts';
export type { HtmlRewriteOptions, HtmlRewriteStats, HtmlWarning, ReferenceRecord } from './html/rewriter.ts';
export { createCssRewriter, CssRewriterStream } from './css/stream.ts';
export type { CssStreamOptions } from './css/stream.ts';
export { rewriteCss, findCssUrls } from './css/index.ts';
export { absolutizeMime, createMboxRewriter, createMimeRewriter, MboxRewriterStream, MimeRewriterStream } from './mime/stream.ts';
export type { MboxRewriteOptions, MimeResult } from './mime/stream.ts';
export type { MimePartInfo, MimeRewriteOptions, MimeRewriteStats } from './mime/rewriter.ts';
export { DEFAULT_LIMITS, resolveLimits } from './limits.ts';
export type { Limits } from './limits.ts';
export { FetchError } from './errors.ts';
export type { RedirectHop } from './errors.ts';
export { DEFAULT_HTTP_LIMITS, resolveHttpLimits } from './limits.ts';
export type { HttpLimits } from './limits.ts';
export { absolutizeUrl, createFetchAgent, createResponseRewriter, fetchDocument, httpStatusError, parseContentType, redactUrl, rewriteKindFor } from './http/index.ts';
export type { AbsolutizeUrlOptions, ContentTypeInfo, FetchAgentOptions, FetchedDocument, FetchOptions, ResponseRewriteOptions, ResponseRewriter, RewriteKind, UrlResult } from './http/index.ts';
export type { EncodingDecision, EncodingSource } from './encoding/index.ts';
export { escapeControls } from './http/index.ts'; // issue 11: server text made safe to print
export { findHeaderReferences, rewriteHeaderReferences } from './http/index.ts'; // issue 22: Link, Refresh, Content-Location
export type { HeaderReference, HeaderReferenceField, HeaderReferenceRecord, HeaderRewriteOptions, HeaderRewriteResult } from './http/index.ts';
// WARC and ARC (src/warc): record-by-record rewriting of crawl files, and the link report's keys.
export { createWarcRewriter, rewriteWarcChunks, rewriteWarcStream } from './warc/rewriter.ts';
export type { WarcLineContext, WarcLinkLine, WarcOutputModel, WarcProgress, WarcRewriterStream, WarcRewriteOptions, WarcSummary, WarcWarning } from './warc/rewriter.ts';
export { DEFAULT_WARC_LIMITS, resolveWarcLimits } from './limits.ts';
export type { WarcLimits } from './limits.ts';
export { surt } from './uri/surt.ts';
export { normalizeUri } from './uri/normalize.ts';
