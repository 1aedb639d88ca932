/**
 * Whether bytes of unknown type are HTML, as a browser decides it: the MIME Sniffing standard, "rules for
 * identifying a resource with an unknown MIME type" (https://mimesniff.spec.whatwg.org/#rules-for-identifying-an-unknown-mime-type),
 * its scriptable patterns: after any leading whitespace bytes, `<!DOCTYPE HTML`, `<HTML`, `<HEAD`, `<SCRIPT`,
 * `<IFRAME`, `<H1`, `<DIV`, `<FONT`, `<TABLE`, `<A`, `<STYLE`, `<TITLE`, `<B`, `<BODY`, `<BR`, `<P` or `<!--`
 * (letters in any case), followed by a tag-terminating byte (space or `>`), within the resource header.
 * With the binary-data test and the stylesheet test beside it: one implementation for every caller — WARC
 * bodies without a Content-Type (src/warc/payload-route.ts), the files of a mirror whose names say nothing
 * (src/batch/sniff.ts), the CLI's hints (src/cli/hints.ts). Pure.
 */

/** The resource header: bytes the sniffing rules look at (MIME Sniffing §5.2, "read the resource header"). */
export const RESOURCE_HEADER_BYTES = 1445;

const HTML_PATTERNS = ['<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--'].map((p) => Buffer.from(p, 'latin1'));

/** MIME Sniffing §3: whitespace bytes (HT, LF, FF, CR, SP). */
const isWhitespaceByte = (b: number): boolean => b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;

export interface SniffHtmlOptions {
  /**
   * Accept a UTF-8 byte order mark before the pattern. The standard says text/plain there (§7.1 step 2 comes
   * first); a mirror's file with a BOM is HTML to every reader, so the directory command accepts it.
   */
  readonly utf8Bom?: boolean;
}

/** Whether the first RESOURCE_HEADER_BYTES of `bytes` are HTML by the standard's scriptable patterns (§7.1 step 1). */
export function sniffsAsHtml(bytes: Uint8Array, options: SniffHtmlOptions = {}): boolean {
  const length = Math.min(bytes.length, RESOURCE_HEADER_BYTES);
  let i = options.utf8Bom === true && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < length && isWhitespaceByte(bytes[i]!)) i++;
  for (const pattern of HTML_PATTERNS) {
    const end = i + pattern.length;
    if (end >= length) continue; // the tag-terminating byte must be there too
    let match = true;
    for (let k = 0; k < pattern.length && match; k++) {
      const b = bytes[i + k]!;
      // The pattern mask 0xDF makes ASCII letters match in either case (the pattern's letters are upper case).
      match = (pattern[k]! >= 0x41 && pattern[k]! <= 0x5a ? b & 0xdf : b) === pattern[k];
    }
    // A tag-terminating byte: 0x20 (SP) or 0x3E (">").
    if (match && (bytes[end] === 0x20 || bytes[end] === 0x3e)) return true;
  }
  return false;
}

/** MIME Sniffing §3: a binary data byte (a control other than HT, LF, FF, CR and ESC). */
const isBinaryDataByte = (b: number): boolean => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);

/** Whether the resource header holds no binary data byte (MIME Sniffing §3): bytes that read as text. */
export function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.byteLength, RESOURCE_HEADER_BYTES);
  for (let i = 0; i < n; i++) if (isBinaryDataByte(bytes[i]!)) return false;
  return n > 0;
}

/**
 * Whether text (no markup in it) starts as a stylesheet does: an at-rule, or a selector and a declaration block
 * (`sel { name: …`), after any comments. No sniffing rule exists for CSS (a browser takes a stylesheet as one from
 * the link that loads it); this is what a file that holds only a stylesheet starts with.
 */
export function looksLikeCss(prefix: Uint8Array): boolean {
  const text = Buffer.from(prefix).toString('latin1').replace(/^\xef\xbb\xbf/, '');
  if (text.includes('<')) return false;
  const start = text.replace(/^(?:\s|\/\*[\s\S]*?\*\/)+/, '');
  return /^@(?:charset|import|namespace|media|font-face|supports|layer|keyframes|page|container|property)\b/i.test(start) || /^[^{};@]{1,300}\{\s*(?:--)?[-a-zA-Z]+\s*:/.test(start);
}
