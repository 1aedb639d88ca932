/**
 * The entries of a URL list (`--input-list FILE`): one URL a line, blank lines and `#` comments skipped. A list
 * is a crawl frontier, written by other programs and often damaged, so no line stops it (issue 20): a line
 * longer than `maxLineBytes`, or one that is not UTF-8 text, is one failed entry with its reason, and reading
 * goes on at the next line. Streamed: at most `maxLineBytes` of one line is held; the rest of a longer line is
 * skipped as it arrives.
 */
import type { Readable } from 'node:stream';
import { BATCH_LIMITS } from '../limits.ts';

/** One entry: a URL to retrieve, or a line that is not one (with the reason). */
export type UrlListEntry =
  | { readonly line: number; readonly url: string }
  | { readonly line: number; readonly code: 'ABS_ERR_LIMIT' | 'ABS_ERR_INPUT'; readonly reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The entries of `source`, in order; `line` counts from 1 over every line of the file. */
export async function* readUrlList(source: Readable | AsyncIterable<Buffer | string>, maxLineBytes: number = BATCH_LIMITS.maxLineBytes): AsyncGenerator<UrlListEntry> {
  let carry: Buffer[] = [];
  let carried = 0;
  /** The line being read is over the limit: its bytes are counted, not kept, until its line feed. */
  let skipping = false;
  let skipped = 0;
  let lineNumber = 0;
  const entry = (bytes: Buffer): UrlListEntry | null => {
    lineNumber++;
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return { line: lineNumber, code: 'ABS_ERR_INPUT', reason: `line ${lineNumber} is not UTF-8 text` };
    }
    text = text.trim();
    if (text === '' || text.startsWith('#')) return null;
    return { line: lineNumber, url: text };
  };
  const tooLong = (): UrlListEntry => {
    lineNumber++;
    const e: UrlListEntry = { line: lineNumber, code: 'ABS_ERR_LIMIT', reason: `line ${lineNumber} is ${skipped} bytes, longer than ${maxLineBytes} (BATCH_LIMITS.maxLineBytes): skipped` };
    skipping = false;
    skipped = 0;
    return e;
  };
  for await (const chunk of source) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a)) {
      const piece = buf.subarray(0, nl);
      buf = buf.subarray(nl + 1);
      if (!skipping && carried + piece.length > maxLineBytes) {
        skipping = true;
        skipped = carried;
        carry = [];
        carried = 0;
      }
      if (skipping) {
        skipped += piece.length;
        yield tooLong();
        continue;
      }
      const bytes = carry.length === 0 ? piece : Buffer.concat([...carry, piece]);
      carry = [];
      carried = 0;
      const e = entry(withoutCr(bytes));
      if (e !== null) yield e;
    }
    if (buf.length === 0) continue;
    if (!skipping && carried + buf.length > maxLineBytes) {
      skipping = true;
      skipped = carried;
      carry = [];
      carried = 0;
    }
    if (skipping) skipped += buf.length;
    else {
      carry.push(Buffer.from(buf)); // a copy: the chunk's memory may be reused by the stream
      carried += buf.length;
    }
  }
  if (skipping) yield tooLong();
  else if (carried > 0) {
    const e = entry(withoutCr(Buffer.concat(carry)));
    if (e !== null) yield e;
  }
}

function withoutCr(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
}
