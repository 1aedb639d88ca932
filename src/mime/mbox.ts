/**
 * Splitting an mbox archive (RFC 4155; mboxo, mboxrd, mboxcl2) into messages, as a pure core: bytes in, events
 * out — a separator line, or bytes of the current message — every input byte in exactly one of them.
 *
 * A line that begins with "From " starts a message when
 *   1. it is the first line of the archive, or the line before it is empty (the classic rule: mboxo, mboxrd,
 *      and what MimeKit and GMime read), or
 *   2. it looks like a From_ line: a sender, then a ctime-like date (mutt's `is_from`), whatever precedes it, or
 *   3. the line after it is a header field (`Name:`), as after Netscape's "From - " lines, which carry no date;
 * but inside the body a message's own `Content-Length` (mboxcl2) spans, no line starts a message, provided the
 * length lands exactly on a line that begins with "From " (after at most one line ending) or on the end of the
 * archive. If it does not, the length is ignored (`mbox-content-length`) and the lines inside it are read by the
 * rules above. `>From ` lines are message text and stay as they are.
 */
import type { Limits } from '../limits.ts';

export type MboxEvent = { readonly type: 'separator'; readonly line: Buffer } | { readonly type: 'bytes'; readonly data: Buffer } | { readonly type: 'warning'; readonly message: string };

const FROM = Buffer.from('From ');
const LF_FROM = Buffer.from('\nFrom ');
const DAYS = new Set(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
const MONTHS = new Set(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']);

/**
 * Whether a line (without its line ending) is a From_ line as mutt's `is_from` (mutt/from.c) accepts it:
 * "From ", an optional return path (quoted parts may hold spaces; pipermail's "me at host" too), a weekday, a
 * month, a day, a time (hh:mm or hh:mm:ss), up to two time zone words, a year.
 */
export function isFromLine(line: string): boolean {
  if (!line.startsWith('From ')) return false;
  const words: string[] = [];
  let i = 5;
  const skipWs = (): void => {
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  };
  skipWs();
  if (i >= line.length) return false;
  if (!isDay(line.slice(i))) {
    // The return path: up to unquoted whitespace.
    let quoted = false;
    for (; i < line.length && (quoted || (line[i] !== ' ' && line[i] !== '\t')); i++) {
      if (line[i] === '\\') i++;
      else if (line[i] === '"') quoted = !quoted;
    }
    if (quoted || i >= line.length) return false;
    if (line.slice(i, i + 4).toLowerCase() === ' at ') {
      i += 4;
      skipWs();
      while (i < line.length && line[i] !== ' ' && line[i] !== '\t') i++;
    }
    skipWs();
    if (i >= line.length || !isDay(line.slice(i))) return false;
  }
  for (const w of line.slice(i).split(/[ \t]+/)) if (w !== '') words.push(w);
  // words: weekday, month, day, time, [zone], [zone], year
  if (words.length < 5 || !MONTHS.has(words[1]!.slice(0, 3).toLowerCase())) return false;
  if (!/^\d/.test(words[2]!)) return false;
  if (!/^\d+:\d+(?::\d+)?/.test(words[3]!)) return false;
  let k = 4;
  if (/^[A-Za-z+-]/.test(words[k] ?? '')) {
    k++;
    if (/^[A-Za-z]/.test(words[k] ?? '')) k++;
  }
  return /^\d+/.test(words[k] ?? '');
}

function isDay(s: string): boolean {
  return DAYS.has(s.slice(0, 3).toLowerCase()) && (s.length === 3 || /[ \t]/.test(s[3]!));
}

/** A header field line: a name of printable characters but colon, then a colon (RFC 5322 §2.2). */
function isFieldLine(data: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = data[i]!;
    if (c === 0x3a) return i > start;
    if (c < 0x21 || c > 0x7e) return false;
  }
  return false;
}

export class MboxSplitter {
  private readonly limits: Limits;
  /** Undecided input: a "From " line waiting for its next line, or bytes held until a Content-Length's end. */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  /** Whether any byte has been read (the first line of the archive is special). */
  private started = false;
  /** The last bytes handed on, to tell whether the line before the next one was empty (the archive starts as after one). */
  private tail: Buffer = Buffer.from('\n\n\n');
  /** `tail` as it was when the data being read began (what precedes data[0]). */
  private tailBefore: Buffer = this.tail;
  // The current message: its size so far, whether its header block is still being read, and where its body ends
  // by its Content-Length (a message offset), once known.
  private offset = 0;
  private inHeader = false;
  private headerBytes = 0;
  private contentLength: number | null = null;
  private bodyEnd: number | null = null;
  private events: MboxEvent[] = [];
  /** Bytes the carry must hold before reading on (a Content-Length's end). */
  private needBytes = 0;
  /** A Content-Length ended here: the "From " line at this position starts the next message. */
  private landed = false;
  /** The message bytes [pendingFrom, pendingTo) of pendingData, not yet an event (`emit`). */
  private pendingData: Buffer | null = null;
  private pendingFrom = 0;
  private pendingTo = 0;

  constructor(limits: Limits) {
    this.limits = limits;
  }

  push(chunk: Buffer): MboxEvent[] {
    this.carry.push(chunk);
    this.carryBytes += chunk.length;
    // Held for a Content-Length's end: nothing to decide until that much is here.
    if (this.carryBytes < this.needBytes) return [];
    this.needBytes = 0;
    return this.run(false);
  }

  end(): MboxEvent[] {
    return this.run(true);
  }

  private run(isEnd: boolean): MboxEvent[] {
    this.events = [];
    const data = this.carry.length === 1 ? this.carry[0]! : Buffer.concat(this.carry);
    this.carry = [];
    this.carryBytes = 0;
    this.tailBefore = this.tail;
    let i = 0;
    while (i < data.length) {
      const next = this.step(data, i, isEnd);
      if (next === -1) {
        this.carry = [data.subarray(i)];
        this.carryBytes = data.length - i;
        break;
      }
      i = next;
    }
    this.flushBytes();
    const events = this.events;
    this.events = [];
    return events;
  }

  /**
   * Hands on message bytes [from, to). Ranges that follow each other in `data` (the lines of a header block) are
   * one event, made when something else comes or the data ends (`flushBytes`): no buffer per line.
   */
  private emit(data: Buffer, from: number, to: number): void {
    if (to <= from) return;
    if (this.pendingTo === from && this.pendingData === data) this.pendingTo = to;
    else {
      this.flushBytes();
      this.pendingData = data;
      this.pendingFrom = from;
      this.pendingTo = to;
    }
    this.offset += to - from;
    this.started = true;
  }

  /** The bytes range waiting in `emit` made an event, and the tail kept from it. */
  private flushBytes(): void {
    const data = this.pendingData;
    if (data === null) return;
    this.pendingData = null;
    const bytes = data.subarray(this.pendingFrom, this.pendingTo);
    this.events.push({ type: 'bytes', data: bytes });
    this.keepTail(bytes);
  }

  private keepTail(bytes: Buffer): void {
    this.tail = bytes.length >= 3 ? bytes.subarray(bytes.length - 3) : Buffer.concat([this.tail, bytes]).subarray(-3);
  }

  /** The line before position `i` (a line start) was empty. */
  private previousLineEmpty(data: Buffer, i: number): boolean {
    const at = (k: number): number | undefined => (k >= 0 ? data[k] : this.tailBefore[this.tailBefore.length + k]);
    if (at(i - 1) !== 0x0a) return false;
    const b = at(i - 2);
    if (b === 0x0a) return true;
    return b === 0x0d && at(i - 3) === 0x0a;
  }

  /** Reads on from `i`; returns the next position, or -1 to wait for more input (the rest is carried). */
  private step(data: Buffer, i: number, isEnd: boolean): number {
    const atLineStart = i === 0 ? !this.started || this.tailBefore[this.tailBefore.length - 1] === 0x0a : data[i - 1] === 0x0a;
    if (atLineStart && this.landed && this.startsWithFrom(data, i)) {
      const lf = data.indexOf(0x0a, i);
      if (lf === -1 && !isEnd) return -1;
      return this.separator(data, i, lf === -1 ? data.length : lf + 1);
    }
    if (atLineStart && this.startsWithFrom(data, i)) {
      const verdict = this.fromLineVerdict(data, i, isEnd);
      if (verdict === 'more') return -1;
      if (verdict !== null) return this.separator(data, i, verdict);
    }
    if (this.inHeader) return this.headerLine(data, i, isEnd);
    // The body: up to the next line that begins with "From ", or to the Content-Length end if that comes first.
    const found = data.indexOf(LF_FROM, i);
    let stop = found === -1 ? data.length : found + 1;
    if (this.bodyEnd !== null) {
      const landing = i + (this.bodyEnd - this.offset);
      if (landing <= stop) return this.atBodyEnd(data, i, landing, isEnd);
    }
    if (found === -1 && !isEnd) {
      // Keep a last partial line that may be "From" (or a line ending before it) for the next chunk.
      const lf = data.lastIndexOf(0x0a);
      if (lf >= i && data.length - lf - 1 < FROM.length) stop = lf + 1;
    }
    this.emit(data, i, stop);
    return stop === i ? -1 : stop;
  }

  private startsWithFrom(data: Buffer, i: number): boolean {
    // Five reads, not Buffer#compare: called at every line of every header, its argument checks allocated ~3.5 MB
    // over the mbox bench.
    const n = Math.min(FROM.length, data.length - i);
    for (let k = 0; k < n; k++) if (data[i + k] !== FROM[k]) return false;
    return true;
  }

  /**
   * Whether the "From " line at `i` starts a message: null (it does not), 'more' (cannot tell yet), or the end
   * of the line (it does).
   */
  private fromLineVerdict(data: Buffer, i: number, isEnd: boolean): number | null | 'more' {
    const lf = data.indexOf(0x0a, i);
    if (lf === -1 && !isEnd) return data.length - i > this.limits.maxMimeLineBytes ? null : 'more';
    const lineEnd = lf === -1 ? data.length : lf + 1;
    const nextLf = lf === -1 ? -1 : data.indexOf(0x0a, lineEnd);
    let nextEnd = nextLf === -1 ? (isEnd ? data.length : -1) : nextLf;
    if (nextEnd === -1 && data.length - i > this.limits.maxMimeLineBytes) nextEnd = lineEnd;
    const rule = this.byRules(data, i, lineEnd, nextEnd);
    if (rule === 'more') return 'more';
    if (!rule) return null;
    if (this.bodyEnd === null || this.inHeader) return lineEnd;
    // Inside the body a Content-Length spans: the length decides, if it lands on a "From " line.
    const landing = i + (this.bodyEnd - this.offset);
    const need = landing + 2 + FROM.length;
    if (need > data.length && !isEnd) {
      if (need - i > this.limits.maxMboxContentLengthBytes) return this.ignoreLength(lineEnd, 'the Content-Length spans more than maxMboxContentLengthBytes past a From_ line');
      this.needBytes = need - i;
      return 'more';
    }
    if (this.landsAt(data, landing)) return null;
    return this.ignoreLength(lineEnd, `the Content-Length (${this.contentLength}) does not end at a From_ line`);
  }

  /** The rules 1-3 of the module comment for the "From " line [i, lineEnd), the next line ending at nextEnd (-1: not yet read). */
  private byRules(data: Buffer, i: number, lineEnd: number, nextEnd: number): boolean | 'more' {
    if (!this.started && i === 0) return true;
    if (this.previousLineEmpty(data, i)) return true;
    let end = lineEnd;
    while (end > i && (data[end - 1] === 0x0a || data[end - 1] === 0x0d)) end--;
    if (isFromLine(data.toString('latin1', i, end))) return true;
    if (nextEnd === -1) return 'more';
    return nextEnd > lineEnd && isFieldLine(data, lineEnd, nextEnd);
  }

  /** Whether a "From " line begins at `k` (after at most one line ending), or the archive ends there. */
  private landsAt(data: Buffer, k: number): boolean {
    if (data[k] === 0x0d && data[k + 1] === 0x0a) k += 2;
    else if (data[k] === 0x0a) k += 1;
    return k >= data.length || this.startsWithFrom(data, k);
  }

  /** A separator line [i, lineEnd): the message before ends, the next one begins. */
  private separator(data: Buffer, i: number, lineEnd: number): number {
    this.landed = false;
    this.flushBytes();
    this.events.push({ type: 'separator', line: data.subarray(i, lineEnd) });
    this.keepTail(data.subarray(i, lineEnd));
    this.started = true;
    this.offset = 0;
    this.inHeader = true;
    this.headerBytes = 0;
    this.contentLength = null;
    this.bodyEnd = null;
    return lineEnd;
  }

  /** One line of the message's header block: a Content-Length is noted; the empty line ends the block. */
  private headerLine(data: Buffer, i: number, isEnd: boolean): number {
    const lf = data.indexOf(0x0a, i);
    if (lf === -1 && !isEnd) {
      if (data.length - i + this.headerBytes > this.limits.maxMimeHeaderBytes) this.inHeader = false;
      return this.inHeader ? -1 : i;
    }
    const end = lf === -1 ? data.length : lf + 1;
    const empty = data[i] === 0x0a || (data[i] === 0x0d && data[i + 1] === 0x0a);
    if (!empty && end - i > 15 && (data[i]! | 0x20) === 0x63 && data.toString('latin1', i, i + 15).toLowerCase() === 'content-length:') {
      const m = /^[ \t]*(\d{1,15})[ \t]*\r?\n?$/.exec(data.toString('latin1', i + 15, end));
      if (m !== null) this.contentLength = Number(m[1]);
    }
    this.emit(data, i, end);
    this.headerBytes += end - i;
    if (empty || this.headerBytes > this.limits.maxMimeHeaderBytes) {
      this.inHeader = false;
      if (empty && this.contentLength !== null) this.bodyEnd = this.offset + this.contentLength;
    }
    return end;
  }

  /**
   * The Content-Length end is at `landing` (in `data`), before any line that begins with "From ": if a "From "
   * line begins there (after at most one line ending) or the archive ends there, the body up to it is the
   * message's and that line starts the next one; if not, the length is ignored.
   */
  private atBodyEnd(data: Buffer, i: number, landing: number, isEnd: boolean): number {
    if (landing + 2 + FROM.length > data.length && !isEnd) {
      if (landing - i > this.limits.maxMboxContentLengthBytes) return this.ignoreLength(i, 'the Content-Length spans more than maxMboxContentLengthBytes');
      this.needBytes = landing + 2 + FROM.length - i;
      return -1;
    }
    if (!this.landsAt(data, landing)) return this.ignoreLength(i, `the Content-Length (${this.contentLength}) does not end at a From_ line`);
    let k = landing;
    if (data[k] === 0x0d && data[k + 1] === 0x0a) k += 2;
    else if (data[k] === 0x0a) k += 1;
    this.emit(data, i, k);
    this.bodyEnd = null;
    // The "From " line at k starts the next message, whatever it looks like.
    this.landed = true;
    return k;
  }

  private ignoreLength<T>(result: T, why: string): T {
    this.flushBytes();
    this.events.push({ type: 'warning', message: `${why}: it is ignored, and the message ends at the next From_ line` });
    this.bodyEnd = null;
    return result;
  }
}
