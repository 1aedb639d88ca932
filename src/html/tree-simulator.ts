/**
 * A lean stand-in for parse5's tree builder where the tokens of a real page are: "in body", "in cell", "in row"
 * and "in table body" between cells, "in head", and "text" after a raw-text element opened in those. It keeps
 * what the rewriter and the tokenizer read back — the stack of open elements, the list of active formatting
 * elements (its last region), frameset-ok, the form element pointer, the tokenizer state — for ordinary elements,
 * formatting elements that nest, paragraphs, lists, headings, void elements, raw text, text, comments, and the
 * cells and rows of a table. It is driven by `StackBuilder` (tokenizer-driver.ts), and only while parse5's own
 * state is one it models (StackBuilder.tryTakeOver).
 *
 * The ambiguity guard: every handler first decides, without changing anything, whether it models the token
 * exactly; if not it returns BAIL, `StackBuilder` hands the state back to parse5 (handBack) and parse5 processes
 * that token and the ones after it, until its state is one the simulator models again. The safe point is every
 * token boundary: the state is handed over whole, so what a hand-over replays is at most one token — the
 * whitespace pending "in table text" (`tableText`) — and the rest is the stack, bounded by MAX_SIMULATED_DEPTH,
 * and the list's last region (at most three entries alike, by the Noah's Ark clause).
 * What makes it bail: a construct whose rules read or change what it does not keep — a table start or end tag,
 * captions, column groups, text in a table (foster parenting), select, template, frameset, html and body tags,
 * applet/object/marquee (markers), svg/math (foreign content), ruby, option, image (renamed), noscript in the
 * head, the adoption agency with a furthest block, an `<a>` or `<nobr>` that the adoption agency would close,
 * a stack deeper than MAX_SIMULATED_DEPTH, EOF.
 * Measured on the 258 real pages of htmlparser-benchmark (src/html/tree-simulator.test.ts prints it): 96% of
 * the tags simulated; the guard fires 8.3 times a page (mostly `<table>`, `</table>`, `</body>`, `</head>`).
 * Checked against parse5 running alone (src/html/tree-simulator.test.ts): the same handler calls with the same
 * arguments and the same answers to every question the rewriter asks between them, on random documents, the
 * Chromium suite's differential corpus, html5lib's tree-construction inputs, the real pages and the shared
 * corpus, whole and in random chunks; and byte-identical rewriter output on the real pages.
 */
import { Token, TokenizerMode, html } from 'parse5';

const $ = html.TAG_ID;
const NS = html.NS;

/**
 * The simulator keeps at most this many open elements; a deeper stack is handed back to parse5 (whose stack
 * indexes itself from 64 elements on, so that its scope searches stay constant-time: the simulator's are
 * scans from the top, cheap only on a shallow stack). Real pages nest 10–30 deep.
 */
export const MAX_SIMULATED_DEPTH = 63;

/** What a handler returns when it cannot decide the token exactly: nothing has been changed. */
export const BAIL = -1;

/** An element as the stack-only tree adapter makes it (tokenizer-driver.ts `StackNode`). */
export interface SimNode {
  readonly tagName: string;
  readonly namespaceURI: html.NS;
}

/** A list entry: the element and the token it was made from. */
export interface SimEntry {
  element: SimNode;
  token: Token.TagToken;
}

/** What the simulator calls back into. */
export interface SimulatorHost {
  /** Makes an HTML element (the tree adapter's createElement); `fromToken` when made for the token being processed. */
  createElement(tagName: string, attrs: Token.Attribute[], fromToken: boolean): SimNode;
  /** The tokenizer's state (switched for raw text, as the tree builder's "generic raw text element parsing algorithm"). */
  setTokenizerState(state: number): void;
}

/**
 * Removes `list[at]`. NOTE: not `list.splice(at, 1)`, which makes an array of what it removes: in the adoption
 * agency (most often the last entry, an `</a>`'s) it was 0.7% of a rewriter pass over the 258 real pages
 * (`--cpu-prof`).
 */
function removeAt<T>(list: T[], at: number): void {
  for (let i = at + 1; i < list.length; i++) list[i - 1] = list[i]!;
  list.pop();
}

// --- element classes (HTML namespace; the simulator's stack holds HTML elements only) ----------------------

const IMPLIED_END = new Uint8Array(256);
for (const id of [$.DD, $.DT, $.LI, $.OPTGROUP, $.OPTION, $.P, $.RB, $.RP, $.RT, $.RTC]) IMPLIED_END[id] = 1;
const SPECIAL = new Uint8Array(256);
for (const id of html.SPECIAL_ELEMENTS[NS.HTML]) SPECIAL[id] = 1;
/** Elements that may not be on the simulated stack: scope boundaries other than html, and what selects a mode. */
const UNMODELED = new Uint8Array(256);
for (const id of [$.APPLET, $.CAPTION, $.MARQUEE, $.OBJECT, $.TABLE, $.TD, $.TH, $.TEMPLATE, $.TBODY, $.THEAD, $.TFOOT, $.TR, $.COLGROUP, $.COL, $.SELECT, $.FRAMESET, $.HEAD]) UNMODELED[id] = 1;
/** "In cell", start tags that close the cell, and end tags with rules of their own. */
const CELL_CLOSERS = new Uint8Array(256);
for (const id of [$.CAPTION, $.COL, $.COLGROUP, $.TBODY, $.TD, $.TFOOT, $.TH, $.THEAD, $.TR]) CELL_CLOSERS[id] = 1;
const CELL_ENDS = new Uint8Array(256);
for (const id of [$.TD, $.TH, $.BODY, $.CAPTION, $.COL, $.COLGROUP, $.HTML, $.TABLE, $.TBODY, $.TFOOT, $.THEAD, $.TR]) CELL_ENDS[id] = 1;
const TABLE_BODY = new Uint8Array(256);
for (const id of [$.TBODY, $.THEAD, $.TFOOT]) TABLE_BODY[id] = 1;
const NUMBERED_HEADER = new Uint8Array(256);
for (const id of [$.H1, $.H2, $.H3, $.H4, $.H5, $.H6]) NUMBERED_HEADER[id] = 1;

/** How the "in body" rules treat a start tag, by tag ID (https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody). */
const enum Start {
  Generic,
  Bail,
  Formatting,
  A,
  Nobr,
  Block,
  Header,
  Pre,
  Form,
  ListItem,
  Plaintext,
  Button,
  Void,
  Input,
  Param,
  Hr,
  Textarea,
  Xmp,
  Iframe,
  RawText,
  Rcdata,
  ScriptData,
  HeadVoid,
  Ignore,
}
const START = new Uint8Array(256);
const startKinds: [Start, readonly html.TAG_ID[]][] = [
  [Start.Bail, [$.HTML, $.BODY, $.FRAMESET, $.TABLE, $.SELECT, $.OPTION, $.OPTGROUP, $.RB, $.RTC, $.RT, $.RP, $.MATH, $.SVG, $.IMAGE, $.APPLET, $.OBJECT, $.MARQUEE, $.TEMPLATE]],
  [Start.Formatting, [$.B, $.BIG, $.CODE, $.EM, $.FONT, $.I, $.S, $.SMALL, $.STRIKE, $.STRONG, $.TT, $.U]],
  [Start.A, [$.A]],
  [Start.Nobr, [$.NOBR]],
  [Start.Block, [$.ADDRESS, $.ARTICLE, $.ASIDE, $.BLOCKQUOTE, $.CENTER, $.DETAILS, $.DIALOG, $.DIR, $.DIV, $.DL, $.FIELDSET, $.FIGCAPTION, $.FIGURE, $.FOOTER, $.HEADER, $.HGROUP, $.MAIN, $.MENU, $.NAV, $.OL, $.P, $.SEARCH, $.SECTION, $.SUMMARY, $.UL]],
  [Start.Header, [$.H1, $.H2, $.H3, $.H4, $.H5, $.H6]],
  [Start.Pre, [$.PRE, $.LISTING]],
  [Start.Form, [$.FORM]],
  [Start.ListItem, [$.LI, $.DD, $.DT]],
  [Start.Plaintext, [$.PLAINTEXT]],
  [Start.Button, [$.BUTTON]],
  [Start.Void, [$.AREA, $.BR, $.EMBED, $.IMG, $.KEYGEN, $.WBR]],
  [Start.Input, [$.INPUT]],
  [Start.Param, [$.PARAM, $.SOURCE, $.TRACK]],
  [Start.Hr, [$.HR]],
  [Start.Textarea, [$.TEXTAREA]],
  [Start.Xmp, [$.XMP]],
  [Start.Iframe, [$.IFRAME]],
  // <noembed>, and from the "in head" rules <style> and <noframes> (scripting disabled: <noscript> is generic).
  [Start.RawText, [$.NOEMBED, $.NOFRAMES, $.STYLE]],
  [Start.Rcdata, [$.TITLE]],
  [Start.ScriptData, [$.SCRIPT]],
  [Start.HeadVoid, [$.BASE, $.BASEFONT, $.BGSOUND, $.LINK, $.META]],
  [Start.Ignore, [$.CAPTION, $.COL, $.COLGROUP, $.FRAME, $.HEAD, $.TBODY, $.TD, $.TFOOT, $.TH, $.THEAD, $.TR]],
];
for (const [kind, ids] of startKinds) for (const id of ids) START[id] = kind;

const enum End {
  Generic,
  Bail,
  Formatting,
  Block,
  P,
  Li,
  DdDt,
  Header,
  Br,
  Form,
  Ignore,
}
const END = new Uint8Array(256);
const endKinds: [End, readonly html.TAG_ID[]][] = [
  [End.Bail, [$.BODY, $.HTML, $.APPLET, $.OBJECT, $.MARQUEE, $.TEMPLATE]],
  [End.Formatting, [$.A, $.B, $.BIG, $.CODE, $.EM, $.FONT, $.I, $.NOBR, $.S, $.SMALL, $.STRIKE, $.STRONG, $.TT, $.U]],
  [End.Block, [$.ADDRESS, $.ARTICLE, $.ASIDE, $.BLOCKQUOTE, $.BUTTON, $.CENTER, $.DETAILS, $.DIALOG, $.DIR, $.DIV, $.DL, $.FIELDSET, $.FIGCAPTION, $.FIGURE, $.FOOTER, $.HEADER, $.HGROUP, $.LISTING, $.MAIN, $.MENU, $.NAV, $.OL, $.PRE, $.SEARCH, $.SECTION, $.SUMMARY, $.UL]],
  [End.P, [$.P]],
  [End.Li, [$.LI]],
  [End.DdDt, [$.DD, $.DT]],
  [End.Header, [$.H1, $.H2, $.H3, $.H4, $.H5, $.H6]],
  [End.Br, [$.BR]],
  [End.Form, [$.FORM]],
  // A select end tag "in body" (tokenizer-driver.ts ModernSelectParser): ignored with no select open.
  [End.Ignore, [$.SELECT]],
];
for (const [kind, ids] of endKinds) for (const id of ids) END[id] = kind;

/** parse5's insertion modes that the simulator has: "in body" and "text" (from "in body"). */
const IN_BODY = 0;
const TEXT = 1;
/** `table`: "in row", "in table body". */
export const ROW = 1;
export const TBODY = 2;

/** Whether two formatting tokens' attribute sets are the same (the Noah's Ark clause's "same attributes"). */
function sameAttributes(a: Token.Attribute[], b: Token.Attribute[]): boolean {
  if (a.length !== b.length) return false;
  outer: for (const x of a) {
    for (const y of b) if (x.name === y.name) {
      if (x.value !== y.value) return false;
      continue outer;
    }
    return false;
  }
  return true;
}

export class TreeSimulator {
  private readonly host: SimulatorHost;
  /** The stack of open elements (slots 0 … depth-1; 0 is html, 1 is body) and their tag IDs. */
  readonly nodes: SimNode[] = [];
  readonly ids: number[] = [];
  depth: number = 0;
  /** The list of active formatting elements, oldest first (no markers: the simulator never has one). */
  readonly formatting: SimEntry[] = [];
  private mode: number = IN_BODY;
  /**
   * "In cell" rather than "in body": the "in body" rules but for the cell's and the table's own tags, with the
   * cell (at `floor`) bounding every scope and a marker in the list of active formatting elements at it.
   */
  cell: boolean = false;
  /** "In head" rather than "in body" (the stack is html, head): see headStartTag. */
  head: boolean = false;
  /**
   * "In row" (ROW) or "in table body" (TBODY) after the simulator closed a cell, with a tr, tbody, thead or tfoot
   * as the current node (see tableStartTag); 0 otherwise. The list of active formatting elements is then the
   * table's region, which the simulator leaves to parse5 (it never reads it there).
   */
  table: number = 0;
  /**
   * "In table text": the first whitespace character token after a row or a table body's tag, which parse5
   * keeps pending until the next other token (then inserts it, which changes nothing on the stack). Handed to
   * parse5 with the state if a token other than whitespace comes first (it would then be foster parented).
   */
  tableText: Token.CharacterToken | null = null;
  /** The slot of the element that bounds every scope: html (0), or the cell; the simulator never pops it. */
  private floor: number = 0;
  framesetOk: boolean = false;
  formElement: SimNode | null = null;
  skipNextNewLine: boolean = false;

  constructor(host: SimulatorHost) {
    this.host = host;
  }

  /** Whether the simulator is in "text" (raw text of an element opened in the body). */
  get inText(): boolean {
    return this.mode === TEXT;
  }

  /** Sets the state: parse5's, when it models it (checked by the caller; see StackBuilder.tryTakeOver). */
  load(items: readonly SimNode[], tagIDs: readonly number[], count: number, floor: number, formatting: readonly SimEntry[], framesetOk: boolean, formElement: SimNode | null, skipNextNewLine: boolean): void {
    for (let i = 0; i < count; i++) {
      this.nodes[i] = items[i]!;
      this.ids[i] = tagIDs[i]!;
    }
    this.nodes.length = count;
    this.ids.length = count;
    this.depth = count;
    this.formatting.length = 0;
    for (const e of formatting) this.formatting.push(e);
    this.mode = IN_BODY;
    this.floor = floor;
    this.cell = floor > 0;
    this.head = count >= 2 && tagIDs[1] === $.HEAD;
    this.table = 0;
    this.tableText = null;
    this.framesetOk = framesetOk;
    this.formElement = formElement;
    this.skipNextNewLine = skipNextNewLine;
  }

  /**
   * -1 if parse5's stack (slots 0 … count-1, none free) holds only what the simulator models; else the slot of
   * the lowest element it does not model (or `count` when the stack as a whole is not one it models).
   */
  static blockingSlot(items: readonly SimNode[], tagIDs: readonly number[], count: number): number {
    if (count < 2 || count > MAX_SIMULATED_DEPTH || tagIDs[0] !== $.HTML || tagIDs[1] !== $.BODY) return count;
    for (let i = 0; i < count; i++) {
      const id = tagIDs[i]!;
      if (items[i]!.namespaceURI !== NS.HTML || id >= 256 || UNMODELED[id] === 1) return i;
    }
    return -1;
  }

  /**
   * "In cell": the slot of the topmost cell, if parse5's stack (slots 0 … count-1, none free) holds only HTML
   * elements, no select, and above the cell only what the simulator models; else -1. (Below the cell the stack
   * is the table's, and the simulator leaves it alone: the cell bounds every scope the "in body" rules look at.)
   */
  static cellFloor(items: readonly SimNode[], tagIDs: readonly number[], count: number): number {
    if (count < 2 || count > MAX_SIMULATED_DEPTH || tagIDs[0] !== $.HTML || tagIDs[1] !== $.BODY) return -1;
    let cell = -1;
    for (let i = count - 1; i > 1; i--) {
      const id = tagIDs[i]!;
      if (items[i]!.namespaceURI !== NS.HTML || id === $.SELECT) return -1;
      if (cell === -1) {
        if (id === $.TD || id === $.TH) cell = i;
        else if (id >= 256 || UNMODELED[id] === 1) return -1;
      }
    }
    return cell;
  }

  isOpen(element: unknown): boolean {
    return this.indexOf(element) !== -1;
  }

  /** Whether "reconstruct the active formatting elements" would do nothing (in a cell, the list's last marker is the cell's). */
  nothingToReconstruct(): boolean {
    const list = this.formatting;
    return list.length === 0 || this.isOpen(list[list.length - 1]!.element);
  }

  private indexOf(element: unknown): number {
    for (let i = this.depth - 1; i >= 0; i--) if (this.nodes[i] === element) return i;
    return -1;
  }

  // --- the stack ---------------------------------------------------------------------------------------------

  private push(node: SimNode, id: number): void {
    this.nodes[this.depth] = node;
    this.ids[this.depth] = id;
    this.depth++;
  }

  /** Pops elements until `length` are left (the slots above keep their old values until pushed over). */
  private shortenTo(length: number): void {
    this.depth = length;
  }

  private indexOfTopmost(id: number): number {
    for (let i = this.depth - 1; i >= 0; i--) if (this.ids[i] === id) return i;
    return -1;
  }

  /** "Has an element in scope": on this stack only html bounds it (no other scope element is modeled). */
  private hasInScope(id: number): boolean {
    return this.indexOfTopmost(id) > this.floor;
  }

  /** "Has a p element in button scope". */
  private hasPInButtonScope(): boolean {
    for (let i = this.depth - 1; i > this.floor; i--) {
      const id = this.ids[i];
      if (id === $.P) return true;
      if (id === $.BUTTON) return false;
    }
    return false;
  }

  private generateImpliedEndTags(except: number): void {
    let d = this.depth;
    while (d > 0 && this.ids[d - 1] !== except && IMPLIED_END[this.ids[d - 1]!] === 1) d--;
    if (d !== this.depth) this.shortenTo(d);
  }

  /** "Close a p element". */
  private closeP(): void {
    this.generateImpliedEndTags($.P);
    this.shortenTo(Math.max(this.indexOfTopmost($.P), 0));
  }

  private insert(token: Token.TagToken): SimNode {
    const node = this.host.createElement(token.tagName, token.attrs, true);
    this.push(node, token.tagID);
    return node;
  }

  /** "Reconstruct the active formatting elements". */
  private reconstruct(): void {
    const list = this.formatting;
    if (list.length === 0) return;
    let i = list.length;
    while (i > 0 && !this.isOpen(list[i - 1]!.element)) i--;
    for (; i < list.length; i++) {
      const entry = list[i]!;
      const node = this.host.createElement(entry.token.tagName, entry.token.attrs, false);
      this.push(node, entry.token.tagID);
      entry.element = node;
    }
  }

  /** Whether reconstructing would make more elements than the simulator keeps. */
  private reconstructionTooDeep(extra: number): boolean {
    const list = this.formatting;
    if (list.length === 0) return this.depth + extra > MAX_SIMULATED_DEPTH;
    let n = 0;
    for (let i = list.length; i > 0 && !this.isOpen(list[i - 1]!.element); i--) n++;
    return this.depth + n + extra > MAX_SIMULATED_DEPTH;
  }

  /** Pushes a formatting element's entry, after the Noah's Ark clause (at most three alike). */
  private pushFormatting(element: SimNode, token: Token.TagToken): void {
    const list = this.formatting;
    let alike = 0;
    let earliest = -1;
    for (let i = list.length - 1; i >= 0; i--) {
      const t = list[i]!.token;
      if (t.tagName === token.tagName && sameAttributes(t.attrs, token.attrs)) {
        alike++;
        earliest = i;
      }
    }
    if (alike >= 3) removeAt(list, earliest);
    list.push({ element, token });
  }

  private formattingEntry(tagName: string): number {
    for (let i = this.formatting.length - 1; i >= 0; i--) if (this.formatting[i]!.token.tagName === tagName) return i;
    return -1;
  }

  // --- tokens ------------------------------------------------------------------------------------------------

  /**
   * A start tag: BAIL, or whether an element was made from it (1) or it was ignored (0).
   * https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody
   */
  startTag(token: Token.TagToken): number {
    if (this.mode !== IN_BODY) return BAIL;
    if (this.head) return this.headStartTag(token);
    if (this.table !== 0) return this.tableStartTag(token, this.depth - 1);
    const id = token.tagID;
    const kind = id < 256 ? (START[id] as Start) : Start.Generic;
    if (kind === Start.Bail) return BAIL;
    // "In cell", these close the cell (https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intd):
    // a td, th or tr start tag is then processed "in row"; the others are left to parse5.
    if (this.cell && kind === Start.Ignore && CELL_CLOSERS[id] === 1) {
      if ((id !== $.TD && id !== $.TH && id !== $.TR) || !this.rowStartApplies(id, this.floor - 1)) return BAIL;
      this.closeCell();
      return this.tableStartTag(token, this.depth - 1);
    }
    // Each rule inserts at most one element, after at most a reconstruction.
    if (this.reconstructionTooDeep(1)) return BAIL;
    // An <a> in the list runs the adoption agency (and is removed); so does a <nobr> in scope, maybe one that
    // the reconstruction brings back: left to parse5.
    if (kind === Start.A && this.formattingEntry('a') !== -1) return BAIL;
    if (kind === Start.Nobr && (this.hasInScope($.NOBR) || this.formattingEntry('nobr') !== -1)) return BAIL;
    this.skipNextNewLine = false;
    switch (kind) {
      case Start.Generic:
        this.reconstruct();
        this.insert(token);
        break;
      case Start.Formatting:
        this.reconstruct();
        this.pushFormatting(this.insert(token), token);
        break;
      case Start.A:
      case Start.Nobr:
        this.reconstruct();
        this.pushFormatting(this.insert(token), token);
        break;
      case Start.Block:
        if (this.hasPInButtonScope()) this.closeP();
        this.insert(token);
        break;
      case Start.Header:
        if (this.hasPInButtonScope()) this.closeP();
        if (NUMBERED_HEADER[this.ids[this.depth - 1]!] === 1) this.shortenTo(this.depth - 1);
        this.insert(token);
        break;
      case Start.Pre:
        if (this.hasPInButtonScope()) this.closeP();
        this.insert(token);
        this.skipNextNewLine = true;
        this.framesetOk = false;
        break;
      case Start.Form:
        if (this.formElement !== null) return 0;
        if (this.hasPInButtonScope()) this.closeP();
        this.formElement = this.insert(token);
        break;
      case Start.ListItem: {
        this.framesetOk = false;
        // The topmost open item of the token's kind closes, unless a special element other than address, div
        // and p is above it.
        const idx = id === $.LI ? this.indexOfTopmost($.LI) : Math.max(this.indexOfTopmost($.DD), this.indexOfTopmost($.DT));
        // (Below the cell, the cell is a special element above it.)
        if (idx > this.floor) {
          let boundary = false;
          for (let i = idx + 1; i < this.depth; i++) {
            const above = this.ids[i]!;
            if (SPECIAL[above] === 1 && above !== $.ADDRESS && above !== $.DIV && above !== $.P) boundary = true;
          }
          if (!boundary) {
            const itemId = this.ids[idx]!;
            this.generateImpliedEndTags(itemId);
            this.shortenTo(Math.max(this.indexOfTopmost(itemId), 0));
          }
        }
        if (this.hasPInButtonScope()) this.closeP();
        this.insert(token);
        break;
      }
      case Start.Plaintext:
        if (this.hasPInButtonScope()) this.closeP();
        this.insert(token);
        this.host.setTokenizerState(TokenizerMode.PLAINTEXT);
        break;
      case Start.Button:
        if (this.hasInScope($.BUTTON)) {
          this.generateImpliedEndTags(-1);
          this.shortenTo(Math.max(this.indexOfTopmost($.BUTTON), 0));
        }
        this.reconstruct();
        this.insert(token);
        this.framesetOk = false;
        break;
      case Start.Void:
        this.reconstruct();
        this.insert(token);
        this.shortenTo(this.depth - 1);
        this.framesetOk = false;
        token.ackSelfClosing = true;
        break;
      case Start.Input: {
        this.reconstruct();
        this.insert(token);
        this.shortenTo(this.depth - 1);
        const type = Token.getTokenAttr(token, 'type');
        if (type === null || type.toLowerCase() !== 'hidden') this.framesetOk = false;
        token.ackSelfClosing = true;
        break;
      }
      case Start.Param:
      case Start.HeadVoid:
        this.insert(token);
        this.shortenTo(this.depth - 1);
        token.ackSelfClosing = true;
        break;
      case Start.Hr:
        if (this.hasPInButtonScope()) this.closeP();
        this.insert(token);
        this.shortenTo(this.depth - 1);
        this.framesetOk = false;
        token.ackSelfClosing = true;
        break;
      case Start.Textarea:
        this.insert(token);
        this.skipNextNewLine = true;
        this.host.setTokenizerState(TokenizerMode.RCDATA);
        this.framesetOk = false;
        this.mode = TEXT;
        break;
      case Start.Xmp:
        if (this.hasPInButtonScope()) this.closeP();
        this.reconstruct();
        this.framesetOk = false;
        this.text(token, TokenizerMode.RAWTEXT);
        break;
      case Start.Iframe:
        this.framesetOk = false;
        this.text(token, TokenizerMode.RAWTEXT);
        break;
      case Start.RawText:
        this.text(token, TokenizerMode.RAWTEXT);
        break;
      case Start.Rcdata:
        this.text(token, TokenizerMode.RCDATA);
        break;
      case Start.ScriptData:
        this.text(token, TokenizerMode.SCRIPT_DATA);
        break;
      case Start.Ignore:
        return 0;
      default:
        // (Unreachable: every kind is handled above.)
        throw new Error(`tree simulator: start tag kind ${kind}`);
    }
    return 1;
  }

  /**
   * "In head": the head's own elements; anything else (which pops the head and starts the body), `<noscript>`
   * ("in head noscript") and `<template>` are left to parse5.
   * https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead
   */
  private headStartTag(token: Token.TagToken): number {
    const kind = token.tagID < 256 ? (START[token.tagID] as Start) : Start.Generic;
    switch (kind) {
      case Start.HeadVoid:
        this.skipNextNewLine = false;
        this.insert(token);
        this.shortenTo(this.depth - 1);
        token.ackSelfClosing = true;
        return 1;
      case Start.Rcdata:
      case Start.ScriptData:
        this.skipNextNewLine = false;
        this.text(token, kind === Start.Rcdata ? TokenizerMode.RCDATA : TokenizerMode.SCRIPT_DATA);
        return 1;
      case Start.RawText:
        // <style> and <noframes> (<noembed> is not a head element).
        if (token.tagID === $.NOEMBED) return BAIL;
        this.skipNextNewLine = false;
        this.text(token, TokenizerMode.RAWTEXT);
        return 1;
      default:
        if (token.tagID !== $.HEAD) return BAIL;
        this.skipNextNewLine = false;
        return 0;
    }
  }

  /**
   * Whether "in row" (`row`: the row's start tag is processed there) or "in table body" the simulator models a
   * start tag with the current node at `top`: td/th in a row (the current node a tr), tr in a row (a tr in a
   * table body: the row is closed), tr in a table body.
   */
  private rowStartApplies(id: number, top: number, row = true): boolean {
    const current = this.ids[top];
    if (row) {
      if (current !== $.TR) return false;
      return id === $.TD || id === $.TH || (id === $.TR && TABLE_BODY[this.ids[top - 1]!] === 1);
    }
    return id === $.TR && TABLE_BODY[current!] === 1;
  }

  /**
   * "Close the cell" (https://html.spec.whatwg.org/multipage/parsing.html#close-the-cell), also what a td or th
   * end tag for the cell does: generate implied end tags, pop up to the cell, clear the list of active formatting
   * elements up to the last marker, "in row".
   */
  private closeCell(): void {
    this.generateImpliedEndTags(-1);
    this.shortenTo(this.floor);
    this.formatting.length = 0;
    this.cell = false;
    this.floor = 0;
    this.table = ROW;
  }

  /** A start tag "in row" or "in table body", with the current node at `top`: see rowStartApplies. */
  private tableStartTag(token: Token.TagToken, top: number): number {
    const id = token.tagID;
    if (!this.rowStartApplies(id, top, this.table === ROW)) return BAIL;
    this.tableText = null;
    this.skipNextNewLine = false;
    if (id === $.TR) {
      // "In row": close the row ("in table body"); there: insert the tr, "in row".
      if (this.table === ROW) this.shortenTo(top);
      this.insert(token);
      this.table = ROW;
      return 1;
    }
    // "In row", td or th: insert it, "in cell", a marker in the list (the simulator's list is the cell's region).
    this.insert(token);
    this.floor = this.depth - 1;
    this.cell = true;
    this.table = 0;
    this.formatting.length = 0;
    return 1;
  }

  /** "The generic raw text / RCDATA element parsing algorithm" (from "in body": back to "in body"). */
  private text(token: Token.TagToken, state: number): void {
    this.insert(token);
    this.host.setTokenizerState(state);
    this.mode = TEXT;
  }

  /** An end tag: BAIL, or 0 once processed. */
  endTag(token: Token.TagToken): number {
    if (this.mode === TEXT) {
      // "text": any end tag pops the current node and returns to "in body".
      this.shortenTo(this.depth - 1);
      this.mode = IN_BODY;
      this.skipNextNewLine = false;
      return 0;
    }
    const id = token.tagID;
    if (this.head) {
      // "In head": </head> ends it, </body>, </html>, </br> start the body, </template> has rules of its own;
      // any other end tag is ignored.
      if (id === $.HEAD || id === $.BODY || id === $.HTML || id === $.BR || id === $.TEMPLATE) return BAIL;
      this.skipNextNewLine = false;
      return 0;
    }
    if (this.table !== 0) {
      // "In row", a tr end tag closes the row (into a table body); other end tags are left to parse5.
      const top = this.depth - 1;
      if (this.table !== ROW || id !== $.TR || this.ids[top] !== $.TR || TABLE_BODY[this.ids[top - 1]!] !== 1) return BAIL;
      this.tableText = null;
      this.skipNextNewLine = false;
      this.shortenTo(top);
      this.table = TBODY;
      return 0;
    }
    const kind = id < 256 ? (END[id] as End) : End.Generic;
    if (kind === End.Bail) return BAIL;
    // "In cell": the cell's own end tag closes it; the table's end tags (and body, caption, col, colgroup, html:
    // ignored there) are left to parse5.
    if (this.cell && (id === $.TD || id === $.TH) && id === this.ids[this.floor]) {
      this.skipNextNewLine = false;
      this.closeCell();
      return 0;
    }
    if (this.cell && id < 256 && CELL_ENDS[id] === 1) return BAIL;
    // A form element pointer below the cell would be removed from the table's part of the stack.
    if (kind === End.Form && this.formElement !== null && this.hasInScope($.FORM) && this.indexOf(this.formElement) !== -1 && this.indexOf(this.formElement) <= this.floor) return BAIL;
    if (kind === End.Formatting && !this.adoptionAgencyIsSimple(token)) return BAIL;
    if ((kind === End.P && !this.hasPInButtonScope() && this.depth + 1 > MAX_SIMULATED_DEPTH) || (kind === End.Br && this.reconstructionTooDeep(1))) return BAIL;
    this.skipNextNewLine = false;
    switch (kind) {
      case End.Generic: {
        // The topmost open element with the token's name closes, unless a special element is above it.
        let i = this.depth - 1;
        if (id === $.UNKNOWN) {
          while (i >= 0 && !(this.ids[i] === $.UNKNOWN && this.nodes[i]!.tagName === token.tagName)) i--;
        } else {
          while (i >= 0 && this.ids[i] !== id) i--;
        }
        if (i > this.floor) {
          let special = false;
          for (let j = i + 1; j < this.depth; j++) if (SPECIAL[this.ids[j]!] === 1) special = true;
          if (!special) {
            this.generateImpliedEndTags(id);
            if (this.depth > i) this.shortenTo(i);
          }
        }
        break;
      }
      case End.Formatting:
        this.adoptionAgency(token);
        break;
      case End.Block:
        if (this.hasInScope(id)) {
          this.generateImpliedEndTags(-1);
          this.shortenTo(Math.max(this.indexOfTopmost(id), 0));
        }
        break;
      case End.P:
        if (!this.hasPInButtonScope()) {
          this.push(this.host.createElement('p', [], false), $.P);
        }
        this.closeP();
        break;
      case End.Li:
        if (this.hasInListItemScope($.LI)) {
          this.generateImpliedEndTags($.LI);
          this.shortenTo(Math.max(this.indexOfTopmost($.LI), 0));
        }
        break;
      case End.DdDt:
        if (this.hasInScope(id)) {
          this.generateImpliedEndTags(id);
          this.shortenTo(Math.max(this.indexOfTopmost(id), 0));
        }
        break;
      case End.Header: {
        let top = -1;
        for (let i = this.depth - 1; i > this.floor; i--) {
          if (NUMBERED_HEADER[this.ids[i]!] === 1) {
            top = i;
            break;
          }
        }
        if (top !== -1) {
          this.generateImpliedEndTags(-1);
          let h = this.depth - 1;
          while (h >= 0 && NUMBERED_HEADER[this.ids[h]!] !== 1) h--;
          this.shortenTo(Math.max(h, 0));
        }
        break;
      }
      case End.Br:
        // "An end tag whose tag name is "br"": as a <br> start tag with no attributes.
        this.reconstruct();
        this.host.createElement('br', [], false);
        this.framesetOk = false;
        break;
      case End.Form: {
        const form = this.formElement;
        this.formElement = null;
        if (form !== null && this.hasInScope($.FORM)) {
          this.generateImpliedEndTags(-1);
          const at = this.indexOf(form);
          if (at !== -1) {
            this.nodes.copyWithin(at, at + 1, this.depth);
            this.ids.copyWithin(at, at + 1, this.depth);
            this.depth--;
          }
        }
        break;
      }
      case End.Ignore:
        break;
      default:
        throw new Error(`tree simulator: end tag kind ${kind}`);
    }
    return 0;
  }

  private hasInListItemScope(id: number): boolean {
    for (let i = this.depth - 1; i > this.floor; i--) {
      const at = this.ids[i];
      if (at === id) return true;
      if (at === $.OL || at === $.UL) return false;
    }
    return false;
  }

  /**
   * The adoption agency algorithm for an end tag, in the cases without a furthest block (which moves nodes in
   * the tree): false, with nothing changed, when it would find one.
   * https://html.spec.whatwg.org/multipage/parsing.html#adoption-agency-algorithm
   */
  private adoptionAgencyIsSimple(token: Token.TagToken): boolean {
    const top = this.depth - 1;
    if (this.ids[top] === token.tagID && !this.listed(this.nodes[top]!)) return true;
    const entry = this.formattingEntry(token.tagName);
    if (entry === -1) return true;
    const at = this.indexOf(this.formatting[entry]!.element);
    if (at === -1) return true;
    // (Open below the cell: not in scope. Not expected, since the list holds only entries made above the cell.)
    if (at <= this.floor) return false;
    for (let i = at + 1; i < this.depth; i++) if (SPECIAL[this.ids[i]!] === 1) return false;
    return true;
  }

  private listed(element: SimNode): boolean {
    for (const e of this.formatting) if (e.element === element) return true;
    return false;
  }

  private adoptionAgency(token: Token.TagToken): void {
    const top = this.depth - 1;
    const current = this.nodes[top]!;
    // Step 2: the current node is the element and is not in the list.
    if (this.ids[top] === token.tagID && !this.listed(current)) {
      this.shortenTo(top);
      return;
    }
    const entry = this.formattingEntry(token.tagName);
    if (entry === -1) {
      // "Any other end tag" (step 4.3).
      this.endTagGeneric(token);
      return;
    }
    const at = this.indexOf(this.formatting[entry]!.element);
    // Not open: removed from the list. Open (in scope: no scope boundary but html is on the simulated stack)
    // with no furthest block (adoptionAgencyIsSimple): popped up to it, and removed from the list.
    if (at !== -1) this.shortenTo(at);
    removeAt(this.formatting, entry);
  }

  private endTagGeneric(token: Token.TagToken): void {
    const id = token.tagID;
    let i = this.depth - 1;
    while (i >= 0 && this.ids[i] !== id) i--;
    if (i > this.floor) {
      for (let j = i + 1; j < this.depth; j++) if (SPECIAL[this.ids[j]!] === 1) return;
      this.generateImpliedEndTags(id);
      if (this.depth > i) this.shortenTo(i);
    }
  }

  /**
   * Whether a character or whitespace token would make the reconstruction go deeper than the simulator keeps
   * (checked before either handler runs: they change state before they reconstruct).
   */
  textTooDeep(): boolean {
    return this.mode !== TEXT && this.reconstructionTooDeep(0);
  }

  /** Whether a character token (not whitespace) or a NUL is left to parse5: "in head", it starts the body. */
  textBails(): boolean {
    return this.mode !== TEXT && (this.head || this.table !== 0 || this.reconstructionTooDeep(0));
  }

  /** A character token (not whitespace). */
  character(): number {
    this.skipNextNewLine = false;
    if (this.mode === TEXT) return 0;
    this.reconstruct();
    this.framesetOk = false;
    return 0;
  }

  /** A NUL character token: ignored in both modes. */
  nullCharacter(): number {
    this.skipNextNewLine = false;
    return 0;
  }

  whitespaceCharacter(token: Token.CharacterToken): number {
    if (this.skipNextNewLine) {
      this.skipNextNewLine = false;
      // (A line feed right after <pre>, <listing> or <textarea> is dropped.)
      if (token.chars.charCodeAt(0) === 0x0a) {
        if (token.chars.length === 1) return 0;
        token.chars = token.chars.substr(1);
      }
    }
    if (this.mode === TEXT || this.head) return 0;
    if (this.table !== 0) {
      // "In row" / "in table body", the current node a tr or a table body: "in table text".
      if (this.tableText === null) this.tableText = token;
      return 0;
    }
    this.reconstruct();
    return 0;
  }

  /** A comment or a doctype: nothing on the stack changes (pending table text is inserted first). */
  other(): number {
    this.skipNextNewLine = false;
    this.tableText = null;
    return 0;
  }
}
