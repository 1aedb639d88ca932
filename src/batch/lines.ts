/**
 * Lines of a stream, one at a time, without reading the whole: what a manifest or a URL list is (one input a
 * line). A line longer than BATCH_LIMITS.maxLineBytes is an error, not a buffer that grows without bound.
 */
import type { Readable } from 'node:stream';
import { AbsError } from '../errors.ts';
import { BATCH_LIMITS } from '../limits.ts';

/** Every line (without its CR LF or LF); the last one even with no line feed after it. */
export async function* readLines(source: Readable | AsyncIterable<Buffer | string>, what: string, maxLineBytes: number = BATCH_LIMITS.maxLineBytes): AsyncGenerator<string> {
  let carry: Buffer[] = [];
  let carried = 0;
  let lineNumber = 0;
  const take = (end: Buffer): string => {
    const bytes = carry.length === 0 ? end : Buffer.concat([...carry, end]);
    carry = [];
    carried = 0;
    lineNumber++;
    const text = bytes.toString('utf8');
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of source) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a)) {
      if (carried + nl > maxLineBytes) throw tooLong(what, lineNumber + 1, maxLineBytes);
      yield take(buf.subarray(0, nl));
      buf = buf.subarray(nl + 1);
    }
    if (buf.length > 0) {
      carried += buf.length;
      if (carried > maxLineBytes) throw tooLong(what, lineNumber + 1, maxLineBytes);
      carry.push(Buffer.from(buf)); // a copy: the chunk's memory may be reused by the stream
    }
  }
  if (carried > 0) yield take(Buffer.alloc(0));
}

function tooLong(what: string, line: number, limit: number): AbsError {
  return new AbsError(`${what}: line ${line} is longer than ${limit} bytes (BATCH_LIMITS.maxLineBytes)`, 'ABS_ERR_LIMIT');
}

/** The inputs of a list: lines that are not blank and do not start with `#`, trimmed, numbered from 0. */
export async function* inputLines(lines: AsyncIterable<string>): AsyncGenerator<{ readonly index: number; readonly text: string }> {
  let index = 0;
  for await (const line of lines) {
    const text = line.trim();
    if (text === '' || text.startsWith('#')) continue;
    yield { index: index++, text };
  }
}
