/**
 * Lines of a stream, one at a time, without reading the whole: what a manifest or a URL list is (one input a
 * line). A line longer than BATCH_LIMITS.maxLineBytes is an error, not a buffer that grows without bound.
 */
import type { Readable } from 'node:stream';
import { AbsError } from '../errors.ts';
import { boundedLines } from '../http/url-list.ts';
import { BATCH_LIMITS } from '../limits.ts';

/** Every line (without its CR LF or LF); the last one even with no line feed after it. A line longer than
 * `maxLineBytes` is an error (a manifest names inputs: a line lost would be an input silently left out). */
export async function* readLines(source: Readable | AsyncIterable<Buffer | string>, what: string, maxLineBytes: number = BATCH_LIMITS.maxLineBytes): AsyncGenerator<string> {
  let lineNumber = 0;
  for await (const l of boundedLines(source, maxLineBytes)) {
    lineNumber++;
    if ('tooLong' in l) throw tooLong(what, lineNumber, maxLineBytes);
    yield l.bytes.toString('utf8');
  }
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
