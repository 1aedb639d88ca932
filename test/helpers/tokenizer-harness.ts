/**
 * The harness shared by the fast tokenizer's tests (src/html/fast-tokenizer.test.ts) and its fuzzer
 * (src/html/fast-tokenizer.fuzz.test.ts): everything the rewriter can read from a tokenizer driver, as lines to
 * compare; an independent count of lines and columns; and the rewriter's output with either tokenizer.
 */
import { IDENTITY_CODEC } from '../../src/html/attribute-value.ts';
import { FastTokenizerDriver } from '../../src/html/fast-tokenizer.ts';
import { HtmlRewriteCore } from '../../src/html/rewriter.ts';
import type { ReferenceRecord } from '../../src/html/rewriter.ts';
import { TokenizerDriver } from '../../src/html/tokenizer-driver.ts';
import type { DriverHandler, TokenizerEngine } from '../../src/html/tokenizer-driver.ts';
import type { Location } from './tokenizer-cases.ts';
import type { Token } from 'parse5';

/** Makes a driver for a handler: the fast one, parse5's, or a patched copy under test. */
export type MakeDriver = (handler: DriverHandler) => TokenizerEngine;

export const FAST: MakeDriver = (h) => new FastTokenizerDriver(h);
export const PARSE5: MakeDriver = (h) => new TokenizerDriver(h);
/** parse5's tokenizer stepping every code point (without the driver's fast runs over plain text). */
export const PARSE5_SLOW: MakeDriver = (h) => new TokenizerDriver(h, { fastRuns: false });

/**
 * Where a location is, as offsets; its lines and columns are checked on their own (lineError): parse5 counts a
 * CRLF twice after a character reference ("&\r\n") or when it waited for input between the two.
 */
function at(l: Location | null | undefined, lines = false): string {
  if (!l) return '-';
  return lines ? `${l.startLine}:${l.startCol}@${l.startOffset}-${l.endLine}:${l.endCol}@${l.endOffset}` : `@${l.startOffset}-${l.endOffset}`;
}

/** What driverEvents writes besides the events themselves. */
export interface EventOptions {
  /** Lines and columns beside offsets (to compare two parse5 runs, which count them the same way). */
  readonly lines?: boolean;
  /** Comment text (the fast tokenizer does not build it). */
  readonly commentData?: boolean;
}

/** Line (from 1) and column (UTF-16 units from 1) of each offset of `input`; CRLF, CR and LF end a line. */
function linesOf(input: string): { line: Int32Array; col: Int32Array } {
  const line = new Int32Array(input.length + 2);
  const col = new Int32Array(input.length + 2);
  let l = 1;
  let start = 0;
  for (let i = 0; i <= input.length + 1; i++) {
    line[i] = l;
    col[i] = i - start + 1;
    const c = input.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && input.charCodeAt(i + 1) !== 0x0a)) {
      l++;
      start = i + 1;
    }
  }
  return { line, col };
}

export interface Located {
  readonly l: Location;
  /** An attribute's end is the character after it; a token's end is after its last character. */
  readonly attribute: boolean;
}

/** The first location whose line or column is wrong, as a sentence; null if none. */
export function lineError(input: string, locations: readonly Located[]): string | null {
  const { line, col } = linesOf(input);
  for (const { l, attribute } of locations) {
    const last = attribute ? l.endOffset : l.endOffset - 1;
    const want = [line[l.startOffset], col[l.startOffset], line[last], col[last]! + (attribute ? 0 : 1)];
    const got = [l.startLine, l.startCol, l.endLine, l.endCol];
    if (want.join() !== got.join()) return `location of ${JSON.stringify(input.slice(l.startOffset, l.endOffset))} at ${l.startOffset}: ${got.join()} want ${want.join()}`;
  }
  return null;
}

/**
 * Everything the rewriter can read from a driver fed `chunks`, as lines: tags (name, id, namespace, attributes
 * with decoded values and locations, self-closing, whether inserted, the stack depth after it), one "text" per run
 * of text, comments and doctypes (extent, doctype fields), EOF; "safe n" after each chunk; "threw …" if it threw.
 * With the locations seen, for lineError.
 */
export function driverEvents(chunks: readonly string[], make: MakeDriver, options: EventOptions = {}): { out: string[]; locations: Located[] } {
  const lines = options.lines === true;
  const out: string[] = [];
  const locations: Located[] = [];
  const keep = (l: Location | null | undefined, attribute = false): string => {
    if (l) locations.push({ l, attribute });
    return at(l, lines);
  };
  let inText = false;
  let driver: TokenizerEngine;
  const tag = (kind: string) => (t: Parameters<DriverHandler['onStartTag']>[0], ns: string, inserted?: boolean): void => {
    inText = false;
    const attrs = t.attrs.map((a) => `${a.prefix === undefined ? '' : `${a.prefix}:`}${a.name}=${JSON.stringify(a.value)}${keep((t.location?.attrs as Record<string, Location> | undefined)?.[a.prefix === undefined ? a.name : `${a.prefix}:${a.name}`], true)}`);
    out.push(`${kind}${ns}:${t.tagName}#${t.tagID} ${keep(t.location)}${t.selfClosing ? ' /' : ''} ${attrs.join(' ')}${inserted === false ? ' ignored' : ''} [${driver.openElementCount()}${driver.inTemplate() ? ' template' : ''}]`);
  };
  const handler: DriverHandler = {
    onStartTag: tag('<'),
    onEndTag: tag('</'),
    onText: () => {
      if (!inText) out.push('text');
      inText = true;
    },
    onComment: (t) => {
      inText = false;
      out.push(`comment ${options.commentData === true ? `${JSON.stringify(t.data)} ` : ''}${keep(t.location)}`);
    },
    onDoctype: (t) => {
      inText = false;
      out.push(`doctype ${JSON.stringify([t.name, t.publicId, t.systemId, t.forceQuirks])} ${keep(t.location)}`);
    },
    onEof: () => out.push('eof'),
  };
  driver = make(handler);
  try {
    for (const chunk of chunks) {
      driver.write(chunk, false);
      out.push(`safe ${driver.safeOffset()}`);
    }
    driver.write('', true);
  } catch (e) {
    out.push(`threw ${String(e)}`);
  }
  return { out, locations };
}

/** The events to compare: without safe offsets (each driver says "complete before here" at its own points), runs of text as one. */
export function comparable(lines: readonly string[]): string[] {
  return lines.filter((l) => !l.startsWith('safe ')).filter((l, i, all) => l !== 'text' || all[i - 1] !== 'text');
}

/** Whether each safe offset held: it never goes back, and lies at or before the start of every token after it. */
export function safeOffsetError(lines: readonly string[]): string | null {
  let safe = 0;
  for (const line of lines) {
    if (line.startsWith('safe ')) {
      const now = Number(line.slice(5));
      if (now < safe) return `safe offset went back from ${safe} to ${now}`;
      safe = now;
    } else {
      const m = /@(\d+)-/.exec(line);
      if (m !== null && Number(m[1]) < safe) return `safe ${safe} after the start of ${line}`;
    }
  }
  return null;
}

/**
 * The first difference between `make`'s driver fed `chunks` and parse5's fed the whole input (parse5's line
 * numbers can depend on where chunks end), then a wrong line or column, then a wrong safe offset; null if none.
 */
export function eventDifference(chunks: readonly string[], make: MakeDriver = FAST): string | null {
  const whole = chunks.join('');
  const run = driverEvents(chunks, make);
  const fast = comparable(run.out);
  const reference = comparable(driverEvents([whole], PARSE5).out);
  for (let i = 0; i < Math.max(fast.length, reference.length); i++) {
    if (fast[i] !== reference[i]) {
      const slow = comparable(driverEvents([whole], PARSE5_SLOW).out);
      const note = slow[i] === reference[i] ? '' : ` (parse5 without fast runs: ${slow[i]})`;
      return `event ${i}: fast ${fast[i]} | parse5 ${reference[i]}${note}`;
    }
  }
  return lineError(whole, run.locations) ?? safeOffsetError(run.out);
}

export interface Rewritten {
  readonly out: string;
  readonly refs: ReferenceRecord[];
  readonly warnings: string[];
}

/** The rewriter's output, link report and warnings with the given tokenizer; a throw is a warning line. */
export function rewriteWith(chunks: readonly string[], tokenizer: 'parse5' | 'fast'): Rewritten {
  let out = '';
  const refs: ReferenceRecord[] = [];
  const warnings: string[] = [];
  const core = new HtmlRewriteCore(
    { retrieval: { url: 'https://example.com/a/b/page.html' }, onReference: (r) => refs.push(r), onWarning: (w) => warnings.push(`${w.code} ${w.line ?? ''}:${w.column ?? ''}`) },
    IDENTITY_CODEC,
    (raw) => {
      out += raw;
    },
    { tokenizer },
  );
  try {
    for (const c of chunks) core.write(c);
    core.end();
  } catch (e) {
    warnings.push(`threw ${String(e)}`);
  }
  return { out, refs, warnings };
}

/**
 * A handler that keeps the start tag tokens named (as the tree builder keeps a formatting element's) in `kept`
 * and ignores every other event.
 */
export function keepingStartTags(names: readonly string[], kept: Token.TagToken[]): DriverHandler {
  return {
    onStartTag: (t) => {
      if (names.includes(t.tagName)) kept.push(t);
    },
    onEndTag() {},
    onText() {},
    onComment() {},
    onDoctype() {},
    onEof() {},
  };
}
