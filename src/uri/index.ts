export type { ReferenceKind, Resolution, ResolveOptions, Resolver, ResolverName } from './types.ts';
export { browserResolver, parseWhatwgUrl } from './browser.ts';
export { rfc3986Resolver, resolveRfc3986, removeDotSegments, parseUriReference, recomposeUri } from './rfc3986.ts';
export type { UriComponents } from './rfc3986.ts';
export { classifyReference, hasScheme, stripAsciiWhitespace } from './reference.ts';
import { browserResolver } from './browser.ts';
import { rfc3986Resolver } from './rfc3986.ts';
import type { Resolver, ResolverName } from './types.ts';

/** The resolver of that name. */
export function getResolver(name: ResolverName): Resolver {
  return name === 'rfc3986' ? rfc3986Resolver : browserResolver;
}
