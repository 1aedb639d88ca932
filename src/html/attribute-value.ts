/**
 * Attribute values as raw source text: where the value sits inside `name = "value"`, how it decodes (character
 * references and the document encoding) with a map back to raw offsets, and how a new value is escaped so that
 * it decodes to exactly what we mean.
 *
 * The rewriter sees the document as a "raw string": one UTF-16 code unit per input byte for byte input (latin1),
 * or the text itself for a nested document (srcdoc). `RawCodec` turns raw runs into text and back.
 */
import { DecodingMode, HtmlEntityDecoder } from 'entities/decode';
import { appendDecodedRun, decodeRawText, isAscii } from '../encoding/raw-text.ts';
import type { DecodedText, RawCodec } from '../encoding/raw-text.ts';

export { IDENTITY_CODEC } from '../encoding/raw-text.ts';
export type { RawCodec } from '../encoding/raw-text.ts';

/** The value's place inside the raw text of one attribute (`name="value"`), as parse5 locates the attribute. */
export interface ValueLocation {
  /** Offset of the first value unit, after the opening quote if any, relative to the attribute's start. */
  readonly start: number;
  /** Offset just past the last value unit, before the closing quote. */
  readonly end: number;
  readonly quote: '"' | "'" | '';
}

const enum Ch {
  Tab = 0x09,
  Lf = 0x0a,
  Ff = 0x0c,
  Cr = 0x0d,
  Space = 0x20,
  Quote = 0x22,
  Apos = 0x27,
  Equals = 0x3d,
  Amp = 0x26,
}

function isWhitespace(c: number): boolean {
  return c === Ch.Space || c === Ch.Lf || c === Ch.Tab || c === Ch.Ff || c === Ch.Cr;
}

/**
 * Finds the value in the raw text of an attribute. https://html.spec.whatwg.org/multipage/parsing.html#after-attribute-name-state
 * The name ends at whitespace, "/", ">" or "="; whitespace may surround "="; the value is double-quoted,
 * single-quoted or unquoted (ending at whitespace or ">"). Returns null for an attribute with no value.
 */
export function locateAttributeValue(rawAttribute: string): ValueLocation | null {
  const n = rawAttribute.length;
  const start = attributeValueStart(rawAttribute, 0, n);
  if (start === -1) return null;
  return { start, end: attributeValueEnd(rawAttribute, start, n), quote: quoteBefore(rawAttribute, start) };
}

/**
 * locateAttributeValue of the attribute text[from, to) inside a larger string (the rewriter's buffer), without a
 * slice or an object (issue 23: one fewer substring and location per URL attribute): the offset in `text` of
 * the value's first unit, or -1 when the attribute has no value. attributeValueEnd and quoteBefore give the rest.
 */
export function attributeValueStart(text: string, from: number, to: number): number {
  // The first character belongs to the name even if it is "=" (attribute name state, step for "=" first).
  let i = from + 1;
  while (i < to && text.charCodeAt(i) !== Ch.Equals && !isWhitespace(text.charCodeAt(i))) i++;
  while (i < to && isWhitespace(text.charCodeAt(i))) i++;
  if (i >= to || text.charCodeAt(i) !== Ch.Equals) return -1;
  i++;
  while (i < to && isWhitespace(text.charCodeAt(i))) i++;
  if (i >= to) return to;
  const q = text.charCodeAt(i);
  return q === Ch.Quote || q === Ch.Apos ? i + 1 : i;
}

/** The quote of the value starting at `start` (attributeValueStart): the unit before it, as an unquoted value never follows a quote. */
export function quoteBefore(text: string, start: number): '"' | "'" | '' {
  const q = text.charCodeAt(start - 1);
  return q === Ch.Quote ? '"' : q === Ch.Apos ? "'" : '';
}

/** Where the value starting at `start` ends, in an attribute whose text ends at `to`: before its closing quote. */
export function attributeValueEnd(text: string, start: number, to: number): number {
  const quote = quoteBefore(text, start);
  // parse5's location ends after the closing quote; a value cut off at EOF has none.
  return quote !== '' && to - 1 >= start && text.charCodeAt(to - 1) === quote.charCodeAt(0) ? to - 1 : to;
}

/** A decoded attribute value and the raw offset of each of its UTF-16 boundaries. */
export type DecodedValue = DecodedText;

const decodedCodePoints: number[] = [];
const entityDecoder = new HtmlEntityDecoder((cp) => {
  decodedCodePoints.push(cp);
});

/**
 * Decodes a raw attribute value: runs of raw text through the document encoding, character references as the
 * HTML standard does in attribute values (https://html.spec.whatwg.org/multipage/parsing.html#character-reference-state,
 * "consumed as part of an attribute": `&amp=` and `&ampx` stay literal). Bytes not valid in the document
 * encoding decode to U+FFFD (listed in `undecodable`: a URL holding one is left as it is); null only if the
 * codec cannot map the value to raw offsets.
 */
export function decodeAttributeValue(raw: string, codec: RawCodec, decodeReferences = true): DecodedValue | null {
  // The commonest value, ASCII without "&" or NUL, is itself unit for unit (what decodeRawText gives it), in one
  // scan and without a closure of its own.
  if (isPlainAscii(raw)) return { value: raw, toRaw: sameOffset, undecodable: NO_UNDECODABLE };
  const decoded = decodeWithReferences(raw, codec, decodeReferences);
  // The tokenizer turns U+0000 in attribute values and raw text into U+FFFD
  // (https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(double-quoted)-state); one unit for one.
  if (decoded === null || !decoded.value.includes('\0')) return decoded;
  return { value: decoded.value.replaceAll('\0', '\uFFFD'), toRaw: decoded.toRaw, undecodable: decoded.undecodable };
}

function decodeWithReferences(raw: string, codec: RawCodec, decodeReferences: boolean): DecodedValue | null {
  if (!decodeReferences || raw.indexOf('&') === -1) return decodeRawText(raw, codec);
  if (codec.asciiIsOneUnit === true && isAscii(raw)) return decodeAsciiWithReferences(raw);

  // Boundaries: for each character boundary of `value`, the raw offset. Built run by run.
  let value = '';
  const rawAt: number[] = [];
  const undecodable: number[] = [];
  let i = 0;
  while (i < raw.length) {
    const amp = decodeReferences ? raw.indexOf('&', i) : -1;
    const runEnd = amp === -1 ? raw.length : amp;
    if (runEnd > i) {
      const decoded = appendDecodedRun(raw, i, runEnd, codec, value, rawAt, undecodable);
      if (decoded === null) return null;
      value = decoded;
      i = runEnd;
    }
    if (amp === -1) break;
    // A character reference: the decoder is told where "&" is followed from.
    decodedCodePoints.length = 0;
    entityDecoder.startEntity(DecodingMode.Attribute);
    // `consumed` counts the "&" too.
    let consumed = entityDecoder.write(raw, amp + 1);
    if (consumed < 0) consumed = entityDecoder.end();
    if (consumed <= 0 || decodedCodePoints.length === 0) {
      // Not a reference: "&" is itself.
      rawAt.push(amp);
      value += '&';
      i = amp + 1;
    } else {
      const text = String.fromCodePoint(...decodedCodePoints);
      for (let k = 0; k < text.length; k++) rawAt.push(amp);
      value += text;
      i = amp + consumed;
    }
  }
  rawAt.push(raw.length);
  return { value, toRaw: (index) => rawAt[index] ?? raw.length, undecodable };
}

/**
 * decodeWithReferences for ASCII raw text in an encoding where an ASCII character is one raw unit (and itself):
 * the text between references maps one to one, so only the references are recorded, not an offset per unit
 * (`src/html/attribute-value.test.ts` checks it against the general path). Link-dense pages have a `&amp;` in
 * many a URL: here it costs no codec call (a Buffer each) and no array of one offset per unit.
 */
function decodeAsciiWithReferences(raw: string): DecodedValue {
  let value = '';
  // Per reference: its text's start and end in `value`, the raw offset of its "&" and the raw offset after it.
  const references: number[] = [];
  let i = 0;
  while (i < raw.length) {
    const amp = raw.indexOf('&', i);
    if (amp === -1) {
      value += raw.slice(i);
      break;
    }
    value += raw.slice(i, amp);
    const common = commonReference(raw, amp);
    if (common !== 0) {
      references.push(value.length, value.length + 1, amp, amp + (common >> 8));
      value += String.fromCharCode(common & 0xff);
      i = amp + (common >> 8);
      continue;
    }
    decodedCodePoints.length = 0;
    entityDecoder.startEntity(DecodingMode.Attribute);
    let consumed = entityDecoder.write(raw, amp + 1);
    if (consumed < 0) consumed = entityDecoder.end();
    if (consumed <= 0 || decodedCodePoints.length === 0) {
      value += '&';
      i = amp + 1;
      continue;
    }
    const text = String.fromCodePoint(...decodedCodePoints);
    references.push(value.length, value.length + text.length, amp, amp + consumed);
    value += text;
    i = amp + consumed;
  }
  const length = value.length;
  const toRaw = (index: number): number => {
    if (!(index >= 0 && index < length) || !Number.isInteger(index)) return raw.length;
    let k = references.length - 4;
    while (k >= 0 && references[k]! > index) k -= 4;
    if (k < 0) return index;
    // Every unit of a reference's text is at its "&"; after it, one raw unit a unit again.
    return index < references[k + 1]! ? references[k + 2]! : references[k + 3]! + (index - references[k + 1]!);
  };
  return { value, toRaw, undecodable: NO_UNDECODABLE };
}

/**
 * `&amp;`, `&lt;`, `&gt;` and `&quot;` at raw[amp]: the character (low byte) and the units the reference takes
 * (above), else 0. What the entity decoder gives them (https://html.spec.whatwg.org/multipage/parsing.html#named-character-reference-state:
 * the longest name in the table, and none is longer than these with their ";"), without a call into it: on
 * link-dense pages the decoder was 3.5% of the time, for URLs with `&amp;` in their query.
 */
function commonReference(raw: string, amp: number): number {
  const c = raw.charCodeAt(amp + 1);
  if (c === 0x61 /* a */) return raw.charCodeAt(amp + 2) === 0x6d && raw.charCodeAt(amp + 3) === 0x70 && raw.charCodeAt(amp + 4) === 0x3b ? (5 << 8) | 0x26 : 0;
  if (c === 0x6c /* l */ || c === 0x67 /* g */) return raw.charCodeAt(amp + 2) === 0x74 && raw.charCodeAt(amp + 3) === 0x3b ? (4 << 8) | (c === 0x6c ? 0x3c : 0x3e) : 0;
  if (c === 0x71 /* q */) return raw.charCodeAt(amp + 2) === 0x75 && raw.charCodeAt(amp + 3) === 0x6f && raw.charCodeAt(amp + 4) === 0x74 && raw.charCodeAt(amp + 5) === 0x3b ? (6 << 8) | 0x22 : 0;
  return 0;
}

const NO_UNDECODABLE: readonly number[] = Object.freeze([]);

/** The toRaw of a value that is its raw text unit for unit. */
export const sameOffset = (index: number): number => index;

/**
 * ASCII, and neither "&" (a character reference may start) nor U+0000 (the tokenizer replaces it): a value
 * decodeAttributeValue gives back as it is (`toRaw` sameOffset, nothing undecodable). A regular expression: on
 * real pages' long values (data: URLs, style) twice as fast as a loop of charCodeAt, and no slower on short ones.
 */
export function isPlainAscii(raw: string): boolean {
  return !NOT_PLAIN_ASCII.test(raw);
}

const NOT_PLAIN_ASCII = /[^\x01-\x25\x27-\x7f]/;

/**
 * Escapes text for an attribute value in the given quoting style, so that it decodes to exactly `text`:
 * "&" always (it could start a reference), the quote character in quoted values, and in unquoted values every
 * character that would end or change the value (whitespace, quotes, "=", "<", ">", "`").
 */
export function escapeAttributeText(text: string, quote: '"' | "'" | ''): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let rep: string | null = null;
    if (c === Ch.Amp) rep = '&amp;';
    else if (quote === '"') {
      if (c === Ch.Quote) rep = '&quot;';
    } else if (quote === "'") {
      if (c === Ch.Apos) rep = '&#39;';
    } else if (isWhitespace(c) || c === Ch.Quote || c === Ch.Apos || c === Ch.Equals || c === 0x3c || c === 0x3e || c === 0x60) {
      rep = `&#${c};`;
    }
    if (rep !== null) {
      out += text.slice(last, i) + rep;
      last = i + 1;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}
