/**
 * Raw text for every encoding a document can be in: bytes in, raw text for the tokenizers, raw text back out to
 * the same bytes. Every byte a rewriter does not replace comes out as it came.
 *
 * - ASCII-safe encodings (UTF-8, windows-125x, Shift_JIS, EUC-*, GB18030, Big5…): one latin1 unit per byte.
 * - UTF-16LE/BE: one unit per 16-bit code unit (Node's `utf16le`, which keeps lone surrogates as they are, so the
 *   bytes come back exactly). Offsets are in code units; every character is encodable, so replacements are text.
 * - ISO-2022-JP (stateful): one unit per byte, but a byte that is not a character of the ASCII state (escape
 *   sequences, JIS X 0208 and katakana bytes, invalid bytes, and the two JIS-Roman bytes that are not ASCII) is
 *   masked to a unit above 0xFF that carries its byte and its kind, so the tokenizer sees markup exactly where a
 *   decoder (https://encoding.spec.whatwg.org/#iso-2022-jp-decoder) gives the markup characters, and nowhere else.
 *   Masked runs are "not decodable" to the rewriters (a URL holding one is left as it is, with a warning).
 *   Replacements come out wrapped in markers; the output side, which tracks the decoder state of everything it
 *   writes, emits each in the state around it: an escape to ASCII before it if needed, and back after it.
 */
import { TextDecoder } from '@exodus/bytes/encoding.js';
import { createMultibyteEncoder } from '@exodus/bytes/multi-byte.js';
import { byteCodec } from './byte-codec.ts';
import { IDENTITY_CODEC } from './raw-text.ts';
import type { RawCodec } from './raw-text.ts';
import { isAsciiSafeForMarkup } from './sniff.ts';

/** Bytes to raw text and back, for one document in one encoding (stateful: one per stream). */
export interface Transcoder {
  readonly codec: RawCodec;
  /** The encoding URL queries are encoded in (https://url.spec.whatwg.org/#get-an-output-encoding: UTF-16 → UTF-8). */
  readonly queryEncoding: string;
  /** Raw text of the next input bytes (bytes that end inside a unit are kept for the next call). */
  toRaw(bytes: Buffer): string;
  /** Input bytes still held at the end of input (an odd byte, a cut escape sequence): written out last, as they are. */
  endBytes(): Buffer;
  /** Output bytes of raw text (the rewriter's output, in order). */
  fromRaw(raw: string): Buffer;
  /** True when raw text is the bytes read as latin1, one unit a byte, with nothing held (`toRaw` keeps no state). */
  readonly rawIsLatin1?: boolean;
}

/** A transcoder for `encoding` (a WHATWG name). */
export function transcoderFor(encoding: string): Transcoder {
  const name = encoding.toLowerCase();
  if (name === 'utf-16le' || name === 'utf-16be') return utf16Transcoder(name === 'utf-16be');
  if (name === 'iso-2022-jp') return new Iso2022JpTranscoder();
  if (!isAsciiSafeForMarkup(encoding)) throw new Error(`no transcoder for ${encoding}`);
  return {
    codec: byteCodec(encoding),
    queryEncoding: encoding,
    toRaw: (bytes) => bytes.toString('latin1'),
    endBytes: () => Buffer.alloc(0),
    fromRaw: (raw) => Buffer.from(raw, 'latin1'),
    rawIsLatin1: true,
  };
}

/** Whether `transcoderFor` takes this encoding (every WHATWG encoding but "replacement"). */
export function isRewritableEncoding(encoding: string): boolean {
  return encoding.toLowerCase() !== 'replacement';
}

// --- UTF-16 --------------------------------------------------------------------------------------------------

function utf16Transcoder(bigEndian: boolean): Transcoder {
  let odd: number | null = null;
  return {
    codec: IDENTITY_CODEC,
    queryEncoding: 'UTF-8',
    toRaw(bytes) {
      let b = bytes;
      if (odd !== null) b = Buffer.concat([Buffer.of(odd), bytes]);
      odd = b.length % 2 === 1 ? b[b.length - 1]! : null;
      const even = Buffer.from(b.subarray(0, b.length - (b.length % 2)));
      if (bigEndian) even.swap16();
      return even.toString('utf16le');
    },
    endBytes() {
      const rest = odd === null ? Buffer.alloc(0) : Buffer.of(odd);
      odd = null;
      return rest;
    },
    fromRaw: (raw) => encode16(raw, bigEndian),
  };
}

function encode16(raw: string, bigEndian: boolean): Buffer {
  const out = Buffer.from(raw, 'utf16le');
  if (bigEndian) out.swap16();
  return out;
}

// --- ISO-2022-JP ---------------------------------------------------------------------------------------------

// Decoder states (https://encoding.spec.whatwg.org/#iso-2022-jp-decoder).
const enum State {
  Ascii,
  Roman,
  Katakana,
  LeadByte,
  TrailByte,
  EscapeStart,
  Escape,
}

// Kinds of masked units: (kind << 8) | byte.
const JIS_LEAD = 1; // a lead byte of the JIS X 0208 state
const JIS_TRAIL = 5; // a trail byte of the JIS X 0208 state
const KATAKANA = 6; // a byte of the katakana state
const ROMAN_SIGN = 2; // 0x5C (¥) or 0x7E (‾) of the JIS-Roman state
const ESCAPE_BYTE = 3; // a byte of an escape sequence, not its last
const ERROR_BYTE = 4; // a byte the decoder returns error for
// The last byte of an escape sequence to each state: ESCAPE_TO + output state, plus FROM_ROMAN if the state
// before it was JIS-Roman (a run of markup that starts in JIS-Roman shows it only there).
const ESCAPE_TO = 8;
const FROM_ROMAN = 8;
/** The output state an escape unit's kind switches to. */
const escapeTarget = (kind: number): State => ((kind - ESCAPE_TO) % FROM_ROMAN) as State;

const mask = (kind: number, byte: number): number => (kind << 8) | byte;

/** Splice markers: U+E000 text U+E001, where text is the replacement's bytes as latin1. */
const SPLICE_OPEN = '\uE000';
const SPLICE_CLOSE = '\uE001';

const ESC_ASCII = '\x1b(B';
const ESC_ROMAN = '\x1b(J';

let iso2022JpEncoder: ((text: string) => Uint8Array) | null = null;

/**
 * The ISO-2022-JP encoder, made on first use: making it unpacks the JIS X 0208 table (~5 ms of the main thread at
 * import, and V8 compiled the unpacking loop again and again on its threads: ~30 ms of compile time in an mbox
 * run, `--trace-opt`), which only a replacement in an ISO-2022-JP document needs.
 */
function encodeIso2022Jp(text: string): Uint8Array {
  iso2022JpEncoder ??= createMultibyteEncoder('iso-2022-jp', { mode: 'fatal' });
  return iso2022JpEncoder(text);
}

/** ISO-2022-JP raw text: see the file comment. */
const ISO_2022_JP_CODEC: RawCodec = {
  decode(raw) {
    let out = '';
    for (let i = 0; i < raw.length; i++) {
      const c = raw.charCodeAt(i);
      if (c < 0x80) out += raw[i];
      else if (c >> 8 === ROMAN_SIGN) out += (c & 0xff) === 0x5c ? '\u00a5' : '\u203e';
      else return null;
    }
    return out;
  },
  mapRun: mapIso2022JpRun,
  encode(text, unencodable) {
    let bytes: Uint8Array;
    try {
      bytes = encodeIso2022Jp(text);
    } catch {
      // Characters ISO-2022-JP cannot hold become references or CSS escapes (ASCII), one code point at a time.
      let s = '';
      for (const ch of text) {
        try {
          encodeIso2022Jp(ch);
          s += ch;
        } catch {
          const cp = ch.codePointAt(0)!;
          s += unencodable === 'html' ? `&#${cp};` : `\\${cp.toString(16)} `;
        }
      }
      bytes = encodeIso2022Jp(s);
    }
    return SPLICE_OPEN + Buffer.from(bytes).toString('latin1') + SPLICE_CLOSE;
  },
  rawLength: () => 1,
  asciiIsOneUnit: true,
};

const jis0208 = new Map<number, string>();
/** The JIS X 0208 character of two bytes, or U+FFFD (https://encoding.spec.whatwg.org/#index-jis0208). */
function jisCharacter(lead: number, trail: number): string {
  const key = (lead << 8) | trail;
  let ch = jis0208.get(key);
  if (ch === undefined) {
    ch = new TextDecoder('iso-2022-jp').decode(Uint8Array.of(0x1b, 0x24, 0x42, lead, trail));
    jis0208.set(key, ch);
  }
  return ch;
}

/**
 * Decodes masked ISO-2022-JP raw text as the decoder does, with the raw offset of each unit. An escape sequence
 * belongs to a character next to it, so that a splice over whole characters takes the escapes that switch to
 * and from them: one to JIS X 0208 or katakana to the character after it, one back to ASCII to the character
 * before it (one to JIS-Roman, as the encoder writes ¥ and ‾, too). Two escapes in a row are a decoder error
 * (U+FFFD, undecodable). Null (not mapped) if the run has escapes and does not start and end in the ASCII state: a splice
 * must leave the state as it was (a run in JIS-Roman that switches to JIS X 0208 and back to ASCII ends in
 * another state than it started in; written back in JIS-Roman, the `\` and `~` after it would read as ¥ and ‾).
 */
function mapIso2022JpRun(raw: string): { text: string; rawAt: number[]; undecodable: number[] } | null {
  let text = '';
  const rawAt: number[] = [];
  const undecodable: number[] = [];
  let opening = -1; // start of an escape that belongs to the next character
  let escapeStart = -1;
  let afterEscape = false;
  let endState: number | null = null;
  const push = (ch: string, at: number, bad: boolean): void => {
    const r = opening !== -1 ? opening : text.length === 0 ? 0 : at;
    opening = -1;
    if (bad) undecodable.push(text.length);
    for (let k = 0; k < ch.length; k++) rawAt.push(r);
    text += ch;
    afterEscape = false;
  };
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    const kind = c >> 8;
    const b = c & 0xff;
    if (kind === 0) push(raw[i]!, i, false);
    else if (kind === ROMAN_SIGN) push(b === 0x5c ? '\u00a5' : '\u203e', i, false);
    else if (kind === ESCAPE_BYTE) {
      if (escapeStart === -1) escapeStart = i;
    } else if (kind >= ESCAPE_TO) {
      const start = escapeStart === -1 ? i : escapeStart;
      escapeStart = -1;
      const to = escapeTarget(kind);
      // The first escape of the run tells the state the run started in (the state before it).
      if (endState === null && kind >= ESCAPE_TO + FROM_ROMAN) return null;
      endState = to;
      if (afterEscape) push('\uFFFD', start, true);
      if (to === State.Ascii && text.length > 0) opening = -1;
      else if (opening === -1) opening = start;
      afterEscape = true;
    } else if (kind === KATAKANA) {
      push(String.fromCharCode(0xff61 - 0x21 + b), i, false);
    } else if (kind === JIS_LEAD && i + 1 < raw.length && raw.charCodeAt(i + 1) >> 8 === JIS_TRAIL) {
      const ch = jisCharacter(b, raw.charCodeAt(i + 1) & 0xff);
      push(ch, i, ch === '\uFFFD');
      i++;
    } else push('\uFFFD', i, true);
  }
  if (endState !== null && endState !== State.Ascii) return null;
  if (opening !== -1 || escapeStart !== -1) return null;
  return { text, rawAt, undecodable };
}

class Iso2022JpTranscoder implements Transcoder {
  readonly codec = ISO_2022_JP_CODEC;
  readonly queryEncoding = 'ISO-2022-JP';
  /** Input side: the decoder's state and output state, and the lead of an escape sequence. */
  private state = State.Ascii;
  private outputState = State.Ascii;
  private lead = 0;
  /** Held escape bytes (an escape sequence cut by a chunk boundary). */
  private held: number[] = [];
  /** Output side: the decoder state after everything written (Ascii, Roman, Katakana or LeadByte). */
  private written = State.Ascii;
  private splice: string | null = null;

  toRaw(bytes: Buffer): string {
    let out = '';
    for (let i = 0; i < bytes.length; i++) out += this.unit(bytes[i]!);
    return out;
  }

  /** One byte: its raw unit(s), as the decoder reads it. May return '' (held) or more than one unit. */
  private unit(b: number): string {
    switch (this.state) {
      case State.EscapeStart:
        if (b === 0x24 || b === 0x28) {
          this.lead = b;
          this.state = State.Escape;
          this.held.push(b);
          return '';
        }
        return this.badEscape(b);
      case State.Escape: {
        let to: State | null = null;
        if (this.lead === 0x28 && b === 0x42) to = State.Ascii;
        else if (this.lead === 0x28 && b === 0x4a) to = State.Roman;
        else if (this.lead === 0x28 && b === 0x49) to = State.Katakana;
        else if (this.lead === 0x24 && (b === 0x40 || b === 0x42)) to = State.LeadByte;
        if (to === null) return this.badEscape(b);
        const from = this.outputState;
        this.state = to;
        this.outputState = to;
        const units = this.held.map((h) => String.fromCharCode(mask(ESCAPE_BYTE, h))).join('');
        this.held = [];
        return units + String.fromCharCode(mask(ESCAPE_TO + to + (from === State.Roman ? FROM_ROMAN : 0), b));
      }
      default:
        break;
    }
    if (b === 0x1b) {
      this.state = State.EscapeStart;
      this.held = [b];
      return '';
    }
    switch (this.state) {
      case State.Ascii:
        return b === 0x0e || b === 0x0f || b >= 0x80 ? String.fromCharCode(mask(ERROR_BYTE, b)) : String.fromCharCode(b);
      case State.Roman:
        if (b === 0x5c || b === 0x7e) return String.fromCharCode(mask(ROMAN_SIGN, b));
        return b === 0x0e || b === 0x0f || b >= 0x80 ? String.fromCharCode(mask(ERROR_BYTE, b)) : String.fromCharCode(b);
      case State.Katakana:
        return String.fromCharCode(mask(b >= 0x21 && b <= 0x5f ? KATAKANA : ERROR_BYTE, b));
      case State.LeadByte:
        if (b >= 0x21 && b <= 0x7e) this.state = State.TrailByte;
        return String.fromCharCode(mask(b >= 0x21 && b <= 0x7e ? JIS_LEAD : ERROR_BYTE, b));
      default: // TrailByte
        this.state = State.LeadByte;
        return String.fromCharCode(mask(b >= 0x21 && b <= 0x7e ? JIS_TRAIL : ERROR_BYTE, b));
    }
  }

  /** Not an escape sequence: ESC is an error, the bytes after it are read again in the output state. */
  private badEscape(b: number): string {
    const held = this.held;
    this.held = [];
    this.state = this.outputState;
    let out = String.fromCharCode(mask(ERROR_BYTE, held[0]!));
    for (const h of [...held.slice(1), b]) out += this.unit(h);
    return out;
  }

  endBytes(): Buffer {
    const held = Buffer.from(this.held);
    this.held = [];
    return held;
  }

  fromRaw(raw: string): Buffer {
    let out = '';
    let i = 0;
    while (i < raw.length) {
      if (this.splice !== null) {
        const close = raw.indexOf(SPLICE_CLOSE, i);
        if (close === -1) {
          this.splice += raw.slice(i);
          break;
        }
        out += this.spliced(this.splice + raw.slice(i, close));
        this.splice = null;
        i = close + 1;
        continue;
      }
      const c = raw.charCodeAt(i);
      if (c === 0xe000) {
        this.splice = '';
        i++;
        continue;
      }
      if (c < 0x100) out += raw[i];
      else {
        const kind = c >> 8;
        if (kind >= ESCAPE_TO) this.written = escapeTarget(kind);
        out += String.fromCharCode(c & 0xff);
      }
      i++;
    }
    return Buffer.from(out, 'latin1');
  }

  /**
   * A replacement (encoder output: starts and ends in the ASCII state) in the state the output is in. Splices
   * sit between markup characters, so in the ASCII or JIS-Roman state, and hold no escape of the input: the
   * state after them must be the state before them. An escape directly after an escape is a decoder error
   * (https://encoding.spec.whatwg.org/#iso-2022-jp-decoder, "iso-2022-jp output"), so none is added next to one.
   */
  private spliced(bytes: string): string {
    if (bytes.length === 0 || this.written === State.Ascii) return bytes;
    const back = this.written === State.Roman ? ESC_ROMAN : escapeTo(this.written);
    let s = bytes.startsWith('\x1b') ? bytes : ESC_ASCII + bytes;
    if (s.endsWith(ESC_ASCII)) s = s.slice(0, -ESC_ASCII.length);
    return s + back;
  }
}

function escapeTo(state: State): string {
  if (state === State.Katakana) return '\x1b(I';
  if (state === State.LeadByte) return '\x1b$B';
  return ESC_ASCII;
}
