/**
 * parse5's tokenizer, driven by parse5's HTML tree builder: the reference that the rewriter's own tokenizer
 * (fast-tokenizer.ts, which feeds the same tree builder, `StackBuilder`) is tested against.
 *
 * The tokenizer alone cannot know that `<style>` content is raw text or that `<svg>` starts foreign content:
 * the tree builder tells it, and only the whole tree construction knows when foreign content ends (an HTML end
 * tag that pops `<svg>` through the adoption agency, a table closing a cell, a breakout tag in nested foreign
 * elements). parse5-sax-parser's "parser feedback simulator" (a namespace stack of its own, which this file
 * kept before) drifts from it there, and from then on raw text was read as markup (issue 11). So the real tree
 * builder runs, over a tree adapter that keeps no tree (`StackBuilder`).
 * Cost, on the 258 real pages of htmlparser-benchmark (CPU time of the whole rewriter, best of 5 passes, three
 * alternating processes on a shared 2-core VM): 0.67–0.71 s with the simulator, 0.76–0.88 s with the tree
 * builder (+13% at the medians); `npm run bench` gave 1.09× the SAX floor after, 1.01× before (noisy machine).
 * In front of it runs a simulator of our own (tree-simulator.ts) that is exact by construction: it processes a
 * token only where it models parse5's rules for it completely, and otherwise hands its state to parse5, which
 * processes the token (StackBuilder.handBack, tryTakeOver). That is parse5's design above made cheap, not the
 * old drifting simulator: parse5 still decides everything the simulator does not model.
 * NOTE: not parse5-sax-parser's SAXParser: it builds a text event object per text run, which costs more than
 * half the throughput of a rewriter that ignores text.
 */
/*
 * Which tree construction this follows (issue 19)
 * ------------------------------------------------
 * The oracle is Chromium's DOM (Chromium 153, the @sparticuz/chromium devDependency; `DOMParser`, scripting
 * disabled), checked by test/browser/tree-differential.test.ts. The rules are the WHATWG HTML Living Standard's
 * tree construction as of the snapshot pinned in ../shared/reference (HTML source 508a037, 2026-08-21), which
 * includes customizable <select> (whatwg/html#10548). parse5 8.1.1's tree builder runs, with its divergences
 * overridden here, each citing the step:
 * 1. "in select" / "in select in table" are gone: a select start tag selects no insertion mode, so its content
 *    is parsed in the mode it was opened in — "in body", or a table mode whose own tags close it through "clear
 *    the stack back to a table context" (ModernSelectParser, bodyRulesApply).
 * 2. In body, a <select> or <input> start tag with a select in scope pops the select (the nested select is
 *    dropped); </select> pops to the select through other elements; resetting the insertion mode has no select
 *    step (_resetInsertionModeForSelect takes the mode below it).
 * 3. A select element bounds "has an element in scope" and the list-item and button scopes
 *    (selectIsAScopeBoundary): `</b>`, `</div>`, `</li>` for an element opened before an open select are
 *    ignored inside it; `</p>` there inserts an empty p.
 * 4. "Has an element in table scope" is bounded by <template> (parse5 8.1's indexed stack looked only at table
 *    and html).
 * Where Chromium 153 departs from the standard, Chromium is followed (the judge is what Chromium resolves):
 * a. `<![CDATA[` at an integration point (svg foreignObject/desc/title, math mi/mo/mn/ms/mtext, annotation-xml
 *    for HTML) is a bogus comment and what follows is markup, as in parse5 8.1; the standard ("adjusted current
 *    node is not an element in the HTML namespace") makes it a CDATA section. Kept as parse5 has it.
 * b. "In table", a form start tag with a template open is inserted and popped (the standard ignores it).
 * c. A <template> before the body leaves frameset-ok as it was once it is closed (the standard sets "not ok").
 * Not followed: <selectedcontent> takes a copy of the selected option's content after parsing (a DOM step, not
 * tree construction): what the parser put in it is still rewritten.
 */
import { InsertionMode, Parser, Token, html } from 'parse5';
import type { Tokenizer, TreeAdapter, TreeAdapterTypeMap } from 'parse5';
import { BAIL, ROW, TBODY, TreeSimulator } from './tree-simulator.ts';
import type { SimEntry, SimNode, SimulatorHost } from './tree-simulator.ts';
import { mayHoldUrl } from './url-attributes.ts';

const NS = html.NS;
const $ = html.TAG_ID;

export type Namespace = 'html' | 'svg' | 'mathml';

/** What the rewriter hears: tags (with their namespace), comments, doctype, non-space text and EOF. */
export interface DriverHandler {
  /**
   * `inserted`: the tree builder made an element of it (false for a start tag it ignored or merged into one).
   * `adopted`: for a second `<html>` or `<body>` merged into the first, the names of its attributes that the
   * first did not have, which the tree builder added to it (in body, "a start tag whose tag name is html" /
   * "body": "add the attribute and its corresponding value to that element"); null otherwise.
   */
  onStartTag(token: Token.TagToken, namespace: Namespace, inserted: boolean, adopted: readonly string[] | null): void;
  /**
   * The token is the handler's only while this runs (the fast tokenizer sets the fields of one token for every
   * end tag); its location is the handler's to keep.
   */
  onEndTag(token: Token.TagToken, namespace: Namespace): void;
  /** Non-whitespace character data, outside raw-text elements handled by the tokenizer's own states. */
  onText(): void;
  /**
   * Whether onText may still do anything. Once it answers false it must never do anything again: the fast
   * tokenizer then asks no more, and text that changes nothing in the tree builder is no longer told from
   * whitespace (nor reported). Absent: onText is always called.
   */
  hearsText?(): boolean;
  onComment(token: Token.CommentToken): void;
  onDoctype(token: Token.DoctypeToken): void;
  onEof(): void;
  /** A `<frameset>` start tag replaced the body (frameset-ok was "ok"): everything read in the body is gone. */
  onBodyReplaced?(): void;
  /**
   * An element was made again from an earlier start tag's attributes (`attrs`): a formatting element the tree
   * builder reconstructs, which may bring back one of a body a frameset replaced.
   */
  onReconstructed?(attrs: Token.Attribute[]): void;
}

/** The parts of parse5's Tokenizer (8.1) that `withoutCharacterTokenLocations` replaces and uses. */
interface TokenizerInternals {
  currentCharacterToken: { type: unknown } | null;
  currentToken: unknown;
  preprocessor: { dropParsedChunk(): void; line: number; col: number; offset: number };
  prepareToken(ct: { location: { endLine: number; endCol: number; endOffset: number } | null }): void;
  _ensureCharacterToken(type: unknown): void;
  _emitCurrentCharacterToken(nextLocation: null | object): void;
  _createCharacterToken(type: unknown): void;
}

/**
 * Tags, attributes, comments and doctypes need their source locations (values are spliced by offset); runs of
 * text do not. With locations on, parse5 allocates a location object at every switch between text and
 * whitespace — every word — which costs about 14% of a tokenizer pass on real pages (measured with
 * parse5-sax-parser, locations on vs off). This replaces, on one instance, the method that does it with the same
 * code minus the location (parse5 8.1 `Tokenizer._ensureCharacterToken`). getCharacterTokenEndOffset, which the
 * rewriter relies on, never reads character-token locations.
 * NOTE: parse5 has no option for "locations of tags only"; depends on a private method, pinned by the parse5
 * version range and covered by the byte-fidelity and chunking tests.
 */
function withoutCharacterTokenLocations(tokenizer: Tokenizer): void {
  const t = tokenizer as unknown as TokenizerInternals;
  if (typeof t._ensureCharacterToken !== 'function' || typeof t._createCharacterToken !== 'function') return;
  t._ensureCharacterToken = function (this: TokenizerInternals, type: unknown): void {
    if (this.currentCharacterToken !== null) {
      if (this.currentCharacterToken.type === type) return;
      this._emitCurrentCharacterToken(null);
      this.preprocessor.dropParsedChunk();
    }
    this._createCharacterToken(type);
  };
  // parse5's prepareToken, minus the fresh `currentLocation` it makes after every token for the text run that
  // may follow (doctype states set their own, in MARKUP_DECLARATION_OPEN).
  if (typeof t.prepareToken !== 'function') return;
  t.prepareToken = function (this: TokenizerInternals, ct: { location: { endLine: number; endCol: number; endOffset: number } | null }): void {
    this._emitCurrentCharacterToken(ct.location);
    this.currentToken = null;
    if (ct.location !== null) {
      ct.location.endLine = this.preprocessor.line;
      ct.location.endCol = this.preprocessor.col + 1;
      ct.location.endOffset = this.preprocessor.offset + 1;
    }
  };
}

/** The parts of parse5's Tokenizer (8.1) that `withAttributeLocationsFor` replaces and uses. */
interface AttributeInternals {
  currentAttr: { name: string; value: string };
  currentAttrLocation: { startLine: number; startCol: number; startOffset: number; endLine: number; endCol: number; endOffset: number } | null;
  preprocessor: { line: number; col: number; offset: number };
  _createAttr(firstChar: string): void;
  _leaveAttrName(): void;
  _flushRun(text: string): void;
}

/**
 * parse5 allocates a location for every attribute of every tag; the rewriter reads the locations of
 * URL-bearing attributes only (`keep`). This records where an attribute starts as plain numbers and allocates
 * its location once its name is known to be one of those (parse5 8.1 `_createAttr` / `_leaveAttrName`; the
 * value's end is set by parse5's own `_leaveAttrValue` on whatever location is current).
 * NOTE: like withoutCharacterTokenLocations, depends on private methods of the pinned parse5.
 */
function withAttributeLocationsFor(tokenizer: Tokenizer, keep: (name: string) => boolean): void {
  const t = tokenizer as unknown as AttributeInternals;
  const leaveAttrName = t._leaveAttrName;
  if (typeof t._createAttr !== 'function' || typeof leaveAttrName !== 'function' || typeof t._flushRun !== 'function') return;
  let line = 0;
  let col = 0;
  let offset = 0;
  t._createAttr = function (this: AttributeInternals, firstChar: string): void {
    // parse5's _createAttr, with the numbers of getCurrentLocation(0) kept instead of an object.
    this._flushRun('');
    this.currentAttr = { name: firstChar, value: '' };
    line = this.preprocessor.line;
    col = this.preprocessor.col;
    offset = this.preprocessor.offset;
    this.currentAttrLocation = null;
  };
  t._leaveAttrName = function (this: AttributeInternals): void {
    this.currentAttrLocation = keep(this.currentAttr.name) ? { startLine: line, startCol: col, startOffset: offset, endLine: -1, endCol: -1, endOffset: -1 } : null;
    leaveAttrName.call(this);
  };
}

/** The parts of parse5's Tokenizer (8.1) and Preprocessor that `withFastRuns` reads and moves. */
interface RunInternals {
  /** The tree builder. */
  handler: { insertionMode: InsertionMode };
  currentCharacterToken: { type: Token.TokenType } | null;
  runStart: number;
  runEnd: number;
  preprocessor: {
    html: string;
    pos: number;
    line: number;
    lineStartPos: number;
    isEol: boolean;
    skipNextNewLine: boolean;
    droppedBufferSize: number;
    willDropParsedChunk(): boolean;
    dropParsedChunk(): void;
  };
  _ensureCharacterToken(type: Token.TokenType): void;
  _emitCurrentCharacterToken(nextLocation: null): void;
  _createCharacterToken(type: Token.TokenType): void;
}

/** Classes of a code unit below 128 in a run table: 0 ordinary, 1 ends the run, 2 whitespace, 3 line feed. */
const ENDS_RUN = 1;
const SPACE = 2;
const LINE_FEED = 3;

/** A run table: `stops` end a run; CR always does (CRLF is one newline, left to the preprocessor). */
function runTable(stops: string): Uint8Array {
  const table = new Uint8Array(128);
  table[0x20] = table[0x09] = table[0x0c] = SPACE;
  table[0x0a] = LINE_FEED;
  for (const c of `\r\0${stops}`) table[c.charCodeAt(0)] = ENDS_RUN;
  return table;
}

/**
 * parse5's tokenizer reads its input one code point at a time, through a state method per code point; in the
 * states where most bytes of a real page are — text, script and style content, quoted attribute values,
 * comments — nearly all of them only extend the current run. After parse5 has handled an ordinary code point in
 * one of those states, this moves the tokenizer past every following code point that its state would handle the
 * same way: the run is extended to it, and the preprocessor's position, line and line start are set as its
 * `advance()` would have set them one by one. A code point that ends the run (the state's delimiters, NUL, CR,
 * any surrogate) is left to parse5. In text states the run's character token becomes a character (not
 * whitespace) token when the skipped text has non-whitespace; the rewriter reads text by offsets, never the
 * token's `chars`, so a character token that also holds whitespace changes nothing it sees.
 * NOTE: this is the design the issue asks for (input that is not markup costs a scan, not a state machine
 * step per code point); parse5 has no such option. Depends on private fields of the pinned parse5 8.1, like
 * the overrides above; src/html/tokenizer-driver.test.ts checks it against parse5 stepping code point by code
 * point.
 */
function withFastRuns(tokenizer: Tokenizer): void {
  const t = tokenizer as unknown as RunInternals & Record<string, unknown>;
  const fields = ['runStart', 'runEnd', 'preprocessor', 'currentCharacterToken'];
  if (!fields.every((f) => f in t)) return;
  const p = t.preprocessor;
  const methods = [t._ensureCharacterToken, t._emitCurrentCharacterToken, t._createCharacterToken, p.willDropParsedChunk, p.dropParsedChunk];
  if (!methods.every((m) => typeof m === 'function')) return;
  if (!['html', 'pos', 'line', 'lineStartPos', 'isEol', 'skipNextNewLine', 'droppedBufferSize'].every((f) => f in p)) return;

  const states: [method: string, table: Uint8Array, text: boolean][] = [
    ['_stateData', runTable('<&'), true],
    ['_stateRcdata', runTable('<&'), true],
    ['_stateRawtext', runTable('<'), true],
    ['_stateScriptData', runTable('<'), true],
    ['_statePlaintext', runTable(''), true],
    ['_stateAttributeValueDoubleQuoted', runTable('"&'), false],
    ['_stateAttributeValueSingleQuoted', runTable("'&"), false],
    ['_stateComment', runTable('-<'), false],
  ];
  for (const [method, table, text] of states) {
    const handle = t[method];
    if (typeof handle !== 'function') return;
    t[method] = function (this: RunInternals, cp: number): void {
      handle.call(this, cp);
      // EOF is -1; every other code point that is not ordinary was handled by one of the state's own cases.
      if (cp >= 0 && (cp >= 128 || table[cp] !== ENDS_RUN)) skipRun(this, table, text);
    };
  }
}

function skipRun(t: RunInternals, table: Uint8Array, text: boolean): void {
  const p = t.preprocessor;
  if (p.skipNextNewLine) return; // a CR was read as LF: the LF after it must still be dropped by advance()
  // "After after frameset" tells whitespace from other characters (fast-tokenizer.ts, `classified`): parse5 steps.
  if (text && t.handler.insertionMode === InsertionMode.AFTER_AFTER_FRAMESET) return;
  const source = p.html;
  const from = p.pos + 1;
  const length = source.length;
  let i = from;
  let newlines = 0;
  let lastNewline = -1;
  let hasText = false;
  for (; i < length; i++) {
    const c = source.charCodeAt(i);
    if (c < 128) {
      const kind = table[c]!;
      if (kind === 0) hasText = true;
      else if (kind === LINE_FEED) {
        newlines++;
        lastNewline = i;
      } else if (kind === ENDS_RUN) break;
    } else if (c >= 0xd800 && c <= 0xdfff) break;
    else hasText = true;
  }
  if (i === from) return;
  let shift = 0;
  if (text && hasText && t.currentCharacterToken !== null && t.currentCharacterToken.type !== Token.TokenType.CHARACTER) {
    // parse5 would start a character token at the first non-whitespace code point; starting it here, at the
    // start of the skipped text, emits the same tokens to a handler that reads no `chars`. The emit may drop
    // the parsed part of the input buffer, which moves every index by the dropped length.
    const dropped = p.droppedBufferSize;
    t._ensureCharacterToken(Token.TokenType.CHARACTER);
    shift = p.droppedBufferSize - dropped;
    t.runStart = from - shift;
  }
  // advance(), for each code point: a pending end of line (isEol) starts a new line at this one. The line
  // feeds moved over are counted here at once, the last one too (the line after it starts at `i`), so no end
  // of line is left pending, as after advance() has moved past a line feed.
  if (p.isEol) {
    p.isEol = false;
    p.line++;
    p.lineStartPos = from - shift;
  }
  if (newlines > 0) {
    p.line += newlines;
    p.lineStartPos = lastNewline + 1 - shift;
  }
  p.pos = i - 1 - shift;
  t.runEnd = i - shift;
  if (text && p.willDropParsedChunk()) {
    // parse5 drops parsed input only when a token is emitted, so one long run of text (a huge <pre> or
    // <script>) would keep all of it in `preprocessor.html`, and each chunk appended to that string copies it
    // (measured before this: 128 MiB of one text run took 102 s and 1.4 GB). Ending the character token here
    // and starting another of the same type keeps the buffer near parse5's 64 KiB waterline; text is one run
    // or two to the rewriter, which reads it by offsets.
    const type = t.currentCharacterToken!.type;
    t._emitCurrentCharacterToken(null);
    p.dropParsedChunk();
    t._createCharacterToken(type);
  }
}

function toNamespace(ns: html.NS): Namespace {
  return ns === NS.SVG ? 'svg' : ns === NS.MATHML ? 'mathml' : 'html';
}

/**
 * What the tree builder keeps of a node: its name, namespace and attributes (annotation-xml's `encoding` decides
 * whether it is an integration point), a template's content, and the document's mode (quirks mode decides
 * whether `<table>` closes an open `<p>`). No children, no parent, no text: a node lives while it is on the
 * stack of open elements or in the list of active formatting elements, so memory follows the nesting, not the
 * document.
 */
interface StackNode {
  readonly tagName: string;
  readonly namespaceURI: html.NS;
  readonly attrs: Token.Attribute[];
  content?: StackNode;
  mode?: html.DOCUMENT_MODE;
}

type StackOnlyMap = TreeAdapterTypeMap<StackNode, StackNode, StackNode, StackNode, StackNode, StackNode, StackNode, StackNode, StackNode, StackNode>;

const NO_ATTRS: Token.Attribute[] = [];
const NO_NODES: StackNode[] = [];
const COMMENT: StackNode = { tagName: '#comment', namespaceURI: NS.HTML, attrs: NO_ATTRS };
const noop = (): void => {};
/** The attribute names the last adoptAttributes call added (read and reset around each start tag by StackBuilder). */
let lastAdopted: string[] | null = null;

/** A parse5 tree adapter that builds no tree: only what the tree construction rules read back. */
const stackOnlyAdapter: TreeAdapter<StackOnlyMap> = {
  createDocument: () => ({ tagName: '#document', namespaceURI: NS.HTML, attrs: NO_ATTRS, mode: html.DOCUMENT_MODE.NO_QUIRKS }),
  createDocumentFragment: () => ({ tagName: '#document-fragment', namespaceURI: NS.HTML, attrs: NO_ATTRS }),
  // Only annotation-xml's attributes are read back (its `encoding`); a formatting element's are kept by parse5
  // with its token. <html> and <body> keep theirs: a second <html> or <body> start tag adds only the attributes
  // they lack (adoptAttributes).
  createElement: (tagName, namespaceURI, attrs) => ({ tagName, namespaceURI, attrs: tagName === 'annotation-xml' || tagName === 'html' || tagName === 'body' ? [...attrs] : NO_ATTRS }),
  createCommentNode: () => COMMENT,
  createTextNode: () => COMMENT,
  appendChild: noop,
  insertBefore: noop,
  setTemplateContent: (template, content) => {
    template.content = content;
  },
  getTemplateContent: (template) => template.content!,
  setDocumentType: noop,
  setDocumentMode: (document, mode) => {
    document.mode = mode;
  },
  getDocumentMode: (document) => document.mode ?? html.DOCUMENT_MODE.NO_QUIRKS,
  detachNode: noop,
  insertText: noop,
  insertTextBefore: noop,
  adoptAttributes: (recipient, attrs) => {
    const adopted: string[] = [];
    for (const attr of attrs) {
      if (recipient.attrs.some((a) => a.name === attr.name)) continue;
      if (recipient.attrs === NO_ATTRS) break;
      recipient.attrs.push(attr);
      adopted.push(attr.name);
    }
    lastAdopted = adopted;
  },
  getFirstChild: () => null,
  getChildNodes: () => NO_NODES,
  getParentNode: () => null,
  getAttrList: (element) => element.attrs,
  getTagName: (element) => element.tagName,
  getNamespaceURI: (element) => element.namespaceURI,
  getTextNodeContent: () => '',
  getCommentNodeContent: () => '',
  getDocumentTypeNodeName: () => '',
  getDocumentTypeNodePublicId: () => '',
  getDocumentTypeNodeSystemId: () => '',
  isTextNode: (_node): _node is StackNode => false,
  isCommentNode: (node): node is StackNode => node === COMMENT,
  isDocumentTypeNode: (_node): _node is StackNode => false,
  isElementNode: (node): node is StackNode => node !== COMMENT,
  setNodeSourceCodeLocation: noop,
  getNodeSourceCodeLocation: () => null,
  updateNodeSourceCodeLocation: noop,
};

/**
 * The select parsing of the HTML standard since customizable `<select>` (https://github.com/whatwg/html/pull/10548),
 * which Chromium ships and html5lib-tests expect: "in select" and "in select in table" are gone, and a `<select>`
 * start tag ("in body": reconstruct, insert, frameset-ok "not ok") leaves the insertion mode as it was. Its content
 * is parsed by the mode it was opened in: "in body" (`<style>`, `<textarea>`, `<svg>`… inside it are elements,
 * read as raw text or foreign content; parse5 8.1 ignores them or reads them as text), or, for a select opened in
 * a table part, "in table" / "in table body" / "in row" / "in cell" / "in caption", whose own tags close it
 * through "clear the stack back to a table context" and the like (Chromium 153: `<table><select><col href=x>`
 * puts a colgroup and the col in the table, `<table><select><marquee><select><tr>` the tr in a tbody), and whose
 * "anything else" runs the "in body" rules for everything else.
 */
/** Insertion modes in which a select start tag, a non-hidden input start tag or a select end tag gets to the "in body" rules. */
function bodyRulesApply(mode: InsertionMode): boolean {
  switch (mode) {
    case InsertionMode.IN_BODY:
    case InsertionMode.IN_CELL:
    case InsertionMode.IN_CAPTION:
    case InsertionMode.IN_TABLE:
    case InsertionMode.IN_TABLE_BODY:
    case InsertionMode.IN_ROW:
      return true;
    default:
      return false;
  }
}

/** Whether "in table" (and the modes that defer to it) inserts an input start tag itself: type=hidden. */
function tableModeInsertsInput(mode: InsertionMode, token: Token.TagToken): boolean {
  if (mode !== InsertionMode.IN_TABLE && mode !== InsertionMode.IN_TABLE_BODY && mode !== InsertionMode.IN_ROW) return false;
  const type = Token.getTokenAttr(token, 'type');
  return type !== null && type.toLowerCase() === 'hidden';
}

/** The parts of parse5 8.1's OpenElementStack that `selectIsAScopeBoundary` wraps and reads. */
interface ScopeInternals {
  hasInScope(tagName: html.TAG_ID, element?: unknown): boolean;
  hasInListItemScope(tagName: html.TAG_ID): boolean;
  hasInButtonScope(tagName: html.TAG_ID): boolean;
  hasNumberedHeaderInScope(): boolean;
  hasInTableScope(tagName: html.TAG_ID): boolean;
  hasTableBodyContextInTableScope(): boolean;
  indexOfTopmost(tagID: html.TAG_ID): number;
  indexOfTopmostOf(tagIDs: readonly html.TAG_ID[]): number;
  _indexOf(element: unknown): number;
  /** Open template elements (parse5 counts them as it pushes and pops). */
  tmplCount: number;
}

const NUMBERED_HEADERS: readonly html.TAG_ID[] = [$.H1, $.H2, $.H3, $.H4, $.H5, $.H6];
const TABLE_BODIES: readonly html.TAG_ID[] = [$.TBODY, $.THEAD, $.TFOOT];

/**
 * A `<select>` bounds "has an element in scope" (and the list item and button scopes built on it), as in the
 * current standard's list of scope elements (customizable select) and in Chromium 153; parse5 8.1's list lacks
 * it. What that changes, each seen in Chromium: an end tag for an element opened before an open select is
 * ignored inside it — `</div>`, `</li>` (`<li><select></li><select>`: the second select still closes the first),
 * `</b>`/`</u>`/`</nobr>` (the adoption agency: "formatting element is not in scope": `<b><select><svg></b><style>`
 * keeps the `<style>` in the `<svg>`); `</p>` in a select inserts an empty `<p>` there.
 * NOTE: wraps methods of parse5's stack instance (an element above the open select is out of scope).
 */
function selectIsAScopeBoundary(stack: unknown): ScopeGuards {
  const s = stack as ScopeInternals;
  // Most documents have no select (or template) open: then parse5's own methods run, unwrapped. The wrappers
  // are put in place at a select (template) start tag, and taken away when a look finds none open.
  const hasInScope = s.hasInScope;
  const hasInListItemScope = s.hasInListItemScope;
  const hasInButtonScope = s.hasInButtonScope;
  const hasNumberedHeaderInScope = s.hasNumberedHeaderInScope;
  const selectTop = (): number => {
    const top = s.indexOfTopmost($.SELECT);
    if (top === -1) guardSelect(false);
    return top;
  };
  /** Whether the element at `target` is not above the topmost open select. */
  const within = (select: number, target: number): boolean => target === -1 || select <= target;
  const selectHasInScope = function (this: ScopeInternals, tagName: html.TAG_ID, element?: unknown): boolean {
    if (!hasInScope.call(this, tagName, element)) return false;
    const select = selectTop();
    return select === -1 || within(select, element === undefined || element === null ? this.indexOfTopmost(tagName) : this._indexOf(element));
  };
  const selectHasInListItemScope = function (this: ScopeInternals, tagName: html.TAG_ID): boolean {
    if (!hasInListItemScope.call(this, tagName)) return false;
    const select = selectTop();
    return select === -1 || within(select, this.indexOfTopmost(tagName));
  };
  const selectHasInButtonScope = function (this: ScopeInternals, tagName: html.TAG_ID): boolean {
    if (!hasInButtonScope.call(this, tagName)) return false;
    const select = selectTop();
    return select === -1 || within(select, this.indexOfTopmost(tagName));
  };
  const selectHasNumberedHeaderInScope = function (this: ScopeInternals): boolean {
    if (!hasNumberedHeaderInScope.call(this)) return false;
    const select = selectTop();
    return select === -1 || within(select, this.indexOfTopmostOf(NUMBERED_HEADERS));
  };
  const guardSelect = (on: boolean): void => {
    s.hasInScope = on ? selectHasInScope : hasInScope;
    s.hasInListItemScope = on ? selectHasInListItemScope : hasInListItemScope;
    s.hasInButtonScope = on ? selectHasInButtonScope : hasInButtonScope;
    s.hasNumberedHeaderInScope = on ? selectHasNumberedHeaderInScope : hasNumberedHeaderInScope;
  };
  // "Has an element in table scope": html, table and template bound it
  // (https://html.spec.whatwg.org/multipage/parsing.html#has-an-element-in-table-scope). parse5 8.1's indexed
  // stack looks only at the topmost table and html, so a table below an open <template> counted as in scope:
  // `<table><template><td></td><table>` closed the template (Chromium 153 ignores the <table>). (parse5 counts
  // open templates: with none, its answer stands.)
  const hasInTableScope = s.hasInTableScope;
  const hasTableBodyContextInTableScope = s.hasTableBodyContextInTableScope;
  const belowTemplate = (target: number): boolean => {
    if (s.tmplCount === 0) {
      guardTemplate(false);
      return true;
    }
    return target === -1 || s.indexOfTopmost($.TEMPLATE) <= target;
  };
  const templateHasInTableScope = function (this: ScopeInternals, tagName: html.TAG_ID): boolean {
    return hasInTableScope.call(this, tagName) && belowTemplate(this.indexOfTopmost(tagName));
  };
  const templateHasTableBodyContextInTableScope = function (this: ScopeInternals): boolean {
    return hasTableBodyContextInTableScope.call(this) && belowTemplate(this.indexOfTopmostOf(TABLE_BODIES));
  };
  const guardTemplate = (on: boolean): void => {
    s.hasInTableScope = on ? templateHasInTableScope : hasInTableScope;
    s.hasTableBodyContextInTableScope = on ? templateHasTableBodyContextInTableScope : hasTableBodyContextInTableScope;
  };
  guardSelect(false);
  guardTemplate(false);
  return { select: () => guardSelect(true), template: () => guardTemplate(true) };
}

/** Puts the scope wrappers of selectIsAScopeBoundary in place: at a select, at a template start tag. */
interface ScopeGuards {
  select(): void;
  template(): void;
}

/** Insertion modes before a body exists. */
const BEFORE_BODY: ReadonlySet<InsertionMode> = new Set([InsertionMode.INITIAL, InsertionMode.BEFORE_HTML, InsertionMode.BEFORE_HEAD, InsertionMode.IN_HEAD, InsertionMode.AFTER_HEAD]);

/** parse5's Parser with the select parsing of the current standard (see bodyRulesApply). */
export class ModernSelectParser<T extends TreeAdapterTypeMap> extends Parser<T> {
  /** The outermost template opened before the body, and frameset-ok as it was then. */
  private headTemplate: { element: unknown; framesetOk: boolean } | null = null;
  private readonly scopeGuards: ScopeGuards;

  constructor(options?: ConstructorParameters<typeof Parser<T>>[0]) {
    super(options);
    this.scopeGuards = selectIsAScopeBoundary(this.openElements);
  }


  /**
   * https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody, "A start tag whose tag name is
   * "select"": if the stack of open elements has a select element in scope, parse error; pop elements until a
   * select element has been popped (the token is ignored). "A start tag whose tag name is "input"": the same
   * popping first, then the input is inserted. (parse5 8.1 nests the select, and keeps the input inside it.)
   * Chromium 153 does the same: `<select><select><a href>` and `<select><input><img>` put the `<a>`/`<img>`
   * after the select.
   */
  override _startTagOutsideForeignContent(token: Token.TagToken): void {
    if (token.tagID === $.TEMPLATE) this.scopeGuards.template();
    if (token.tagID === $.FORM && this.openElements.tmplCount > 0 && (this.insertionMode === InsertionMode.IN_TABLE || this.insertionMode === InsertionMode.IN_TABLE_BODY || this.insertionMode === InsertionMode.IN_ROW)) {
      // "In table", a form start tag: the standard ignores it when a template is open; Chromium 153 (Blink's
      // ProcessStartTagForInTable) ignores it only when the form element pointer is set outside a template,
      // and inserts it and pops it at once: `<template><table><form action=x>` has the form in Chromium's DOM.
      this._insertElement(token, NS.HTML);
      this.openElements.pop();
      return;
    }
    if (token.tagID === $.TEMPLATE && BEFORE_BODY.has(this.insertionMode)) {
      // "In head", a template start tag sets frameset-ok to "not ok", and its content ("in body" rules) may too;
      // Chromium 153 leaves frameset-ok as it was before a template in the head once the template is closed
      // (`<template>text</template><spacer><frameset>`: the frameset replaces the body), not in the body.
      const framesetOk = this.framesetOk;
      super._startTagOutsideForeignContent(token);
      if (this.headTemplate === null) this.headTemplate = { element: this.openElements.current, framesetOk };
      return;
    }
    if (token.tagID === $.SELECT || token.tagID === $.INPUT) {
      const mode = this.insertionMode;
      if (bodyRulesApply(mode) && !(token.tagID === $.INPUT && tableModeInsertsInput(mode, token)) && this.openElements.hasInScope($.SELECT)) {
        this.openElements.popUntilTagNamePopped($.SELECT);
        // (Popping a select changes no insertion mode: it never selected one.)
        if (token.tagID === $.SELECT) return;
      }
      if (token.tagID === $.SELECT) this.scopeGuards.select();
      super._startTagOutsideForeignContent(token);
      // A select start tag selects no insertion mode; parse5 8.1's selectStartTagInBody picks "in select" when it
      // ran "in body", and "in select in table" when it ran in a table mode (in table, in table body, in row, in
      // cell, in caption), each of which is what the stack below the select resets to.
      if (this.insertionMode === InsertionMode.IN_SELECT) this.insertionMode = InsertionMode.IN_BODY;
      else if (this.insertionMode === InsertionMode.IN_SELECT_IN_TABLE) this._resetInsertionModeForSelect(this.openElements.indexOfTopmost($.SELECT));
      return;
    }
    super._startTagOutsideForeignContent(token);
  }

  /**
   * "An end tag whose tag name is "select"" (in body): if the stack has a select element in scope, pop elements
   * until a select element has been popped; otherwise ignore it. (parse5 8.1's generic end tag stops at a
   * special element such as a `<div>` inside the select, leaving an `<svg>` in it open: Chromium closes it.)
   */
  override _endTagOutsideForeignContent(token: Token.TagToken): void {
    const head = this.headTemplate;
    if (token.tagID === $.TEMPLATE && head !== null) {
      super._endTagOutsideForeignContent(token);
      if (!this.openElements.contains(head.element as T['element'])) {
        this.framesetOk = head.framesetOk;
        this.headTemplate = null;
      }
      return;
    }
    if (token.tagID === $.SELECT && bodyRulesApply(this.insertionMode)) {
      if (this.openElements.hasInScope($.SELECT)) this.openElements.popUntilTagNamePopped($.SELECT);
      return;
    }
    super._endTagOutsideForeignContent(token);
  }

  /**
   * "Reset the insertion mode appropriately" has no select step any more (whatwg/html#10548): parse5 8.1 stops
   * at the topmost select; the standard's loop goes on down the stack (`<template><th><select><template></template><td>`:
   * "in cell", so the `<td>` closes the cell, as in Chromium 153).
   * https://html.spec.whatwg.org/multipage/parsing.html#reset-the-insertion-mode-appropriately
   */
  override _resetInsertionModeForSelect(selectIdx: number): void {
    const stack = this.openElements;
    const { items, tagIDs } = stack;
    // Down the stack by slotBelow: 64 or more deep, parse5 8.1's stack indexes itself and an element removed from
    // the middle (the adoption agency's) leaves its slot free (undefined).
    for (let i = stack.slotBelow(selectIdx); i >= 0; i = stack.slotBelow(i)) {
      if (this.treeAdapter.getNamespaceURI(items[i]!) !== NS.HTML) continue;
      switch (tagIDs[i]) {
        case $.TD:
        case $.TH:
          if (i === 0) break;
          this.insertionMode = InsertionMode.IN_CELL;
          return;
        case $.TR:
          this.insertionMode = InsertionMode.IN_ROW;
          return;
        case $.TBODY:
        case $.THEAD:
        case $.TFOOT:
          this.insertionMode = InsertionMode.IN_TABLE_BODY;
          return;
        case $.CAPTION:
          this.insertionMode = InsertionMode.IN_CAPTION;
          return;
        case $.COLGROUP:
          this.insertionMode = InsertionMode.IN_COLUMN_GROUP;
          return;
        case $.TABLE:
          this.insertionMode = InsertionMode.IN_TABLE;
          return;
        case $.TEMPLATE:
          this.insertionMode = this.tmplInsertionModeStack[this.tmplInsertionModeStack.length - 1]!;
          return;
        case $.HEAD:
          if (i === 0) break;
          this.insertionMode = InsertionMode.IN_HEAD;
          return;
        case $.BODY:
          this.insertionMode = InsertionMode.IN_BODY;
          return;
        case $.FRAMESET:
          this.insertionMode = InsertionMode.IN_FRAMESET;
          return;
        case $.HTML:
          this.insertionMode = this.headElement ? InsertionMode.AFTER_HEAD : InsertionMode.BEFORE_HEAD;
          return;
        default:
      }
    }
    this.insertionMode = InsertionMode.IN_BODY;
  }
}

/**
 * parse5's tree builder (the HTML standard's tree construction, https://html.spec.whatwg.org/multipage/parsing.html#tree-construction)
 * over a tree adapter that keeps no tree. It is what switches the tokenizer: RAWTEXT, RCDATA, script data and
 * PLAINTEXT only for HTML elements, CDATA sections only in foreign content, and foreign content exactly as long as
 * the stack of open elements says (an HTML end tag that pops `<svg>`, a breakout start tag, integration points,
 * `mglyph`/`malignmark`, `<font color|face|size>`). Each token is handed to the rewriter after the tree builder
 * has processed it, with the namespace of the element it made.
 * NOTE: parse5 marks its Parser's token handlers @internal; they are what parse5's own parse() runs. Pinned by
 * the parse5 version range and checked against parse5.parse trees by src/html/foreign-content.test.ts.
 */
export class StackBuilder extends ModernSelectParser<StackOnlyMap> {
  private readonly handler: DriverHandler;
  /** The namespace of the element made from the token being processed, if one was. */
  private tokenNamespace: html.NS | null = null;
  private endTagAsHtml = false;
  /**
   * Whether the tree simulator (tree-simulator.ts) runs in front of parse5's tree builder (true unless a test
   * compares the two): it processes tokens while parse5's state is one it models, and hands back to parse5 at
   * the first token it cannot decide exactly.
   */
  static simulate = true;
  /** The simulator, or null when it is off; `simulating` while it holds the state (parse5's is stale then). */
  private readonly simulator: TreeSimulator | null;
  private simulating = false;
  /** A slot of parse5's stack whose element the simulator does not model, and that element (see tryTakeOver). */
  private blockedSlot = -1;
  private blockedBy: unknown = null;

  constructor(handler: DriverHandler) {
    // Scripting disabled: <noscript> content is tokenized as markup, so that the fallback links an archive shows
    // without scripts are rewritten too. With scripting enabled a browser keeps it as text.
    super({ sourceCodeLocationInfo: true, scriptingEnabled: false, treeAdapter: stackOnlyAdapter });
    this.handler = handler;
    this.simulator = StackBuilder.simulate ? new TreeSimulator(this.simulatorHost()) : null;
  }

  /**
   * Visits the tokens the tree builder keeps beyond the token it processes: those of the list of active
   * formatting elements (parse5's, and the simulator's while it runs). The fast tokenizer counts their lines
   * before it lets go of the input they were read from (fast-tokenizer.ts, SourceLocation).
   */
  keptTokens(visit: (token: Token.TagToken) => void): void {
    const list = this.activeFormattingElements as unknown as FormattingListInternals;
    for (let e = list.newest; e !== null; e = e.older) if (e.token !== undefined) visit(e.token);
    if (this.simulating) for (const e of this.simulator!.formatting) visit(e.token);
  }

  /** parse5's insertion mode for the simulator's state. */
  private simulatedMode(): InsertionMode {
    const sim = this.simulator!;
    if (sim.cell) return InsertionMode.IN_CELL;
    if (sim.head) return InsertionMode.IN_HEAD;
    if (sim.table === ROW) return InsertionMode.IN_ROW;
    if (sim.table === TBODY) return InsertionMode.IN_TABLE_BODY;
    return InsertionMode.IN_BODY;
  }

  /**
   * While the simulator runs, parse5's fields that the fast tokenizer reads between tokens (fast-tokenizer.ts
   * inertText: the insertion mode, frameset-ok, "skip the next newline") show the simulator's state; parse5
   * reads none of them until handBack sets them all. (Its list of active formatting elements is asked through
   * nothingToReconstruct.)
   */
  private exposeSimulatorState(): void {
    const sim = this.simulator!;
    this.insertionMode = sim.inText ? InsertionMode.TEXT : sim.tableText !== null ? InsertionMode.IN_TABLE_TEXT : this.simulatedMode();
    this.framesetOk = sim.framesetOk;
    this.skipNextNewLine = sim.skipNextNewLine;
  }

  /**
   * Whether "reconstruct the active formatting elements" would do nothing: the list is empty, its newest entry
   * is a marker, or its newest element is still open (parse5 8.1 _reconstructActiveFormattingElements).
   * NOTE: asked of the builder, not read from parse5's list: the fast tokenizer asks it for most runs of text,
   * and reading `activeFormattingElements.newest` through a stand-in object with a getter while the simulator
   * ran was 0.7% of a rewriter pass over the 258 real pages (`--cpu-prof`).
   */
  nothingToReconstruct(): boolean {
    if (this.simulating) return this.simulator!.nothingToReconstruct();
    const newest = (this.activeFormattingElements as unknown as FormattingListInternals).newest;
    return newest === null || newest.type === ENTRY_MARKER || this.openElements.contains(newest.element!);
  }

  /** Elements on the stack of open elements. */
  get openElementCount(): number {
    return this.simulating ? this.simulator!.depth : this.openElements.stackTop + 1;
  }

  get inTemplate(): boolean {
    return !this.simulating && this.openElements.tmplCount > 0;
  }

  /**
   * Whether a `<frameset>` start tag would still replace the body: frameset-ok is "ok" and the second element
   * on the stack is a body element (https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody).
   * (The simulator's stack always has the body second.)
   */
  get framesetPending(): boolean {
    if (this.simulating) return this.simulator!.framesetOk && this.simulator!.ids[1] === $.BODY;
    return this.framesetOk && this.openElements.tryPeekProperlyNestedBodyElement() !== null;
  }

  /** The current node (an opaque handle). */
  get currentElement(): unknown {
    if (this.simulating) return this.simulator!.nodes[this.simulator!.depth - 1];
    return this.openElements.current;
  }

  /** Whether an element (a handle from currentElement) is on the stack of open elements. */
  isOpen(element: unknown): boolean {
    if (this.simulating) return this.simulator!.isOpen(element);
    return this.openElements.contains(element as StackNode);
  }

  // --- the tree simulator ------------------------------------------------------------------------------------

  private simulatorHost(): SimulatorHost {
    return {
      createElement: (tagName, attrs, fromToken) => {
        // As _createElement and _attachElementToTree below: an element made again from a formatting element's
        // token is reported; a <base> is placed (never foster parented: the simulator never inserts in a table).
        if (!fromToken && attrs.length > 0) this.handler.onReconstructed?.(attrs);
        const node = stackOnlyAdapter.createElement(tagName, NS.HTML, attrs);
        if (tagName === 'base') {
          const sim = this.simulator!;
          const tables: unknown[] = [];
          for (let i = 0; i < sim.depth; i++) if (sim.ids[i] === $.TABLE) tables.push(sim.nodes[i]);
          this.basePlacement = { before: null, tables };
        }
        return node;
      },
      setTokenizerState: (state) => {
        this.tokenizer.state = state;
      },
    };
  }

  /**
   * After parse5 processed a token: if its state is one the simulator models — "in body", the body second on
   * the stack, no template, table, select, applet/object/marquee or foreign element open, no marker in the list
   * of active formatting elements, a stack too shallow to be indexed — the simulator takes it over.
   */
  private tryTakeOver(): void {
    const sim = this.simulator;
    if (sim === null || this.currentNotInHTML || this.fosterParentingEnabled) return;
    const mode = this.insertionMode;
    if (mode !== InsertionMode.IN_BODY && mode !== InsertionMode.IN_CELL && mode !== InsertionMode.IN_HEAD) return;
    const stack = this.openElements as unknown as OpenElementsInternals;
    if (stack.tmplCount > 0 || stack.indexed) return;
    const count = stack.stackTop + 1;
    let floor = 0;
    if (mode === InsertionMode.IN_HEAD) {
      // "In head": the stack is html, head (and the list of active formatting elements is empty).
      if (count !== 2 || stack.tagIDs[1] !== $.HEAD || stack.items[1]!.namespaceURI !== NS.HTML || this.activeFormattingElements.newest !== null) return;
    } else if (mode === InsertionMode.IN_CELL) {
      floor = TreeSimulator.cellFloor(stack.items, stack.tagIDs, count);
      if (floor === -1) return;
    } else {
      // (A stack that still holds the element that blocked the last try is not looked at again.)
      if (this.blockedSlot !== -1 && this.blockedSlot < count && stack.items[this.blockedSlot] === this.blockedBy) return;
      const blocked = TreeSimulator.blockingSlot(stack.items, stack.tagIDs, count);
      if (blocked !== -1) {
        this.blockedSlot = blocked < count ? blocked : -1;
        this.blockedBy = blocked < count ? stack.items[blocked] : null;
        return;
      }
      this.blockedSlot = -1;
      this.blockedBy = null;
    }
    // The list of active formatting elements after its last marker: all of it "in body" (no marker), the
    // entries after the cell's marker "in cell".
    const list = this.activeFormattingElements as unknown as FormattingListInternals;
    const entries: SimEntry[] = [];
    let e = list.newest;
    for (; e !== null && e.type === ENTRY_ELEMENT; e = e.older) entries.push({ element: e.element!, token: e.token! });
    if ((e !== null) !== (floor > 0)) return;
    entries.reverse();
    // parse5 indexes those entries once there are three, and its Noah's Ark clause drops the entry of an "ark"
    // (same tag and attributes) pushed first; the simulator drops the earliest in the list. They agree when the
    // arks are in list order, as when every entry was pushed at the end (the adoption agency inserts elsewhere).
    if (list.index !== null) {
      const position = new Map<unknown, number>();
      let at = 0;
      for (let x = list.newest; x !== null && x.type === ENTRY_ELEMENT; x = x.older) position.set(x, at--);
      for (let x = list.newest; x !== null && x.type === ENTRY_ELEMENT; x = x.older) {
        const ark = x.ark?.entries;
        if (ark === undefined) continue;
        for (let i = 1; i < ark.length; i++) if (position.get(ark[i - 1])! > position.get(ark[i])!) return;
      }
    }
    sim.load(stack.items as SimNode[], stack.tagIDs, count, floor, entries, this.framesetOk, this.formElement as SimNode | null, this.skipNextNewLine);
    this.simulating = true;
    simulatorStats.takeOvers++;
  }

  /**
   * The simulator met a token it cannot decide: parse5's state becomes the simulator's (the stack above what
   * both still share, the list of active formatting elements, frameset-ok, the form element pointer, the mode),
   * and parse5 processes the token. The tokenizer's state and the base placement were kept up to date.
   */
  private handBack(atEnd = false): void {
    const sim = this.simulator!;
    this.simulating = false;
    if (atEnd) simulatorStats.endHandBacks++;
    else simulatorStats.handBacks++;
    const stack = this.openElements;
    let shared = 0;
    while (shared < sim.depth && shared <= stack.stackTop && stack.items[shared] === sim.nodes[shared]) shared++;
    stack.shortenToLength(shared);
    for (let i = shared; i < sim.depth; i++) stack.push(sim.nodes[i] as StackNode, sim.ids[i]!);
    // The entries after the last marker, again (clearToLastMarker takes the marker too: "in cell", the cell's is
    // put back, as parse5 put it when it inserted the cell).
    const list = this.activeFormattingElements;
    list.clearToLastMarker();
    if (sim.cell) list.insertMarker();
    for (const e of sim.formatting) list.pushElement(e.element as StackNode, e.token);
    this.framesetOk = sim.framesetOk;
    this.formElement = sim.formElement as StackNode | null;
    this.skipNextNewLine = sim.skipNextNewLine;
    const mode = this.simulatedMode();
    if (sim.inText) {
      this.insertionMode = InsertionMode.TEXT;
      this.originalInsertionMode = mode;
    } else if (sim.tableText !== null) {
      // "In table text" with the whitespace token read so far pending, as parse5 would have it (the token that
      // made the simulator hand back is not whitespace: parse5 will foster parent the text).
      this.pendingCharacterTokens.length = 0;
      this.pendingCharacterTokens.push(sim.tableText);
      this.hasNonWhitespacePendingCharacterToken = false;
      this.originalInsertionMode = mode;
      this.insertionMode = InsertionMode.IN_TABLE_TEXT;
    } else this.insertionMode = mode;
  }

  override _createElement(tagName: string, namespaceURI: html.NS, attrs: Token.Attribute[], intendedParent: StackNode): StackNode {
    if (attrs === (this.currentToken as Token.TagToken | null)?.attrs) this.tokenNamespace = namespaceURI;
    else if (attrs.length > 0) this.handler.onReconstructed?.(attrs);
    return super._createElement(tagName, namespaceURI, attrs, intendedParent);
  }

  // Text and where a node goes in the tree change nothing on the stack: with no tree, these do nothing (parse5's
  // versions also allocate a location per element and look up foster parents per text run).
  override _insertCharacters(): void {}

  override _attachElementToTree(element: StackNode): void {
    if (element.tagName === 'base') this.placeBase(this._shouldFosterParentOnInsertion());
  }

  /** Where the last `<base>` went in the tree: see lastBasePlacement. */
  private basePlacement: BasePlacement = { before: null, tables: [] };

  get lastBasePlacement(): BasePlacement {
    return this.basePlacement;
  }

  /**
   * A base element's place in tree order, as far as a later base can come before it: it is inside every open
   * table below where it is inserted; foster parented (`before`: the table it is inserted before,
   * https://html.spec.whatwg.org/multipage/parsing.html#appropriate-place-for-inserting-a-node), inside only
   * the tables below that one.
   */
  private placeBase(fostered: boolean): void {
    const { items, tagIDs, stackTop } = this.openElements;
    let top = stackTop;
    let before: StackNode | null = null;
    if (fostered) {
      // (The tree adapter keeps no parents, so parse5's own foster-parenting location has no table to go before.)
      const table = this.openElements.indexOfTopmost($.TABLE);
      if (table !== -1 && this.openElements.indexOfTopmost($.TEMPLATE) < table) {
        before = items[table]!;
        top = table - 1;
      }
    }
    const tables: unknown[] = [];
    // (A free slot of an indexed stack holds no element: see _resetInsertionModeForSelect.)
    for (let i = 0; i <= top; i++) if (tagIDs[i] === $.TABLE && items[i] !== undefined && items[i]!.namespaceURI === NS.HTML) tables.push(items[i]);
    this.basePlacement = { before, tables };
  }

  override onStartTag(token: Token.TagToken): void {
    if (this.simulating) {
      const made = this.simulator!.startTag(token);
      if (made !== BAIL) {
        simulatorStats.simulated++;
        this.exposeSimulatorState();
        this.handler.onStartTag(token, 'html', made === 1, null);
        return;
      }
      this.handBack();
    }
    simulatorStats.full++;
    this.tokenNamespace = null;
    lastAdopted = null;
    const replacesBody = token.tagID === $.FRAMESET && this.framesetPending;
    super.onStartTag(token);
    const adopted = lastAdopted;
    lastAdopted = null;
    // (In foreign content a <frameset> start tag is an SVG or MathML element: nothing is replaced.)
    if (replacesBody && this.tokenNamespace === NS.HTML && this.insertionMode === InsertionMode.IN_FRAMESET) this.handler.onBodyReplaced?.();
    this.handler.onStartTag(token, toNamespace(this.tokenNamespace ?? NS.HTML), this.tokenNamespace !== null, adopted);
    this.tryTakeOver();
  }

  override _endTagOutsideForeignContent(token: Token.TagToken): void {
    this.endTagAsHtml = true;
    super._endTagOutsideForeignContent(token);
  }

  override onEndTag(token: Token.TagToken): void {
    if (this.simulating) {
      if (this.simulator!.endTag(token) !== BAIL) {
        simulatorStats.simulated++;
        this.exposeSimulatorState();
        this.handler.onEndTag(token, 'html');
        return;
      }
      this.handBack();
    }
    if (this.inToken) {
      super.onEndTag(token);
      return;
    }
    simulatorStats.full++;
    // In foreign content, an end tag that matches no foreign element is processed by the HTML rules.
    const ns = this.currentNotInHTML ? this.treeAdapter.getNamespaceURI(this._getAdjustedCurrentElement()) : NS.HTML;
    this.endTagAsHtml = false;
    this.inToken = true;
    super.onEndTag(token);
    this.inToken = false;
    this.handler.onEndTag(token, this.endTagAsHtml ? 'html' : toNamespace(ns));
    this.tryTakeOver();
  }

  /**
   * Set while parse5 processes a token other than a start tag: a token it reprocesses in another insertion mode
   * (parse5's _processToken: text before the head or the body, the token that ends pending table text) comes
   * through these same methods again, and is reported once (it was reported twice), and the simulator takes
   * over only once it is done.
   */
  private inToken = false;

  override onCharacter(token: Token.CharacterToken): void {
    if (this.simulating) {
      if (!this.simulator!.textBails()) {
        this.simulator!.character();
        this.exposeSimulatorState();
        this.handler.onText();
        return;
      }
      this.handBack();
    }
    if (this.inToken) {
      if (!this.pendInTableText(token)) super.onCharacter(token);
      return;
    }
    this.inToken = true;
    if (!this.pendInTableText(token)) super.onCharacter(token);
    this.inToken = false;
    this.handler.onText();
    this.tryTakeOver();
  }

  override onNullCharacter(token: Token.CharacterToken): void {
    if (this.simulating) {
      if (!this.simulator!.textBails()) {
        this.simulator!.nullCharacter();
        this.exposeSimulatorState();
        this.handler.onText();
        return;
      }
      this.handBack();
    }
    if (this.inToken) {
      super.onNullCharacter(token);
      return;
    }
    this.inToken = true;
    super.onNullCharacter(token);
    this.inToken = false;
    this.handler.onText();
    this.tryTakeOver();
  }

  override onWhitespaceCharacter(token: Token.CharacterToken): void {
    if (this.simulating) {
      if (!this.simulator!.textTooDeep()) {
        this.simulator!.whitespaceCharacter(token);
        this.exposeSimulatorState();
        return;
      }
      this.handBack();
    }
    if (this.inToken) {
      if (!this.pendInTableText(token)) super.onWhitespaceCharacter(token);
      return;
    }
    this.inToken = true;
    if (!this.pendInTableText(token)) super.onWhitespaceCharacter(token);
    this.inToken = false;
    this.tryTakeOver();
  }

  /**
   * "In table text" keeps every character token until the next other token, then handles them all alike
   * (https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intabletext): to the stack, one pending
   * token does what many do, so one is kept and the rest only say whether there was non-whitespace.
   */
  private pendInTableText(token: Token.CharacterToken): boolean {
    if (this.insertionMode !== InsertionMode.IN_TABLE_TEXT || this.pendingCharacterTokens.length === 0) return false;
    if (token.type === Token.TokenType.CHARACTER) this.hasNonWhitespacePendingCharacterToken = true;
    return true;
  }

  /** A comment or doctype: it changes no stack, so the simulator only notes it; parse5 runs it when it leads. */
  private otherToken(parse5: () => void): void {
    if (this.simulating) {
      this.simulator!.other();
      this.exposeSimulatorState();
    } else {
      this.inToken = true;
      parse5();
      this.inToken = false;
    }
  }

  override onComment(token: Token.CommentToken): void {
    if (this.inToken) {
      super.onComment(token);
      return;
    }
    this.otherToken(() => super.onComment(token));
    this.handler.onComment(token);
  }

  override onDoctype(token: Token.DoctypeToken): void {
    if (this.inToken) {
      super.onDoctype(token);
      return;
    }
    this.otherToken(() => super.onDoctype(token));
    this.handler.onDoctype(token);
  }

  override onEof(token: Token.EOFToken): void {
    if (this.inToken) {
      super.onEof(token);
      return;
    }
    if (this.simulating) this.handBack(true);
    this.inToken = true;
    super.onEof(token);
    this.inToken = false;
    this.handler.onEof();
  }
}

/** The parts of parse5 8.1's OpenElementStack that StackBuilder.tryTakeOver reads. */
interface OpenElementsInternals {
  items: StackNode[];
  tagIDs: number[];
  stackTop: number;
  tmplCount: number;
  /** Whether the stack indexes itself (64 elements deep or more): then slots may be free. */
  indexed: boolean;
}

/** parse5 8.1's FormattingElementList: entries linked newest to oldest; an index of "arks" from three entries on. */
interface FormattingListInternals {
  newest: FormattingEntryInternals | null;
  index: object | null;
  insertMarker(): void;
}
interface FormattingEntryInternals {
  type: number;
  element?: StackNode;
  token?: Token.TagToken;
  older: FormattingEntryInternals | null;
  ark?: { entries: FormattingEntryInternals[] } | null;
}
/** parse5's EntryType.Element and EntryType.Marker. */
const ENTRY_ELEMENT = 1;
const ENTRY_MARKER = 0;

/**
 * How many tags the tree simulator processed and how many parse5's tree builder did, and how often one handed
 * over to the other (`handBacks`: the guard fired; `endHandBacks`: at the end of input, which parse5 ends), in
 * this process (read by the test that measures how often the guard fires).
 */
export const simulatorStats = { simulated: 0, full: 0, takeOvers: 0, handBacks: 0, endHandBacks: 0 };

/** Where a `<base>` element went: the table it was foster parented before (or null), and the tables it is in. */
export interface BasePlacement {
  readonly before: unknown;
  readonly tables: readonly unknown[];
}

/** What the rewriter drives: a tokenizer and parse5's tree builder, fed raw text. */
export interface TokenizerEngine {
  write(chunk: string, isLastChunk: boolean): void;
  /** The input offset before which every token is complete: bytes before it can be written out once their edits are known. */
  safeOffset(): number;
  /** Elements on the tree builder's stack of open elements: what its memory follows. */
  openElementCount(): number;
  /** Whether a `<template>` is open (its content is not in the document: a `<base>` there is not the document's). */
  inTemplate(): boolean;
  /** Reads every token the input so far completes (a tokenizer may wait for more input before trying again). */
  catchUp(): void;
  /** Where the last `<base>` start tag's element went in the tree. */
  lastBasePlacement(): BasePlacement;
  /** The current node of the tree builder, as an opaque handle. */
  currentElement(): unknown;
  /** Whether a `<frameset>` start tag would still replace the body (and all that is in it). */
  framesetPending(): boolean;
  /** Whether an element (a handle from currentElement) is still on the stack of open elements. */
  isOpen(element: unknown): boolean;
}

/** parse5's own tokenizer: the reference the fast tokenizer (fast-tokenizer.ts) is tested against. */
export class TokenizerDriver implements TokenizerEngine {
  readonly tokenizer: Tokenizer;
  private readonly builder: StackBuilder;

  /** `fastRuns: false` leaves parse5 reading every code point (the reference the fast runs are tested against). */
  constructor(handler: DriverHandler, options: { fastRuns?: boolean } = {}) {
    this.builder = new StackBuilder(handler);
    this.tokenizer = this.builder.tokenizer;
    withoutCharacterTokenLocations(this.tokenizer);
    withAttributeLocationsFor(this.tokenizer, mayHoldUrl);
    if (options.fastRuns !== false) withFastRuns(this.tokenizer);
  }

  write(chunk: string, isLastChunk: boolean): void {
    this.tokenizer.write(chunk, isLastChunk);
  }

  /**
   * The input offset before which every token is complete: text, or tokens already handed over.
   * Bytes before it can be written out once their edits are known.
   */
  safeOffset(): number {
    // NOTE: parse5 8.1's "input boundary before any unfinished token or buffered delimiter"; typed private, but
    // it is what its own flushCharacters() uses. Every streaming test fails if a parse5 update removes it.
    return (this.tokenizer as unknown as { getCharacterTokenEndOffset(): number }).getCharacterTokenEndOffset();
  }

  /** Elements on the tree builder's stack of open elements: what its memory follows. */
  openElementCount(): number {
    return this.builder.openElementCount;
  }

  /** Whether a `<template>` is open (its content is not in the document: a `<base>` there is not the document's). */
  inTemplate(): boolean {
    return this.builder.inTemplate;
  }

  /** parse5's tokenizer reads all it is given at each write. */
  catchUp(): void {}

  lastBasePlacement(): BasePlacement {
    return this.builder.lastBasePlacement;
  }

  currentElement(): unknown {
    return this.builder.currentElement;
  }

  framesetPending(): boolean {
    return this.builder.framesetPending;
  }

  isOpen(element: unknown): boolean {
    return this.builder.isOpen(element);
  }
}
