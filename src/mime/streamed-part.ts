/**
 * A rewritten part too large to hold (over `maxMimePartBytes`), in bounded pieces: its transfer encoding is
 * decoded hard line by hard line as the bytes come (quoted-printable; 7bit, 8bit and binary need none), the
 * decoded bytes stream through the HTML or CSS rewriter, and its output is encoded back as it comes, copying
 * every original line whose text did not change (as `encodeBody` does for a held part). Memory: the lines the
 * rewriter has not yet answered for (its base lookahead, `maxBaseLookaheadBytes`) and one line of output.
 */
import libqp from 'libqp';
import type { Transform } from 'node:stream';
import { quotedPrintableHardLineEnds } from './transfer-encoding.ts';
import type { TransferEncoding } from './transfer-encoding.ts';

/** One hard line of the original: its encoded text and what it decodes to. */
interface Line {
  readonly encoded: string;
  readonly decoded: Buffer;
}

export class StreamedPart {
  /** Output ready to be written, in order. */
  readonly output: Buffer[] = [];
  private readonly encoding: TransferEncoding;
  private readonly rewriter: Transform;
  private readonly done: Promise<void>;
  /** Encoded bytes after the last whole hard line (quoted-printable). */
  private partial = '';
  /** Original lines not yet matched with output. */
  private readonly lines: Line[] = [];
  private lineHead = 0;
  /** Rewritten bytes not yet encoded. */
  private pending: Buffer = Buffer.alloc(0);
  private eol: '\r\n' | '\n' | '\r' | null = null;
  private finalEol = false;
  private lastOutputEndsWithEol = false;

  constructor(rewriter: Transform, encoding: TransferEncoding) {
    this.rewriter = rewriter;
    this.encoding = encoding;
    rewriter.on('data', (c: Buffer) => this.onOutput(c, false));
    this.done = new Promise<void>((resolve, reject) => {
      rewriter.on('end', resolve);
      rewriter.on('error', reject);
    });
  }

  /** Encoded body bytes of the part. */
  write(data: Buffer): void {
    if (data.length === 0) return;
    const last = data[data.length - 1];
    this.finalEol = last === 0x0a || last === 0x0d;
    if (this.encoding !== 'quoted-printable') {
      this.rewriter.write(data);
      return;
    }
    const text = this.partial + data.toString('latin1');
    if (this.eol === null) this.eol = eolOf(text);
    const cut = lastHardLineEnd(text);
    this.partial = text.slice(cut);
    if (cut > 0) this.decodeLines(text.slice(0, cut));
  }

  /** Whether the rewriter wants its buffer drained before more is written. */
  get needsDrain(): boolean {
    return this.rewriter.writableNeedDrain;
  }

  waitDrain(): Promise<void> {
    return new Promise((resolve) => this.rewriter.once('drain', resolve));
  }

  /** The part's body has ended: the rest is decoded, rewritten and encoded. */
  async end(): Promise<void> {
    if (this.encoding === 'quoted-printable' && this.partial !== '') this.decodeLines(this.partial);
    this.partial = '';
    this.rewriter.end();
    await this.done;
    this.onOutput(Buffer.alloc(0), true);
  }

  private decodeLines(text: string): void {
    const pieces: Buffer[] = [];
    let start = 0;
    for (const end of quotedPrintableHardLineEnds(text)) {
      const encoded = text.slice(start, end);
      const decoded = libqp.decode(encoded);
      this.lines.push({ encoded, decoded });
      pieces.push(decoded);
      start = end;
    }
    this.rewriter.write(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
  }

  /** Rewritten bytes: encoded back (line by line for quoted-printable), or as they are. */
  private onOutput(chunk: Buffer, final: boolean): void {
    if (this.encoding !== 'quoted-printable') {
      if (chunk.length > 0) this.output.push(chunk);
      return;
    }
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const eolByte = this.eol === '\r' ? 0x0d : 0x0a;
    let at = 0;
    const out: string[] = [];
    while (this.lineHead < this.lines.length) {
      const line = this.lines[this.lineHead]!;
      const before = line.decoded;
      if (this.pending.length - at >= before.length && this.pending.compare(before, 0, before.length, at, at + before.length) === 0) {
        out.push(line.encoded);
        at += before.length;
        this.lineHead++;
        continue;
      }
      if (!final && this.pending.length - at < before.length && before.compare(this.pending, at, this.pending.length, 0, this.pending.length - at) === 0) break;
      // A changed line: the next line of the output is encoded afresh in its place.
      const lf = this.pending.indexOf(eolByte, at);
      if (lf === -1 && !final) break;
      const end = lf === -1 ? this.pending.length : lf + 1;
      out.push(encodeLine(this.pending.subarray(at, end), this.eol ?? '\r\n'));
      at = end;
      this.lineHead++;
    }
    if (final && at < this.pending.length) {
      out.push(encodeLine(this.pending.subarray(at), this.eol ?? '\r\n'));
      at = this.pending.length;
    }
    this.pending = this.pending.subarray(at);
    if (this.lineHead > 1024 && this.lineHead * 2 > this.lines.length) {
      this.lines.splice(0, this.lineHead);
      this.lineHead = 0;
    }
    let text = out.join('');
    if (text.length > 0) this.lastOutputEndsWithEol = text.endsWith('\n') || text.endsWith('\r');
    // A body that ended with a line ending ends with one again: after "=" (a soft line break) if the text has none.
    if (final && this.finalEol && !this.lastOutputEndsWithEol) text += `=${this.eol ?? '\r\n'}`;
    if (text.length > 0) this.output.push(Buffer.from(text, 'latin1'));
  }
}

/** The first line ending (as `lineStyle` finds it for a held part); a CR at the very end waits for what follows. */
function eolOf(text: string): '\r\n' | '\n' | '\r' | null {
  const m = /\r\n|\n|\r/.exec(text);
  if (m === null || (m[0] === '\r' && m.index === text.length - 1)) return null;
  return m[0] as '\r\n' | '\n' | '\r';
}

/** The end of the last whole hard line in `text` (0: none); a CR at the very end waits for its LF. */
function lastHardLineEnd(text: string): number {
  let limit = text.length;
  if (text.charCodeAt(limit - 1) === 0x0d) limit--;
  const ends = quotedPrintableHardLineEnds(text.slice(0, limit), false);
  return ends[ends.length - 1] ?? 0;
}

/** One hard line, encoded and wrapped at 76 with the original's line ending (none with bare CR). */
function encodeLine(line: Buffer, eol: '\r\n' | '\n' | '\r'): string {
  if (eol === '\r') return libqp.encode(line).replace(/\r?\n/g, '\r');
  return libqp.wrap(libqp.encode(line), 76).replaceAll('=\r\n', `=${eol}`);
}
