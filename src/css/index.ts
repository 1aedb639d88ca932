export { findCssUrls, isFragmentOnly, replacementText, rewriteCss } from './rewrite-css.ts';
export type {
  CssRewriteResult,
  CssUrlReference,
  CssUrlResolver,
  FindCssUrlsOptions,
  RewrittenCssUrlReference,
} from './rewrite-css.ts';
export { serializeCssUrl } from './serialize-css-url.ts';
export type { CssUrlQuote } from './serialize-css-url.ts';
