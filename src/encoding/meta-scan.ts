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
import { ErrorCodes, Tokenizer, TokenizerMode } from 'parse5';
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
 * Chromium's EncodingFromMetaAttributes (third_party/blink/renderer/core/html/parser/html_parser_idioms.cc), over
 * every attribute of the tag in order, duplicates included (the meta charset parser reads the tokenizer's raw
 * attribute list, not the element's): a `charset` attribute always sets the label (the last one wins, and one
 * with no valid label means none); a `content` attribute counts only if no `charset` came before it, and the last
 * such one wins; `http-equiv="content-type"` anywhere makes a `content` count. The label is stripped of HTML
 * spaces and looked up.
 */
function encodingOfMeta(attrs: readonly { readonly name: string; readonly value: string }[]): string | null {
  let pragma = false;
  let hasCharset = false;
  let mode: 'none' | 'charset' | 'pragma' = 'none';
  let charset = '';
  for (const { name, value } of attrs) {
    if (name === 'http-equiv') {
      if (value.toLowerCase() === 'content-type') pragma = true;
    } else if (name === 'charset') {
      hasCharset = true;
      charset = value;
      mode = 'charset';
    } else if (!hasCharset && name === 'content') {
      charset = extractCharset(value);
      if (charset !== '') mode = 'pragma';
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

/**
 * https://html.spec.whatwg.org/multipage/urls-and-fetching.html#algorithm-for-extracting-a-character-encoding-from-a-meta-element
 * as Chromium's ExtractCharset does it: every character up to U+0020 is whitespace, and an unquoted label also
 * ends at a quote (`charset=shift_jis"` is Shift_JIS).
 */
export function extractCharset(content: string): string {
  const lower = content.toLowerCase();
  let at = 0;
  for (;;) {
    const i = lower.indexOf('charset', at);
    if (i === -1) return '';
    let j = i + 7;
    while (j < content.length && content.charCodeAt(j) <= 0x20) j++;
    if (content[j] !== '=') {
      at = j;
      continue;
    }
    j++;
    while (j < content.length && content.charCodeAt(j) <= 0x20) j++;
    const q = content[j];
    if (q === '"' || q === "'") {
      const end = content.indexOf(q, j + 1);
      return end === -1 ? '' : content.slice(j + 1, end);
    }
    let end = j;
    while (end < content.length) {
      const c = content.charCodeAt(end);
      if (c <= 0x20 || c === 0x22 || c === 0x27 || c === 0x3b) break;
      end++;
    }
    return content.slice(j, end);
  }
}

/**
 * parse5's tokenizer, but a start tag keeps every attribute, duplicates too, in order (parse5 drops a duplicate,
 * as the tree builder must; Chromium's meta charset parser reads them all: encodingOfMeta).
 */
class AllAttributesTokenizer extends Tokenizer {
  protected override _err(code: ErrorCodes, cpOffset?: number): void {
    if (code === ErrorCodes.duplicateAttribute) {
      const token = this.currentToken;
      if (token !== null && 'attrs' in token) token.attrs.push(this.currentAttr);
    }
    super._err(code, cpOffset);
  }
}

/** Where a scan resumes: just past a token (or at 0), as parse5's tokenizer would stand there. */
export interface ScanStart {
  /** The offset of the resumption point (the end of the last token, or 0). */
  readonly base: number;
  readonly inHead: boolean;
  /** The tokenizer state there (DATA, or the raw-text state the last start tag switched to). */
  readonly mode: (typeof TokenizerMode)[keyof typeof TokenizerMode];
  /** The last start tag's name: what ends RCDATA, RAWTEXT and script data. */
  readonly lastStartTagName: string;
}

/**
 * The scan on parse5's tokenizer, one code point at a time: the reference the fast scan (MetaCharsetScanner) hands
 * over to for anything it does not decide itself. Offsets are of the whole document (`start.base` added).
 */
export class TokenizerMetaScanner implements TokenHandler {
  result: MetaScanResult | null = null;
  private readonly tokenizer: Tokenizer;
  private readonly base: number;
  private inHead: boolean;
  private consumed: number;

  constructor(start: ScanStart = { base: 0, inHead: true, mode: TokenizerMode.DATA, lastStartTagName: '' }) {
    this.tokenizer = new AllAttributesTokenizer({ sourceCodeLocationInfo: true }, this);
    this.tokenizer.state = start.mode;
    this.tokenizer.lastStartTagName = start.lastStartTagName;
    this.base = start.base;
    this.inHead = start.inHead;
    this.consumed = start.base;
  }

  /** Feeds raw (latin1) text; returns the result once known. */
  write(raw: string, last: boolean): MetaScanResult | null {
    if (this.result === null) this.tokenizer.write(raw, last);
    if (this.result === null && last) this.result = { encoding: null, end: this.consumed };
    return this.result;
  }

  /** The offset just past the character the tokenizer is at (the ">" of a tag it emits). */
  private here(): number {
    return this.base + this.tokenizer.preprocessor.offset + 1;
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
      const encoding = encodingOfMeta(token.attrs);
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
    if (this.result === null && token.location !== null) this.after(this.base + token.location.endOffset);
  }

  onNullCharacter(token: Token.CharacterToken): void {
    this.onCharacter(token);
  }

  onWhitespaceCharacter(token: Token.CharacterToken): void {
    this.onCharacter(token);
  }

  onEof(): void {}
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;

function isAsciiAlpha(c: number): boolean {
  return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
}

/** The tag the fast scan read: its name (ASCII-lowercased) and, for a `<meta>`, its attributes. */
interface FastTag {
  end: number;
  name: string;
  selfClosing: boolean;
  attrs: { name: string; value: string }[];
}

/** The attributes of the one start tag `tag` (`<` to `>`), as parse5's tokenizer reads them. */
function attributesOf(tag: string): Token.Attribute[] {
  let attrs: Token.Attribute[] = [];
  const handler = {
    onStartTag(token: Token.TagToken): void {
      attrs = token.attrs;
    },
  } as unknown as TokenHandler;
  // Not the last chunk: the tag is emitted at its ">", and nothing else (no EOF) is.
  new AllAttributesTokenizer({ sourceCodeLocationInfo: false }, handler).write(tag, false);
  return attrs;
}

/** Why a fast step stopped without a token: more input is needed, or the construct is left to parse5. */
const MORE = -1;
const HAND_OVER = -2;
/**
 * The most input held since the last token (text, or a construct not finished yet): a search flattens it, so past
 * this text in the head is dropped up to its last whitespace (dropText), and anything else is read on by parse5.
 */
const HELD_CHARS = 256 * 1024;
/**
 * Held input past which text the scan has searched is dropped at each write (dropText), not only past HELD_CHARS:
 * each write appends to what is held, and the search flattens the whole of it again. Six unterminated ~550 KB
 * `<title>`s in the mbox bench were copied ~28 MB this way in 4 KiB writes (10% of the run's allocation).
 */
const DROP_CHARS = 16 * 1024;
/** How far back from the last searched position dropText looks for whitespace to drop text up to. */
const DROP_LOOKBACK_CHARS = 4096;
/** More than the lookahead past a ">" or "</" that ends a token (`</noframes` and its next character, `<!-->`). */
const TAIL_CHARS = 16;
/** The longest unfinished script text with `<!--` the fast scan reads again when more input comes. */
const ESCAPED_SCRIPT_REREAD_CHARS = 64 * 1024;

/**
 * Streams bytes (as latin1 text) through the scan; `result` is set once the scan is done.
 *
 * The same scan as TokenizerMetaScanner (which, a code point at a time, took 5–7% of the stream's CPU profile
 * on real pages; docs/performance.md): tags, comments, doctypes and the raw text of script, style and title are found with
 * indexOf and short loops over the tokenizer states they go through
 * (https://html.spec.whatwg.org/multipage/parsing.html#tag-open-state and following). Text is skipped: it only
 * counts once a tag outside the head has been seen, and then only if it reaches byte 1024. Exact by construction:
 * at the first construct it does not read itself (text outside the head reaching byte 1024, plaintext, `</>`, the
 * end of input, more than HELD_CHARS since the last token), the scan goes on in TokenizerMetaScanner from the end
 * of the last token, where parse5's tokenizer holds nothing but its state and the last start tag's name.
 */
export class MetaCharsetScanner {
  result: MetaScanResult | null = null;
  private delegate: TokenizerMetaScanner | null = null;
  /** The input not yet consumed by a token: `buf[0]` is at offset `bufStart` (the end of the last token). */
  private buf = '';
  private bufStart = 0;
  /** The raw-text state after the last start tag (DATA outside raw text), and that tag's name. */
  private mode: (typeof TokenizerMode)[keyof typeof TokenizerMode] = TokenizerMode.DATA;
  private lastStartTagName = '';
  /** Where the data state looks for the next "<" (index in buf): the construct left unfinished, or the end. */
  private textFrom = 0;
  /** Where the search for the end of that construct (or of raw text) resumes once more input has come. */
  private hint = 0;
  /** Cleared by a tag that cannot be in a head; from then on every token ending at or past byte 1024 ends the scan. */
  private inHead = true;
  private readonly tag: FastTag = { end: 0, name: '', selfClosing: false, attrs: [] };
  /** The last TAIL_CHARS characters written (flat: `buf` may be a cons string not searched yet). */
  private tail = '';

  /** Feeds raw (latin1) text; returns the result once known. */
  write(raw: string, last: boolean): MetaScanResult | null {
    if (this.result !== null) return this.result;
    let delegate = this.delegate;
    if (delegate === null) {
      const held = this.buf;
      this.buf = held.length === 0 ? raw : held + raw;
      // Appending leaves a cons string that the next search flattens (a copy of all that is held): ~52 MB of the
      // mbox bench's ~360 MB allocated when every write searched. Every token the fast scan consumes ends at ">",
      // and raw text only at "</", so a write that cannot finish one is held without a search.
      const stuck = !last && held.length !== 0 && this.stuck(raw);
      this.tail = raw.length >= TAIL_CHARS ? raw.slice(-TAIL_CHARS) : (this.tail + raw).slice(-TAIL_CHARS);
      // Raw text held, searched up to its end (not an end tag being read): no "</" starts before its last
      // character now either (handOverText resumes parse5 up to there).
      if (stuck && this.mode !== TokenizerMode.DATA && this.hint >= held.length - 1) this.hint = this.buf.length - 1;
      // Likewise text held whole: the data state looks for the next "<" from the first one written.
      if (stuck && this.mode === TokenizerMode.DATA && this.textFrom === held.length) {
        const lt = raw.indexOf('<');
        this.textFrom = lt === -1 ? this.buf.length : held.length + lt;
      }
      delegate = stuck ? null : this.scan();
      if (delegate === null) {
        if (this.result !== null || (!last && (this.buf.length <= DROP_CHARS || this.dropText() || this.buf.length <= HELD_CHARS))) return this.result;
        delegate = this.handOver();
      }
      raw = this.buf;
      this.buf = '';
    }
    this.result = delegate.write(raw, last);
    return this.result;
  }

  /**
   * Whether appending `raw` to what the last scan left unfinished cannot let the scan decide (in the head, only a
   * `<meta>` does): a write without ">" ends no tag (a construct the last scan stopped at, looking ahead past its
   * ">", reaches the end of what was held, so no `<meta>` is held after it), and raw text ends only at "</" (the
   * held tail counts: `</style` may have come before the ">"). Holding is exact at any point; this only keeps
   * the answer prompt. Outside the head, text reaching byte 1024 is left to the scan (it hands it over).
   */
  private stuck(raw: string): boolean {
    if (!this.inHead) return false;
    if (this.mode === TokenizerMode.DATA) return raw.indexOf('>') === -1;
    return raw.indexOf('</') === -1 && this.tail.indexOf('<') === -1;
  }

  /** Continues in parse5's tokenizer from the end of the last token. */
  private handOver(): TokenizerMetaScanner {
    this.delegate = new TokenizerMetaScanner({ base: this.bufStart, inHead: this.inHead, mode: this.mode, lastStartTagName: this.lastStartTagName });
    return this.delegate;
  }

  /**
   * More than DROP_CHARS of text (data, RCDATA, RAWTEXT or script data without `<!--`) in the head: the fast scan
   * drops it up to its last whitespace it has searched past, and returns whether what it holds is then within
   * HELD_CHARS (else, past HELD_CHARS, parse5 reads on). Measured: six unterminated ~550 KB `<title>`s in the mbox bench were read by
   * parse5 (~5% of the main thread). In the head a character token only moves the end reported at the end of
   * input, and one that starts there ends where the token across it would: after a whitespace (not CR) no
   * character reference, `<` sequence or end tag is pending in these states, so the scan (or parse5 after it)
   * reads on from there as from the text's start.
   */
  private dropText(): boolean {
    const buf = this.buf;
    const scriptEscape = this.mode === TokenizerMode.SCRIPT_DATA && buf.includes('<!--');
    if (this.inHead && !scriptEscape && this.mode !== TokenizerMode.PLAINTEXT) {
      // Text before `limit` holds no token start (data) or no end tag start (raw text).
      const limit = this.mode === TokenizerMode.DATA ? this.textFrom : this.hint;
      for (let p = limit; p > 0 && p > limit - DROP_LOOKBACK_CHARS; p--) {
        const c = buf.charCodeAt(p - 1);
        if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c) {
          this.buf = buf.slice(p);
          this.bufStart += p;
          this.textFrom = Math.max(0, this.textFrom - p);
          this.hint = Math.max(0, this.hint - p);
          return this.buf.length <= HELD_CHARS;
        }
      }
    }
    return false;
  }

  /** Consumes tokens from `buf` until the scan decides, more input is needed, or parse5 takes over (returned). */
  private scan(): TokenizerMetaScanner | null {
    for (;;) {
      const end = this.mode === TokenizerMode.DATA ? this.data() : this.rawText();
      if (end === MORE) return null;
      if (end === HAND_OVER) return this.handOver();
      // A token ended at `end`: `buf` now starts there.
      this.buf = this.buf.slice(end - this.bufStart);
      this.bufStart = end;
      this.textFrom = 0;
      this.hint = 0;
      if (this.result !== null) return null;
    }
  }

  /** The data state: the next token's end (after the tag's effects), MORE or HAND_OVER. */
  private data(): number {
    const buf = this.buf;
    let lt = buf.indexOf('<', this.textFrom);
    for (;;) {
      if (lt === -1 || lt + 1 >= buf.length) {
        // Text is not a token the fast scan needs (in the head it changes nothing but the end reported at EOF).
        this.textFrom = lt === -1 ? buf.length : lt;
        return MORE;
      }
      const c = buf.charCodeAt(lt + 1);
      if (lt !== 0 && !this.inHead && this.bufStart + lt >= CHECK_UNCONDITIONALLY_BYTES && (isAsciiAlpha(c) || c === SLASH || c === 0x21 || c === 0x3f)) {
        // Text before a token, outside the head, reaching byte 1024: a character token in it (parse5 splits text
        // at whitespace, NUL, character references) may end the scan, so parse5 reads it.
        return HAND_OVER;
      }
      if (isAsciiAlpha(c)) return this.startTag(lt);
      if (c === SLASH) {
        if (lt + 2 >= buf.length) break;
        const d = buf.charCodeAt(lt + 2);
        if (isAsciiAlpha(d)) return this.endTag(lt);
        if (d === GT) return HAND_OVER; // `</>`: no token, and text on either side is one token.
        return this.toGt(lt, lt + 2); // bogus comment
      }
      if (c === 0x21) return this.markupDeclaration(lt);
      if (c === 0x3f) return this.toGt(lt, lt + 2); // `<?`: bogus comment
      lt = buf.indexOf('<', lt + 1); // a "<" that is text
    }
    return this.more(lt);
  }

  /** https://html.spec.whatwg.org/multipage/parsing.html#markup-declaration-open-state */
  private markupDeclaration(lt: number): number {
    const buf = this.buf;
    const at = lt + 2;
    if (buf.length < at + 2) return this.more(lt);
    if (buf.startsWith('--', at)) return this.comment(lt, at + 2);
    if (buf.length < at + 7) {
      // Not enough to tell a doctype from a bogus comment.
      if ('doctype'.startsWith(buf.slice(at).toLowerCase())) return this.more(lt);
    } else if (buf.slice(at, at + 7).toLowerCase() === 'doctype') {
      // Every doctype state ends the doctype at ">".
      return this.toGt(lt, at + 7);
    }
    return this.toGt(lt, at); // bogus comment (CDATA too, outside foreign content)
  }

  /**
   * https://html.spec.whatwg.org/multipage/parsing.html#comment-start-state: `<!-->` and `<!--->` end at once;
   * else the comment ends at the first `-->` or `--!>` after `<!--` (the only ways into the comment end state).
   */
  private comment(lt: number, s: number): number {
    const buf = this.buf;
    if (buf.length < s + 2) return this.more(lt);
    if (buf.charCodeAt(s) === GT) return this.token(s + 1);
    if (buf.charCodeAt(s) === 0x2d && buf.charCodeAt(s + 1) === GT) return this.token(s + 2);
    let i = Math.max(s, this.hint - 3);
    for (;;) {
      i = buf.indexOf('--', i);
      if (i === -1 || i + 3 >= buf.length) return this.more(lt, i === -1 ? buf.length : i);
      if (buf.charCodeAt(i + 2) === GT) return this.token(i + 3);
      if (buf.charCodeAt(i + 2) === 0x21 && buf.charCodeAt(i + 3) === GT) return this.token(i + 4);
      i++;
    }
  }

  /** A comment or doctype ends at the first ">" from `from`. */
  private toGt(lt: number, from: number): number {
    const gt = this.buf.indexOf('>', Math.max(from, this.hint));
    if (gt === -1) return this.more(lt, this.buf.length);
    return this.token(gt + 1);
  }

  /** A comment or a doctype ended at `end` (buf index). */
  private token(end: number): number {
    return this.after(this.bufStart + end);
  }

  /** Chromium's check after every token: outside the head, a token ending at or past byte 1024 ends the scan. */
  private after(end: number): number {
    if (!this.inHead && end >= CHECK_UNCONDITIONALLY_BYTES) this.result = { encoding: null, end };
    return end;
  }

  /** The construct at buf[lt] is unfinished: wait for more input (its end is searched for from `hint`). */
  private more(lt: number, hint = lt): number {
    this.textFrom = lt;
    this.hint = hint;
    return MORE;
  }

  /** A start tag at buf[lt]: Chromium's CheckForMetaCharset step for it (TokenizerMetaScanner.onStartTag). */
  private startTag(lt: number): number {
    const tag = this.tag;
    const r = this.readTag(lt + 1);
    if (r !== 0) return r === MORE ? this.more(lt) : HAND_OVER;
    const name = tag.name;
    const end = this.bufStart + tag.end;
    if (!tag.selfClosing) {
      const mode = STATE_FOR[name];
      if (mode !== undefined) this.mode = mode;
    }
    this.lastStartTagName = name;
    if (name === 'meta') {
      const encoding = encodingOfMeta(tag.attrs);
      if (encoding !== null) {
        this.result = { encoding, end };
        return end;
      }
    }
    if (!HEAD_TAGS.has(name) && name !== 'html' && name !== 'head') this.inHead = false;
    return this.after(end);
  }

  /** An end tag at buf[lt] (in raw text, only the one that ends it). */
  private endTag(lt: number): number {
    const r = this.readTag(lt + 2);
    if (r !== 0) return r === MORE ? this.more(lt) : HAND_OVER;
    this.mode = TokenizerMode.DATA;
    if (!HEAD_TAGS.has(this.tag.name)) this.inHead = false;
    return this.after(this.bufStart + this.tag.end);
  }

  /**
   * Reads a tag from its name at buf[from] to its ">" into `this.tag`, through the tag name, attribute and
   * self-closing states (https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state and following).
   * Returns 0 or MORE.
   */
  private readTag(from: number): number {
    const buf = this.buf;
    const n = buf.length;
    const tag = this.tag;
    let i = from;
    while (i < n) {
      const c = buf.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d || c === SLASH || c === GT) break;
      i++;
    }
    if (i >= n) return MORE;
    // ASCII letters lowered (toLowerCase lowers latin1 letters too, and no name with those is one we look at);
    // NUL read as U+FFFD.
    let name = buf.slice(from, i).toLowerCase();
    if (name.includes('\0')) name = name.replaceAll('\0', '\ufffd');
    tag.name = name;
    tag.selfClosing = false;
    const collect = name === 'meta' && buf.charCodeAt(from - 1) !== SLASH;
    const attrs: { name: string; value: string }[] = [];
    tag.attrs = attrs;
    // The attribute states, with the self-closing start tag state as `slash`.
    let slash = false;
    for (;;) {
      if (i >= n) return MORE;
      let c = buf.charCodeAt(i);
      if (slash) {
        slash = false;
        if (c === GT) {
          tag.selfClosing = true;
          tag.end = i + 1;
          break;
        }
        // else: reconsume in the before attribute name state
      }
      // before attribute name
      if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d) {
        i++;
        continue;
      }
      if (c === SLASH) {
        slash = true;
        i++;
        continue;
      }
      if (c === GT) {
        tag.end = i + 1;
        break;
      }
      // attribute name: "=" may start it; it ends at whitespace, "/", ">" or "=".
      const nameStart = i;
      i++;
      while (i < n) {
        c = buf.charCodeAt(i);
        if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d || c === SLASH || c === GT || c === EQ) break;
        i++;
      }
      if (i >= n) return MORE;
      let attr: { name: string; value: string } | null = null;
      if (collect) {
        const attrName = buf.slice(nameStart, i);
        const lower = attrName.replace(/[A-Z]+/g, (m) => m.toLowerCase());
        // Every attribute, duplicates too, as Chromium's meta charset parser reads them (encodingOfMeta).
        attr = { name: lower, value: '' };
        attrs.push(attr);
      }
      // after attribute name
      while (i < n && (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d)) c = buf.charCodeAt(++i);
      if (i >= n) return MORE;
      if (c !== EQ) continue; // "/", ">" or the next attribute's name: the before attribute name state reads it
      i++;
      // before attribute value
      while (i < n) {
        c = buf.charCodeAt(i);
        if (!(c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d)) break;
        i++;
      }
      if (i >= n) return MORE;
      if (c === GT) {
        tag.end = i + 1;
        break;
      }
      let valueStart: number;
      let valueEnd: number;
      if (c === DQ || c === SQ) {
        valueStart = i + 1;
        valueEnd = buf.indexOf(c === DQ ? '"' : "'", valueStart);
        if (valueEnd === -1) return MORE;
        i = valueEnd + 1;
        // after attribute value (quoted): whitespace, "/" and ">" are read by the before attribute name state,
        // anything else is reconsumed there too.
      } else {
        valueStart = i;
        while (i < n) {
          c = buf.charCodeAt(i);
          if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d || c === GT) break;
          i++;
        }
        if (i >= n) return MORE;
        valueEnd = i;
      }
      if (attr !== null) attr.value = buf.slice(valueStart, valueEnd);
    }
    // Character references, NUL and CR (newline normalization) in a <meta>: its attributes as parse5 reads them.
    if (collect && /[\0\r&]/.test(buf.slice(from, tag.end))) tag.attrs = attributesOf(buf.slice(from - 1, tag.end));
    return 0;
  }

  /**
   * RCDATA, RAWTEXT or script data after the start tag `lastStartTagName`: the text ends at `</name` followed by
   * whitespace, "/" or ">" (https://html.spec.whatwg.org/multipage/parsing.html#rawtext-end-tag-name-state).
   * Plaintext is left to parse5.
   */
  private rawText(): number {
    if (this.mode === TokenizerMode.PLAINTEXT) return HAND_OVER;
    const buf = this.buf;
    const name = this.lastStartTagName;
    let i = this.hint;
    for (;;) {
      i = buf.indexOf('</', i);
      if (i === -1 || i + 2 + name.length >= buf.length) break;
      if (buf.slice(i + 2, i + 2 + name.length).toLowerCase() === name) {
        const c = buf.charCodeAt(i + 2 + name.length);
        if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d || c === SLASH || c === GT) {
          if (this.mode === TokenizerMode.SCRIPT_DATA) {
            const open = buf.indexOf('<!--');
            if (open !== -1 && open < i) return this.escapedScript();
          }
          return this.rawTextEnd(i);
        }
      }
      i += 2;
    }
    if (this.mode === TokenizerMode.SCRIPT_DATA && buf.includes('<!--')) return this.escapedScript();
    return this.more(0, i === -1 ? Math.max(0, buf.length - 1) : i);
  }

  /** The end tag of raw text at buf[lt]; outside the head, text reaching byte 1024 before it is parse5's (data()). */
  private rawTextEnd(lt: number): number {
    if (lt !== 0 && !this.inHead && this.bufStart + lt >= CHECK_UNCONDITIONALLY_BYTES) return HAND_OVER;
    return this.endTag(lt);
  }

  /**
   * Script text with `<!--`: its end, read through the escaped states (scriptDataEnd), or MORE. The text is read
   * again from its start when more comes: past ESCAPED_SCRIPT_REREAD_CHARS parse5 reads it instead.
   */
  private escapedScript(): number {
    const end = scriptDataEnd(this.buf);
    if (end !== -1) return this.rawTextEnd(end);
    return this.buf.length > ESCAPED_SCRIPT_REREAD_CHARS ? HAND_OVER : this.more(0, 0);
  }
}

/** Whitespace, "/" or ">": what ends a tag name. */
function isTagEnd(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d || c === SLASH || c === GT;
}

/**
 * Script data that holds `<!--`, from its first character: the index of the `</script` that ends it, or -1 if
 * the input ends first. The script data, escaped and double escaped states
 * (https://html.spec.whatwg.org/multipage/parsing.html#script-data-state and following); only "<", "-" and ">"
 * move between them (NUL and CR do not).
 */
function scriptDataEnd(buf: string): number {
  const n = buf.length;
  const SCRIPT_DATA = 0;
  const ESCAPED = 1;
  const DOUBLE_ESCAPED = 2;
  let state = SCRIPT_DATA;
  // The dashes just read in an escaped state: 1 is the "dash" state, 2 the "dash dash" state.
  let dashes = 0;
  let i = 0;
  while (i < n) {
    if (state === SCRIPT_DATA) {
      const lt = buf.indexOf('<', i);
      if (lt === -1 || lt + 1 >= n) return -1;
      const c = buf.charCodeAt(lt + 1);
      if (c === SLASH) {
        // script data end tag open / name: an appropriate end tag ends the script, else back to script data.
        if (lt + 8 >= n) return -1;
        if (buf.slice(lt + 2, lt + 8).toLowerCase() === 'script' && isTagEnd(buf.charCodeAt(lt + 8))) return lt;
        i = lt + 2;
      } else if (c === 0x21) {
        // script data escape start (dash): "<!--" enters the escaped dash dash state.
        if (lt + 3 >= n) return -1;
        if (buf.charCodeAt(lt + 2) === 0x2d && buf.charCodeAt(lt + 3) === 0x2d) {
          state = ESCAPED;
          dashes = 2;
          i = lt + 4;
        } else {
          i = lt + 2;
        }
      } else {
        i = lt + 1;
      }
      continue;
    }
    const c = buf.charCodeAt(i);
    if (c === 0x2d) {
      if (dashes < 2) dashes++;
      i++;
      continue;
    }
    if (c === GT && dashes === 2) {
      state = SCRIPT_DATA;
      dashes = 0;
      i++;
      continue;
    }
    dashes = 0;
    if (c !== LT) {
      i++;
      continue;
    }
    // The escaped / double escaped less-than sign state.
    if (i + 1 >= n) return -1;
    const d = buf.charCodeAt(i + 1);
    if (state === ESCAPED) {
      if (d === SLASH) {
        // escaped end tag open / name: letters, then an appropriate end tag ends the script; anything else is
        // reconsumed in the escaped state.
        let j = i + 2;
        while (j < n && isAsciiAlpha(buf.charCodeAt(j))) j++;
        if (j >= n) return -1;
        if (j > i + 2 && isTagEnd(buf.charCodeAt(j)) && buf.slice(i + 2, j).toLowerCase() === 'script') return i;
        i = j > i + 2 ? j : i + 1;
      } else if (isAsciiAlpha(d)) {
        // script data double escape start: "script" and whitespace, "/" or ">" (consumed) double-escape.
        let j = i + 1;
        while (j < n && isAsciiAlpha(buf.charCodeAt(j))) j++;
        if (j >= n) return -1;
        if (isTagEnd(buf.charCodeAt(j))) {
          if (buf.slice(i + 1, j).toLowerCase() === 'script') state = DOUBLE_ESCAPED;
          i = j + 1;
        } else {
          i = j;
        }
      } else {
        i++;
      }
    } else if (d === SLASH) {
      // script data double escape end: "</script" and whitespace, "/" or ">" (consumed) back to escaped.
      let j = i + 2;
      while (j < n && isAsciiAlpha(buf.charCodeAt(j))) j++;
      if (j >= n) return -1;
      if (isTagEnd(buf.charCodeAt(j))) {
        if (buf.slice(i + 2, j).toLowerCase() === 'script') state = ESCAPED;
        i = j + 1;
      } else {
        i = j;
      }
    } else {
      i++;
    }
  }
  return -1;
}
