/**
 * One MIME header block, read as Python's `email` (policy default) reads it: the fields (RFC 5322 §2.2, unfolded),
 * the content type with its defaults (RFC 2045 §5.2, RFC 2046 §5.1.5), the boundary, charset and transfer
 * encoding, and the base-giving values (Content-Base, Content-Location) decoded once. Parameters (RFC 2231
 * continuations and charsets) and RFC 2047 encoded words are libmime's; comments are removed here first.
 */
import { isUtf8 as bufferIsUtf8 } from 'node:buffer';
import libmime from 'libmime';

/** One header field: its name, its value (unfolded, as text) and where its bytes are in the block. */
export interface HeaderField {
  readonly name: string;
  /** Lower-cased name, for lookups. */
  readonly key: string;
  /** Start of the value within the block (after the colon), and end of the field (after its last line ending). */
  readonly valueStart: number;
  readonly end: number;
}

/** A parsed header block. `bytes` is the block exactly as it came (the empty line that ended it included). */
export interface HeaderBlock {
  readonly bytes: Buffer;
  readonly fields: readonly HeaderField[];
}

/**
 * Python's header pattern (`email.feedparser.headerRE`): a line is a header line when it starts with "From ",
 * with a run of printable non-colon characters and then a colon, or with a space or tab (a continuation).
 */
export function isHeaderLine(data: Buffer, start: number, end: number): boolean {
  if (end <= start) return false;
  const first = data[start]!;
  if (first === 0x20 || first === 0x09) return true;
  if (end - start >= 5 && first === 0x46 && data[start + 1] === 0x72 && data[start + 2] === 0x6f && data[start + 3] === 0x6d && data[start + 4] === 0x20) return true;
  for (let i = start; i < end; i++) {
    const c = data[i]!;
    if (c === 0x3a) return true;
    if (c < 0x21 || c > 0x7e) return false;
  }
  return false;
}

/** The fields of a header block (continuation lines belong to the field before; a leading one is ignored). */
export function parseFields(bytes: Buffer): HeaderField[] {
  const fields: HeaderField[] = [];
  let current: { name: string; valueStart: number } | null = null;
  let fieldEnd = 0;
  const close = (): void => {
    if (current !== null) fields.push({ name: current.name, key: current.name.toLowerCase(), valueStart: current.valueStart, end: fieldEnd });
    current = null;
  };
  const lines = new LineEnds(bytes);
  for (let i = 0; i < bytes.length; ) {
    const end = lines.after(i);
    const first = bytes[i]!;
    if (first === 0x20 || first === 0x09) {
      if (current !== null) fieldEnd = end;
    } else {
      close();
      // The colon within this line only (a search past it would make the block quadratic in its lines).
      let colon = -1;
      for (let k = i; k < end; k++) {
        if (bytes[k] === 0x3a) {
          colon = k - i;
          break;
        }
      }
      // "From " lines (a Unix From_ line, RFC 4155) and lines with no name are not fields.
      if (colon > 0 && !startsWithFromSpace(bytes, i, end)) {
        current = { name: bytes.toString('latin1', i, i + colon), valueStart: i + colon + 1 };
        fieldEnd = end;
      }
    }
    i = end;
  }
  close();
  return fields;
}

/** Whether bytes[i, end) begins with "From ". */
function startsWithFromSpace(bytes: Buffer, i: number, end: number): boolean {
  return end - i >= 5 && bytes[i] === 0x46 && bytes[i + 1] === 0x72 && bytes[i + 2] === 0x6f && bytes[i + 3] === 0x6d && bytes[i + 4] === 0x20;
}

/**
 * The line ends of one buffer, line after line, in time linear in its size: the next LF and the next CR are
 * each searched for once and remembered until passed (searching both from every line start is quadratic when one
 * of them is rare: a 1 MiB header block of short LF lines was > 240 s).
 */
export class LineEnds {
  private readonly data: Buffer;
  private nextLf = -1;
  private nextCr = -1;

  constructor(data: Buffer) {
    this.data = data;
  }

  /** The index after the line ending of the line starting at `i` (CRLF, LF or a bare CR), or the end of the data. */
  after(i: number): number {
    const data = this.data;
    if (this.nextLf !== -2 && this.nextLf < i) {
      this.nextLf = data.indexOf(0x0a, i);
      if (this.nextLf === -1) this.nextLf = -2;
    }
    if (this.nextCr !== -2 && this.nextCr < i) {
      this.nextCr = data.indexOf(0x0d, i);
      if (this.nextCr === -1) this.nextCr = -2;
    }
    const lf = this.nextLf === -2 ? -1 : this.nextLf;
    const cr = this.nextCr === -2 ? -1 : this.nextCr;
    if (cr !== -1 && (lf === -1 || cr < lf)) return cr + 1 < data.length && data[cr + 1] === 0x0a ? cr + 2 : cr + 1;
    return lf === -1 ? data.length : lf + 1;
  }
}

/**
 * The index after the line ending of the line starting at `i` (CRLF, LF or a bare CR), or the end of `data`.
 * One line only: to walk many lines of one buffer, `LineEnds` (this searches from `i` every time).
 */
export function lineEnd(data: Buffer, i: number): number {
  return new LineEnds(data).after(i);
}

/**
 * A field's value as text: unfolded (line endings removed, RFC 5322 §2.2.3), surrounding whitespace removed.
 * Bytes are read as UTF-8 when they are valid UTF-8 (RFC 6532), else as Latin-1, so that every byte is kept.
 */
export function fieldValue(block: HeaderBlock, field: HeaderField): string {
  const raw = block.bytes.subarray(field.valueStart, field.end);
  const text = isUtf8(raw) ? raw.toString('utf8') : raw.toString('latin1');
  return text.replace(/\r\n|\r|\n/g, '').replace(/^[ \t]+|[ \t]+$/g, '');
}

function isUtf8(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return bufferIsUtf8(bytes);
  return true;
}

/** The first field named `key` (lower case), as Python's `Message.get` finds it. */
export function firstField(block: HeaderBlock, key: string): HeaderField | undefined {
  return block.fields.find((f) => f.key === key);
}

export function firstValue(block: HeaderBlock, key: string): string | undefined {
  const f = firstField(block, key);
  return f === undefined ? undefined : fieldValue(block, f);
}

/** RFC 822 comments removed from a structured value, outside quoted strings (RFC 5322 §3.2.2). */
export function removeComments(value: string): string {
  if (!value.includes('(')) return value;
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && i + 1 < value.length) {
      if (depth === 0) out += c + value[i + 1];
      i++;
      continue;
    }
    if (quoted) {
      if (c === '"') quoted = false;
      out += c;
    } else if (c === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    else if (depth === 0) {
      if (c === '"') quoted = true;
      out += c;
    }
  }
  return out;
}

/** One parameter as written: its name (lower case) and its value as libmime reads it (quoted, or a token). */
interface Parameter {
  readonly name: string;
  readonly value: string;
}

/**
 * Parameters (";" then name=value, ...) normalized for libmime, which decodes RFC 2231: empty ones (";;")
 * skipped, a quoted value up to its closing quote, an unquoted value up to whitespace or ";" (what follows, a
 * comment, is dropped, as Python's policy default drops it). An unquoted value with a tspecial in it
 * (`boundary=----=_NextPart_0`, RFC 2045 §5.1 wants it quoted) is kept whole, as Python's compat32, mailsplit
 * and the producers read it (policy default would cut it at the "="): `malformed` lists such parameter names.
 */
function tokenParams(text: string, malformed: string[]): Parameter[] {
  const out: Parameter[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== ';') {
      i++;
      continue;
    }
    i++;
    const eq = text.indexOf('=', i);
    const semi = text.indexOf(';', i);
    if (eq === -1 || (semi !== -1 && semi < eq)) continue;
    const name = text.slice(i, eq).trim();
    let j = eq + 1;
    while (j < text.length && (text[j] === ' ' || text[j] === '\t')) j++;
    let value: string;
    if (text[j] === '"') {
      let k = j + 1;
      while (k < text.length && text[k] !== '"') k += text[k] === '\\' ? 2 : 1;
      value = text.slice(j, k + 1);
      j = k + 1;
    } else {
      let k = j;
      while (k < text.length && text[k] !== ';' && text[k] !== ' ' && text[k] !== '\t') k++;
      value = text.slice(j, k);
      if ([...value].some((c) => TSPECIAL.has(c))) {
        malformed.push(name.toLowerCase());
        value = `"${value.replace(/["\\]/g, '\\$&')}"`;
      }
      j = k;
    }
    if (name !== '') out.push({ name: name.toLowerCase(), value });
    const next = text.indexOf(';', j);
    i = next === -1 ? text.length : next;
    // A ";" inside a quoted value was passed over with it.
  }
  return out;
}

/** An RFC 2231 form of a parameter name: `name*`, `name*0`, `name*0*` (Python's `rfc2231_continuation`). */
const RFC2231_NAME = /^(\w+)\*(?:\d+\*?)?$/;

/**
 * The parameters as Python's `Message.get_param` chooses among them (email.utils.decode_params): the plain forms
 * in order, then each RFC 2231 one (its continuations joined), and the first of a name wins. So the first
 * `boundary=` wins over a later one and over any `boundary*=`, whatever the order; an RFC 2231 form counts only
 * when there is no plain one. `duplicates` lists the names of the read parameters given more than once (readers
 * that take the last, or prefer RFC 2231, see another value: a warning).
 */
function chooseParams(params: readonly Parameter[], read: readonly string[], duplicates: string[]): Parameter[] {
  const out: Parameter[] = [];
  const plainSeen = new Set<string>();
  for (const p of params) {
    const base = RFC2231_NAME.exec(p.name)?.[1] ?? null;
    const name = base ?? p.name;
    if (!read.includes(name)) continue;
    if (base === null) {
      if (plainSeen.has(name)) {
        if (!duplicates.includes(name)) duplicates.push(name);
        continue;
      }
      plainSeen.add(name);
    }
    out.push(p);
  }
  // An RFC 2231 form beside a plain one: the plain one is read (Python), the other is a duplicate.
  return out.filter((p) => {
    const base = RFC2231_NAME.exec(p.name)?.[1];
    if (base === undefined || !plainSeen.has(base)) return true;
    if (!duplicates.includes(base)) duplicates.push(base);
    return false;
  });
}

/** The leaf types whose parameters are read (their charset): the types that are rewritten. */
const PARAMETERS_READ = new Set(['text/html', 'application/xhtml+xml', 'text/css']);

const TSPECIAL = new Set([...'()<>@,;:\\"/[]?=']);

/** What an entity's headers say about its structure. */
export interface EntityType {
  /** The media type, lower case; the default when there is none or it is not `type/subtype` (Python's rule). */
  readonly contentType: string;
  /** The `boundary` parameter of a multipart (null: none; a multipart without one is read as a leaf). */
  readonly boundary: string | null;
  readonly charset: string | undefined;
  /** Content-Transfer-Encoding, lower case (undefined: none). */
  readonly transferEncoding: string | undefined;
  /** A Content-Type was there but not one `type/subtype` (so text/plain). */
  readonly invalidContentType?: boolean;
  /** The boundary parameter was an unquoted value with a tspecial in it (read whole). */
  readonly malformedBoundary?: boolean;
  /** `boundary` or `charset` given more than once (plain twice, or plain and RFC 2231): the first plain one is read. */
  readonly duplicateParameters?: readonly string[];
}

/**
 * The entity's type as Python's `Message.get_content_type` gives it: the first Content-Type field's value up to
 * ";", lower case; with no field the default (text/plain, RFC 2045 §5.2, or message/rfc822 in a multipart/digest,
 * RFC 2046 §5.1.5); a value that is not one "type/subtype" is text/plain. Never guessed from a file name.
 */
export function entityType(block: HeaderBlock, defaultType: string): EntityType {
  const raw = firstValue(block, 'content-type');
  const cte = firstValue(block, 'content-transfer-encoding');
  const transferEncoding = cte === undefined ? undefined : removeComments(cte).trim().toLowerCase();
  if (raw === undefined) return { contentType: defaultType, boundary: null, charset: undefined, transferEncoding };
  const semi = raw.indexOf(';');
  let contentType = (semi === -1 ? raw : raw.slice(0, semi)).trim().toLowerCase();
  const invalidContentType = contentType.split('/').length !== 2;
  if (invalidContentType) contentType = 'text/plain';
  let params: Record<string, string> = {};
  const malformed: string[] = [];
  const duplicates: string[] = [];
  // Parameters matter only for a multipart's boundary and a rewritten part's charset: the others are not parsed.
  if (semi !== -1 && (contentType.startsWith('multipart/') || PARAMETERS_READ.has(contentType))) {
    const chosen = chooseParams(tokenParams(removeComments(raw.slice(semi)), malformed), ['boundary', 'charset'], duplicates);
    try {
      params = libmime.parseHeaderValue(`x${chosen.map((p) => `; ${p.name}=${p.value}`).join('')}`).params;
    } catch {
      params = {};
    }
  }
  const boundary = params['boundary'] === undefined ? null : params['boundary'].replace(/[ \t\r\n]+$/, '');
  const charset = params['charset'] === undefined || params['charset'] === '' ? undefined : params['charset'].trim();
  return { contentType, boundary, charset, transferEncoding, invalidContentType, malformedBoundary: malformed.includes('boundary'), duplicateParameters: duplicates };
}

/**
 * A Content-Base / Content-Location value decoded once (RFC 2557 §4.4.1, §8.2(b)): RFC 2047 encoded words
 * decoded (libmime), raw UTF-8 read as UTF-8 (RFC 6532). Undefined when the field is absent.
 */
export function decodedUrlHeader(block: HeaderBlock, key: string): string | undefined {
  const raw = firstValue(block, key);
  if (raw === undefined) return undefined;
  const v = urlHeaderText(raw);
  if (!v.includes('=?')) return v;
  try {
    return libmime.decodeWords(v);
  } catch {
    return v;
  }
}

/**
 * The URL of a Content-Location / Content-Base value (RFC 2557 §4.4.1, RFC 2110): comments before and after it
 * removed (nested ones too, RFC 5322 §3.2.2; a trailing "(...)" only when space or ">" precedes it, since a URL
 * may end in parentheses), then the `<` `>` that may enclose it (RFC 3986 Appendix C, as in `Content-Location:
 * <http://example.org/a>`), which are never part of the URL.
 */
export function urlHeaderText(value: string): string {
  let v = asciiTrim(value);
  for (;;) {
    const before = v;
    if (v.startsWith('(')) {
      const close = commentEnd(v, 0);
      if (close !== -1) v = asciiTrim(v.slice(close + 1));
    }
    if (v.endsWith(')')) {
      const open = commentStart(v, v.length - 1);
      if (open > 0 && /[ \t>]/.test(v[open - 1]!)) v = asciiTrim(v.slice(0, open));
      else if (open === 0) v = '';
    }
    if (v === before) break;
  }
  const bracketed = /^<([^<>]*)>$/.exec(v);
  return bracketed === null ? v : asciiTrim(bracketed[1]!);
}

/** ASCII whitespace removed from both ends (never U+00A0, which is part of a URL: `String#trim` would take it). */
function asciiTrim(v: string): string {
  return v.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
}

/** The ")" that closes the comment opening at `at` (nested, with quoted pairs), or -1. */
function commentEnd(v: string, at: number): number {
  let depth = 0;
  for (let i = at; i < v.length; i++) {
    const c = v[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** The "(" that opens the comment closing at `at` (nested), or -1. */
function commentStart(v: string, at: number): number {
  let depth = 0;
  for (let i = at; i >= 0; i--) {
    const c = v[i];
    if (i > 0 && v[i - 1] === '\\') continue;
    if (c === ')') depth++;
    else if (c === '(' && --depth === 0) return i;
  }
  return -1;
}
