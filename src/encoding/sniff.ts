/**
 * Deciding a document's encoding as browsers do.
 * HTML: https://html.spec.whatwg.org/multipage/parsing.html#encoding-sniffing-algorithm (BOM, transport charset,
 * `<meta>` prescan of the first PRESCAN_BYTES bytes, default) — the prescan is encoding-sniffer's (fb55), which
 * implements that algorithm. CSS: https://drafts.csswg.org/css-syntax-3/#determine-the-fallback-encoding.
 */
import { labelToName } from '@exodus/bytes/encoding.js';
import { ResultType, Sniffer } from 'encoding-sniffer/sniffer';

/** Bytes of an HTML document that the `<meta>` prescan reads (HTML standard: 1024). */
export const PRESCAN_BYTES = 1024;

export type EncodingSource = 'bom' | 'transport' | 'meta' | 'default' | 'charset-rule' | 'environment';

/** The encoding a document is read in, and what decided it (for `onEncoding` and `--explain`). */
export interface EncodingDecision {
  /** The encoding's WHATWG name. */
  readonly name: string;
  readonly source: EncodingSource;
}

export interface SniffedEncoding {
  /** The encoding's WHATWG name ("UTF-8", "windows-1252", "Shift_JIS", …). */
  readonly encoding: string;
  readonly source: EncodingSource;
  /** Bytes of the byte order mark at the start (0 if none). */
  readonly bomLength: number;
}

/** The WHATWG name of an encoding label (https://encoding.spec.whatwg.org/#concept-encoding-get), or null. */
export function resolveLabel(label: string): string | null {
  return labelToName(label.trim());
}

/** https://encoding.spec.whatwg.org/#bom-sniff */
export function bomSniff(bytes: Uint8Array): { encoding: string; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'UTF-8', length: 3 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'UTF-16BE', length: 2 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'UTF-16LE', length: 2 };
  return null;
}

export interface SniffOptions {
  /** The transport layer's charset label (HTTP or MIME Content-Type, or the user's `--charset`). */
  readonly transportCharset?: string | undefined;
  /** @default 'windows-1252' */
  readonly defaultEncoding?: string | undefined;
  /**
   * Take a `<meta>` found by the byte prescan (the standard's). False: only BOM, transport charset and an XML
   * declaration decide here, and a `<meta>` is left to the caller's own scan (Chromium's: src/encoding/meta-scan.ts).
   * @default true
   */
  readonly prescanMeta?: boolean | undefined;
}

/** The HTML encoding sniffing algorithm over the first bytes of a document (at least PRESCAN_BYTES, or all). */
export function sniffEncoding(prefix: Uint8Array, options: SniffOptions = {}): SniffedEncoding {
  // 1. BOM sniffing.
  const bom = bomSniff(prefix);
  if (bom !== null) return { encoding: bom.encoding, source: 'bom', bomLength: bom.length };
  // 3. The transport layer's character encoding, if it names an encoding.
  const transport = options.transportCharset === undefined ? null : resolveLabel(options.transportCharset);
  if (transport !== null) return { encoding: transport, source: 'transport', bomLength: 0 };
  // 5. The prescan (with its UTF-16 → UTF-8 and x-user-defined → windows-1252 rules), then the default.
  const defaultEncoding = resolveLabel(options.defaultEncoding ?? 'windows-1252') ?? 'windows-1252';
  // Without the `<meta>` prescan only an XML declaration decides here, and encoding-sniffer reads one only at
  // the very start ("<?", its BeginLT state): other documents need no prescan (~2% of the main thread of the
  // mbox bench, and its state machine compiled; sniff.test.ts checks the two agree).
  if (options.prescanMeta === false && !(prefix[0] === 0x3c && prefix[1] === 0x3f)) return { encoding: defaultEncoding, source: 'default', bomLength: 0 };
  const sniffer = new Sniffer({ maxBytes: PRESCAN_BYTES, defaultEncoding });
  sniffer.write(prefix.subarray(0, PRESCAN_BYTES));
  const found = (sniffer.resultType === ResultType.META_TAG && options.prescanMeta !== false) || sniffer.resultType === ResultType.XML_ENCODING;
  if (!found) return { encoding: defaultEncoding, source: 'default', bomLength: 0 };
  return { encoding: resolveLabel(sniffer.encoding) ?? defaultEncoding, source: found ? 'meta' : 'default', bomLength: 0 };
}

export interface CssSniffOptions {
  readonly transportCharset?: string | undefined;
  /** The referring document's encoding. */
  readonly environmentEncoding?: string | undefined;
}

// https://drafts.csswg.org/css-syntax-3/#determine-the-fallback-encoding step 3: the exact bytes `@charset "`.
const CHARSET_RULE = Buffer.from('@charset "', 'latin1');

/** https://drafts.csswg.org/css-syntax-3/#input-byte-stream: BOM, protocol charset, `@charset`, environment, UTF-8. */
export function sniffCssEncoding(prefix: Uint8Array, options: CssSniffOptions = {}): SniffedEncoding {
  const bom = bomSniff(prefix);
  if (bom !== null) return { encoding: bom.encoding, source: 'bom', bomLength: bom.length };
  // 1. If HTTP or equivalent protocol provides an encoding label for the stylesheet, use it.
  const transport = options.transportCharset === undefined ? null : resolveLabel(options.transportCharset);
  if (transport !== null) return { encoding: transport, source: 'transport', bomLength: 0 };
  // 2. If the first 1024 bytes start with `@charset "`, then a label up to `";`.
  const bytes = Buffer.from(prefix.buffer, prefix.byteOffset, Math.min(prefix.byteLength, 1024));
  if (bytes.subarray(0, CHARSET_RULE.length).equals(CHARSET_RULE)) {
    const end = bytes.indexOf('";', CHARSET_RULE.length, 'latin1');
    if (end !== -1) {
      const name = resolveLabel(bytes.subarray(CHARSET_RULE.length, end).toString('latin1'));
      // "If the return value was UTF-16BE/LE, use UTF-8."
      if (name !== null) return { encoding: name.startsWith('UTF-16') ? 'UTF-8' : name, source: 'charset-rule', bomLength: 0 };
    }
  }
  // 3. The environment encoding (the referring document's), else UTF-8.
  const environment = options.environmentEncoding === undefined ? null : resolveLabel(options.environmentEncoding);
  if (environment !== null) return { encoding: environment, source: 'environment', bomLength: 0 };
  return { encoding: 'UTF-8', source: 'default', bomLength: 0 };
}

/**
 * True if every byte that markup (HTML or CSS) depends on always means that ASCII character in this encoding, so
 * that the document can be tokenized one byte per unit: ASCII-compatible encodings. Not UTF-16 (two bytes a
 * unit), ISO-2022-JP (escape sequences switch ASCII bytes to JIS X 0208) or "replacement".
 */
export function isAsciiSafeForMarkup(encoding: string): boolean {
  const name = encoding.toLowerCase();
  return !(name === 'utf-16le' || name === 'utf-16be' || name === 'iso-2022-jp' || name === 'replacement');
}
