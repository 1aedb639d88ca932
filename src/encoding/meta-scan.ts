/**
 * A charset `<meta>` anywhere in the head, as Chromium finds it (third_party/blink/renderer/core/html/parser/
 * html_meta_charset_parser.cc, CheckForMetaCharset): the document, read as latin1, is tokenized (raw-text
 * elements switch the tokenizer's state as the tree builder would) until a `<meta>` names an encoding, or until
 * a tag that cannot be in a head (any tag but script, noscript, style, link, meta, object, title, base, and the
 * start tags html and head) has been seen and at least 1024 bytes have been read. This is the HTML standard's
 * "change the encoding" (https://html.spec.whatwg.org/multipage/parsing.html#changing-the-encoding-while-parsing)
 * for a `<meta>` the tree builder inserts "in head", which the 1024-byte prescan does not reach.
 * The tokenizer is parse5's (the standard's tokenizer states).
 */
import { Tokenizer, TokenizerMode } from 'parse5';
import type { Token, TokenHandler } from 'parse5';
import { resolveLabel } from './sniff.ts';

/** Bytes read unconditionally before a tag outside the head stops the scan (Chromium: kBytesToCheckUnconditionally). */
export const CHECK_UNCONDITIONALLY_BYTES = 1024;

// Chromium's list of tags that keep the scan "in head" (end tags of html and head do not).
const HEAD_TAGS = new Set(['script', 'noscript', 'style', 'link', 'meta', 'object', 'title', 'base']);

// Chromium's HTMLTokenizer::UpdateStateFor (scripting off: <noscript> is markup).
const STATE_FOR: Record<string, (typeof TokenizerMode)[keyof typeof TokenizerMode]> = {
  textarea: TokenizerMode.RCDATA,
  title: TokenizerMode.RCDATA,
  plaintext: TokenizerMode.PLAINTEXT,
  script: TokenizerMode.SCRIPT_DATA,
  style: TokenizerMode.RAWTEXT,
  iframe: TokenizerMode.RAWTEXT,
  xmp: TokenizerMode.RAWTEXT,
  noembed: TokenizerMode.RAWTEXT,
  noframes: TokenizerMode.RAWTEXT,
};

export interface MetaScanResult {
  /** The WHATWG name of the encoding the `<meta>` names (UTF-16 read as UTF-8), or null if none was found. */
  readonly encoding: string | null;
  /** Offset of the end of the `<meta>` tag that named it. */
  readonly end: number;
}

/**
 * https://html.spec.whatwg.org/multipage/urls-and-fetching.html#algorithm-for-extracting-a-character-encoding-from-a-meta-element,
 * with Chromium's EncodingFromMetaAttributes: `charset`, else `content` with a charset when `http-equiv` is
 * content-type. The first of `charset` / `content` decides.
 */
function encodingOfMeta(token: Token.TagToken): string | null {
  let pragma = false;
  let mode: 'none' | 'charset' | 'pragma' = 'none';
  let charset = '';
  for (const { name, value } of token.attrs) {
    if (name === 'http-equiv') {
      if (value.toLowerCase() === 'content-type') pragma = true;
    } else if (charset === '') {
      if (name === 'charset') {
        charset = value;
        mode = 'charset';
      } else if (name === 'content') {
        charset = extractCharset(value);
        if (charset !== '') mode = 'pragma';
      }
    }
  }
  if (!(mode === 'charset' || (mode === 'pragma' && pragma))) return null;
  const name = resolveLabel(charset);
  if (name === null) return null;
  // https://html.spec.whatwg.org/multipage/parsing.html#changing-the-encoding-while-parsing step 2: UTF-16 → UTF-8;
  // and x-user-defined → windows-1252.
  if (name === 'UTF-16LE' || name === 'UTF-16BE') return 'UTF-8';
  if (name === 'x-user-defined') return 'windows-1252';
  return name;
}

/** https://html.spec.whatwg.org/multipage/urls-and-fetching.html#algorithm-for-extracting-a-character-encoding-from-a-meta-element */
export function extractCharset(content: string): string {
  const lower = content.toLowerCase();
  let at = 0;
  for (;;) {
    const i = lower.indexOf('charset', at);
    if (i === -1) return '';
    let j = i + 7;
    while (j < content.length && isSpace(content.charCodeAt(j))) j++;
    if (content[j] !== '=') {
      at = j;
      continue;
    }
    j++;
    while (j < content.length && isSpace(content.charCodeAt(j))) j++;
    const q = content[j];
    if (q === '"' || q === "'") {
      const end = content.indexOf(q, j + 1);
      return end === -1 ? '' : content.slice(j + 1, end);
    }
    let end = j;
    while (end < content.length && !isSpace(content.charCodeAt(end)) && content[end] !== ';') end++;
    return content.slice(j, end);
  }
}

function isSpace(c: number): boolean {
  return c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20;
}

/** Streams bytes (as latin1 text) through the scan; `result` is set once the scan is done. */
export class MetaCharsetScanner implements TokenHandler {
  result: MetaScanResult | null = null;
  private readonly tokenizer: Tokenizer;
  private inHead = true;
  private consumed = 0;

  constructor() {
    this.tokenizer = new Tokenizer({ sourceCodeLocationInfo: true }, this);
  }

  /** Feeds raw (latin1) text; returns the result once known. */
  write(raw: string, last: boolean): MetaScanResult | null {
    if (this.result === null) this.tokenizer.write(raw, last);
    if (this.result === null && last) this.result = { encoding: null, end: this.consumed };
    return this.result;
  }

  /** The offset just past the character the tokenizer is at (the ">" of a tag it emits). */
  private here(): number {
    return this.tokenizer.preprocessor.offset + 1;
  }

  private after(end: number): void {
    this.consumed = end;
    if (this.result === null && !this.inHead && end >= CHECK_UNCONDITIONALLY_BYTES) this.result = { encoding: null, end };
    if (this.result !== null) this.tokenizer.pause();
  }

  onStartTag(token: Token.TagToken): void {
    if (this.result !== null) return;
    const name = token.tagName;
    const mode = STATE_FOR[name];
    if (mode !== undefined && !token.selfClosing) this.tokenizer.state = mode;
    const end = this.here();
    if (name === 'meta') {
      const encoding = encodingOfMeta(token);
      if (encoding !== null) {
        this.result = { encoding, end };
        this.tokenizer.pause();
        return;
      }
    }
    if (!HEAD_TAGS.has(name) && name !== 'html' && name !== 'head') this.inHead = false;
    this.after(end);
  }

  onEndTag(token: Token.TagToken): void {
    if (this.result !== null) return;
    if (!HEAD_TAGS.has(token.tagName)) this.inHead = false;
    this.after(this.here());
  }

  onComment(token: Token.CommentToken): void {
    if (this.result === null) this.after(this.here());
  }

  onDoctype(token: Token.DoctypeToken): void {
    if (this.result === null) this.after(this.here());
  }

  // Chromium checks after every token, text too: a run of text past 1024 bytes, after the head, ends the scan.
  onCharacter(token: Token.CharacterToken): void {
    if (this.result === null && token.location !== null) this.after(token.location.endOffset);
  }

  onNullCharacter(token: Token.CharacterToken): void {
    this.onCharacter(token);
  }

  onWhitespaceCharacter(token: Token.CharacterToken): void {
    this.onCharacter(token);
  }

  onEof(): void {}
}
