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

/**
 * The lines of `source` as bytes, without their LF or CR LF; the last one even with no line feed after it. At
 * most `maxLineBytes` of one line is held: a longer line is counted as it arrives, not kept, and comes out as
 * `{ tooLong: N }` (its length) at its line feed. The one line reader of the project: URL lists here, manifests
 * and status files in src/batch/lines.ts.
 */
export async function* boundedLines(source: Readable | AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<{ readonly bytes: Buffer } | { readonly tooLong: number }> {
  let carry: Buffer[] = [];
  let carried = 0;
  /** The line being read is over the limit: its bytes are counted, not kept, until its line feed. */
  let skipping = false;
  let skipped = 0;
  const overflow = (more: number): void => {
    if (skipping || carried + more <= maxLineBytes) return;
    skipping = true;
    skipped = carried;
    carry = [];
    carried = 0;
  };
  for await (const chunk of source) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a)) {
      const piece = buf.subarray(0, nl);
      buf = buf.subarray(nl + 1);
      overflow(piece.length);
      if (skipping) {
        yield { tooLong: skipped + piece.length };
        skipping = false;
        skipped = 0;
        continue;
      }
      const bytes = carry.length === 0 ? piece : Buffer.concat([...carry, piece]);
      carry = [];
      carried = 0;
      yield { bytes: withoutCr(bytes) };
    }
    if (buf.length === 0) continue;
    overflow(buf.length);
    if (skipping) skipped += buf.length;
    else {
      carry.push(Buffer.from(buf)); // a copy: the chunk's memory may be reused by the stream
      carried += buf.length;
    }
  }
  if (skipping) yield { tooLong: skipped };
  else if (carried > 0) yield { bytes: withoutCr(Buffer.concat(carry)) };
}

/** The entries of `source`, in order; `line` counts from 1 over every line of the file. */
export async function* readUrlList(source: Readable | AsyncIterable<Buffer | string>, maxLineBytes: number = BATCH_LIMITS.maxLineBytes): AsyncGenerator<UrlListEntry> {
  let lineNumber = 0;
  for await (const l of boundedLines(source, maxLineBytes)) {
    lineNumber++;
    if ('tooLong' in l) {
      yield { line: lineNumber, code: 'ABS_ERR_LIMIT', reason: `line ${lineNumber} is ${l.tooLong} bytes, longer than ${maxLineBytes} (BATCH_LIMITS.maxLineBytes): skipped` };
      continue;
    }
    let text: string;
    try {
      text = utf8.decode(l.bytes);
    } catch {
      yield { line: lineNumber, code: 'ABS_ERR_INPUT', reason: `line ${lineNumber} is not UTF-8 text` };
      continue;
    }
    text = text.trim();
    if (text === '' || text.startsWith('#')) continue;
    yield { line: lineNumber, url: text };
  }
}

function withoutCr(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
}
