// Public API of absolutize. Named exports only; everything else is internal.
export { AbsError, LimitExceededError } from './errors.ts';
export type { AbsErrorCode, Warning, WarningCode } from './errors.ts';
export { browserResolver, rfc3986Resolver, getResolver, classifyReference, stripAsciiWhitespace } from './uri/index.ts';
export type { ReferenceKind, Resolution, ResolveOptions, Resolver, ResolverName } from './uri/index.ts';
export { establishBase, headerUrlValue, NO_BASE } from './base/index.ts';
export type { BaseDecision, BaseLayers, BaseOptions, BaseSource, EntityHeaders, IgnoredLayer, Retrieval } from './base/index.ts';
export { FetchError } from './errors.ts';
export type { RedirectHop } from './errors.ts';
export { DEFAULT_HTTP_LIMITS, resolveHttpLimits } from './limits.ts';
export type { HttpLimits } from './limits.ts';
export { absolutizeUrl, createFetchAgent, createResponseRewriter, fetchDocument, httpStatusError, parseContentType, redactUrl, rewriteKindFor } from './http/index.ts';
export type { AbsolutizeUrlOptions, ContentTypeInfo, FetchAgentOptions, FetchedDocument, FetchOptions, ResponseRewriteOptions, ResponseRewriter, RewriteKind, UrlResult } from './http/index.ts';
