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
export { DEFAULT_LIMITS, resolveLimits } from './limits.ts';
export type { Limits } from './limits.ts';
