/**
 * Server-supplied text (a status reason phrase, a `Location`, a `Content-Type`, an error body) made safe to
 * print: a terminal obeys escape sequences (ESC `[31m`, OSC `]0;title BEL`, the 8-bit CSI U+009B) and
 * bidirectional overrides reorder what is shown (CVE-2021-42574, "Trojan Source"). Such characters are shown
 * as escapes instead: `\x1b`, `\x9b`, `\u{202e}`; every other character (é, 日本) is kept.
 */

/**
 * C0 controls and DEL, C1 controls, the Unicode line and paragraph separators, and the bidirectional
 * formatting characters (Unicode Standard Annex #9 §2: ALM, LRM, RLM, LRE…RLO, LRI…PDI).
 */
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The character as a visible escape: `\xNN` up to U+00FF, `\u{NNNN}` above. */
function visible(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** `text` with every control, separator and bidi character shown as an escape: one line, printed as read. */
export function escapeControls(text: string): string {
  return text.replace(UNPRINTABLE, visible);
}

/** Lines of our own (joined with `\n`) whose content may come from a server: each line escaped. */
export function escapeLines(text: string): string {
  return text.split('\n').map(escapeControls).join('\n');
}

/**
 * One line of JSON. `JSON.stringify` escapes C0 controls but not DEL, C1 or bidi characters; those are
 * written as `\uNNNN` escapes too, so the line shows as it is in a terminal and parses to the same value.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
