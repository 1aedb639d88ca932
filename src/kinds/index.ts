/**
 * The rewriter of each kind beyond HTML, CSS and MIME (SVG, XHTML, feeds, sitemaps, other XML, web app manifests,
 * JavaScript modules): one constructor. Which kind a document is: ./table.ts, re-exported here.
 */
import type { Transform } from 'node:stream';
import type { BaseDecision } from '../base/base.ts';
import type { DocumentContextOptions, ReferenceStats } from '../base/reference-policy.ts';
import type { EncodingDecision } from '../encoding/index.ts';
import { createXmlRewriter } from '../xml/stream.ts';
import { createWholeTextRewriter } from './whole-text.ts';
import type { ContentKind } from './table.ts';

export { CONTENT_KINDS, KIND_EXTENSIONS, KIND_SNIFF_BYTES, detectKind, kindOfContentType, kindOfName, sniffKind } from './table.ts';
export type { ContentKind } from './table.ts';

export interface KindRewriterOptions extends DocumentContextOptions {
  /** The transport charset (XML kinds; manifests and modules are UTF-8). */
  readonly charset?: string | undefined;
  readonly absolutizeFragments?: boolean | undefined;
  readonly lazyLoad?: boolean | undefined;
  readonly onEncoding?: ((encoding: EncodingDecision) => void) | undefined;
}

/** A kind's rewriter: a Transform that, once finished, has its statistics, base and encoding. */
export type KindRewriterStream = Transform & { readonly stats: ReferenceStats & { warnings: number }; readonly base: BaseDecision | null; readonly encoding: string | null };

/** The rewriter for a kind: bytes in, bytes out. */
export function createKindRewriter(kind: ContentKind, options: KindRewriterOptions = {}): KindRewriterStream {
  if (kind === 'manifest' || kind === 'js') {
    const { charset: _c, absolutizeFragments: _f, lazyLoad: _l, onEncoding, ...rest } = options;
    onEncoding?.({ name: 'UTF-8', source: 'default' });
    return createWholeTextRewriter({ ...rest, kind });
  }
  return createXmlRewriter({ ...options, dialect: kind === 'xml' ? 'auto' : kind });
}
