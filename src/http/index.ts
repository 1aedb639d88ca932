export { createFetchAgent, fetchDocument, httpStatusError } from './fetch.ts';
export type { FetchAgentOptions, FetchOptions, FetchedDocument } from './fetch.ts';
export { absolutizeUrl, createResponseRewriter, responseKind } from './response-rewriter.ts';
export type { AbsolutizeUrlOptions, ResponseRewriteOptions, ResponseRewriter, UrlResult } from './response-rewriter.ts';
export { parseContentType, rewriteKindFor } from './content-type.ts';
export type { ContentTypeInfo, RewriteKind } from './content-type.ts';
export { redactUrl } from './credentials.ts';
export { isPrivateAddress } from './address-guard.ts';
export { outputFileName } from './output-name.ts';
