/**
 * MboxSplitter (src/mime/mbox.ts) on random archives cut into random chunks: every input byte is in exactly one
 * event, in order, and where messages start (the separator lines), the bytes of each message and the warnings are
 * the same however the archive is chunked — whole, or byte by byte.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/limits.ts';
import { MboxSplitter } from '../../src/mime/mbox.ts';
import type { MboxEvent } from '../../src/mime/mbox.ts';

/**
 * What the splitter said, as plain data: each message (its separator line, its bytes) with the warnings given while
 * it was read. A warning's place among the byte events depends on when the splitter can decide (a Content-Length
 * is checked once the bytes where it ends are there), so only the message it belongs to is compared.
 */
function split(chunks: readonly Buffer[]): { all: string; messages: Array<{ separator: string | null; bytes: string; warnings: string[] }> } {
  const s = new MboxSplitter(DEFAULT_LIMITS);
  const events: MboxEvent[] = [];
  for (const c of chunks) events.push(...s.push(c));
  events.push(...s.end());
  let all = '';
  const messages: Array<{ separator: string | null; bytes: string; warnings: string[] }> = [];
  let current: { separator: string | null; bytes: string; warnings: string[] } | null = null;
  for (const e of events) {
    if (e.type === 'separator') {
      all += e.line.toString('latin1');
      current = { separator: e.line.toString('latin1'), bytes: '', warnings: [] };
      messages.push(current);
      continue;
    }
    if (current === null) {
      current = { separator: null, bytes: '', warnings: [] };
      messages.push(current);
    }
    if (e.type === 'bytes') {
      all += e.data.toString('latin1');
      current.bytes += e.data.toString('latin1');
    } else current.warnings.push(e.message);
  }
  return { all, messages };
}

const pieces = ['From a@b.example Mon Jan  1 00:00:00 2024\n', 'From - Tue Feb  2 10:00:00 2010\r\n', 'From x\n', '>From y\n', 'Subject: s\n', 'Content-Length: 4\n', 'Content-Length: 12\r\n', 'Lines: 1\n', '\n', '\r\n', 'body\n', 'From', ' ', 'x', '\r'];
const archive = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((a) => Buffer.from(a.join(''), 'latin1'));

describe('MboxSplitter', () => {
  it('every byte once, in order; the same messages and warnings however the input is chunked (property)', () => {
    fc.assert(
      fc.property(archive, fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }), (input, sizes) => {
        const whole = split([input]);
        expect(whole.all).toBe(input.toString('latin1'));
        const chunks: Buffer[] = [];
        for (let at = 0, k = 0; at < input.length; k++) {
          const n = sizes[k % sizes.length]!;
          chunks.push(input.subarray(at, at + n));
          at += n;
        }
        expect(split(chunks)).toEqual(whole);
        expect(split(Array.from(input, (_b, k) => input.subarray(k, k + 1)))).toEqual(whole);
      }),
      { numRuns: 2000 },
    );
  });

  // Found by the property above (seed -1490514103): byte by byte, the archive's last line "From", cut short, was
  // taken for a From_ line at the end of input (its four bytes matched the first four of "From "), and whole it
  // was the message's bytes. A line that ends the archive before "From " is complete is not a From_ line.
  it.each([
    'From a@b.example Mon Jan  1 00:00:00 2024\nContent-Length: 12\r\n\n>From y\n\r\nFrom',
    'From a@b.example Mon Jan  1 00:00:00 2024\nSubject: s\n\nbody\n\nFrom',
    'From a@b.example Mon Jan  1 00:00:00 2024\nContent-Length: 6\n\nbody\n\nFro',
  ])('an archive that ends in a line cut short of "From ": %j', (text) => {
    const input = Buffer.from(text, 'latin1');
    const whole = split([input]);
    expect(whole.messages).toHaveLength(1);
    expect(whole.messages[0]!.bytes.endsWith('\nFrom') || whole.messages[0]!.bytes.endsWith('\nFro')).toBe(true);
    expect(split(Array.from(input, (_b, k) => input.subarray(k, k + 1)))).toEqual(whole);
  });
});
