/**
 * Finding and rewriting the URL references of a stylesheet or a declaration list (a `style` attribute).
 *
 * Tokens come from @csstools/css-tokenizer (https://drafts.csswg.org/css-syntax-3/#tokenization); positions are
 * UTF-16 offsets into the input as given (no preprocessing), so every byte we do not replace is copied as-is.
 * What counts as a URL (https://drafts.csswg.org/css-values-4/#urls):
 * - a url-token `url(foo)`, and the first string of a `url("foo")` or `src("foo")` function;
 * - a string directly inside `image-set()` / `-webkit-image-set()`
 *   (https://drafts.csswg.org/css-images-4/#image-set-notation);
 * - the string that starts an `@import` prelude (https://drafts.csswg.org/css-cascade-5/#at-import).
 * Never: anything in an `@namespace` prelude (a namespace name, not a fetch), other strings, comments, bad-url tokens.
 */
import { TokenType, tokenizer } from '@csstools/css-tokenizer';
import type { CSSToken } from '@csstools/css-tokenizer';
import { escapeStringBody, escapeUrlTokenBody, isWhitespace } from './serialize-css-url.ts';

export interface CssUrlReference {
  /**
   * 'url' = url(...) (unquoted url-token or url("...") function), 'import' = @import "string",
   * 'image-set' = string inside image-set()/-webkit-image-set(), 'src' = string in src()
   */
  readonly kind: 'url' | 'import' | 'image-set' | 'src' | 'source-map';
  /**
   * The URL value after CSS unescaping (what a browser resolves), before any whitespace trimming.
   * An empty value (`url()`, `url("")`) is an invalid resource for CSS (https://drafts.csswg.org/css-values-4/#url-empty);
   * a value starting with "#" is a local reference (see {@link isFragmentOnly}).
   */
  readonly value: string;
  /**
   * Offsets (UTF-16 code units into the input string) of the exact source text that a rewrite replaces: for
   * url(foo) the whole token `url(foo)`; for url("foo") / @import "foo" / image-set("foo" 1x) the string token
   * including its quotes.
   */
  readonly start: number;
  readonly end: number;
  /** 1-based line of `start` (CSS newlines: LF, CR LF, CR, FF). */
  readonly line: number;
  /** 1-based column of `start`, in UTF-16 code units. */
  readonly column: number;
}

export interface FindCssUrlsOptions {
  /**
   * `'stylesheet'` for `<style>` text and `text/css` resources; `'declarations'` for a `style` attribute, where
   * at-rules are not allowed, so `@import "x"` is not a reference.
   * @default 'stylesheet'
   */
  readonly context?: 'stylesheet' | 'declarations';
}

export interface RewrittenCssUrlReference extends CssUrlReference {
  /** What the callback returned. */
  readonly resolved: string | null;
  /** True if the reference's source text was replaced (the callback returned a URL other than `value`). */
  readonly changed: boolean;
}

export interface CssRewriteResult {
  readonly css: string;
  readonly references: RewrittenCssUrlReference[];
}

/**
 * Returns the new absolute URL, or null to leave the reference as written.
 * Returning `value` unchanged also leaves the source text as written.
 */
export type CssUrlResolver = (value: string, ref: CssUrlReference) => string | null;

/** CSS Values 4 "local URL": https://drafts.csswg.org/css-values-4/#local-urls (a value that starts with "#"). */
export function isFragmentOnly(value: string): boolean {
  return value.charCodeAt(0) === 0x23 /* # */;
}

/** An open function or simple block (https://drafts.csswg.org/css-syntax-3/#consume-simple-block). */
interface Frame {
  /** ASCII-lowercased function name; null for a `(`, `[` or `{` block. */
  readonly fn: string | null;
  readonly closedBy: TokenType;
  /** Whether a token other than whitespace or a comment has been seen inside it. */
  sawArgument: boolean;
}

/** The prelude of an at-rule that changes what counts as a URL; it ends at `;` or `{` at its own depth. */
interface AtRulePrelude {
  readonly name: 'import' | 'namespace';
  readonly depth: number;
  sawArgument: boolean;
}

/**
 * Whether `css` may hold a URL reference. Every construct that holds one names url(), src(), image-set() or
 * @import (a url-token or function-token name, an at-keyword: https://drafts.csswg.org/css-syntax-3/#consume-ident-like-token),
 * and a name is written as those letters unless it holds an escape: text with none of these words (in any ASCII
 * case) and no backslash tokenizes to no reference, so it need not be tokenized.
 */
export function mayHoldCssUrl(css: string): boolean {
  return MAY_HOLD_CSS_URL.test(css);
}
const MAY_HOLD_CSS_URL = /url|src|image-set|import|\\/i;

/** Every URL reference in `css`, in source order. Never throws: malformed CSS yields fewer references. */
export function findCssUrls(css: string, options: FindCssUrlsOptions = {}): CssUrlReference[] {
  if (!mayHoldCssUrl(css)) return [];
  return scanCss(css, options).references;
}

/**
 * The URL references of `css` and its last cut: the offset just after the last `;` or `}` token outside every
 * block and function (0 if none). Text before the cut tokenizes the same whatever follows it, so the references
 * that end by the cut are those of `css.slice(0, cut)` (a stream rewrites up to the cut and keeps the rest).
 * One tokenizer pass for both.
 */
export function scanCss(css: string, options: FindCssUrlsOptions = {}): { references: CssUrlReference[]; cut: number } {
  const allowImport = (options.context ?? 'stylesheet') === 'stylesheet';
  const references: CssUrlReference[] = [];
  // Depth for the cut: every opening token counts, every closing one uncounts (never below 0).
  let depth = 0;
  let cut = 0;
  const position = lineCounter(css);
  const stack: Frame[] = [];
  let prelude: AtRulePrelude | null = null;

  const report = (kind: CssUrlReference['kind'], token: CSSToken, value: string): void => {
    if (prelude?.name === 'namespace') return;
    const start = token[2];
    references.push({ kind, value, start, end: token[3] + 1, ...position(start) });
  };

  const t = tokenizer({ css });
  for (let token = t.nextToken(); token[0] !== TokenType.EOF; token = t.nextToken()) {
    const type = token[0];
    if (type === TokenType.Comment) {
      // ECMA-426 §11.1.2: `/*# sourceMappingURL=URL */` names the stylesheet's source map (resolved against its URL).
      const m = SOURCE_MAP_COMMENT.exec(token[1]);
      if (m !== null && depth === 0) references.push({ kind: 'source-map', value: m[1]!, start: token[2], end: token[3] + 1, ...position(token[2]) });
      continue;
    }
    if (type === TokenType.Whitespace) continue;
    if (type === TokenType.OpenCurly || type === TokenType.OpenParen || type === TokenType.OpenSquare || type === TokenType.Function) depth++;
    else if (type === TokenType.CloseCurly || type === TokenType.CloseParen || type === TokenType.CloseSquare) {
      depth = Math.max(0, depth - 1);
      if (depth === 0 && type === TokenType.CloseCurly) cut = token[3] + 1;
    } else if (type === TokenType.Semicolon && depth === 0) cut = token[3] + 1;

    const frame = stack.at(-1);
    const firstInFrame = frame !== undefined && !frame.sawArgument;
    if (frame !== undefined) frame.sawArgument = true;
    const firstInPrelude = prelude !== null && prelude.depth === stack.length && !prelude.sawArgument;
    if (prelude !== null && prelude.depth === stack.length) prelude.sawArgument = true;

    switch (type) {
      case TokenType.URL:
        report('url', token, token[4].value);
        break;
      case TokenType.String: {
        const value = token[4].value;
        if (frame?.fn === 'url' && firstInFrame) report('url', token, value);
        else if (frame?.fn === 'src' && firstInFrame) report('src', token, value);
        else if (frame?.fn === 'image-set' || frame?.fn === '-webkit-image-set') report('image-set', token, value);
        else if (prelude?.name === 'import' && firstInPrelude) report('import', token, value);
        break;
      }
      case TokenType.AtKeyword: {
        // https://drafts.csswg.org/css-syntax-3/#consume-at-rule
        // NOTE: an @import after other rules is ignored by browsers; we still rewrite it (harmless, and simpler).
        const name = asciiLowercase(token[4].value);
        if (name === 'namespace' || (name === 'import' && allowImport && stack.length === 0)) {
          prelude = { name, depth: stack.length, sawArgument: false };
        }
        break;
      }
      case TokenType.Semicolon:
        if (prelude?.depth === stack.length) prelude = null;
        break;
      case TokenType.Function:
      case TokenType.OpenParen:
      case TokenType.OpenSquare:
      case TokenType.OpenCurly:
        if (type === TokenType.OpenCurly && prelude?.depth === stack.length) prelude = null;
        stack.push({
          fn: type === TokenType.Function ? asciiLowercase(token[4].value) : null,
          closedBy: type === TokenType.OpenSquare ? TokenType.CloseSquare
            : type === TokenType.OpenCurly ? TokenType.CloseCurly
            : TokenType.CloseParen,
          sawArgument: false,
        });
        break;
      case TokenType.CloseParen:
      case TokenType.CloseSquare:
      case TokenType.CloseCurly:
        // Only the matching ending token closes a block; a stray one is an ordinary token.
        if (frame?.closedBy === type) stack.pop();
        if (prelude !== null && prelude.depth > stack.length) prelude = null;
        break;
      default:
        // Bad-url and bad-string tokens are left alone, like every other token.
        break;
    }
  }
  return { references, cut };
}

/**
 * Replaces each reference for which `resolve` returns a new URL; every other character of `css` is kept as-is.
 * A url-token keeps its function name as written (`URL(`, `u\72l(`) and the whitespace inside its parentheses;
 * a string keeps its quote character. A token left open at the end of input stays open.
 */
export function rewriteCss(css: string, resolve: CssUrlResolver, options: FindCssUrlsOptions = {}): CssRewriteResult {
  const references: RewrittenCssUrlReference[] = [];
  let out = '';
  let copied = 0;
  for (const ref of findCssUrls(css, options)) {
    const resolved = resolve(ref.value, ref);
    const changed = resolved !== null && resolved !== ref.value;
    if (changed) {
      out += css.slice(copied, ref.start) + replacementText(css.slice(ref.start, ref.end), resolved);
      copied = ref.end;
    }
    references.push({ ...ref, resolved, changed });
  }
  return { css: copied === 0 ? css : out + css.slice(copied), references };
}

/**
 * The source text of a reference's token (`css.slice(ref.start, ref.end)`) with its URL replaced by `url`, for
 * callers that splice themselves. Keeps what {@link rewriteCss} keeps: the url-token's function name and inner
 * whitespace, the string's quote, and an open token stays open.
 */
export function replacementText(source: string, url: string): string {
  const map = SOURCE_MAP_COMMENT.exec(source);
  if (map !== null) {
    if (url.includes('*/')) return source;
    const at = source.indexOf('=') + 1;
    return source.slice(0, at) + url + source.slice(at + map[1]!.length);
  }
  const quote = source[0];
  if (quote === '"' || quote === "'") {
    const closed = source.length > 1 && source.endsWith(quote) && !isEscaped(source, source.length - 1);
    return quote + escapeStringBody(url, quote) + (closed ? quote : '');
  }
  // https://drafts.csswg.org/css-syntax-3/#consume-url-token: name "(" whitespace* body whitespace* ")"
  let bodyStart = source.indexOf('(') + 1;
  while (bodyStart < source.length && isWhitespace(source.charCodeAt(bodyStart))) bodyStart++;
  let bodyEnd = source.length;
  if (source.endsWith(')') && !isEscaped(source, bodyEnd - 1)) bodyEnd--;
  while (bodyEnd > bodyStart && isWhitespace(source.charCodeAt(bodyEnd - 1)) && !isEscaped(source, bodyEnd - 1)) bodyEnd--;
  // NOTE: a hex escape's terminating space (`\41 `) may land in the kept suffix; it is then trailing whitespace.
  return source.slice(0, bodyStart) + escapeUrlTokenBody(url) + source.slice(bodyEnd);
}

const SOURCE_MAP_COMMENT = /^\/\*[#@][ \t]sourceMappingURL=([^\s*]+)[ \t\r\n]*\*\/$/;

/** True if the character at `index` follows an odd run of backslashes (https://drafts.csswg.org/css-syntax-3/#escaping). */
function isEscaped(source: string, index: number): boolean {
  let backslashes = 0;
  while (index - backslashes - 1 >= 0 && source.charCodeAt(index - backslashes - 1) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

// https://infra.spec.whatwg.org/#ascii-lowercase (String#toLowerCase maps U+212A KELVIN SIGN to "k").
function asciiLowercase(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 0x41 && c <= 0x5a ? String.fromCharCode(c + 0x20) : s[i];
  }
  return out;
}

/**
 * Line and column of increasing offsets into `css`, counting CSS newlines
 * (https://drafts.csswg.org/css-syntax-3/#input-preprocessing: CR LF, CR, FF and LF each end a line).
 */
function lineCounter(css: string): (offset: number) => { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  return (offset) => {
    for (; scanned < offset; scanned++) {
      const c = css.charCodeAt(scanned);
      if (c === 0x0d && css.charCodeAt(scanned + 1) === 0x0a) scanned++;
      if (c === 0x0a || c === 0x0c || c === 0x0d) {
        line++;
        lineStart = scanned + 1;
      }
    }
    return { line, column: offset - lineStart + 1 };
  };
}
