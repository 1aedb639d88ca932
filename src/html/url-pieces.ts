/**
 * Where the URLs are inside a value: one piece per URL, with its offsets in the decoded value and how a new URL
 * is written in its place. Joins the attribute table and the microsyntaxes (url-attributes.ts, microsyntax.ts),
 * the CSS module and the JSON scripts to the rewriter, which only splices pieces.
 */
import { findCssUrls, replacementText } from '../css/rewrite-css.ts';
import { findModuleReferences, javaScriptStringLiteral } from '../js/module-references.ts';
import { findImportMapUrls, findSpeculationRulesUrls } from './json-scripts.ts';
import { parseMetaRefresh, scanSrcset, splitCommaList, splitSpaceList } from './microsyntax.ts';
import { lookupUrlAttribute as lookup } from './url-attributes.ts';
import type { UrlAttributeSpec } from './url-attributes.ts';

export type { UrlAttributeSpec };

/** One URL inside a decoded value. */
export interface Piece {
  /** The URL as the syntax means it (CSS escapes and JSON escapes undone). */
  readonly value: string;
  /** Offsets in the decoded value of the text that a new URL replaces. */
  readonly start: number;
  readonly end: number;
  /** The text that replaces [start, end) for a new URL. */
  serialize(url: string): string;
  /**
   * Resolved against the document's URL, not its base: the source map of an inline script (DevTools takes the
   * document's URL as the script's). NOTE: an inline module's `import.meta.url` is the document's *base* URL
   * (its "base URL" in the HTML standard; test/browser/kinds-agreement.test.ts checks it in Chromium), so
   * `new URL(…, import.meta.url)` resolves against the base like its imports.
   */
  readonly documentUrl?: true;
}

const asIs = (url: string): string => url;

export interface LookupOptions {
  readonly lazyLoad: boolean;
}

/** The URL-bearing attribute spec for this attribute of this element, or undefined. */
export function lookupUrlAttribute(
  ns: 'html' | 'svg' | 'mathml',
  tag: string,
  name: string,
  attrs: ReadonlyArray<{ readonly name: string; readonly value: string }>,
  options: LookupOptions,
): UrlAttributeSpec | undefined {
  const spec = lookup(ns, tag, name, attrs);
  if (spec === undefined) return undefined;
  if (spec.optional !== undefined && !(spec.optional === 'lazy-load' && options.lazyLoad)) return undefined;
  return spec;
}

/** The URL pieces of an attribute value of the given syntax (not CSS, not srcdoc). */
export function urlPieces(spec: UrlAttributeSpec, value: string): Piece[] {
  if (spec.syntax === 'srcset') {
    // The commonest list (issue 23): each candidate's URL made a piece as it is found.
    const pieces: Piece[] = [];
    scanSrcset(value, (start, end) => {
      pieces.push({ value: value.slice(start, end), start, end, serialize: asIs });
    });
    return pieces;
  }
  const spans = spansOf(spec.syntax, value);
  return spans.map(({ start, end }) => ({ value: value.slice(start, end), start, end, serialize: asIs }));
}

function spansOf(syntax: UrlAttributeSpec['syntax'], value: string): ReadonlyArray<{ start: number; end: number }> {
  switch (syntax) {
    case 'rdfa': {
      // RDFa 1.1 §7.4: "[prefix:ref]" is a safe CURIE and "_:name" a blank node; neither is a URL.
      const trimmed = value.replace(/^[ \t\n\f\r]+/, '');
      if (trimmed.startsWith('[') || trimmed.startsWith('_:')) return [];
      return spansOf('url', value);
    }
    case 'url': {
      // The URL without the ASCII whitespace around it, which is kept as it is.
      let start = 0;
      let end = value.length;
      while (start < end && ' \t\n\f\r'.includes(value[start]!)) start++;
      while (end > start && ' \t\n\f\r'.includes(value[end - 1]!)) end--;
      return [{ start, end }];
    }
    case 'url-list-space':
      return splitSpaceList(value);
    case 'url-list-comma':
      return splitCommaList(value);
    // ('srcset': urlPieces.)
    case 'meta-refresh': {
      const r = parseMetaRefresh(value);
      return r === null ? [] : [r.url];
    }
    default:
      return [];
  }
}

/** The URL pieces of CSS: a stylesheet (`<style>`) or a declaration list / value (`style=""`, SVG `fill`). */
// Every CSS construct that holds a URL names url(), src(), image-set() or @import, unless an identifier is
// written with escapes ("\75 rl(" is url()): text with none of these and no backslash holds no URL.
const MAY_HOLD_CSS_URL = /url|src|image-set|import|\\/i;

export function cssPieces(css: string, context: 'stylesheet' | 'declarations'): Piece[] {
  if (!MAY_HOLD_CSS_URL.test(css)) return [];
  return findCssUrls(css, { context }).map((ref) => new CssPiece(ref.value, ref.start, ref.end, css));
}

/** A URL in CSS: written as its source was (quoted, unquoted, escaped), from the source kept by reference, not as a slice and closure of its own. */
class CssPiece implements Piece {
  readonly value: string;
  readonly start: number;
  readonly end: number;
  private readonly css: string;
  constructor(value: string, start: number, end: number, css: string) {
    this.value = value;
    this.start = start;
    this.end = end;
    this.css = css;
  }
  serialize(url: string): string {
    return replacementText(this.css.slice(this.start, this.end), url);
  }
}

/**
 * The URL pieces of an import map or speculation rules script, or null when it is not valid JSON; of an inline
 * module script (src/js/module-references.ts), or null when the module lexer cannot read it.
 */
export function jsonScriptPieces(syntax: 'importmap' | 'speculationrules' | 'module', json: string): Piece[] | null {
  if (syntax === 'module') {
    const refs = findModuleReferences(json);
    return refs?.map((r) => ({
      value: r.value,
      start: r.start,
      end: r.end,
      serialize: (url: string) => (r.kind === 'source-map' ? url : javaScriptStringLiteral(url, r.quote)),
      ...(r.kind === 'source-map' ? { documentUrl: true as const } : {}),
    })) ?? null;
  }
  const found = syntax === 'importmap' ? findImportMapUrls(json) : findSpeculationRulesUrls(json);
  if (found === null) return null;
  return found.map((s) => ({ value: s.value, start: s.start, end: s.end, serialize: jsonString }));
}

/** A JSON string token for `value`; "<" escaped so that no `</script` can appear inside the script text. */
function jsonString(value: string): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
