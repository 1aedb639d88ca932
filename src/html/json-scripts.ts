/**
 * The URLs inside `<script type=importmap>` and `<script type=speculationrules>` JSON, with the offsets of their
 * string tokens, so that only those tokens are replaced and every other byte of the JSON is kept.
 *
 * NOTE: a small JSON parser is written here because JSON.parse gives no offsets, and the maintained parsers
 * that do (jsonc-parser) accept comments and trailing commas, which the HTML standard's "parse a JSON string
 * to an Infra value" does not: an invalid map must be left exactly as it is.
 */

/** A JSON string token: its value and the offsets of the token, quotes included. */
export interface JsonStringToken {
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

type JsonNode =
  | { readonly kind: 'object'; readonly members: ReadonlyArray<{ readonly key: JsonStringToken; readonly value: JsonNode }> }
  | { readonly kind: 'array'; readonly items: readonly JsonNode[] }
  | ({ readonly kind: 'string' } & JsonStringToken)
  | { readonly kind: 'other' };

class JsonSyntaxError extends Error {}

/** Parses JSON (RFC 8259) into nodes that keep their string tokens' offsets; null if it is not valid JSON. */
export function parseJsonWithOffsets(text: string): JsonNode | null {
  let pos = 0;
  const n = text.length;
  const fail = (): never => {
    throw new JsonSyntaxError();
  };
  const ws = (): void => {
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
      else break;
    }
  };
  const string = (): JsonStringToken => {
    const start = pos;
    if (text.charCodeAt(pos) !== 0x22) fail();
    pos++;
    let value = '';
    let run = pos;
    for (;;) {
      if (pos >= n) fail();
      const c = text.charCodeAt(pos);
      if (c === 0x22) break;
      if (c < 0x20) fail();
      if (c === 0x5c) {
        value += text.slice(run, pos);
        const e = text[pos + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && simple[e] !== undefined) {
          value += simple[e];
          pos += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
          value += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
          pos += 6;
        } else fail();
        run = pos;
      } else pos++;
    }
    value += text.slice(run, pos);
    pos++;
    return { value, start, end: pos };
  };
  const node = (): JsonNode => {
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const members: Array<{ key: JsonStringToken; value: JsonNode }> = [];
      ws();
      if (text[pos] === '}') {
        pos++;
        return { kind: 'object', members };
      }
      for (;;) {
        ws();
        const key = string();
        ws();
        if (text[pos] !== ':') fail();
        pos++;
        members.push({ key, value: node() });
        ws();
        if (text[pos] === ',') pos++;
        else if (text[pos] === '}') {
          pos++;
          return { kind: 'object', members };
        } else fail();
      }
    }
    if (c === '[') {
      pos++;
      const items: JsonNode[] = [];
      ws();
      if (text[pos] === ']') {
        pos++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(node());
        ws();
        if (text[pos] === ',') pos++;
        else if (text[pos] === ']') {
          pos++;
          return { kind: 'array', items };
        } else fail();
      }
    }
    if (c === '"') return { kind: 'string', ...string() };
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(pos, pos + 400));
    if (literal === null) fail();
    pos += literal![0].length;
    return { kind: 'other' };
  };
  try {
    const root = node();
    ws();
    return pos === n ? root : null;
  } catch (err) {
    if (err instanceof JsonSyntaxError) return null;
    throw err;
  }
}

/** https://html.spec.whatwg.org/multipage/webappapis.html#resolving-a-url-like-module-specifier: "/", "./", "../". */
function isUrlLike(specifier: string): boolean {
  return specifier.startsWith('/') || specifier.startsWith('./') || specifier.startsWith('../');
}

function member(node: JsonNode, name: string): JsonNode | undefined {
  return node.kind === 'object' ? node.members.find((m) => m.key.value === name)?.value : undefined;
}

/** A specifier map: URL-like keys (https://html.spec.whatwg.org/multipage/webappapis.html#normalizing-a-specifier-key) and URL-like addresses. */
function specifierMapUrls(map: JsonNode | undefined, out: JsonStringToken[]): void {
  if (map?.kind !== 'object') return;
  for (const { key, value } of map.members) {
    if (isUrlLike(key.value)) out.push(key);
    if (value.kind === 'string' && isUrlLike(value.value)) out.push(value);
  }
}

/**
 * https://html.spec.whatwg.org/multipage/webappapis.html#parse-an-import-map-string: the string tokens that are
 * resolved against the document base — URL-like keys and addresses of "imports" and of each scope, the scope
 * prefixes (keys of "scopes", URL-parsed whatever their form), and URL-like keys of "integrity". In document
 * order. Null if the text is not valid JSON.
 */
export function findImportMapUrls(json: string): JsonStringToken[] | null {
  const root = parseJsonWithOffsets(json);
  if (root === null) return null;
  const out: JsonStringToken[] = [];
  specifierMapUrls(member(root, 'imports'), out);
  const scopes = member(root, 'scopes');
  if (scopes?.kind === 'object') {
    for (const { key, value } of scopes.members) {
      out.push(key);
      specifierMapUrls(value, out);
    }
  }
  const integrity = member(root, 'integrity');
  if (integrity?.kind === 'object') for (const { key } of integrity.members) if (isUrlLike(key.value)) out.push(key);
  return out.sort((a, b) => a.start - b.start);
}

/**
 * https://wicg.github.io/nav-speculation/speculation-rules.html#parse-a-speculation-rule: the strings of every
 * "urls" list (list rules), resolved against the document base for an inline script.
 * NOTE: "href_matches" URL patterns are left alone: a pattern is not a URL, and its relative forms are
 * resolved lazily against the document base by the URL Pattern standard's own rules.
 */
export function findSpeculationRulesUrls(json: string): JsonStringToken[] | null {
  const root = parseJsonWithOffsets(json);
  if (root === null) return null;
  const out: JsonStringToken[] = [];
  if (root.kind !== 'object') return out;
  for (const { value: rules } of root.members) {
    if (rules.kind !== 'array') continue;
    for (const rule of rules.items) {
      const urls = member(rule, 'urls');
      if (urls?.kind === 'array') for (const u of urls.items) if (u.kind === 'string') out.push(u);
    }
  }
  return out;
}
