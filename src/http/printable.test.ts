/** Server-supplied text is shown, not obeyed: controls, escape sequences and bidi overrides become escapes. */
import { describe, expect, it } from 'vitest';
import { escapeControls, escapeLines, jsonLine } from './printable.ts';

// Everything a terminal or a bidi-aware viewer would act on, and nothing else.
const ACTIVE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('escapeControls', () => {
  it.each([
    ['\x1b[31mRED\x1b[0m', '\\x1b[31mRED\\x1b[0m'],
    ['\x1b]0;title\x07', '\\x1b]0;title\\x07'],
    ['\x9b31m', '\\x9b31m'], // 8-bit CSI
    ['a\r\nb\tc\x00', 'a\\x0d\\x0ab\\x09c\\x00'],
    ['\x7f\x85', '\\x7f\\x85'],
    ['abc\u202egnp.exe', 'abc\\u{202e}gnp.exe'],
    ['\u2066x\u2069\u200f\u061c', '\\u{2066}x\\u{2069}\\u{200f}\\u{61c}'],
    ['line\u2028sep', 'line\\u{2028}sep'],
    ['Not Found', 'Not Found'],
    ['café 日本 ß 😀', 'café 日本 ß 😀'],
  ])('%j → %j', (input, expected) => {
    expect(escapeControls(input)).toBe(expected);
    expect(ACTIVE.test(escapeControls(input))).toBe(false);
  });

  it('is idempotent', () => {
    const once = escapeControls('\x1b[2J\u202e');
    expect(escapeControls(once)).toBe(once);
  });

  it('escapeLines keeps our own line breaks and nothing else', () => {
    expect(escapeLines('a\x1b\nb\r\n')).toBe('a\\x1b\nb\\x0d\n');
  });
});

describe('jsonLine', () => {
  it('parses to the same value, and shows no active character', () => {
    const value = { message: 'HTTP 404 \x1b[31m\x9b\u202e\u2028 é', n: [1, '\x85'] };
    const line = jsonLine(value);
    expect(JSON.parse(line)).toEqual(value);
    expect(ACTIVE.test(line)).toBe(false);
    expect(line).toContain('\\u009b');
    expect(line).toContain('\\u202e');
    expect(line).toContain('é');
  });
});
