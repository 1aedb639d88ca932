/**
 * Decoding and encoding in a document's encoding, with @exodus/bytes (the codec whatwg-url uses, so that query
 * encoding and our own encoding agree).
 */
import { TextDecoder } from '@exodus/bytes/encoding.js';
import { createMultibyteEncoder } from '@exodus/bytes/multi-byte.js';
import { createSinglebyteEncoder } from '@exodus/bytes/single-byte.js';

const decoders = new Map<string, InstanceType<typeof TextDecoder>>();

/** Decodes bytes, or returns null if they are not valid in `encoding` (no U+FFFD guessing). */
export function decodeStrict(bytes: Uint8Array, encoding: string): string | null {
  let decoder = decoders.get(encoding);
  if (decoder === undefined) {
    decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
    decoders.set(encoding, decoder);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Splits bytes into runs valid in `encoding` and runs that are not, each invalid run being what a decoder
 * replaces by one U+FFFD (https://encoding.spec.whatwg.org/#decode: an error ends the pending sequence; the byte
 * that revealed it, if it was not part of it, starts anew). For bytes `decodeStrict` refuses: one decoder
 * step per byte.
 */
export function segmentValid(bytes: Uint8Array, encoding: string): Array<{ end: number; valid: boolean }> {
  const runs: Array<{ end: number; valid: boolean }> = [];
  let decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
  let validStart = 0;
  let pending = 0; // where the sequence not yet decoded starts
  const invalid = (start: number, end: number): void => {
    if (start > validStart) runs.push({ end: start, valid: true });
    runs.push({ end, valid: false });
    validStart = end;
    pending = end;
  };
  for (let i = 0; i < bytes.length; i++) {
    try {
      if (decoder.decode(bytes.subarray(i, i + 1), { stream: true }).length > 0) pending = i + 1;
    } catch {
      decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
      if (pending < i) {
        invalid(pending, i);
        i--; // this byte starts anew
      } else invalid(i, i + 1);
    }
  }
  try {
    decoder.decode();
  } catch {
    invalid(pending, bytes.length);
  }
  if (validStart < bytes.length) runs.push({ end: bytes.length, valid: true });
  return runs;
}

/**
 * Decodes valid bytes one decoder step per byte, with the offset of the byte sequence each UTF-16 unit comes
 * from (the characters a sequence decodes to are emitted at its last byte). Null if the bytes are not valid.
 */
export function mapDecoded(bytes: Uint8Array, encoding: string): { text: string; rawAt: number[] } | null {
  const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
  let text = '';
  const rawAt: number[] = [];
  let pending = 0;
  try {
    for (let i = 0; i < bytes.length; i++) {
      const out = decoder.decode(bytes.subarray(i, i + 1), { stream: true });
      if (out.length === 0) continue;
      // Big5's four two-character sequences (88 62, 88 64, 88 A3, 88 A5: Ê̄ Ê̌ ê̄ ê̌) Chromium decodes as U+0093
      // and a lone surrogate, and a URL holding one does not parse there: such a run stays undecodable, and its
      // URL as it is.
      if (out.length > 1 && out.codePointAt(0)! < 0x10000 && big5(encoding)) return null;
      for (let k = 0; k < out.length; k++) rawAt.push(pending);
      text += out;
      pending = i + 1;
    }
    if (decoder.decode().length > 0) return null;
  } catch {
    return null;
  }
  return pending === bytes.length ? { text, rawAt } : null;
}

const big5 = (encoding: string): boolean => encoding.toLowerCase() === 'big5';

// https://encoding.spec.whatwg.org/#legacy-multi-byte-chinese-(simplified)-encodings and the other multi-byte ones.
const MULTI_BYTE = new Set(['gbk', 'gb18030', 'big5', 'euc-jp', 'iso-2022-jp', 'shift_jis', 'euc-kr']);
const encoders = new Map<string, (s: string) => Uint8Array>();

function encoderFor(encoding: string): (s: string) => Uint8Array {
  const name = encoding.toLowerCase();
  let encoder = encoders.get(name);
  if (encoder === undefined) {
    if (name === 'utf-8') encoder = (s) => Buffer.from(s, 'utf8');
    else if (MULTI_BYTE.has(name)) encoder = createMultibyteEncoder(name, { mode: 'fatal' });
    else encoder = createSinglebyteEncoder(name, { mode: 'fatal' });
    encoders.set(name, encoder);
  }
  return encoder;
}

export interface EncodeOptions {
  /**
   * How a character the encoding cannot represent is written: `&#N;` in HTML, a CSS escape `\HHHHHH ` in CSS.
   * Both decode back to the character in their context.
   */
  readonly unencodable: 'html' | 'css';
}

/** Encodes text in `encoding`; unencodable characters are written as `options.unencodable` says. */
export function encodeString(text: string, encoding: string, options: EncodeOptions): Uint8Array {
  const encode = encoderFor(encoding);
  try {
    return encode(text);
  } catch {
    // Some character has no mapping: encode one code point at a time.
    const parts: Uint8Array[] = [];
    for (const ch of text) {
      try {
        parts.push(encode(ch));
      } catch {
        const cp = ch.codePointAt(0)!;
        parts.push(Buffer.from(options.unencodable === 'html' ? `&#${cp};` : `\\${cp.toString(16)} `, 'latin1'));
      }
    }
    return Buffer.concat(parts);
  }
}
