/**
 * The URL references of a JavaScript module that resolve against the module's own URL, found with
 * es-module-lexer (the lexer Vite and Node tooling use; a wasm build of a real ECMAScript lexer, so strings,
 * comments, regular expressions and templates are told apart as an engine does). Never a regex over JavaScript.
 *
 * - static `import … from "s"`, `import "s"`, `export … from "s"`: the specifier
 *   (https://html.spec.whatwg.org/multipage/webappapis.html#resolve-a-module-specifier);
 * - `import("s")` with a string literal (or a template literal with no substitution);
 * - `new URL("s", import.meta.url)`: the lexer gives `import.meta`; the tokens around it are checked here
 *   (`new URL (` string `,` `import.meta` `.url` `)` with only whitespace between).
 * Only URL-like specifiers ("/", "./", "../") are rewritten: bare specifiers are resolved by an import map, and an
 * absolute URL is left as written. `new URL`'s first argument is any URL: every relative reference is rewritten.
 * A script with no module syntax (no import, export or import.meta) may be a classic script: only its literal
 * `import()` calls are rewritten, which resolve against the script's URL in a classic script too (the HTML
 * standard's "script base URL" of an external classic script is its URL; kinds-agreement checks it in Chromium).
 * Nothing else in it is a reference: `fetch('./x')`, `location = 'y'` and the like are strings, never rewritten.
 * The lexer needs no `await`: `findModuleReferences` is synchronous (see moduleLexer).
 */
import { createRequire } from 'node:module';

type Lexer = typeof import('es-module-lexer');
let lexer: Lexer | null = null;
/**
 * The lexer, loaded on first use (the CommonJS build, whose `parse` instantiates its wasm synchronously when
 * `init` has not run): documents without scripts never load it.
 */
function moduleLexer(): Lexer {
  return (lexer ??= createRequire(import.meta.url)('es-module-lexer') as Lexer);
}

export interface ScriptReference {
  readonly kind: 'import' | 'dynamic-import' | 'new-url' | 'source-map';
  /** The URL as the script means it (string escapes undone). */
  readonly value: string;
  /** Offsets of the text a new URL replaces: a string literal with its quotes (a comment's URL for source maps). */
  readonly start: number;
  readonly end: number;
  /** The quote of the literal (`"`, `'` or a backquote), or '' for a source-map comment. */
  readonly quote: string;
}

/** Loads the lexer's wasm once. */
export function initModuleLexer(): Promise<void> {
  return moduleLexer().init();
}

/** https://html.spec.whatwg.org/multipage/webappapis.html#resolving-a-url-like-module-specifier */
export function isUrlLikeSpecifier(specifier: string): boolean {
  return specifier.startsWith('/') || specifier.startsWith('./') || specifier.startsWith('../');
}

/**
 * The references of a module script, in source order, or null if the lexer cannot read it (a syntax error):
 * such a script is left as it is. `initModuleLexer()` must have resolved.
 */
export function findModuleReferences(source: string): ScriptReference[] | null {
  let imports;
  let hasModuleSyntax: boolean;
  try {
    [imports, , , hasModuleSyntax] = moduleLexer().parse(source);
  } catch {
    return null;
  }
  const out: ScriptReference[] = [];
  {
    for (const i of imports) {
      if (!hasModuleSyntax && i.type !== 'dynamic') continue;
      if (i.type === 'static' || i.type === 'reexport-star') {
        if ('typeOnly' in i && i.typeOnly) continue;
        if (i.phase !== null || !isUrlLikeSpecifier(i.specifier)) continue;
        // Static specifiers: start/end are inside the quotes.
        const quote = source[i.start - 1]!;
        if ((quote !== '"' && quote !== "'") || source[i.end] !== quote) continue;
        out.push({ kind: 'import', value: i.specifier, start: i.start - 1, end: i.end + 1, quote });
      } else if (i.type === 'dynamic') {
        if (i.specifier === undefined || i.glob || i.phase !== null || !isUrlLikeSpecifier(i.specifier)) continue;
        // Dynamic: start/end span the argument expression, a literal with its quotes.
        const quote = source[i.start]!;
        if ((quote !== '"' && quote !== "'" && quote !== '`') || source[i.end - 1] !== quote || i.end - i.start < 2) continue;
        out.push({ kind: 'dynamic-import', value: i.specifier, start: i.start, end: i.end, quote });
      } else if (i.type === 'import-meta') {
        const literal = newUrlLiteral(source, i.start, i.end);
        if (literal !== null) out.push(literal);
      }
    }
  }
  const map = sourceMappingUrl(source);
  if (map !== null) out.push(map);
  return out.sort((a, b) => a.start - b.start);
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029;
const isIdent = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x24 || c === 0x5f || c > 0x7f;

/**
 * `new URL(<literal>, import.meta.url)` around the `import.meta` at [metaStart, metaEnd): the first argument's
 * literal, or null if the tokens are anything else (then nothing is rewritten: a comment between the tokens, a
 * computed first argument, a third argument).
 */
function newUrlLiteral(source: string, metaStart: number, metaEnd: number): ScriptReference | null {
  // Forward: ".url" then ")" (a trailing comma is allowed: `new URL(a, import.meta.url,)`).
  let p = skipSpace(source, metaEnd);
  if (source.slice(p, p + 4) !== '.url' || isIdent(source.charCodeAt(p + 4))) return null;
  p = skipSpace(source, p + 4);
  if (source[p] === ',') p = skipSpace(source, p + 1);
  if (source[p] !== ')') return null;
  // Backward: "," then the literal, "(", "URL", "new".
  let q = skipSpaceBack(source, metaStart);
  if (source[q - 1] !== ',') return null;
  q = skipSpaceBack(source, q - 1);
  const end = q;
  const quote = source[end - 1];
  if (quote !== '"' && quote !== "'" && quote !== '`') return null;
  let start = -1;
  for (let k = end - 2; k >= 0; k--) {
    const c = source.charCodeAt(k);
    if (c === 0x0a || c === 0x0d) {
      if (quote !== '`') return null;
    }
    if (source[k] === quote) {
      let backslashes = 0;
      while (k - backslashes - 1 >= 0 && source[k - backslashes - 1] === '\\') backslashes++;
      if (backslashes % 2 === 0) {
        start = k;
        break;
      }
    }
  }
  if (start < 0) return null;
  const body = source.slice(start + 1, end - 1);
  if (quote === '`' && body.includes('${')) return null;
  const value = decodeStringLiteralBody(body);
  if (value === null) return null;
  let r = skipSpaceBack(source, start);
  if (source[r - 1] !== '(') return null;
  r = skipSpaceBack(source, r - 1);
  if (source.slice(r - 3, r) !== 'URL' || isIdent(source.charCodeAt(r - 4))) return null;
  r = skipSpaceBack(source, r - 3);
  if (source.slice(r - 3, r) !== 'new' || (r - 4 >= 0 && (isIdent(source.charCodeAt(r - 4)) || source[r - 4] === '.'))) return null;
  return { kind: 'new-url', value, start, end, quote };
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

function skipSpaceBack(s: string, i: number): number {
  while (i > 0 && isSpace(s.charCodeAt(i - 1))) i--;
  return i;
}

/** https://tc39.es/ecma262/#sec-literals-string-literals: the escapes a URL literal may hold; null for others. */
function decodeStringLiteralBody(body: string): string | null {
  if (!body.includes('\\')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0', "'": "'", '"': '"', '\\': '\\', '`': '`' };
    if (e === undefined) return null;
    if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(body.slice(i + 1, i + 3))) {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(body.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 5), 16));
      i += 4;
    } else if (simple[e] !== undefined && !(e === '0' && /[0-9]/.test(body[i + 1] ?? ''))) out += simple[e];
    else if (e === '\n') continue; // a line continuation
    else return null;
  }
  return out;
}

/**
 * A JavaScript string literal for `value` in the given quotes: backslash, the quote, line terminators and (in a
 * template) "${" escaped.
 */
export function javaScriptStringLiteral(value: string, quote: string): string {
  let body = value.replace(/[\\\n\r\u2028\u2029]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\u2028' ? '\\u2028' : '\\u2029'));
  body = body.split(quote).join(`\\${quote}`);
  if (quote === '`') body = body.replace(/\$\{/g, '\\${');
  return quote + body + quote;
}

/**
 * The `//# sourceMappingURL=` comment (ECMA-426 "extract a source map URL from JavaScript without parsing"):
 * the last lines of the script, read from the end, may be whitespace or single-line comments; the last such
 * comment of the form `//# sourceMappingURL=URL` (or the legacy `//@`) names the source map, resolved against the
 * script's URL. Anything else on those lines stops the search.
 */
export function sourceMappingUrl(source: string): ScriptReference | null {
  let end = source.length;
  while (end > 0) {
    let start = end;
    while (start > 0 && !isLineTerminator(source.charCodeAt(start - 1))) start--;
    const line = source.slice(start, end);
    const lead = line.length - line.trimStart().length;
    const text = line.trim();
    if (text !== '') {
      if (!text.startsWith('//')) return null;
      const m = /^\/\/[#@][ \t]sourceMappingURL=([^\s'"]*)/.exec(text);
      if (m !== null) {
        if (m[1] === '') return null;
        const at = start + lead + m[0].length - m[1]!.length;
        return { kind: 'source-map', value: m[1]!, start: at, end: at + m[1]!.length, quote: '' };
      }
    }
    end = start - 1;
    if (end > 0 && source.charCodeAt(end) === 0x0a && source.charCodeAt(end - 1) === 0x0d) end--;
  }
  return null;
}

function isLineTerminator(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}
