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
  return value.length !== 0 && value.charCodeAt(0) === 0x23 /* # */;
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
  const references = scanCss(css, options).references;
  return references === NO_REFERENCES ? [] : references;
}

/**
 * The URL references of `css` and its last cut: the offset just after the last `;` or `}` token outside every
 * block and function (0 if none). Text before the cut tokenizes the same whatever follows it, so the references
 * that end by the cut are those of `css.slice(0, cut)` (a stream rewrites up to the cut and keeps the rest).
 * One tokenizer pass for both: the hand-written one below (`scanCssFast`), or, for text it leaves to it,
 * @csstools/css-tokenizer (`scanCssTokenized`).
 */
export function scanCss(css: string, options: FindCssUrlsOptions = {}): { references: CssUrlReference[]; cut: number } {
  if (!warmedUp) warmUp();
  const result = scanCssFast(css, options) ?? scanCssTokenized(css, options);
  // A deep scan's frames are let go when it ends, not held until the next scan.
  if (FRAME_STACK.length > FRAME_STACK_KEEP) FRAME_STACK.length = 0;
  return result;
}

/** The kinds of token the scan tells apart; every other token is `Other` (whitespace is never reported). */
const enum T {
  Other,
  Comment,
  String,
  Url,
  Function,
  AtKeyword,
  OpenParen,
  CloseParen,
  OpenSquare,
  CloseSquare,
  OpenCurly,
  CloseCurly,
  Semicolon,
}

/** The functions whose strings are URLs (the name ASCII-case-insensitively); every other function, and a block, is `None`. */
const enum Fn {
  None,
  Url,
  Src,
  /** image-set() and -webkit-image-set() */
  ImageSet,
}

/** What the function named s[from, to) is. */
function functionKind(s: string, from: number, to: number): Fn {
  switch (to - from) {
    case 3:
      return asciiCaseIs(s, from, to, 'url') ? Fn.Url : asciiCaseIs(s, from, to, 'src') ? Fn.Src : Fn.None;
    case 9:
      return asciiCaseIs(s, from, to, 'image-set') ? Fn.ImageSet : Fn.None;
    case 17:
      return asciiCaseIs(s, from, to, '-webkit-image-set') ? Fn.ImageSet : Fn.None;
    default:
      return Fn.None;
  }
}

/** Whether s[from, to), ASCII-lowercased (https://infra.spec.whatwg.org/#ascii-lowercase), is `lower`. */
function asciiCaseIs(s: string, from: number, to: number, lower: string): boolean {
  if (to - from !== lower.length) return false;
  for (let k = 0; k < lower.length; k++) {
    const c = s.charCodeAt(from + k);
    if ((c >= 0x41 && c <= 0x5a ? c + 0x20 : c) !== lower.charCodeAt(k)) return false;
  }
  return true;
}

const TOKEN_KINDS: ReadonlyMap<TokenType, T> = new Map([
  [TokenType.Comment, T.Comment],
  [TokenType.String, T.String],
  [TokenType.URL, T.Url],
  [TokenType.Function, T.Function],
  [TokenType.AtKeyword, T.AtKeyword],
  [TokenType.OpenParen, T.OpenParen],
  [TokenType.CloseParen, T.CloseParen],
  [TokenType.OpenSquare, T.OpenSquare],
  [TokenType.CloseSquare, T.CloseSquare],
  [TokenType.OpenCurly, T.OpenCurly],
  [TokenType.CloseCurly, T.CloseCurly],
  [TokenType.Semicolon, T.Semicolon],
]);

/**
 * The frames (functions and blocks) open at a token, one number each: the function (`Fn`, Fn.None for a block)
 * in bits 0–1, whether a token other than whitespace or a comment has been seen inside it in bit 2, the closing
 * token from bit 3. One array for every scan (a scan runs to its end before another starts, and reads only the
 * entries it wrote): measured, a `style` attribute's scan allocated ~1.3 KB with three arrays of its own and
 * other objects, now ~0.42 KB.
 */
const FRAME_STACK: number[] = [];
/** The frames FRAME_STACK keeps between scans (a deeper scan's are let go). */
const FRAME_STACK_KEEP = 1024;

/**
 * A scan's references until it finds one (the scan then makes an array of its own): frozen, as a scan may return
 * it; `findCssUrls`, public, returns an array of the caller's own.
 */
const NO_REFERENCES: CssUrlReference[] = Object.freeze([]) as unknown as CssUrlReference[];

/** What the scan does with each token (either tokenizer's): the references, and the depth for the cut. */
class UrlScan {
  /** What a scan returns: the references, and the cut as it stands. */
  readonly result: { references: CssUrlReference[]; cut: number } = { references: NO_REFERENCES, cut: 0 };
  // Depth for the cut: every opening token counts, every closing one uncounts (never below 0).
  depth = 0;
  private readonly css: string;
  private readonly allowImport: boolean;
  private frames = 0;
  /** The open frames, `frames` deep: see FRAME_STACK. */
  private readonly frameStack: number[];
  private prelude: AtRulePrelude | null = null;
  /** Line and column of the references, made at the first (`push`). */
  private lines: LineCounter | null = null;

  constructor(css: string, options: FindCssUrlsOptions) {
    this.css = css;
    this.allowImport = (options.context ?? 'stylesheet') === 'stylesheet';
    // Kept for the next scan unless a deep one made it large.
    if (FRAME_STACK.length > FRAME_STACK_KEEP) FRAME_STACK.length = 0;
    this.frameStack = FRAME_STACK;
  }

  /** A comment [start, end). */
  comment(start: number, end: number): void {
    // ECMA-426 §11.1.2: `/*# sourceMappingURL=URL */` names the stylesheet's source map (resolved against its URL).
    if (this.depth !== 0) return;
    const c = at(this.css, start + 2);
    if (c !== 0x23 && c !== 0x40) return;
    const m = SOURCE_MAP_COMMENT.exec(this.css.slice(start, end));
    if (m !== null) this.push('source-map', m[1]!, start, end);
  }

  /**
   * A token [start, end) but whitespace and comments; `value`: a string's or URL's value, an at-keyword's name;
   * `fn`: what a function's name is (Fn.None for every other token).
   */
  token(type: T, start: number, end: number, value: string, fn: Fn): void {
    if (type === T.OpenCurly || type === T.OpenParen || type === T.OpenSquare || type === T.Function) this.depth++;
    else if (type === T.CloseCurly || type === T.CloseParen || type === T.CloseSquare) {
      this.depth = Math.max(0, this.depth - 1);
      if (this.depth === 0 && type === T.CloseCurly) this.result.cut = end;
    } else if (type === T.Semicolon && this.depth === 0) this.result.cut = end;

    // The open frames (functions and blocks).
    const frames = this.frames;
    const top = frames - 1;
    const frame = frames === 0 ? 0 : this.frameStack[top]!;
    const inFn: Fn = frame & 3;
    const firstInFrame = frames !== 0 && (frame & 4) === 0;
    if (firstInFrame) this.frameStack[top] = frame | 4;
    let prelude = this.prelude;
    const firstInPrelude = prelude !== null && prelude.depth === frames && !prelude.sawArgument;
    if (prelude !== null && prelude.depth === frames) prelude.sawArgument = true;

    switch (type) {
      case T.Url:
        this.report('url', start, end, value);
        break;
      case T.String:
        if (inFn === Fn.Url && firstInFrame) this.report('url', start, end, value);
        else if (inFn === Fn.Src && firstInFrame) this.report('src', start, end, value);
        else if (inFn === Fn.ImageSet) this.report('image-set', start, end, value);
        else if (prelude?.name === 'import' && firstInPrelude) this.report('import', start, end, value);
        break;
      case T.AtKeyword: {
        // https://drafts.csswg.org/css-syntax-3/#consume-at-rule
        // NOTE: an @import after other rules is ignored by browsers; we still rewrite it (harmless, and simpler).
        if (asciiCaseIs(value, 0, value.length, 'namespace')) this.prelude = { name: 'namespace', depth: frames, sawArgument: false };
        else if (this.allowImport && frames === 0 && asciiCaseIs(value, 0, value.length, 'import')) this.prelude = { name: 'import', depth: frames, sawArgument: false };
        break;
      }
      case T.Semicolon:
        if (prelude?.depth === frames) this.prelude = null;
        break;
      case T.Function:
      case T.OpenParen:
      case T.OpenSquare:
      case T.OpenCurly:
        if (type === T.OpenCurly && prelude?.depth === frames) this.prelude = prelude = null;
        this.frameStack[frames] = ((type === T.OpenSquare ? T.CloseSquare : type === T.OpenCurly ? T.CloseCurly : T.CloseParen) << 3) | fn;
        this.frames = frames + 1;
        break;
      case T.CloseParen:
      case T.CloseSquare:
      case T.CloseCurly:
        // Only the matching ending token closes a block; a stray one is an ordinary token.
        if (frames !== 0 && frame >> 3 === type) this.frames = frames - 1;
        if (prelude !== null && prelude.depth > this.frames) this.prelude = null;
        break;
      default:
        // Bad-url and bad-string tokens are left alone, like every other token.
        break;
    }
  }

  /** `token(T.Other, …)` in short: a token that only counts as an argument of the frame and prelude it is in. */
  other(): void {
    const frames = this.frames;
    if (frames !== 0) this.frameStack[frames - 1]! |= 4;
    const prelude = this.prelude;
    if (prelude !== null && prelude.depth === frames) prelude.sawArgument = true;
  }

  private report(kind: CssUrlReference['kind'], start: number, end: number, value: string): void {
    if (this.prelude?.name === 'namespace') return;
    this.push(kind, value, start, end);
  }

  private push(kind: CssUrlReference['kind'], value: string, start: number, end: number): void {
    const lines = (this.lines ??= new LineCounter(this.css));
    lines.advance(start);
    const ref: CssUrlReference = { kind, value, start, end, line: lines.line, column: start - lines.lineStart + 1 };
    // Most text holds one reference (a `style` attribute): an array of one, not an empty one grown to 17.
    if (this.result.references === NO_REFERENCES) this.result.references = [ref];
    else this.result.references.push(ref);
  }
}

/** `scanCss` through @csstools/css-tokenizer: the reference the hand-written scan is checked against. @internal */
export function scanCssTokenized(css: string, options: FindCssUrlsOptions = {}): { references: CssUrlReference[]; cut: number } {
  const scan = new UrlScan(css, options);
  const t = tokenizer({ css });
  for (let token = t.nextToken(); token[0] !== TokenType.EOF; token = t.nextToken()) {
    const type = token[0];
    if (type === TokenType.Whitespace) continue;
    if (type === TokenType.Comment) {
      scan.comment(token[2], token[3] + 1);
      continue;
    }
    const kind = TOKEN_KINDS.get(type) ?? T.Other;
    const value = type === TokenType.String || type === TokenType.URL || type === TokenType.AtKeyword ? token[4].value : '';
    scan.token(kind, token[2], token[3] + 1, value, type === TokenType.Function ? functionKind(token[4].value, 0, token[4].value.length) : Fn.None);
  }
  return scan.result;
}

/**
 * `scanCss` with a tokenizer of its own (https://drafts.csswg.org/css-syntax-3/#consume-token, as
 * @csstools/css-tokenizer 4 reads it): it makes no token objects, and finds only the boundaries of tokens,
 * the names of functions and at-keywords and the values of strings and URLs. Measured on the mail bench (the
 * text/css parts of the corpus): @csstools' tokenizer was ~12% of the CPU samples of an mbox run.
 * Null — the caller tokenizes with @csstools — where the text needs what it leaves out: a backslash outside a
 * comment and a string (escapes), a NUL or a surrogate where an identifier may begin or go on (U+FFFD in its
 * value), a surrogate in a URL token's value. Other non-ASCII characters are read as @csstools reads them: the
 * standard's non-ASCII ident code points in names, any other as a delim (NOTE: one stylesheet of the 258 real
 * pages, 66 KB with `content: —`, went to @csstools, and was ~1% of a rewrite pass over them all). `src/css/scan.test.ts`
 * checks that it gives what `scanCssTokenized` gives, on random pieces of CSS and the corpus.
 */
export function scanCssFast(css: string, options: FindCssUrlsOptions = {}): { references: CssUrlReference[]; cut: number } | null {
  const scan = new UrlScan(css, options);
  // Taken before the loop: V8 compiles a long first scan while in its loop, and code after the loop it has not
  // yet run (an object literal there) would throw that code away again at each return.
  const result = scan.result;
  const length = css.length;
  let i = 0;
  // 4.3.1 Consume a token. The loop keeps the tokens of every declaration (names, whitespace, numbers and the
  // one-code-unit tokens); the rest is `otherToken`'s. Measured on the mbox bench: with every branch in one
  // function, V8 compiled it again 6–8 times, each time a branch it had not seen ran ("insufficient type feedback").
  while (i < length) {
    const c = css.charCodeAt(i);
    if (isIdentStart(c)) i = identLike(css, i, scan);
    else if (isCssWhitespace(c)) i = whitespaceEnd(css, i + 1);
    else if (c >= 0x30 && c <= 0x39) i = numeric(css, i, scan);
    else {
      const single = c < 0x80 ? SINGLE_TOKENS[c]! : T.Other;
      if (single !== T.Other) {
        scan.token(single, i, i + 1, '', Fn.None);
        i++;
      } else i = otherToken(css, i, c, scan);
    }
    if (i < 0) return null;
  }
  return result;
}

/** The tokens of one code unit that matter: `;`, brackets, parentheses and braces (T.Other for every other code unit). */
const SINGLE_TOKENS: Uint8Array = (() => {
  const table = new Uint8Array(0x80);
  table[0x3b] = T.Semicolon;
  table[0x28] = T.OpenParen;
  table[0x29] = T.CloseParen;
  table[0x5b] = T.OpenSquare;
  table[0x5d] = T.CloseSquare;
  table[0x7b] = T.OpenCurly;
  table[0x7d] = T.CloseCurly;
  return table;
})();

/**
 * The token at `i` that starts with `c`, none of those `scanCssFast` takes itself, in the order @csstools checks:
 * a comment, a string, a hash, a number after a sign or ".", CDC, CDO, an at-keyword, or a delim. Returns its
 * end (-1: left to @csstools).
 */
function otherToken(css: string, i: number, c: number, scan: UrlScan): number {
  switch (c) {
    case 0x2f:
      if (at(css, i + 1) === 0x2a) return comment(css, i, scan);
      break;
    case 0x22:
    case 0x27:
      return string(css, i, c, scan);
    case 0x23:
      return hash(css, i, scan);
    case 0x2b:
    case 0x2e:
      if (startsNumber(css, i, c)) return numeric(css, i, scan);
      break;
    case 0x2d:
      return hyphen(css, i, scan);
    case 0x3c:
      if (at(css, i + 1) === 0x21 && at(css, i + 2) === 0x2d && at(css, i + 3) === 0x2d) {
        scan.other(); // CDO
        return i + 4;
      }
      break;
    case 0x40:
      return atKeyword(css, i, scan);
    default:
      // A backslash (an escape), a NUL or non-ASCII character (which may begin an identifier): @csstools'.
      if (isHard(c)) return -1;
  }
  // A delim token: one code unit.
  scan.other();
  return i + 1;
}

/** A comment from the "/*" at `i`, to its end or the end of input. */
function comment(css: string, i: number, scan: UrlScan): number {
  const close = css.indexOf('*/', i + 2);
  const end = close === -1 ? css.length : close + 2;
  scan.comment(i, end);
  return end;
}

/** A hash token (#name) or a "#" delim, at `i`. */
function hash(css: string, i: number, scan: UrlScan): number {
  const next = at(css, i + 1);
  if (isHard(next)) return -1;
  const end = isName(next) ? identEnd(css, i + 1) : i + 1;
  if (end >= 0) scan.other();
  return end;
}

/** At a "-": a number, CDC, an ident-like token or a delim. */
function hyphen(css: string, i: number, scan: UrlScan): number {
  if (startsNumber(css, i, 0x2d)) return numeric(css, i, scan);
  if (at(css, i + 1) === 0x2d && at(css, i + 2) === 0x3e) {
    scan.other(); // CDC
    return i + 3;
  }
  const ident = startsIdent(css, i);
  if (ident < 0) return -1;
  if (ident === 1) return identLike(css, i, scan);
  scan.other();
  return i + 1;
}

/** At an "@": an at-keyword or a delim. */
function atKeyword(css: string, i: number, scan: UrlScan): number {
  const ident = startsIdent(css, i + 1);
  if (ident < 0) return -1;
  if (ident === 0) {
    scan.other();
    return i + 1;
  }
  const end = identEnd(css, i + 1);
  if (end >= 0) scan.token(T.AtKeyword, i, end, css.slice(i + 1, end), Fn.None);
  return end;
}

/**
 * The code unit at `i`, or -1 past the end, which is none of those the scan looks for. (`charCodeAt` past the end
 * is NaN, and V8 drops the function's optimized code the first time it reads there: "out of bounds".)
 */
function at(css: string, i: number): number {
  return i < css.length ? css.charCodeAt(i) : -1;
}

/** The end of the whitespace from `i`. */
function whitespaceEnd(css: string, i: number): number {
  while (isCssWhitespace(at(css, i))) i++;
  return i;
}

function isCssWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x0c;
}

/** https://drafts.csswg.org/css-syntax-3/#ident-start-code-point (a NUL and a surrogate are isHard's). */
function isIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x80 && isNonAsciiIdent(c));
}

/** https://drafts.csswg.org/css-syntax-3/#ident-code-point (a NUL and a surrogate are isHard's). */
function isName(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f || (c >= 0x80 && isNonAsciiIdent(c));
}

/**
 * https://drafts.csswg.org/css-syntax-3/#non-ascii-ident-code-point, of a code unit outside the surrogates (as
 * @csstools/css-tokenizer 4 reads it): U+00B7, U+00C0–U+00D6, U+00D8–U+00F6, U+00F8–U+037D, U+037F–U+1FFF,
 * U+200C, U+200D, U+203F, U+2040, U+2070–U+218F, U+2C00–U+2FEF, U+3001–U+D7FF, U+F900–U+FDCF, U+FDF0–U+FFFD.
 */
function isNonAsciiIdent(c: number): boolean {
  if (c < 0x2000) return c === 0xb7 || (c >= 0xc0 && c <= 0x37d && c !== 0xd7 && c !== 0xf7) || c >= 0x37f;
  return (
    c === 0x200c || c === 0x200d || c === 0x203f || c === 0x2040 || (c >= 0x2070 && c <= 0x218f) || (c >= 0x2c00 && c <= 0x2fef) ||
    (c >= 0x3001 && c <= 0xd7ff) || (c >= 0xf900 && c <= 0xfdcf) || (c >= 0xfdf0 && c <= 0xfffd)
  );
}

/** What the fast scan leaves to @csstools where a name may begin or go on: a backslash, NUL, a surrogate. */
function isHard(c: number): boolean {
  return c === 0x5c || c === 0 || (c >= 0xd800 && c <= 0xdfff);
}

/** https://drafts.csswg.org/css-syntax-3/#starts-with-a-number, at `i` (c: the code unit there). */
function startsNumber(css: string, i: number, c: number): boolean {
  const c1 = at(css, i + 1);
  if (c === 0x2b || c === 0x2d) return (c1 >= 0x30 && c1 <= 0x39) || (c1 === 0x2e && at(css, i + 2) >= 0x30 && at(css, i + 2) <= 0x39);
  if (c === 0x2e) return c1 >= 0x30 && c1 <= 0x39;
  return c >= 0x30 && c <= 0x39;
}

/** https://drafts.csswg.org/css-syntax-3/#would-start-an-identifier at `i`: 1 yes, 0 no, -1 left to @csstools. */
function startsIdent(css: string, i: number): number {
  const c = at(css, i);
  if (c === 0x2d) {
    const c1 = at(css, i + 1);
    if (c1 === 0x2d || isIdentStart(c1)) return 1;
    return isHard(c1) ? -1 : 0;
  }
  if (isIdentStart(c)) return 1;
  return isHard(c) ? -1 : 0;
}

/** The end of the ident sequence from `i` (https://drafts.csswg.org/css-syntax-3/#consume-name); -1: left to @csstools. */
function identEnd(css: string, i: number): number {
  let c = at(css, i);
  while (isName(c)) c = at(css, ++i);
  return isHard(c) ? -1 : i;
}

/** https://drafts.csswg.org/css-syntax-3/#consume-numeric-token from `start`; returns its end (-1: left to @csstools). */
function numeric(css: string, start: number, scan: UrlScan): number {
  let i = start;
  let c = at(css, i);
  if (c === 0x2b || c === 0x2d) c = at(css, ++i);
  while (c >= 0x30 && c <= 0x39) c = at(css, ++i);
  if (c === 0x2e && at(css, i + 1) >= 0x30 && at(css, i + 1) <= 0x39) {
    i += 2;
    c = at(css, i);
    while (c >= 0x30 && c <= 0x39) c = at(css, ++i);
  }
  if (c === 0x65 || c === 0x45) {
    const c1 = at(css, i + 1);
    if (c1 >= 0x30 && c1 <= 0x39) i += 2;
    else if ((c1 === 0x2b || c1 === 0x2d) && at(css, i + 2) >= 0x30 && at(css, i + 2) <= 0x39) i += 3;
    c = at(css, i);
    while (c >= 0x30 && c <= 0x39) c = at(css, ++i);
  }
  // A dimension's unit, or a percentage.
  const ident = startsIdent(css, i);
  if (ident < 0) return -1;
  const end = ident === 1 ? identEnd(css, i) : at(css, i) === 0x25 ? i + 1 : i;
  if (end >= 0) scan.other();
  return end;
}

/**
 * https://drafts.csswg.org/css-syntax-3/#consume-ident-like-token from `i`: an ident, a function (its name the
 * value), or url( and a url or bad-url token; returns the end (-1: left to @csstools).
 */
function identLike(css: string, i: number, scan: UrlScan): number {
  const nameEnd = identEnd(css, i);
  if (nameEnd < 0) return -1;
  if (at(css, nameEnd) !== 0x28) {
    scan.other();
    return nameEnd;
  }
  return functionOrUrl(css, i, nameEnd, scan);
}

/** A name from `i` to the "(" at `nameEnd`: a function token, or url( and a url or bad-url token; returns the end. */
function functionOrUrl(css: string, i: number, nameEnd: number, scan: UrlScan): number {
  if (nameEnd - i === 3 && (at(css, i) | 0x20) === 0x75 && (at(css, i + 1) | 0x20) === 0x72 && (at(css, i + 2) | 0x20) === 0x6c) {
    let h = nameEnd + 1;
    while (isCssWhitespace(at(css, h))) h++;
    const q = at(css, h);
    // url( then a quote: a function token, the whitespace after it a token of its own.
    if (q !== 0x22 && q !== 0x27) return url(css, i, h, scan);
  }
  scan.token(T.Function, i, nameEnd + 1, '', functionKind(css, i, nameEnd));
  return nameEnd + 1;
}

/** https://drafts.csswg.org/css-syntax-3/#consume-url-token: the token from `start`, its value from `h`. */
function url(css: string, start: number, h: number, scan: UrlScan): number {
  const from = h;
  for (;;) {
    if (h >= css.length) {
      scan.token(T.Url, start, css.length, css.slice(from, h), Fn.None);
      return css.length;
    }
    const c = css.charCodeAt(h);
    if (c === 0x29) {
      scan.token(T.Url, start, h + 1, css.slice(from, h), Fn.None);
      return h + 1;
    }
    if (isCssWhitespace(c)) {
      const valueEnd = h;
      while (isCssWhitespace(at(css, h))) h++;
      if (h >= css.length) {
        scan.token(T.Url, start, css.length, css.slice(from, valueEnd), Fn.None);
        return css.length;
      }
      if (at(css, h) === 0x29) {
        scan.token(T.Url, start, h + 1, css.slice(from, valueEnd), Fn.None);
        return h + 1;
      }
      return badUrl(css, start, h, scan);
    }
    // A quote, "(" or a non-printable code point: a bad url (https://infra.spec.whatwg.org/#non-printable).
    if (c === 0x22 || c === 0x27 || c === 0x28 || c <= 0x08 || c === 0x0b || (c >= 0x0e && c <= 0x1f) || c === 0x7f) return badUrl(css, start, h, scan);
    // An escape, or a surrogate (U+FFFD when lone): @csstools'.
    if (c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return -1;
    h++;
  }
}

/** https://drafts.csswg.org/css-syntax-3/#consume-the-remnants-of-a-bad-url, up to ")" or the end. */
function badUrl(css: string, start: number, h: number, scan: UrlScan): number {
  const close = css.indexOf(')', h);
  const end = close === -1 ? css.length : close + 1;
  // An escape may hide a ")": @csstools'.
  const backslash = css.indexOf('\\', h);
  if (backslash !== -1 && backslash < end) return -1;
  scan.other();
  return end;
}

/**
 * https://drafts.csswg.org/css-syntax-3/#consume-string-token from the quote at `i`; returns its end. Its value
 * is the text between the quotes unless it holds an escape, NUL or surrogate (`stringValue`).
 */
function string(css: string, i: number, quote: number, scan: UrlScan): number {
  let plain = true;
  for (let h = i + 1; h < css.length; h++) {
    const c = css.charCodeAt(h);
    if (c === quote) {
      scan.token(T.String, i, h + 1, plain ? css.slice(i + 1, h) : stringValue(css, i + 1, h), Fn.None);
      return h + 1;
    }
    // A newline: a bad string, up to it (the newline is whitespace that follows).
    if (c === 0x0a || c === 0x0d || c === 0x0c) {
      scan.other();
      return h;
    }
    if (c === 0 || (c >= 0xd800 && c <= 0xdfff)) plain = false;
    else if (c === 0x5c) {
      // https://drafts.csswg.org/css-syntax-3/#consume-escaped-code-point, or an escaped newline (CR LF as one).
      plain = false;
      const n = at(css, h + 1);
      if (h + 1 >= css.length) break;
      if (n === 0x0d && at(css, h + 2) === 0x0a) h += 2;
      else if (isHexDigit(n)) {
        let k = h + 2;
        while (k < h + 7 && isHexDigit(at(css, k))) k++;
        if (at(css, k) === 0x0d && at(css, k + 1) === 0x0a) k += 2;
        else if (isCssWhitespace(at(css, k))) k++;
        h = k - 1;
      } else h += 1;
    }
  }
  scan.token(T.String, i, css.length, plain ? css.slice(i + 1) : stringValue(css, i + 1, css.length), Fn.None);
  return css.length;
}

/**
 * The value of a string token whose text [from, to) (between its quotes) holds an escape, NUL or surrogate, as
 * @csstools builds it: an escaped newline is nothing, an escape is its code point (U+FFFD for 0, a surrogate or
 * past U+10FFFF), NUL and a lone surrogate are U+FFFD, a surrogate pair is kept.
 */
function stringValue(css: string, from: number, to: number): string {
  let value = '';
  for (let h = from; h < to; ) {
    const c = css.charCodeAt(h);
    if (c !== 0x5c) {
      if (c === 0) value += '\ufffd';
      else if (c >= 0xd800 && c <= 0xdfff) {
        const cp = css.codePointAt(h)!;
        if (cp >= 0x10000) {
          value += String.fromCodePoint(cp);
          h++;
        } else value += '\ufffd';
      } else value += css[h];
      h++;
      continue;
    }
    h++;
    if (h >= to) break;
    const n = css.codePointAt(h)!;
    if (n === 0x0a || n === 0x0c || n === 0x0d) {
      h += n === 0x0d && at(css, h + 1) === 0x0a ? 2 : 1;
      continue;
    }
    h += n > 0xffff ? 2 : 1;
    if (isHexDigit(n)) {
      let hex = String.fromCharCode(n);
      while (hex.length < 6 && isHexDigit(at(css, h))) hex += css[h++];
      const w = at(css, h);
      if (w === 0x0d && at(css, h + 1) === 0x0a) h += 2;
      else if (isCssWhitespace(w)) h++;
      const cp = parseInt(hex, 16);
      value += cp === 0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ? '\ufffd' : String.fromCodePoint(cp);
    } else value += n === 0 || (n >= 0xd800 && n <= 0xdfff) ? '\ufffd' : String.fromCodePoint(n);
  }
  return value;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
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
  const bodyStart = tokenBodyStart(source, 0, source.length);
  const bodyEnd = tokenBodyEnd(source, 0, source.length, bodyStart);
  const quote = source[0];
  // NOTE: a hex escape's terminating space (`\41 `) may land in the kept suffix; it is then trailing whitespace.
  return source.slice(0, bodyStart) + (quote === '"' || quote === "'" ? escapeStringBody(url, quote) : escapeUrlTokenBody(url)) + source.slice(bodyEnd);
}

/**
 * Where the URL of a reference's string or url-token css[start, end) is written (what replacementText replaces):
 * after a string's quote; after a url-token's `name(` and the whitespace after it
 * (https://drafts.csswg.org/css-syntax-3/#consume-url-token: name "(" whitespace* body whitespace* ")").
 * Not for a source-map comment. @internal (and the HTML rewriter's, which splices a prefix in place of the head)
 */
export function tokenBodyStart(css: string, start: number, end: number): number {
  const open = css.charCodeAt(start);
  if (open === 0x22 || open === 0x27) return start + 1;
  const paren = css.indexOf('(', start);
  let bodyStart = paren === -1 || paren >= end ? start : paren + 1;
  while (bodyStart < end && isWhitespace(css.charCodeAt(bodyStart))) bodyStart++;
  return bodyStart;
}

/** The end of the body tokenBodyStart gives the start of: before a closing quote, or before whitespace and ")" (an open token has none). @internal */
export function tokenBodyEnd(css: string, start: number, end: number, bodyStart: number): number {
  const open = css.charCodeAt(start);
  if (open === 0x22 || open === 0x27) return end - start > 1 && css.charCodeAt(end - 1) === open && !isEscaped(css, start, end - 1) ? end - 1 : end;
  let bodyEnd = end;
  if (end > start && css.charCodeAt(end - 1) === 0x29 && !isEscaped(css, start, end - 1)) bodyEnd--;
  while (bodyEnd > bodyStart && isWhitespace(css.charCodeAt(bodyEnd - 1)) && !isEscaped(css, start, bodyEnd - 1)) bodyEnd--;
  return bodyEnd;
}

const SOURCE_MAP_COMMENT = /^\/\*[#@][ \t]sourceMappingURL=([^\s*]+)[ \t\r\n]*\*\/$/;

/** True if css[index] follows an odd run of backslashes within css[from…] (https://drafts.csswg.org/css-syntax-3/#escaping). */
function isEscaped(css: string, from: number, index: number): boolean {
  let backslashes = 0;
  while (index - backslashes - 1 >= from && css.charCodeAt(index - backslashes - 1) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}

const BARE_CR = /\r(?!\n)/;

/**
 * Line and column of increasing offsets into `css`, counting CSS newlines
 * (https://drafts.csswg.org/css-syntax-3/#input-preprocessing: CR LF, CR, FF and LF each end a line). Made at
 * the first reference: text with none needs no look at its line ends.
 */
class LineCounter {
  /** The line of the offset last given to `advance`, and the offset its line starts at. */
  line = 1;
  lineStart = 0;
  private scanned = 0;
  private readonly css: string;
  private readonly lfOnly: boolean;

  constructor(css: string) {
    this.css = css;
    // Most stylesheets end their lines with LF or CR LF, never a bare CR or FF: their lines are counted by
    // indexOf of LF (a CR LF ends its line at the LF, as below).
    this.lfOnly = css.indexOf('\f') === -1 && !BARE_CR.test(css);
  }

  advance(offset: number): void {
    const css = this.css;
    if (this.lfOnly) {
      for (let lf = css.indexOf('\n', this.scanned); lf !== -1 && lf < offset; lf = css.indexOf('\n', lf + 1)) {
        this.line++;
        this.lineStart = lf + 1;
      }
      if (offset > this.scanned) this.scanned = offset;
      return;
    }
    for (; this.scanned < offset; this.scanned++) {
      const c = css.charCodeAt(this.scanned);
      if (c === 0x0d && at(css, this.scanned + 1) === 0x0a) this.scanned++;
      if (c === 0x0a || c === 0x0c || c === 0x0d) {
        this.line++;
        this.lineStart = this.scanned + 1;
      }
    }
  }
}

/**
 * Type feedback for every branch of the scan before V8 optimizes it. V8 compiles a function for the branches it
 * has seen run; a branch first taken later (an at-keyword, a CDO, a string in image-set()) throws the compiled
 * code away, and the scan was compiled again 5–8 times on the mbox bench (docs/performance.md). Before the first
 * scan, `warmUp` scans text that takes every branch: ~1.7 ms, once (a process without CSS never pays it).
 */
const WARM_UP = [
  '@charset "x";/*# sourceMappingURL=a.map */@import url(a.css);@import "b\\41 .css" screen;@namespace svg url(http://x);',
  '<!-- a{b:url( c.png );c:url("d")url(e f)url(g\'h)src("i")image-set("j" 1x,\'k\' 2x)-webkit-image-set(url(l) 1x)}-->',
  '#m .n>o+p~q[r="s"]{t:-1.5e+3px +.5% 7E2 5- 6-7 -u --w #x #- @y @ 1e 2e-a "\\\r\n\\\n\\\\\\"" \'\x00\ud800\'}',
  'u {\n  v: 1\r2\f3;\r\n  w: 12.25e+10 "\\aF \\Bc\\0a\\3000\t\\d\r\n" "bad\nx:url(bad"url)y:z;',
].join('');

let warmedUp = false;

function warmUp(): void {
  warmedUp = true;
  // V8 keeps feedback for a function from its 9th call: first short text that calls every function of the scan.
  for (let k = 0; k < 9; k++) scanCssFast('@a #b -c 1 .2 +3% 4e5 <!-- --> /**/ "d" url(e) f(g) {h:url("i")}');
  // The text as it is, and cut short (open tokens at the end) as a declaration list.
  scanCssFast(WARM_UP);
  scanCssFast(WARM_UP.slice(0, -7), { context: 'declarations' });
}
