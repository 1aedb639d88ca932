/**
 * The HTML standard's tokenizer (https://html.spec.whatwg.org/multipage/parsing.html#tokenization), written
 * for the rewriter: it finds tags, comments, doctypes and the end of raw text with `indexOf` and short loops
 * over the input string, and hands parse5's tree builder (`StackBuilder`) the very tokens parse5's own
 * tokenizer would — the same tag names, attributes (names, decoded values, duplicates dropped), self-closing
 * flags and source locations (line, column, offset), the same comment and doctype extents, and text in the same
 * classes (whitespace, NUL, other). The tree builder still decides everything it decides with parse5's
 * tokenizer: RAWTEXT, RCDATA, script data and PLAINTEXT, foreign content, CDATA sections.
 *
 * NOTE: hand-written because parse5's tokenizer steps a state machine method per code point and allocates a
 * string per attribute character; it was about 40% of the CPU time of rewriting a WARC file (issue 12:
 * `--cpu-prof` of bench/warc.ts), and no maintained JS tokenizer gives parse5's tokens and locations. Measured:
 * the whole rewriter core over the 258 pages of htmlparser-benchmark (`node --max-semi-space-size=4
 * bench/html-passes.ts [parse5]`) runs at 43 MB/s against 28.6 MB/s with parse5's tokenizer; `npm run bench`
 * went from 1.31× to 1.49× the SAX floor. It is
 * checked against parse5's tokenizer (src/html/fast-tokenizer.test.ts): every event the rewriter sees, on the
 * html5lib tokenizer and tree-construction inputs, the 258 real pages, edge cases and random documents, whole
 * and in random chunks.
 * What it does not produce, because nothing reads it: comment data (the tree adapter keeps no comments) and the
 * `chars` of text after its first character (the tree builder reads only whether text starts with a line feed).
 */
import { InsertionMode, Token, Tokenizer, TokenizerMode, html } from 'parse5';
import { DecodingMode, decodeHTML, decodeHTMLAttribute } from 'entities/decode';
import { StackBuilder } from './tokenizer-driver.ts';
import type { BasePlacement, DriverHandler, TokenizerEngine } from './tokenizer-driver.ts';
import { mayHoldUrl } from './url-attributes.ts';

const enum C {
  Nul = 0x00,
  Tab = 0x09,
  Lf = 0x0a,
  Ff = 0x0c,
  Cr = 0x0d,
  Space = 0x20,
  Bang = 0x21,
  Quote = 0x22,
  Amp = 0x26,
  Apos = 0x27,
  Dash = 0x2d,
  Slash = 0x2f,
  Lt = 0x3c,
  Equals = 0x3d,
  Gt = 0x3e,
  Question = 0x3f,
  RightBracket = 0x5d,
}

/** Text modes the tree builder switches the tokenizer to (plus CDATA, which the tokenizer enters itself). */
const enum Mode {
  Data,
  Rcdata,
  Rawtext,
  ScriptData,
  Plaintext,
}

/** What a markup scanner returns when the input ends inside the construct and more may come. */
const MORE = -1;

/** Raw whitespace: the tokenizer's four, and CR, which input preprocessing turns into a line feed. */
function isSpace(c: number): boolean {
  return c === C.Space || c === C.Lf || c === C.Tab || c === C.Ff || c === C.Cr;
}

function isAlpha(c: number): boolean {
  return ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);
}

/** Ends a tag name or an unquoted attribute value: whitespace, "/" or ">" (tag name), whitespace or ">". */
function endsTagName(c: number): boolean {
  return isSpace(c) || c === C.Slash || c === C.Gt;
}

/** Preprocessing and the tokenizer's own replacements, applied to a raw slice: CRLF and CR to LF, NUL to U+FFFD. */
function normalized(raw: string): string {
  let s = raw;
  if (s.indexOf('\r') !== -1) s = s.replace(/\r\n?/g, '\n');
  if (s.indexOf('\0') !== -1) s = s.replaceAll('\0', '\uFFFD');
  return s;
}

/** A tag or attribute name: ASCII upper case lowered (only ASCII: the standard's "ASCII upper alpha"), NUL to U+FFFD. */
function nameOf(raw: string): string {
  let s = raw;
  if (/[A-Z]/.test(s)) s = s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  s = normalized(s);
  // A string of its own: names are kept in module-wide caches, and a slice of 13 units or more would keep the
  // whole input chunk it was cut from alive with it (V8 shares the buffer of longer slices). Measured: streaming
  // 256 MB of WARC peaked 25–45 MiB higher before this.
  return s.length < 13 || s !== raw ? s : ` ${s}`.slice(1);
}

/** Names seen lately, by a hash of their characters: most tags and attributes reuse a string, not slice one. */
const NAME_SLOTS = 1024;
const nameCache: Array<string | undefined> = new Array<string | undefined>(NAME_SLOTS);

/**
 * The last name read for each first character and length: a tag or attribute name in lower case (as most are)
 * is found with one comparison. Tag ids (parse5's `getTagID`) are kept beside them.
 */
const recentNames: Array<string | undefined> = new Array<string | undefined>(128 * 16);
const recentTagIds: number[] = new Array<number>(128 * 16).fill(-1);

/** The slot of recentNames for a name of `length` units starting with unit `c`, or -1 if it has none. */
function recentSlot(c: number, length: number): number {
  return c < 128 && length < 16 ? c * 16 + length : -1;
}

/** nameOf(s.slice(start, end)), from the caches when the same name (ASCII case aside) was read lately. */
function internName(s: string, start: number, end: number): string {
  const slot = recentSlot(s.charCodeAt(start), end - start);
  if (slot !== -1) {
    const recent = recentNames[slot];
    if (recent !== undefined && sameUnits(s, start, recent)) return recent;
  }
  const name = hashedName(s, start, end);
  if (slot !== -1 && name.length === end - start && s.startsWith(name, start)) {
    recentNames[slot] = name;
    recentTagIds[slot] = -1;
  }
  return name;
}

/**
 * Whether `name` is at `start` of `s` (the caller knows there are name.length units there). NOTE: a loop, not
 * `s.startsWith(name, start)`: the builtin call was the hottest line of tagAt (`--cpu-prof-interval 50`).
 */
function sameUnits(s: string, start: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (s.charCodeAt(start + k) !== name.charCodeAt(k)) return false;
  return true;
}

/** parse5's tag id of a name internName returned for s[start, end). */
function tagIdOf(name: string, s: string, start: number, end: number): number {
  const slot = recentSlot(s.charCodeAt(start), end - start);
  if (slot === -1 || recentNames[slot] !== name) return html.getTagID(name);
  let id = recentTagIds[slot]!;
  if (id === -1) id = recentTagIds[slot] = html.getTagID(name);
  return id;
}

/** nameOf(s.slice(start, end)), from a cache keyed by a hash of the name's characters. */
function hashedName(s: string, start: number, end: number): string {
  const length = end - start;
  if (length > 24) return nameOf(s.slice(start, end));
  let h = length;
  for (let k = start; k < end; k++) {
    let c = s.charCodeAt(k);
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    else if (c === C.Nul || c === C.Cr) return nameOf(s.slice(start, end));
    h = (Math.imul(h, 31) + c) | 0;
  }
  const slot = (h ^ (h >>> 11)) & (NAME_SLOTS - 1);
  const cached = nameCache[slot];
  if (cached !== undefined && cached.length === length) {
    let k = 0;
    for (; k < length; k++) {
      let c = s.charCodeAt(start + k);
      if (c >= 0x41 && c <= 0x5a) c |= 0x20;
      if (c !== cached.charCodeAt(k)) break;
    }
    if (k === length) return cached;
  }
  const name = nameOf(s.slice(start, end));
  nameCache[slot] = name;
  return name;
}

/**
 * An attribute value as the tokenizer builds it: preprocessed, character references decoded as "consumed as part
 * of an attribute", NUL as U+FFFD.
 */
function valueOf(raw: string, mayHoldCr: boolean, mayHoldNul: boolean): string {
  const cr = mayHoldCr && raw.indexOf('\r') !== -1;
  const nul = mayHoldNul && raw.indexOf('\0') !== -1;
  if (!cr && !nul && raw.indexOf('&') === -1) return raw;
  let s = raw;
  if (cr) s = s.replace(/\r\n?/g, '\n');
  // A reference to U+0000 decodes to U+FFFD; a raw NUL is replaced after decoding (it cannot start a reference).
  if (s.indexOf('&') !== -1) s = decodeHTMLAttribute(s);
  return nul ? s.replaceAll('\0', '\uFFFD') : s;
}

/**
 * An attribute of a start tag. Its value is what valueOf makes of its raw text, decoded when first read: most
 * attributes (class, id, width, alt, …) are read by nobody — the tree builder reads a few (the type of an input,
 * the encoding of annotation-xml), the rewriter those that may hold a URL and the few that decide how to read
 * them (rel, type, itemprop, …). Until then it holds the input string it was cut from, as a slice of it would.
 * NOTE: measured with FastTokenizerDriver and the tree builder alone over the 258 real pages (threadCpuUsage,
 * alternating processes): decoding every value eagerly was ~10% of the pass.
 */
class Attribute implements Token.Attribute {
  name: string;
  /**
   * The input the raw value is in, its extent [start, end); once `end` is -1, the value. (One field for both:
   * an attribute is made for most attributes of every tag, 296,000 a pass over the 258 real pages.)
   */
  private text: string;
  private start: number;
  /** -1: `text` is the value; -2: the value, a string of its own (see keep). */
  private end: number;

  constructor(name: string, source: string, start: number, end: number, decoded: string) {
    this.name = name;
    this.text = end === -1 ? decoded : source;
    this.start = start;
    this.end = end;
  }

  get value(): string {
    if (this.end >= 0) {
      this.text = valueOf(this.text.slice(this.start, this.end), true, true);
      this.end = -1;
    }
    return this.text;
  }

  /**
   * The value decoded now, as a string of its own: for the token of a formatting element that the tree builder
   * keeps (in its list of active formatting elements) past the input it was read from, which a raw value or a
   * slice of it would keep alive as long as that token lives.
   */
  keep(): void {
    if (this.end === -2) return;
    const value = this.value;
    this.text = value.length >= 13 ? ` ${value}`.slice(1) : value;
    this.end = -2;
  }

  set value(value: string) {
    this.text = value;
    this.end = -1;
  }
}

/**
 * Tags whose attribute values are decoded as the tag is read: html, body and annotation-xml, whose lists
 * StackBuilder's adapter keeps with the element. (A formatting element's token, which the list of active
 * formatting elements keeps, has its values made its own when the input is let go: keepToken.)
 */
const EAGER_ATTRS: boolean[] = [];

/** The attributes of an end tag without any (the tree builder never reads an end tag's list; see tagAt for start tags). */
const NO_ATTRS: Token.Attribute[] = [];

/** tagAt's scratch: the attributes of the tag being read, and (name, start, end) of its URL-bearing ones. */
const SCRATCH_ATTRS: Token.Attribute[] = [];
const SCRATCH_KEPT_NAMES: string[] = [];
/** Start and end of each of SCRATCH_KEPT_NAMES (small integers only: no slot to clear between tags). */
const SCRATCH_KEPT_AT: number[] = [];
/** The scratch is emptied (its storage let go) after a tag with more attributes than this. */
const SCRATCH_KEEP = 256;
/** What a scratch slot holds between tags (so that it holds no value of an earlier document). */
const UNSET_ATTR: Token.Attribute = new Attribute('', '', 0, -1, '');

/** The formatting elements (https://html.spec.whatwg.org/multipage/parsing.html#formatting), by parse5 tag id. */
const FORMATTING: boolean[] = [];
for (const id of [html.TAG_ID.A, html.TAG_ID.B, html.TAG_ID.BIG, html.TAG_ID.CODE, html.TAG_ID.EM, html.TAG_ID.FONT, html.TAG_ID.I, html.TAG_ID.NOBR, html.TAG_ID.S, html.TAG_ID.SMALL, html.TAG_ID.STRIKE, html.TAG_ID.STRONG, html.TAG_ID.TT, html.TAG_ID.U]) FORMATTING[id] = true;
for (let id = 0; id < 256; id++) FORMATTING[id] ??= false;
for (let id = 0; id < 256; id++) EAGER_ATTRS[id] = id === html.TAG_ID.HTML || id === html.TAG_ID.BODY || id === html.TAG_ID.ANNOTATION_XML;

/** The shape of parse5's tokenizer that its tree builder reads and sets. */
interface BuilderTokenizer {
  state: number;
  inForeignNode: boolean;
}

/** The fields of parse5 8.1's Parser that decide whether a text token changes anything, with StackBuilder.nothingToReconstruct (see inertText). */
interface BuilderState {
  insertionMode: InsertionMode;
  framesetOk: boolean;
  skipNextNewLine: boolean;
}

/**
 * The first `count` attributes of the scratch as a list of their own, the scratch's slots unset. NOTE: array
 * literals for the common lengths: `SCRATCH_ATTRS.slice(0, count)` was the hottest line of tagAt
 * (`--cpu-prof-interval 100` over the 258 real pages).
 */
function attributeList(count: number): Token.Attribute[] {
  const a = SCRATCH_ATTRS;
  let list: Token.Attribute[];
  switch (count) {
    case 1:
      list = [a[0]!];
      break;
    case 2:
      list = [a[0]!, a[1]!];
      break;
    case 3:
      list = [a[0]!, a[1]!, a[2]!];
      break;
    case 4:
      list = [a[0]!, a[1]!, a[2]!, a[3]!];
      break;
    default:
      list = a.slice(0, count);
  }
  for (let k = 0; k < count; k++) a[k] = UNSET_ATTR;
  return list;
}

/**
 * The lines of a stretch of the input: `text` holds it from absolute offset `base`, whose line (from 1) and line
 * start are `firstLine` and `firstLineStart`. The driver's Lines follow its held input (`text` grows with each
 * write); when it drops what it has consumed, the old Lines keep the dropped text for the locations read from it
 * and new Lines start where the old ones end. Lines are counted when a location is first read: the rewriter
 * reads the lines of a few locations (those it reports), and most documents have nobody reading any.
 * NOTE: counting the line and column of every tag and attribute as it was read was ~10% of the rewriter core
 * over the 258 real pages (HtmlRewriteCore in alternating worker threads, nobody reading any line, against
 * counting every one; see docs/performance.md).
 */
class Lines {
  text: string;
  readonly base: number;
  private firstLine: number;
  private firstLineStart: number;
  /**
   * The Lines before, whose counting up to `base` gives `firstLine` and `firstLineStart`; null once they are
   * known. Lines are chained when the driver drops what it consumed and nobody read a line of it (see
   * FastTokenizerDriver.write): most documents are read to the end without any line counted.
   */
  private before: Lines | null = null;
  /** Whether the text may hold a CR (searched for only then). */
  private cr = false;
  // Counting state: line breaks counted up to absolute offset `scanned`; `line` and `lineStart` are those of
  // `scanned`.
  private scanned: number;
  line: number;
  lineStart: number;
  /** The next LF and CR at or after `scanned` (absolute offsets); -1 when not searched yet. */
  private nextLf = -1;
  private nextCr = -1;
  /**
   * Every MARK_LINES-th line counted: its start and number, in pairs. Counting goes on from the last mark before
   * an offset: locations are read mostly in input order, but not only (the rewriter reads a `<style>` start
   * tag's end when it comes, and the URLs of a `<link>` before it once the base is known).
   */
  private readonly marks: number[] = [];
  /** The end of what was counted so far (marks are added past it only). */
  private counted: number;

  constructor(text: string, base: number, line: number, lineStart: number) {
    this.text = text;
    this.base = base;
    this.firstLine = this.line = line;
    this.firstLineStart = this.lineStart = lineStart;
    this.scanned = this.counted = base;
  }

  sawCr(): void {
    this.cr = true;
    this.nextCr = -1;
  }

  /** The Lines that go on from `before` at absolute offset `base`, their first line counted when first needed. */
  static after(before: Lines, text: string, base: number): Lines {
    const lines = new Lines(text, base, 0, 0);
    lines.before = before;
    return lines;
  }

  /** Whether this Lines' first line is known (it was counted, or it starts the input). */
  get started(): boolean {
    return this.before === null;
  }

  /** The first line, counted through the chain of Lines before (oldest first: no recursion). */
  private start(): void {
    const chain: Lines[] = [];
    for (let l: Lines = this; l.before !== null; l = l.before) chain.push(l);
    for (let k = chain.length - 1; k >= 0; k--) {
      const l = chain[k]!;
      const before = l.before!;
      before.at(l.base);
      l.firstLine = l.line = before.line;
      l.firstLineStart = l.lineStart = before.lineStart;
      l.before = null;
    }
  }

  /** The line and column (`target - lineStart + 1`) of absolute offset `target`: sets `line` and `lineStart`. */
  at(target: number): void {
    if (this.before !== null) this.start();
    if (target < this.scanned || target - this.scanned > MARK_GAP) this.jump(target);
    if (target === this.scanned) return;
    // Line feeds, and CRs not followed by one (a CRLF is counted at its LF), in [scanned, target). The next of
    // each is remembered, so that a long line is not searched again for every location on it.
    const s = this.text;
    for (;;) {
      if (this.nextLf < this.scanned) this.nextLf = this.find('\n');
      if (this.nextCr < this.scanned) this.nextCr = this.cr ? this.find('\r') : Infinity;
      const k = Math.min(this.nextLf, this.nextCr);
      if (k >= target) break;
      const c = s.charCodeAt(k - this.base);
      if (c !== C.Lf && c !== C.Cr) {
        // A search that had run out of input (find's answer): search again from there.
        this.scanned = k;
        if (this.nextLf === k) this.nextLf = -1;
        if (this.nextCr === k) this.nextCr = -1;
        continue;
      }
      this.scanned = k + 1;
      if (c === C.Cr && s.charCodeAt(k - this.base + 1) === C.Lf) continue;
      this.line++;
      this.lineStart = k + 1;
      if (k >= this.counted && (this.line & (MARK_LINES - 1)) === 0) this.marks.push(k + 1, this.line);
    }
    this.scanned = target;
    if (target > this.counted) this.counted = target;
  }

  /** Counting from the last mark (or the start) at or before `target`, if it is not where counting is now. */
  private jump(target: number): void {
    const marks = this.marks;
    let lo = 0;
    let hi = marks.length >> 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (marks[2 * mid]! <= target) lo = mid + 1;
      else hi = mid;
    }
    const at = lo === 0 ? this.base : marks[2 * (lo - 1)]!;
    if (at <= this.scanned && target >= this.scanned) return;
    this.scanned = this.lineStart = at;
    this.line = lo === 0 ? this.firstLine : marks[2 * lo - 1]!;
    if (lo === 0) this.lineStart = this.firstLineStart;
    this.nextLf = this.nextCr = -1;
  }

  /** The absolute offset of the next `c` at or after `scanned`; if none is here, the end of the text so far. */
  private find(c: string): number {
    const k = this.text.indexOf(c, this.scanned - this.base);
    return this.base + (k === -1 ? this.text.length : k);
  }
}

/** The most input (UTF-16 units) and the most Lines the chain of Lines holds uncounted (see FastTokenizerDriver.write). */
const MAX_UNCOUNTED = 1 << 20;
/**
 * Input let go between two walks of the tokens the tree builder keeps (keptTokens): until the walk a kept token
 * still reads its values and lines from the text it came from, which it keeps alive. Walking at every write made a
 * run cost the number of writes times the formatting elements open (`<b id=1><b id=2>…` all stay in the list:
 * 40,000 of them in 64-character writes took 15 s instead of 3.5 s).
 */
const KEEP_EVERY = 1 << 16;
const MAX_CHAINED = 64;

/** See Lines.marks (a power of two), and how far ahead a jump to a mark is looked for. */
const MARK_LINES = 32;
const MARK_GAP = 1 << 14;

/**
 * A token the tree builder keeps past the input it was read from (see FastTokenizerDriver.write): the lines of
 * its location and of its attributes' counted, its attribute values made its own.
 * NOTE: values made their own here, not as the tag is read: decoding and copying every value of every formatting
 * element (most are `<a href>`s, closed long before the input is let go) was 2.6% of a rewriter pass over the
 * 258 real pages (`--cpu-prof`).
 */
function keepToken(token: Token.TagToken): void {
  for (const attr of token.attrs) if (attr instanceof Attribute) attr.keep();
  const location = token.location as SourceLocation | null;
  if (location === null) return;
  location.count();
  const attrs = location.attrs;
  if (attrs !== undefined) for (const name in attrs) (attrs[name] as SourceLocation).count();
}

/**
 * A tag's attribute locations (parse5's `location.attrs`), keyed by name: a fast object, properties added one by
 * one, and nothing inherited, since its prototype has none (no name such as "constructor" or "__proto__" finds
 * anything it was not given). NOTE: not `Object.create(null)`, which makes a dictionary-mode object: 45 of the
 * 688 MB allocated rewriting the 258 real pages three times (the sampling heap profiler, every object).
 */
const AttrLocations = function AttrLocations() {} as unknown as new () => Record<string, Token.Location>;
AttrLocations.prototype = Object.create(null) as object;

/**
 * parse5's location of a token or attribute, whose lines and columns are counted when first read: the start's
 * line and column, and the end's, of the character before `endOffset` plus `endShift` (1 for a token, whose end
 * is after its last character; 0 for an attribute, whose end is the character after it, and for EOF). Columns
 * count UTF-16 units from 1; CRLF, CR and LF each end a line.
 */
class SourceLocation implements Token.LocationWithAttributes {
  readonly startOffset: number;
  readonly endOffset: number;
  /** (A field from the start, undefined until a tag with URL-bearing attributes sets it: one shape for all.) */
  attrs?: Record<string, Token.Location>;
  /** Where its lines are counted; null once they are. */
  private lines: Lines | null;
  private readonly endShift: 0 | 1;
  /**
   * The lines and columns, once counted. NOTE: in an object of their own: most locations are never counted, and
   * one is made for every tag (three fields fewer: ~12 MB less allocated per pass over the 258 real pages).
   */
  private counts: LineColumns | null = null;

  constructor(lines: Lines, startOffset: number, endOffset: number, endShift: 0 | 1) {
    this.startOffset = startOffset;
    this.endOffset = endOffset;
    this.lines = lines;
    this.endShift = endShift;
  }

  get startLine(): number {
    return (this.counts ?? this.counted()).line;
  }

  get startCol(): number {
    return (this.counts ?? this.counted()).column;
  }

  get endLine(): number {
    return (this.counts ?? this.counted()).lastLine;
  }

  get endCol(): number {
    return (this.counts ?? this.counted()).lastColumn;
  }

  /** Counts the lines of the start and of the end. */
  count(): void {
    if (this.counts === null) this.counted();
  }

  private counted(): LineColumns {
    const lines = this.lines!;
    this.lines = null;
    lines.at(this.startOffset);
    const line = lines.line;
    const column = this.startOffset - lines.lineStart + 1;
    const last = this.endOffset - this.endShift;
    lines.at(last);
    return (this.counts = new LineColumns(line, column, lines.line, last - lines.lineStart + 1 + this.endShift));
  }
}

/** The lines and columns (from 1) of a SourceLocation's start and end, once counted. */
class LineColumns {
  readonly line: number;
  readonly column: number;
  readonly lastLine: number;
  readonly lastColumn: number;

  constructor(line: number, column: number, lastLine: number, lastColumn: number) {
    this.line = line;
    this.column = column;
    this.lastLine = lastLine;
    this.lastColumn = lastColumn;
  }
}

export class FastTokenizerDriver implements TokenizerEngine {
  private readonly builder: StackBuilder;
  private readonly modes: BuilderTokenizer;
  private readonly parser: BuilderState;
  private readonly handler: DriverHandler;

  /**
   * Unconsumed input, from absolute offset `base`; `pos` indexes it. What is held is an unfinished token (or a
   * CR or reference at the end of text): the rewriter stops feeding one longer than `limits.maxTokenBytes`.
   */
  private html = '';
  private base = 0;
  private pos = 0;
  private final = false;
  /** Whether any input so far held a CR or a NUL (their slower paths are needed only then). */
  private seenCr = false;
  private seenNul = false;
  private mode = Mode.Data;
  private lastStartTagName = '';
  /** Script data sub-state, kept across writes (see scanScript). */
  private script = Script.Data;
  private inCdata = false;
  private ended = false;
  /** An incomplete construct at `pos` was tried with the input up to this length: try again once it doubles. */
  private retryAt = 0;

  /**
   * The token of every end tag, its fields set for each: the tree builder and the rewriter read an end tag's
   * token while they process it and keep none (the rewriter keeps its offsets, a test its location; see
   * DriverHandler.onEndTag). NOTE: measured, an end tag's token was 15 MB of the 257 MB allocated per pass
   * over the 258 real pages (the sampling heap profiler, collected objects included).
   */
  private readonly endTagToken: Token.TagToken = { type: Token.TokenType.END_TAG, tagName: '', tagID: 0, selfClosing: false, ackSelfClosing: false, attrs: NO_ATTRS, location: null };

  /** Whether the handler may still act on onText (false once its hearsText said so: it never hears again). */
  private textHeard = true;

  /** Lines of the input held now, for the locations of the tokens read from it (see SourceLocation). */
  private lines = new Lines('', 0, 1, 0);
  /** Units of input let go whose lines are not counted, and the Lines chained before the current (see write). */
  private uncounted = 0;
  /** Input let go since the kept tokens were last walked (KEEP_EVERY). */
  private unkept = 0;
  private chained = 0;

  constructor(handler: DriverHandler) {
    this.builder = new StackBuilder(handler);
    this.modes = this.builder.tokenizer as unknown as BuilderTokenizer;
    this.parser = this.builder as unknown as BuilderState;
    this.handler = handler;
  }

  write(chunk: string, isLastChunk: boolean): void {
    if (this.ended) return;
    if (chunk.length > 0) {
      if (!this.seenCr && chunk.indexOf('\r') !== -1) {
        this.seenCr = true;
        this.lines.sawCr();
      }
      if (!this.seenNul && chunk.indexOf('\0') !== -1) this.seenNul = true;
      this.html = this.html.length === 0 ? chunk : this.html + chunk;
      this.lines.text = this.html;
    }
    this.final = isLastChunk;
    if (!this.final && this.html.length < this.retryAt) return;
    this.retryAt = 0;
    this.run();
    if (this.final) {
      this.eof();
      return;
    }
    // Keep only the unconsumed input (and the unit before it, where the end of the last token's location is).
    // What was consumed stays with the locations read from it (their Lines), which count its lines if asked;
    // the lines of the input from here on start where it ends.
    // NOTE: after every write: the next chunk is appended to what is held, and the first search flattens the
    // two into one string. Holding up to 64 KiB of consumed input made that copy 17 MB per pass over the 258
    // real pages (fed in 64 KiB slices; the sampling heap profiler, collected objects included); now 7 MB.
    if (this.pos > 1) {
      const drop = this.pos - 1;
      const lines = this.lines;
      // The tokens the tree builder keeps (formatting elements') would keep the old text alive: their lines are
      // counted, their attribute values made their own, once KEEP_EVERY units of input were let go.
      this.unkept += drop;
      if (this.unkept > KEEP_EVERY) {
        this.builder.keptTokens(keepToken);
        this.unkept = 0;
      }
      this.html = this.html.slice(drop);
      this.base += drop;
      this.pos -= drop;
      // (An unfinished construct is tried again once its input doubles: the same length, from the new start.)
      if (this.retryAt !== 0) this.retryAt -= drop;
      // The new Lines start where the old ones end; the line there is counted when someone reads a line after it,
      // or once MAX_UNCOUNTED units of input were let go uncounted, or MAX_CHAINED Lines are chained (what the
      // chain holds alive: the input, and a Lines a write).
      // NOTE: counting every line at the drop was 3.7% of a rewriter pass over the 258 real pages (`--cpu-prof`,
      // Lines.at and find), and nearly all of it is never read.
      if (lines.started) {
        this.uncounted = drop;
        this.chained = 1;
      } else {
        this.uncounted += drop;
        this.chained++;
      }
      if (this.uncounted > MAX_UNCOUNTED || this.chained > MAX_CHAINED) {
        lines.at(this.base);
        this.lines = new Lines(this.html, this.base, lines.line, lines.lineStart);
        this.uncounted = this.chained = 0;
      } else this.lines = Lines.after(lines, this.html, this.base);
      if (this.seenCr) this.lines.sawCr();
    }
  }

  safeOffset(): number {
    return this.base + this.pos;
  }

  /**
   * Reads every token the input so far completes. `write` waits for an unfinished construct's input to double
   * before it tries again (retryAt), so `safeOffset` may lag behind tokens that are complete: the rewriter asks
   * for this before it takes the bytes held for a token over maxTokenBytes (which must not depend on chunking).
   */
  catchUp(): void {
    if (this.ended || this.final || this.retryAt === 0) return;
    this.retryAt = 0;
    this.run();
  }

  openElementCount(): number {
    return this.builder.openElementCount;
  }

  inTemplate(): boolean {
    return this.builder.inTemplate;
  }

  currentElement(): unknown {
    return this.builder.currentElement;
  }

  framesetPending(): boolean {
    return this.builder.framesetPending;
  }

  lastBasePlacement(): BasePlacement {
    return this.builder.lastBasePlacement;
  }

  isOpen(element: unknown): boolean {
    return this.builder.isOpen(element);
  }

  // --- the main loop ---------------------------------------------------------------------------------------

  private run(): void {
    for (;;) {
      let next: number;
      if (this.inCdata) next = this.scanCdata();
      else {
        switch (this.mode) {
          case Mode.Data:
            next = this.scanData();
            break;
          case Mode.Rcdata:
          case Mode.Rawtext:
            next = this.scanRawText();
            break;
          case Mode.ScriptData:
            next = this.scanScript();
            break;
          default:
            next = this.scanPlaintext();
        }
      }
      if (next === MORE) {
        if (!this.final) this.retryAt = this.pos === this.html.length ? 0 : this.html.length + (this.html.length - this.pos);
        return;
      }
      this.pos = next;
      if (this.pos >= this.html.length) return;
    }
  }

  /** Data state: text up to a "<" that starts markup, then the markup. Returns where to go on, or MORE. */
  private scanData(): number {
    const s = this.html;
    const n = s.length;
    const start = this.pos;
    let from = start;
    for (;;) {
      const lt = s.indexOf('<', from);
      if (lt === -1) {
        this.emitHeldText(start, n, true);
        return MORE;
      }
      // Tag open state: "!", "/", an ASCII alpha and "?" start markup; anything else (EOF too) is text. "</" at
      // EOF is text too (end tag open state, EOF).
      if (lt + 1 >= n || (lt + 2 >= n && s.charCodeAt(lt + 1) === C.Slash)) {
        if (this.final) {
          this.emitText(start, n, true);
          return n;
        }
        this.emitText(start, lt, true);
        this.pos = lt;
        return MORE;
      }
      const c = s.charCodeAt(lt + 1);
      if (c === C.Bang || c === C.Slash || c === C.Question || isAlpha(c)) {
        this.emitText(start, lt, true);
        this.pos = lt;
        return this.markupAt(lt);
      }
      from = lt + 1;
    }
  }

  /** The markup at `lt`: "<" then "!", "?", an ASCII alpha, or "/" and one more character. Emitted; returns the offset after it, or MORE. */
  private markupAt(lt: number): number {
    const s = this.html;
    const c = s.charCodeAt(lt + 1);
    if (c === C.Bang) return this.declarationAt(lt);
    if (c === C.Question) return this.bogusCommentAt(lt, lt + 1);
    if (c === C.Slash) {
      const d = s.charCodeAt(lt + 2);
      if (isAlpha(d)) return this.tagAt(lt, true);
      if (d === C.Gt) return lt + 3; // "</>": missing-end-tag-name, nothing emitted
      return this.bogusCommentAt(lt, lt + 2);
    }
    return this.tagAt(lt, false);
  }

  // --- tags ------------------------------------------------------------------------------------------------

  /**
   * A start or end tag at `lt` (its name starts at lt + 1 or lt + 2), through the tag name, attribute and
   * self-closing states. Emits it and returns the offset after its ">"; MORE; or, at EOF inside it (eof-in-tag:
   * the tag is dropped), the input's length.
   */
  private tagAt(lt: number, end: boolean): number {
    const s = this.html;
    const n = s.length;
    // What a tag cut by the end of the input returns, read once: `this.final` read only on those (cold) exits
    // has no type feedback when TurboFan first compiles this function, and each such exit deoptimized it
    // (--trace-deopt over bench/html-passes.ts).
    const cut = this.final ? n : MORE;
    let i = lt + (end ? 2 : 1);
    const nameStart = i;
    while (i < n && !endsTagName(s.charCodeAt(i))) i++;
    if (i >= n) return cut;
    const nameEnd = i;
    const tagName = internName(s, nameStart, i);
    const tagID = tagIdOf(tagName, s, nameStart, nameEnd) as html.TAG_ID;
    /** Values decoded when read (see Attribute), but for start tags the tree builder keeps with their element. */
    const lazy = end || !EAGER_ATTRS[tagID];
    // Attributes are gathered in module-wide scratch arrays and copied out at the ">" at their exact length (a
    // list grown by push holds 17 slots for one attribute). They are emptied before the tag is emitted, so a
    // nested tokenizer (an iframe srcdoc, rewritten from inside the callback) can use them too.
    let count = 0;
    let names: Set<string> | null = null;
    /** URL-bearing attributes: name, start and end, whose locations the rewriter reads. */
    let kept = 0;
    let selfClosing = false;
    // Before attribute name / after attribute name / self-closing start tag, with `i` at the current character.
    for (;;) {
      let c = s.charCodeAt(i);
      while (isSpace(c)) {
        if (++i >= n) return cut;
        c = s.charCodeAt(i);
      }
      if (c === C.Gt) break;
      if (c === C.Slash) {
        // Self-closing start tag state: ">" ends the tag; anything else is reconsumed before an attribute name.
        if (++i >= n) return cut;
        if (s.charCodeAt(i) === C.Gt) {
          selfClosing = true;
          break;
        }
        continue;
      }
      // Attribute name state (its first character may be "=": unexpected-equals-sign-before-attribute-name).
      const attrStart = i;
      i++;
      while (i < n) {
        const d = s.charCodeAt(i);
        if (isSpace(d) || d === C.Slash || d === C.Gt || d === C.Equals) break;
        i++;
      }
      if (i >= n) return cut;
      const name = internName(s, attrStart, i);
      let duplicate: boolean;
      if (names !== null) duplicate = names.has(name);
      else {
        duplicate = false;
        for (let k = 0; k < count; k++) {
          if (SCRATCH_ATTRS[k]!.name === name) {
            duplicate = true;
            break;
          }
        }
        if (!duplicate && count === 64) names = new Set(SCRATCH_ATTRS.slice(0, count).map((a) => a.name));
      }
      if (names !== null && !duplicate) names.add(name);
      // After attribute name state: whitespace, then "=" starts a value; anything else ends the attribute here.
      let attrEnd = i;
      let value = '';
      let valueStart = 0;
      let valueEnd = -1;
      let j = i;
      while (j < n && isSpace(s.charCodeAt(j))) j++;
      if (j >= n) return cut;
      if (s.charCodeAt(j) === C.Equals) {
        // Before attribute value state.
        j++;
        while (j < n && isSpace(s.charCodeAt(j))) j++;
        if (j >= n) return cut;
        const q = s.charCodeAt(j);
        if (q === C.Quote || q === C.Apos) {
          const close = s.indexOf(q === C.Quote ? '"' : "'", j + 1);
          if (close === -1) return cut;
          if (!duplicate) {
            if (lazy) {
              valueStart = j + 1;
              valueEnd = close;
            } else value = valueOf(s.slice(j + 1, close), this.seenCr, this.seenNul);
          }
          i = close + 1;
          // After attribute value (quoted): the attribute ends at the next character, whatever it is.
          if (i >= n) return cut;
          attrEnd = i;
        } else if (q === C.Gt) {
          // missing-attribute-value: the tag ends; the attribute ended at the "=" (parse5 left it there).
          i = j;
        } else {
          let k = j;
          while (k < n) {
            const d = s.charCodeAt(k);
            if (isSpace(d) || d === C.Gt) break;
            k++;
          }
          if (k >= n) return cut;
          if (!duplicate) {
            if (lazy) {
              valueStart = j;
              valueEnd = k;
            } else value = valueOf(s.slice(j, k), this.seenCr, this.seenNul);
          }
          i = k;
          attrEnd = k;
        }
      } else {
        i = j;
      }
      if (!duplicate) {
        SCRATCH_ATTRS[count++] = new Attribute(name, valueEnd === -1 ? '' : s, valueStart, valueEnd, value);
        if (mayHoldUrl(name)) {
          SCRATCH_KEPT_NAMES[kept] = name;
          SCRATCH_KEPT_AT[2 * kept] = attrStart;
          SCRATCH_KEPT_AT[2 * kept + 1] = attrEnd;
          kept++;
        }
      }
    }
    // `i` is at the ">".
    const base = this.base;
    const location = new SourceLocation(this.lines, base + lt, base + i + 1, 1);
    if (kept > 0) {
      const attrLocations = new AttrLocations();
      for (let k = 0; k < kept; k++) attrLocations[SCRATCH_KEPT_NAMES[k]!] = new SourceLocation(this.lines, base + SCRATCH_KEPT_AT[2 * k]!, base + SCRATCH_KEPT_AT[2 * k + 1]!, 0);
      location.attrs = attrLocations;
    }
    // A start tag's list is its own, even when empty: StackBuilder._createElement tells the element made from the
    // token being processed by the identity of its attribute list (a reconstructed formatting element's is another
    // token's), so two start tags must never share one.
    const attrs = count === 0 ? (end ? NO_ATTRS : []) : attributeList(count);
    // (A tag with very many attributes does not leave the scratch that long; what a tag cut by the end of input
    // left in it is overwritten by the next tag.)
    if (SCRATCH_ATTRS.length > SCRATCH_KEEP) SCRATCH_ATTRS.length = SCRATCH_KEPT_NAMES.length = SCRATCH_KEPT_AT.length = 0;
    this.pos = i + 1;
    if (end) {
      const token = this.endTagToken;
      token.tagName = tagName;
      token.tagID = tagID;
      token.selfClosing = selfClosing;
      token.attrs = attrs;
      token.location = location;
      this.builder.onEndTag(token);
    } else {
      const token: Token.TagToken = { type: Token.TokenType.START_TAG, tagName, tagID, selfClosing, ackSelfClosing: false, attrs, location };
      this.lastStartTagName = tagName;
      this.modes.state = TokenizerMode.DATA;
      this.builder.onStartTag(token);
      this.takeMode();
    }
    return i + 1;
  }

  /** After a start tag: the text mode the tree builder switched the tokenizer to, if any. */
  private takeMode(): void {
    switch (this.modes.state) {
      case TokenizerMode.RCDATA:
        this.mode = Mode.Rcdata;
        break;
      case TokenizerMode.RAWTEXT:
        this.mode = Mode.Rawtext;
        break;
      case TokenizerMode.SCRIPT_DATA:
        this.mode = Mode.ScriptData;
        this.script = Script.Data;
        break;
      case TokenizerMode.PLAINTEXT:
        this.mode = Mode.Plaintext;
        break;
      default:
        this.mode = Mode.Data;
    }
  }

  // --- comments, doctypes, CDATA ---------------------------------------------------------------------------

  /** Markup declaration open state, at "<!". */
  private declarationAt(lt: number): number {
    const s = this.html;
    const at = lt + 2;
    // parse5 waits until it can compare each sequence whole (a sequence cut by the end of input may still match).
    if (at + 2 > s.length && !this.final) return MORE;
    if (s.startsWith('--', at)) return this.commentAt(lt);
    if (at + 7 > s.length && !this.final) return MORE;
    if (at + 7 <= s.length && s.slice(at, at + 7).toLowerCase() === 'doctype') return this.doctypeAt(lt);
    if (s.startsWith('[CDATA[', at) && this.modes.inForeignNode) {
      this.pos = at + 7;
      this.inCdata = true;
      return at + 7;
    }
    return this.bogusCommentAt(lt, at);
  }

  /**
   * A comment at "<!--": it ends at the first "-->" or "--!>" after the "<!--" (every comment state goes back to
   * the comment state on anything else), or at once for "<!-->" and "<!--->" (abrupt-closing-of-empty-comment).
   */
  private commentAt(lt: number): number {
    const s = this.html;
    const at = lt + 4;
    if (at >= s.length && !this.final) return MORE;
    let gt: number;
    if (s.charCodeAt(at) === C.Gt) gt = at;
    else if (s.charCodeAt(at) === C.Dash && at + 1 < s.length && s.charCodeAt(at + 1) === C.Gt) gt = at + 1;
    else if (s.charCodeAt(at) === C.Dash && at + 1 >= s.length && !this.final) return MORE;
    else {
      gt = -1;
      let from = at;
      for (;;) {
        const dd = s.indexOf('--', from);
        if (dd === -1 || dd + 2 >= s.length) break;
        const c = s.charCodeAt(dd + 2);
        if (c === C.Gt) {
          gt = dd + 2;
          break;
        }
        if (c === C.Bang) {
          if (dd + 3 >= s.length) break;
          if (s.charCodeAt(dd + 3) === C.Gt) {
            gt = dd + 3;
            break;
          }
        }
        from = dd + 1;
      }
    }
    if (gt === -1) {
      if (!this.final) return MORE;
      return this.emitAtEof({ type: Token.TokenType.COMMENT, data: '', location: this.span(lt, s.length + 1) });
    }
    return this.emitComment(lt, gt + 1);
  }

  /** A bogus comment from "<" at `lt` (data from `at`): it ends at the first ">". */
  private bogusCommentAt(lt: number, at: number): number {
    const s = this.html;
    const gt = s.indexOf('>', at);
    if (gt === -1) {
      if (!this.final) return MORE;
      return this.emitAtEof({ type: Token.TokenType.COMMENT, data: '', location: this.span(lt, s.length + 1) });
    }
    return this.emitComment(lt, gt + 1);
  }

  private emitComment(lt: number, end: number): number {
    const token: Token.CommentToken = { type: Token.TokenType.COMMENT, data: '', location: this.span(lt, end) };
    this.pos = end;
    this.builder.onComment(token);
    return end;
  }

  /**
   * A doctype at "<!DOCTYPE": every DOCTYPE state ends the token at ">" (some with a parse error), so it ends at
   * the first ">". Its name, identifiers and force-quirks flag (which set the document's quirks mode) are read by
   * parse5's own tokenizer from the doctype's text: a doctype comes once a document.
   */
  private doctypeAt(lt: number): number {
    const s = this.html;
    const gt = s.indexOf('>', lt + 9);
    if (gt === -1 && !this.final) return MORE;
    const end = gt === -1 ? s.length : gt + 1;
    const fields = doctypeFields(s.slice(lt, end));
    if (gt === -1) {
      return this.emitAtEof({ type: Token.TokenType.DOCTYPE, ...fields, location: this.span(lt, s.length + 1) });
    }
    const token: Token.DoctypeToken = { type: Token.TokenType.DOCTYPE, ...fields, location: this.span(lt, end) };
    this.pos = end;
    this.builder.onDoctype(token);
    return end;
  }

  /** A comment or doctype still open at the end of input: emitted, then EOF. */
  private emitAtEof(token: Token.CommentToken | Token.DoctypeToken): number {
    this.pos = this.html.length;
    if (token.type === Token.TokenType.COMMENT) this.builder.onComment(token);
    else this.builder.onDoctype(token);
    return this.html.length;
  }

  /** CDATA section state (foreign content): text up to "]]>". */
  private scanCdata(): number {
    const s = this.html;
    const close = s.indexOf(']]>', this.pos);
    if (close === -1) {
      if (this.final) {
        this.emitText(this.pos, s.length, true);
        return s.length;
      }
      // Hold a "]" or "]]" that may start the end.
      let end = s.length;
      while (end > this.pos && end > s.length - 2 && s.charCodeAt(end - 1) === C.RightBracket) end--;
      this.emitText(this.pos, end, true);
      this.pos = end;
      return MORE;
    }
    this.emitText(this.pos, close, true);
    this.inCdata = false;
    return close + 3;
  }

  // --- text modes ------------------------------------------------------------------------------------------

  /** RCDATA and RAWTEXT: text up to an appropriate end tag ("</" + the start tag's name + whitespace, "/" or ">"). */
  private scanRawText(): number {
    const s = this.html;
    const start = this.pos;
    let from = start;
    for (;;) {
      const lt = s.indexOf('</', from);
      if (lt === -1) {
        // A "<" last may start one.
        const end = s.length > start && s.charCodeAt(s.length - 1) === C.Lt && !this.final ? s.length - 1 : s.length;
        this.emitHeldText(start, end, false);
        return MORE;
      }
      const m = this.appropriateEndTag(lt);
      if (m === MORE) {
        this.emitText(start, lt, false);
        this.pos = lt;
        return MORE;
      }
      if (m) {
        this.emitText(start, lt, false);
        this.mode = Mode.Data;
        this.pos = lt;
        return this.tagAt(lt, true);
      }
      from = lt + 1;
    }
  }

  /** Whether "</" at `lt` starts an end tag named as the last start tag, followed by whitespace, "/" or ">". */
  private appropriateEndTag(lt: number): boolean | typeof MORE {
    const s = this.html;
    const name = this.lastStartTagName;
    const after = lt + 2 + name.length;
    if (after >= s.length) {
      if (this.final) return false;
      // Still undecided only while what is there matches.
      for (let k = lt + 2; k < s.length; k++) if ((s.charCodeAt(k) | 0x20) !== name.charCodeAt(k - lt - 2)) return false;
      return MORE;
    }
    for (let k = 0; k < name.length; k++) if ((s.charCodeAt(lt + 2 + k) | 0x20) !== name.charCodeAt(k)) return false;
    return endsTagName(s.charCodeAt(after));
  }

  /**
   * Script data and its escaped and double-escaped states (https://html.spec.whatwg.org/multipage/parsing.html#script-data-state):
   * the script ends at an appropriate end tag seen in the script data, escaped or escaped-dash states, never in
   * the double-escaped ones. The sub-state is kept across writes; a "<" whose meaning depends on input not yet
   * here is where the scan stops.
   */
  private scanScript(): number {
    const s = this.html;
    const n = s.length;
    const start = this.pos;
    let i = start;
    let st = this.script;
    for (;;) {
      if (st === Script.Data) {
        const lt = s.indexOf('<', i);
        if (lt === -1) {
          i = n;
          break;
        }
        i = lt;
      }
      if (i >= n) break;
      const c = s.charCodeAt(i);
      if (c === C.Lt) {
        if (st === Script.Data || st === Script.Escaped || st === Script.EscapedDash || st === Script.EscapedDashDash) {
          if (i + 1 >= n && !this.final) break;
          const d = i + 1 < n ? s.charCodeAt(i + 1) : -1;
          if (d === C.Slash) {
            const m = this.appropriateEndTag(i);
            if (m === MORE) break;
            if (m) {
              this.emitText(start, i, false);
              this.mode = Mode.Data;
              this.script = Script.Data;
              this.pos = i;
              return this.tagAt(i, true);
            }
            st = st === Script.Data ? Script.Data : Script.Escaped;
            i += 2;
            continue;
          }
          if (st === Script.Data) {
            // "<!--" enters the escaped states ("<!" then "--": escape start, escape start dash, escaped dash dash).
            if (d === C.Bang) {
              if (i + 4 > n && !this.final) break;
              if (s.startsWith('--', i + 2)) {
                st = Script.EscapedDashDash;
                i += 4;
              } else i += 2;
              continue;
            }
            i++;
            continue;
          }
          // Escaped less-than sign: "<" + ASCII alpha may start "<script" (double escape start).
          if (isAlpha(d)) {
            const m = this.scriptWordAt(i + 1);
            if (m === MORE) break;
            if (m > 0) {
              st = Script.DoubleEscaped;
              i = i + 1 + 6 + 1; // "script" and the character that ended it
              continue;
            }
          }
          st = Script.Escaped;
          i++;
          continue;
        }
        // Double escaped: "<" then "/script" + whitespace, "/" or ">" ends the double escape.
        if (i + 1 >= n && !this.final) break;
        if (i + 1 < n && s.charCodeAt(i + 1) === C.Slash) {
          const m = this.scriptWordAt(i + 2);
          if (m === MORE) break;
          if (m > 0) {
            st = Script.Escaped;
            i = i + 2 + 6 + 1;
            continue;
          }
          st = Script.DoubleEscaped;
          i += 2;
          continue;
        }
        st = Script.DoubleEscaped;
        i++;
        continue;
      }
      switch (st) {
        case Script.Escaped:
          if (c === C.Dash) st = Script.EscapedDash;
          break;
        case Script.EscapedDash:
          st = c === C.Dash ? Script.EscapedDashDash : Script.Escaped;
          break;
        case Script.EscapedDashDash:
          if (c === C.Gt) st = Script.Data;
          else if (c !== C.Dash) st = Script.Escaped;
          break;
        case Script.DoubleEscaped:
          if (c === C.Dash) st = Script.DoubleEscapedDash;
          break;
        case Script.DoubleEscapedDash:
          st = c === C.Dash ? Script.DoubleEscapedDashDash : Script.DoubleEscaped;
          break;
        case Script.DoubleEscapedDashDash:
          if (c === C.Gt) st = Script.Data;
          else if (c !== C.Dash) st = Script.DoubleEscaped;
          break;
        default:
      }
      i++;
    }
    // Out of input at `i` (a "<" to decide later, or the end).
    this.script = st;
    this.emitText(start, i, false);
    this.pos = i;
    return MORE;
  }

  /**
   * Whether "script" (ASCII case-insensitive) starts at `at`, followed by whitespace, "/" or ">": 1 if so, 0 if
   * not, MORE if the input ends before that is known.
   */
  private scriptWordAt(at: number): number {
    const s = this.html;
    const word = 'script';
    for (let k = 0; k <= word.length; k++) {
      if (at + k >= s.length) return this.final ? 0 : MORE;
      const c = s.charCodeAt(at + k);
      if (k === word.length) return endsTagName(c) ? 1 : 0;
      if ((c | 0x20) !== word.charCodeAt(k) || !isAlpha(c)) return 0;
    }
    return 0;
  }

  private scanPlaintext(): number {
    this.emitHeldText(this.pos, this.html.length, false);
    return MORE;
  }

  // --- text ------------------------------------------------------------------------------------------------

  /**
   * Text from `start` up to the end of what is here, less what may still change its meaning: a CR last (a CRLF
   * is one line feed) and, where references are decoded (data, RCDATA), a character reference that may go on.
   */
  private emitHeldText(start: number, end: number, data: boolean): void {
    let stop = end;
    if (!this.final && stop > start) {
      const s = this.html;
      if (s.charCodeAt(stop - 1) === C.Cr) stop--;
      if (data || this.mode === Mode.Rcdata) {
        const amp = s.lastIndexOf('&', stop - 1);
        if (amp >= start && !/[\s<]/.test(s.slice(amp, stop))) stop = amp;
      }
    }
    this.emitText(start, stop, data);
    this.pos = stop;
  }

  /**
   * Text [start, end) to the tree builder, in parse5's classes: in the data state and CDATA sections a run of
   * whitespace (character references decoding to whitespace included) is a whitespace token, a run of NUL a NUL
   * token, anything else a character token. Runs of one class next to each other are one token to parse5; a
   * character token that also holds whitespace does to the tree builder what the separate tokens do.
   */
  private emitText(start: number, end: number, data: boolean): void {
    if (end <= start) return;
    const s = this.html;
    // Character references are decoded in the data state and RCDATA, not in a CDATA section (its text is literal).
    const references = !this.inCdata && (data || this.mode === Mode.Rcdata);
    if (data && this.seenNul) {
      let nul = s.indexOf('\0', start);
      if (nul !== -1 && nul < end) {
        let from = start;
        while (nul !== -1 && nul < end) {
          this.classified(from, nul, references);
          let k = nul;
          while (k < end && s.charCodeAt(k) === C.Nul) k++;
          this.character(Token.TokenType.NULL_CHARACTER, s, nul, k);
          from = k;
          nul = s.indexOf('\0', k);
        }
        this.classified(from, end, references);
        return;
      }
    }
    this.classified(start, end, references);
  }

  /** A run of text without NUL (or outside the data state, where NUL is U+FFFD): whitespace or character. */
  private classified(start: number, end: number, references: boolean): void {
    if (end <= start) return;
    // Text the tree builder does nothing with, whether whitespace or not (inertText: character tokens inert
    // implies whitespace inert), for a handler that acts on text no more: which it is makes no difference.
    // NOTE: telling whitespace from other text was ~4% of a rewriter pass over the 258 real pages (`--cpu-prof`:
    // most runs of text between tags are whitespace, scanned to their end).
    if (this.textHeard && this.handler.hearsText?.() === false) this.textHeard = false;
    if (!this.textHeard && this.inertText(false)) return;
    const s = this.html;
    let i = start;
    while (i < end && isSpace(s.charCodeAt(i))) i++;
    if (i === end) return this.character(Token.TokenType.WHITESPACE_CHARACTER, s, start, end);
    if (references && s.charCodeAt(i) === C.Amp && !this.nonWhitespaceDecoded(i, end)) return this.character(Token.TokenType.WHITESPACE_CHARACTER, s, start, end);
    if (this.builder.insertionMode === InsertionMode.AFTER_AFTER_FRAMESET && this.holdsWhitespace(start, end, references)) {
      // "After after frameset" is the one mode where a character token that also holds whitespace is not what
      // the separate tokens are: whitespace is processed "in body" (which reconstructs the active formatting
      // elements: `<a href=x><frameset></frameset></html> r` has the <a> again in Chromium's DOM), other
      // characters are ignored. Any whitespace token does it (a reconstructed element stays open), so one is
      // handed over before the character token.
      // https://html.spec.whatwg.org/multipage/parsing.html#the-after-after-frameset-insertion-mode
      this.character(Token.TokenType.WHITESPACE_CHARACTER, ' ', 0, 1);
    }
    this.character(Token.TokenType.CHARACTER, s, start, end);
  }

  /** Whether text holds whitespace, as written or (`references`) as a character reference. */
  private holdsWhitespace(start: number, end: number, references: boolean): boolean {
    const s = this.html;
    for (let k = start; k < end; k++) if (isSpace(s.charCodeAt(k))) return true;
    if (!references || s.indexOf('&', start) === -1 || s.indexOf('&', start) >= end) return false;
    return /[ \n\t\f\r]/.test(decodeHTML(s.slice(start, end), DecodingMode.Legacy));
  }

  /**
   * Whether text decodes to anything but whitespace (`&#32;`, `&Tab;` and `&NewLine;` are whitespace). Piece by
   * piece, up to the first that is not whitespace: a character reference ends at whitespace or "&", so each piece
   * from an "&" up to the next whitespace or "&" decodes as it does within the whole text.
   * NOTE: decoding the whole run (a paragraph after `&nbsp;`) was 8% of a tokenizer pass over the 258 real pages
   * (`--cpu-prof` of FastTokenizerDriver alone); the first piece nearly always answers.
   */
  private nonWhitespaceDecoded(start: number, end: number): boolean {
    const s = this.html;
    let k = start;
    while (k < end) {
      const c = s.charCodeAt(k);
      if (isSpace(c)) {
        k++;
        continue;
      }
      if (c !== C.Amp) return true;
      let stop = k + 1;
      while (stop < end) {
        const d = s.charCodeAt(stop);
        if (d === C.Amp || isSpace(d)) break;
        stop++;
      }
      if (/[^ \n\t\f\r]/.test(decodeHTML(s.slice(k, stop), DecodingMode.Legacy))) return true;
      k = stop;
    }
    return false;
  }

  private character(type: Token.TokenType.CHARACTER | Token.TokenType.WHITESPACE_CHARACTER | Token.TokenType.NULL_CHARACTER, s: string, start: number, end: number): void {
    if (type !== Token.TokenType.NULL_CHARACTER && this.inertText(type === Token.TokenType.WHITESPACE_CHARACTER)) {
      // What StackBuilder.onCharacter does besides the tree builder's steps, which change nothing here.
      if (type === Token.TokenType.CHARACTER) this.handler.onText();
      return;
    }
    // The tree builder reads only whether text starts with a line feed, and whether that is all of it (after
    // <pre>, <listing>, <textarea>); a CR is a line feed, and a CRLF one line feed.
    const c = s.charCodeAt(start);
    let chars: string;
    if (c === C.Cr || c === C.Lf) {
      const first = c === C.Cr && start + 1 < end && s.charCodeAt(start + 1) === C.Lf ? 2 : 1;
      chars = end - start > first ? '\n ' : '\n';
    } else chars = s[start]!;
    const token: Token.CharacterToken = { type, chars, location: null };
    if (type === Token.TokenType.CHARACTER) this.builder.onCharacter(token);
    else if (type === Token.TokenType.WHITESPACE_CHARACTER) this.builder.onWhitespaceCharacter(token);
    else this.builder.onNullCharacter(token);
  }

  /**
   * Whether a character (or `whitespace`) token would change nothing of the tree builder's state: then no token
   * is made (most text on a page). parse5 8.1's onCharacter / onWhitespaceCharacter, mode by mode: the token is
   * only inserted (StackBuilder inserts nothing) in "text", in foreign content and, for whitespace, in the head
   * and frameset modes; "in body" (and caption, cell, template, and after body for whitespace) it also
   * reconstructs the active formatting elements, which does nothing when the newest entry is a marker or an
   * element still open (https://html.spec.whatwg.org/multipage/parsing.html#reconstruct-the-active-formatting-elements),
   * and a character token sets frameset-ok to "not ok". A pending "skip the next newline" (after `<pre>`,
   * `<listing>`, `<textarea>`) is reset by any text: not inert. Whitespace "after after frameset" is left to the
   * tree builder (see `classified`).
   * NOTE: reads parse5's Parser fields (insertionMode, framesetOk, skipNextNewLine) like tokenizer-driver.ts
   * does, and asks StackBuilder.nothingToReconstruct; src/html/fast-tokenizer.fuzz.test.ts checks the events against parse5's
   * tokenizer, which hands every token over.
   */
  private inertText(whitespace: boolean): boolean {
    const b = this.parser;
    if (b.skipNextNewLine) return false;
    if (this.modes.inForeignNode) return whitespace || !b.framesetOk;
    switch (b.insertionMode) {
      case InsertionMode.TEXT:
        return true;
      case InsertionMode.IN_HEAD:
      case InsertionMode.IN_HEAD_NO_SCRIPT:
      case InsertionMode.AFTER_HEAD:
      case InsertionMode.IN_COLUMN_GROUP:
      case InsertionMode.IN_FRAMESET:
      case InsertionMode.AFTER_FRAMESET:
        return whitespace;
      case InsertionMode.AFTER_BODY:
      case InsertionMode.AFTER_AFTER_BODY:
        return whitespace && this.nothingToReconstruct();
      case InsertionMode.IN_BODY:
      case InsertionMode.IN_CAPTION:
      case InsertionMode.IN_CELL:
      case InsertionMode.IN_TEMPLATE:
        return (whitespace || !b.framesetOk) && this.nothingToReconstruct();
      default:
        return false;
    }
  }

  private nothingToReconstruct(): boolean {
    return this.builder.nothingToReconstruct();
  }

  private eof(): void {
    if (this.ended) return;
    this.ended = true;
    const at = this.base + this.html.length;
    this.builder.onEof({ type: Token.TokenType.EOF, location: new SourceLocation(this.lines, at, at, 0) });
  }

  /** A comment's or doctype's location: from `start` to `end` (indexes into `html`). */
  private span(start: number, end: number): Token.Location {
    return new SourceLocation(this.lines, this.base + start, this.base + end, 1);
  }
}

const enum Script {
  Data,
  Escaped,
  EscapedDash,
  EscapedDashDash,
  DoubleEscaped,
  DoubleEscapedDash,
  DoubleEscapedDashDash,
}

/** The fields of a doctype token, as parse5's tokenizer reads them from the doctype's whole text. */
function doctypeFields(text: string): Pick<Token.DoctypeToken, 'name' | 'forceQuirks' | 'publicId' | 'systemId'> {
  let found: Token.DoctypeToken | null = null;
  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: false }, {
    onDoctype: (t: Token.DoctypeToken) => {
      found = t;
    },
    onStartTag() {},
    onEndTag() {},
    onComment() {},
    onCharacter() {},
    onNullCharacter() {},
    onWhitespaceCharacter() {},
    onEof() {},
  } as unknown as ConstructorParameters<typeof Tokenizer>[1]);
  tokenizer.write(text, true);
  const t = found as Token.DoctypeToken | null;
  return t === null ? { name: null, forceQuirks: true, publicId: null, systemId: null } : { name: t.name, forceQuirks: t.forceQuirks, publicId: t.publicId, systemId: t.systemId };
}
