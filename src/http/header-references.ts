/**
 * The URL references an HTTP response carries in its header fields (issue 22): every target and `anchor` of
 * `Link` (RFC 8288), the URL of `Refresh` (the HTML standard's shared declarative refresh steps, as for
 * `<meta http-equiv=refresh>`), and `Content-Location` (RFC 9110 §8.7). Pure functions over the bytes of a
 * header block, so that any container can use them: a live response (src/cli/fetch-command.ts) and a WARC
 * record's HTTP headers alike.
 *
 * - `findHeaderReferences(block)`: each reference with its byte span in the block.
 * - `rewriteHeaderReferences(block, options)`: the block with each relative reference replaced by its absolute
 *   form; every other byte as it was (a block with nothing to rewrite comes out identical).
 *
 * The base of every header reference is the response's own URL (the retrieval URL: after redirects, or a WARC
 * record's `WARC-Target-URI`): RFC 8288 §3.2 "any base IRI appearing in the message's content is not applied";
 * RFC 9110 §8.7 resolves Content-Location "relative to the target URI"; Chromium handles a `Refresh` header
 * when the document is created, before any `<base>` could be parsed.
 *
 * Field values are read as UTF-8 when they are valid UTF-8, else as Latin-1 (one character a byte), as
 * Chromium reads `Location` and `Refresh`; a replacement is written back in the same encoding.
 */
import type { BaseSource } from '../base/base.ts';
import { ReferencePolicy } from '../base/reference-policy.ts';
import type { ReferenceRecord, SiteWarning } from '../base/reference-policy.ts';
import { parseMetaRefresh } from '../html/microsyntax.ts';
import { browserResolver } from '../uri/browser.ts';
import type { Resolver } from '../uri/types.ts';

/** The header fields that carry references, as reported in link reports' `attribute`. */
export type HeaderReferenceField = 'Link' | 'Refresh' | 'Content-Location';

/** One reference in a header block. */
export interface HeaderReference {
  readonly field: HeaderReferenceField;
  /** For `Link`: the link's target, or its `anchor` parameter (the link's context). */
  readonly role: 'target' | 'anchor' | 'value';
  /** The reference as the field means it (quoted-string escapes undone; text decoded as described above). */
  readonly value: string;
  /** Byte offsets in the block of the text a new URL replaces (quotes included where the value is quoted). */
  readonly start: number;
  readonly end: number;
  /** 1-based line of the field in the block (the status line, if given, is line 1), and byte column of `start`. */
  readonly line: number;
  readonly column: number;
  /** For `Link`: the link's `rel` parameter (the first), when it has one. */
  readonly rel?: string | undefined;
  /** The text (before encoding) that replaces [start, end) for an absolute URL `href`. */
  serialize(href: string): string;
  /** How the field value was read, and so how a replacement is encoded. */
  readonly encoding: 'utf-8' | 'latin1';
}

/** The lower-case field names read, and how they are reported. */
const FIELDS: ReadonlyMap<string, HeaderReferenceField> = new Map([
  ['link', 'Link'],
  ['refresh', 'Refresh'],
  ['content-location', 'Content-Location'],
]);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Every reference in `block`: the header fields of an HTTP message, one a line (CRLF or LF), optionally
 * preceded by the status line and followed by the empty line that ends them (reading stops there). A folded
 * field (obs-fold, RFC 9112 §5.2) is one value with its line breaks read as whitespace.
 */
export function findHeaderReferences(block: Uint8Array): HeaderReference[] {
  const bytes = Buffer.from(block.buffer, block.byteOffset, block.byteLength);
  const references: HeaderReference[] = [];
  for (const field of headerFields(bytes)) {
    const kind = FIELDS.get(field.name.toLowerCase());
    if (kind === undefined) continue;
    const raw = bytes.subarray(field.valueStart, field.valueEnd);
    let text: string;
    let encoding: 'utf-8' | 'latin1' = 'utf-8';
    try {
      text = utf8.decode(raw);
    } catch {
      text = raw.toString('latin1');
      encoding = 'latin1';
    }
    // Offsets in `text` (UTF-16 code units) to byte offsets in the block.
    const byteAt = (i: number): number => field.valueStart + (encoding === 'latin1' ? i : Buffer.byteLength(text.slice(0, i), 'utf8'));
    const add = (role: HeaderReference['role'], span: TextSpan, rel?: string): void => {
      const start = byteAt(span.start);
      references.push({ field: kind, role, value: span.value, start, end: byteAt(span.end), line: field.line, column: start - field.lineStart + 1, ...(rel === undefined ? {} : { rel }), serialize: span.serialize, encoding });
    };
    if (kind === 'Link') {
      for (const link of parseLinkValue(text)) {
        add('target', link.target, link.rel);
        if (link.anchor !== undefined) add('anchor', link.anchor, link.rel);
      }
    } else if (kind === 'Refresh') {
      const span = refreshUrl(text);
      if (span !== null) add('value', span);
    } else {
      const span = wholeValue(text);
      if (span !== null) add('value', span);
    }
  }
  return references;
}

export interface HeaderRewriteOptions {
  /** The response's URL (after redirects; a WARC record's `WARC-Target-URI`), or null when unknown. */
  readonly base: string | null;
  /** @default browserResolver */
  readonly resolver?: Resolver | undefined;
  /** What the base is, for the report. @default 'retrieval' */
  readonly baseSource?: BaseSource | undefined;
  /** Each reference, rewritten or not, as document rewriters report theirs (`element` is null: a header). */
  readonly onReference?: ((reference: HeaderReferenceRecord) => void) | undefined;
  readonly onWarning?: ((warning: SiteWarning) => void) | undefined;
}

/** A header reference as reported: a ReferenceRecord whose `element` is null and `attribute` the field name. */
export interface HeaderReferenceRecord extends Omit<ReferenceRecord, 'element' | 'attribute'> {
  readonly element: null;
  readonly attribute: HeaderReferenceField;
  /** `anchor` for a Link's anchor parameter; absent for a Link's target and the other fields. */
  readonly parameter?: 'anchor';
}

export interface HeaderRewriteResult {
  /** The block with every relative reference absolute; `block` itself (the same bytes) when none changed. */
  readonly output: Buffer;
  /** References replaced. */
  readonly rewritten: number;
  /** Every reference found. */
  readonly references: number;
}

/**
 * Rewrites the relative references of `block` (see findHeaderReferences) to absolute form against
 * `options.base`, with the same rules as documents (src/base/reference-policy.ts): absolute and fragment-only
 * references and empty values are left as written; one that cannot be resolved is left with a warning.
 */
export function rewriteHeaderReferences(block: Uint8Array, options: HeaderRewriteOptions): HeaderRewriteResult {
  const input = Buffer.isBuffer(block) ? block : Buffer.from(block.buffer, block.byteOffset, block.byteLength);
  const found = findHeaderReferences(input);
  if (found.length === 0) return { output: input, rewritten: 0, references: 0 };
  let current: HeaderReference = found[0]!;
  const policy = new ReferencePolicy(
    { url: options.base, source: options.base === null ? 'none' : (options.baseSource ?? 'retrieval'), raw: options.base, below: null, ignored: [] },
    {
      resolver: options.resolver ?? browserResolver,
      onReference: (r) => {
        const { element: _element, attribute: _attribute, rel: _rel, ...rest } = r;
        options.onReference?.({ ...rest, element: null, attribute: current.field, ...(current.rel === undefined ? {} : { rel: current.rel }), ...(current.role === 'anchor' ? { parameter: 'anchor' as const } : {}) });
      },
      onWarning: (w) => options.onWarning?.(w),
    },
  );
  const pieces: Buffer[] = [];
  let at = 0;
  let rewritten = 0;
  for (const ref of found) {
    current = ref;
    const href = policy.apply(ref.value, { element: '', attribute: ref.field, line: ref.line, column: ref.column });
    if (href === null) continue;
    pieces.push(input.subarray(at, ref.start), Buffer.from(ref.serialize(href), ref.encoding === 'utf-8' ? 'utf8' : 'latin1'));
    at = ref.end;
    rewritten++;
  }
  if (rewritten === 0) return { output: input, rewritten: 0, references: found.length };
  pieces.push(input.subarray(at));
  return { output: Buffer.concat(pieces), rewritten, references: found.length };
}

// ---- header fields ----

interface HeaderField {
  readonly name: string;
  /** Byte offsets of the value (without the OWS around it) in the block. */
  readonly valueStart: number;
  readonly valueEnd: number;
  readonly line: number;
  /** Byte offset of the start of the field's line. */
  readonly lineStart: number;
}

const isOws = (b: number): boolean => b === 0x20 || b === 0x09;

/** The fields of a header block (RFC 9112 §5): `name ":" OWS value OWS`, continuation lines folded in. */
function headerFields(bytes: Buffer): HeaderField[] {
  const fields: HeaderField[] = [];
  let pos = 0;
  let line = 0;
  let open: { name: string; valueStart: number; valueEnd: number; line: number; lineStart: number } | null = null;
  const close = (): void => {
    if (open !== null) {
      let end = open.valueEnd;
      // Trailing OWS (and the line breaks of a folded value) are not part of the value.
      while (end > open.valueStart && (isOws(bytes[end - 1]!) || bytes[end - 1] === 0x0d || bytes[end - 1] === 0x0a)) end--;
      fields.push({ ...open, valueEnd: end });
    }
    open = null;
  };
  while (pos < bytes.length) {
    line++;
    const nl = bytes.indexOf(0x0a, pos);
    const lineEnd = nl === -1 ? bytes.length : nl;
    const contentEnd = lineEnd > pos && bytes[lineEnd - 1] === 0x0d ? lineEnd - 1 : lineEnd;
    const lineStart = pos;
    pos = nl === -1 ? bytes.length : nl + 1;
    if (contentEnd === lineStart) break; // the empty line: the end of the header block
    if (line === 1 && bytes.subarray(lineStart, lineStart + 5).toString('latin1') === 'HTTP/') continue; // the status line
    if (isOws(bytes[lineStart]!)) {
      // obs-fold: the value goes on.
      if (open !== null) open.valueEnd = contentEnd;
      continue;
    }
    close();
    const colon = bytes.indexOf(0x3a, lineStart);
    if (colon === -1 || colon >= contentEnd) continue; // not a field line: nothing to read in it
    let valueStart = colon + 1;
    while (valueStart < contentEnd && isOws(bytes[valueStart]!)) valueStart++;
    open = { name: bytes.subarray(lineStart, colon).toString('latin1').trim(), valueStart, valueEnd: contentEnd, line, lineStart };
  }
  close();
  return fields;
}

// ---- field values ----

/** A reference in a field value: offsets in the decoded text, the value meant, and how to write a new one. */
interface TextSpan {
  readonly start: number;
  readonly end: number;
  readonly value: string;
  serialize(href: string): string;
}

const asIs = (href: string): string => href;

/** OWS, and the line breaks of a folded value, which read as whitespace. */
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';

export interface ParsedLink {
  readonly target: TextSpan;
  readonly anchor?: TextSpan | undefined;
  readonly rel?: string | undefined;
}

/**
 * RFC 8288 Appendix B.2 "Parsing a Link Field Value", B.3 "Parsing Parameters" and B.4 "Parsing a Quoted String",
 * keeping the offsets of each target and `anchor` value. One field value may hold several links (`#link-value`).
 */
export function parseLinkValue(text: string): ParsedLink[] {
  const links: ParsedLink[] = [];
  const n = text.length;
  let pos = 0;
  const skipOws = (): void => {
    while (pos < n && isSpace(text[pos])) pos++;
  };
  // 3. While field_value has content:
  while (pos < n) {
    // 3.1 Consume any leading OWS. (The "," between link-values is consumed here too: B.3 step 12 stops
    // before it, and a list may hold empty elements, RFC 9110 §5.6.1.)
    while (pos < n && (isSpace(text[pos]) || text[pos] === ',')) pos++;
    if (pos >= n) break;
    // 3.2 If the first character is not "<", return links.
    if (text[pos] !== '<') return links;
    // 3.3–3.4 Discard "<"; consume up to the first ">": target_string.
    const targetStart = pos + 1;
    const close = text.indexOf('>', targetStart);
    // 3.5 If the next character is not ">", return links.
    if (close === -1) return links;
    const target: TextSpan = { start: targetStart, end: close, value: text.slice(targetStart, close), serialize: asIs };
    pos = close + 1;
    // 3.7 link_parameters (B.3).
    let anchor: TextSpan | undefined;
    let rel: string | undefined;
    for (;;) {
      // B.3 2.1–2.3: OWS, then ";" or return.
      skipOws();
      if (text[pos] !== ';') break;
      pos++;
      // 2.4–2.5: OWS; the name, up to BWS, "=", ";" or ",".
      skipOws();
      const nameStart = pos;
      while (pos < n && !isSpace(text[pos]) && text[pos] !== '=' && text[pos] !== ';' && text[pos] !== ',') pos++;
      const name = text.slice(nameStart, pos).toLowerCase();
      // 2.6 BWS.
      skipOws();
      let value = '';
      let span: TextSpan | null = null;
      // 2.7 "=" then a quoted string or a token.
      if (text[pos] === '=') {
        pos++;
        skipOws();
        if (text[pos] === '"') {
          const q = parseQuotedString(text, pos);
          value = q.value;
          span = { start: pos, end: q.end, value, serialize: quoteIfNeeded };
          pos = q.end;
        } else {
          const start = pos;
          while (pos < n && text[pos] !== ';' && text[pos] !== ',') pos++;
          let end = pos;
          while (end > start && isSpace(text[end - 1])) end--;
          value = text.slice(start, end);
          span = { start, end, value, serialize: tokenOrQuoted };
        }
      }
      // 2.10 Append (parameter_name, parameter_value): the first of each name is the one used (B.2 steps 9, 11).
      if (name === 'anchor' && anchor === undefined && span !== null) anchor = span;
      if (name === 'rel' && rel === undefined) rel = value;
      // 2.11–2.12 OWS; "," or the end stops the parameters.
      skipOws();
      if (pos >= n || text[pos] === ',') break;
    }
    links.push({ target, ...(anchor === undefined ? {} : { anchor }), ...(rel === undefined ? {} : { rel }) });
  }
  return links;
}

/** RFC 8288 B.4 from `text[start]` (a DQUOTE): the value, and the offset after the closing quote (or the end). */
function parseQuotedString(text: string, start: number): { value: string; end: number } {
  let value = '';
  let pos = start + 1;
  while (pos < text.length) {
    const c = text[pos]!;
    if (c === '\\') {
      pos++;
      if (pos >= text.length) break;
      value += text[pos++];
    } else if (c === '"') return { value, end: pos + 1 };
    else {
      value += c;
      pos++;
    }
  }
  return { value, end: pos };
}

/** A quoted-string holding `href` (RFC 9110 §5.6.4): `\` and `"` escaped. */
function quoteIfNeeded(href: string): string {
  return `"${href.replace(/[\\"]/g, '\\$&')}"`;
}

/** `href` as a token value if it can be one (it holds no ";", "," or whitespace, which would end it), else quoted. */
function tokenOrQuoted(href: string): string {
  return /[;,"\s]/.test(href) ? quoteIfNeeded(href) : href;
}

/**
 * The URL of a `Refresh` value: https://html.spec.whatwg.org/multipage/semantics.html#shared-declarative-refresh-steps
 * (the same steps as `<meta http-equiv=refresh>`, src/html/microsyntax.ts). A quoted URL is cut at its closing
 * quote; it is rewritten inside the same quotes unless the absolute URL holds that quote, then in the other.
 */
function refreshUrl(text: string): TextSpan | null {
  const r = parseMetaRefresh(text);
  if (r === null) return null;
  const { start, end } = r.url;
  const q = text[start - 1];
  // Step 17 ("skip quotes") took a quote before the URL only if the URL starts right after it.
  if (q === '"' || q === "'") {
    // Quoted: the replacement spans the quotes, so that it may change them.
    const closed = text[end] === q;
    return {
      start: start - 1,
      end: closed ? end + 1 : end,
      value: text.slice(start, end),
      serialize: (href) => {
        const quote = href.includes(q) ? (q === '"' ? "'" : '"') : q;
        return `${quote}${href}${closed ? quote : ''}`;
      },
    };
  }
  return { start, end, value: text.slice(start, end), serialize: asIs };
}

/** Content-Location: the whole value (RFC 9110 §8.7: `absolute-URI / partial-URI`). */
function wholeValue(text: string): TextSpan | null {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text[start])) start++;
  while (end > start && isSpace(text[end - 1])) end--;
  if (start === end) return null;
  return { start, end, value: text.slice(start, end), serialize: asIs };
}
