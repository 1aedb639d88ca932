/**
 * Raw text: a document as the rewriters see it, one UTF-16 unit per input byte (latin1) for byte input, or the
 * characters themselves for text input (an iframe srcdoc, a string given to the library). Tokenizing raw text
 * keeps offsets equal to byte offsets, so every byte that is not rewritten is copied as it came, valid in the
 * document's encoding or not. A `RawCodec` turns raw runs into characters and back.
 */

/** How raw text maps to characters and back, for one document. */
export interface RawCodec {
  /** Decodes a raw run; null if it is not valid in the document encoding. */
  decode(raw: string): string | null;
  /** `decode` of raw text that is `bytes` read as latin1, from the bytes (no copy of the text back into bytes). */
  decodeBytes?(bytes: Uint8Array): string | null;
  /**
   * Splits a raw run that `decode` refuses into runs that are valid in the encoding and runs that are not (the
   * bytes a decoder replaces by U+FFFD, one run per replacement): `end` is each run's end offset in `raw`.
   * Without it, such a run is undecodable as a whole.
   */
  segment?(raw: string): Array<{ readonly end: number; readonly valid: boolean }>;
  /**
   * Encodes text into raw form. Characters the encoding cannot represent become `&#N;` (`'html'`) or a CSS
   * escape `\HHHHHH ` (`'css'`), which decode back to the character in their context.
   */
  encode(text: string, unencodable: 'html' | 'css'): string;
  /** Number of raw units the character `ch` (one code point) takes. */
  rawLength(ch: string): number;
  /**
   * Decodes a raw run with the raw offset (relative to the run) of each UTF-16 unit, for encodings in which a
   * character's raw length depends on where it is (a stateful encoding: escape sequences belong to a character
   * next to them). `undecodable`: indices in `text` of the U+FFFD that stand for invalid bytes. Null if the run
   * cannot be mapped. When present, it is used instead of `decode` + `rawLength` for runs `decode` refuses.
   */
  mapRun?(raw: string): { readonly text: string; readonly rawAt: readonly number[]; readonly undecodable: readonly number[] } | null;
  /**
   * Decodes a raw run that `decode` accepts with the raw offset of each UTF-16 unit, from the decoder itself: for
   * runs whose characters do not take the raw length `rawLength` gives (it encodes them back, and some valid byte
   * sequences are not what the encoder writes for their characters: Shift_JIS F0 40 is U+E000, which Shift_JIS
   * cannot encode; a GBK four-byte sequence; EUC-JP's JIS X 0212). Null if it cannot (codec.ts mapDecoded).
   */
  mapValid?(raw: string): { readonly text: string; readonly rawAt: readonly number[] } | null;
  /** True if every ASCII character takes one raw unit (an ASCII-safe encoding, or text): a fast path, same result. */
  readonly asciiIsOneUnit?: boolean;
}

/** Raw text that is already characters. */
export const IDENTITY_CODEC: RawCodec = {
  decode: (raw) => raw,
  encode: (text) => text,
  rawLength: (ch) => ch.length,
  asciiIsOneUnit: true,
};

/** Decoded text and the raw offset of each of its UTF-16 boundaries. */
export interface DecodedText {
  readonly value: string;
  /** Raw offset (relative to the raw text) of the boundary at `index` in `value` (0…value.length). */
  toRaw(index: number): number;
  /**
   * Offsets in `value` of the U+FFFD that stand for bytes not valid in the encoding (what a browser's decoder
   * makes of them), in order; empty when every byte was valid. Text holding one is never re-encoded.
   */
  readonly undecodable: readonly number[];
}

/** Whether `value[start, end)` holds a character that stands for undecodable bytes. */
export function holdsUndecodable(decoded: DecodedText, start: number, end: number): boolean {
  // The offsets are in order: the first at or after `start`, by bisection (a scan of all of them for every URL
  // of a stylesheet with many undecodable bytes was ~0.3% of the mbox bench's main thread).
  const offsets = decoded.undecodable;
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid]! < start) lo = mid + 1;
    else hi = mid;
  }
  return lo < offsets.length && offsets[lo]! < end;
}

/** True if every unit is ASCII: raw and decoded text are then the same in every ASCII-safe encoding. */
export function isAscii(s: string): boolean {
  // A long text is searched natively (measured on the mbox bench: the loop was ~1% of the main thread, over
  // stylesheets of hundreds of KiB); a short one (an attribute value) costs less in the loop.
  if (s.length > 64) return !NON_ASCII.test(s);
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** A UTF-16 unit outside ASCII (a surrogate too: no `u` flag). Not global: `test` keeps no state. */
const NON_ASCII = /[^\x00-\x7f]/;
/** The same, global, for `asciiRunOffsets`' walk (its lastIndex set before each use). */
const NON_ASCII_ALL = /[^\x00-\x7f]/g;

/**
 * Appends the decoding of raw[from, to) to `value`, and the raw offset of each new UTF-16 unit to `rawAt`.
 * Bytes not valid in the encoding become one U+FFFD per invalid sequence, as a browser decodes them; their
 * offsets in the value are added to `undecodable`. Returns the new value, or null if the run cannot be mapped.
 */
export function appendDecodedRun(raw: string, from: number, to: number, codec: RawCodec, value: string, rawAt: number[], undecodable: number[]): string | null {
  const text = codec.decode(raw.slice(from, to));
  if (text !== null) return appendValid(raw, text, from, to, codec, value, rawAt);
  if (codec.mapRun !== undefined) {
    const mapped = codec.mapRun(raw.slice(from, to));
    if (mapped === null) return null;
    for (const i of mapped.undecodable) undecodable.push(value.length + i);
    for (const r of mapped.rawAt) rawAt.push(from + r);
    return value + mapped.text;
  }
  if (codec.segment === undefined) return null;
  let at = from;
  for (const run of codec.segment(raw.slice(from, to))) {
    const end = from + run.end;
    if (run.valid) {
      const valid = codec.decode(raw.slice(at, end));
      if (valid === null) return null;
      const next = appendValid(raw, valid, at, end, codec, value, rawAt);
      if (next === null) return null;
      value = next;
    } else {
      undecodable.push(value.length);
      rawAt.push(at);
      value += '\uFFFD';
    }
    at = end;
  }
  return at === to ? value : null;
}

/** `appendMapped`, else (lengths that do not add up) the codec's `mapValid` of the run. */
function appendValid(raw: string, text: string, from: number, to: number, codec: RawCodec, value: string, rawAt: number[]): string | null {
  const mark = rawAt.length;
  const next = appendMapped(text, from, to, codec, value, rawAt);
  if (next !== null || codec.mapValid === undefined) return next;
  rawAt.length = mark;
  const mapped = codec.mapValid(raw.slice(from, to));
  if (mapped === null) return null;
  for (const r of mapped.rawAt) rawAt.push(from + r);
  return value + mapped.text;
}

function appendMapped(text: string, from: number, to: number, codec: RawCodec, value: string, rawAt: number[]): string | null {
  let r = from;
  const asciiIsOneUnit = codec.asciiIsOneUnit === true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80 && asciiIsOneUnit) {
      rawAt.push(r++);
      continue;
    }
    // One code point: a surrogate pair is two units at the same raw offset.
    const units = codePointUnits(text, i);
    rawAt.push(r);
    if (units === 2) rawAt.push(r);
    r += codec.rawLength(text.slice(i, i + units));
    i += units - 1;
  }
  // The codec's lengths must add up to the run: otherwise offsets would be guesses, and we do not guess.
  if (r !== to) return null;
  return value + text;
}

const NONE: readonly number[] = Object.freeze([]);

/**
 * Decodes raw text that holds no character references (CSS, `<style>` and `<script>` text). `bytes`: the bytes
 * `raw` is read from as latin1, when the caller has them.
 */
export function decodeRawText(raw: string, codec: RawCodec, bytes?: Uint8Array): DecodedText | null {
  if (isAscii(raw)) return { value: raw, toRaw: (i) => i, undecodable: NONE };
  if (codec.asciiIsOneUnit === true) {
    const text = bytes !== undefined && codec.decodeBytes !== undefined ? codec.decodeBytes(bytes) : codec.decode(raw);
    // Text with undecodable bytes takes the general path below.
    if (text !== null) {
      const toRaw = asciiRunOffsets(text, raw.length, codec);
      // Lengths that do not add up take the general path too (its mapValid).
      if (toRaw !== null) return { value: text, toRaw, undecodable: NONE };
    }
  }
  const rawAt: number[] = [];
  const undecodable: number[] = [];
  const value = appendDecodedRun(raw, 0, raw.length, codec, '', rawAt, undecodable);
  if (value === null) return null;
  rawAt.push(raw.length);
  return { value, toRaw: (i) => rawAt[i] ?? raw.length, undecodable };
}

/**
 * `toRaw` of text decoded from `rawLength` raw units, in an encoding where an ASCII character takes one unit:
 * offsets kept only where a run of ASCII units or a non-ASCII unit starts (what `appendMapped` gives for every
 * unit, in far less memory when the text is mostly ASCII). Null if the lengths do not add up to the run.
 */
function asciiRunOffsets(text: string, rawLength: number, codec: RawCodec): ((index: number) => number) | null {
  const valueAt: number[] = [];
  const rawAt: number[] = [];
  let r = 0;
  // Runs of ASCII are stepped over by a native search for the next unit that is not (measured on the mbox
  // bench: a loop over every unit was ~1% of the main thread, on mostly-ASCII stylesheets of hundreds of KiB).
  const search = NON_ASCII_ALL;
  let i = 0;
  for (;;) {
    search.lastIndex = i;
    const m = search.exec(text);
    const next = m === null ? text.length : m.index;
    if (next > i) {
      // An ASCII run [i, next): one raw unit each.
      valueAt.push(i);
      rawAt.push(r);
      r += next - i;
    }
    if (m === null) break;
    // One code point: a surrogate pair is two units at the same raw offset.
    const units = codePointUnits(text, next);
    valueAt.push(next);
    rawAt.push(r);
    if (units === 2) {
      valueAt.push(next + 1);
      rawAt.push(r);
    }
    r += codec.rawLength(text.slice(next, next + units));
    i = next + units;
  }
  if (r !== rawLength) return null;
  return (index) => {
    if (!(index >= 0 && index < text.length)) return rawLength;
    // The last start at or before `index`: within an ASCII run each unit is one raw unit further.
    let lo = 0;
    let hi = valueAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (valueAt[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return rawAt[lo]! + (index - valueAt[lo]!);
  };
}

/** UTF-16 units of the code point at `i`: 2 for a surrogate pair, else 1 (a lone surrogate is one unit). */
function codePointUnits(text: string, i: number): 1 | 2 {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}
