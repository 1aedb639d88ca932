/** The lines every command writes the same way: a `--links` record and a warning. */
import { inFlags } from '../cli/io.ts';
import { relOf } from '../base/reference-policy.ts';
import type { HtmlWarning, ReferenceRecord } from '../html/rewriter.ts';

/** One `--links` line. `part`: null for HTML and CSS; "2.1" in a message; "MESSAGE:PATH" in an mbox. */
export function linkLine(document: string, r: ReferenceRecord, part: string | null): string {
  return `${JSON.stringify({ document, part, element: r.element, attribute: r.attribute, ...relOf(r), raw: r.raw, resolved: r.resolved, base: r.base, baseSource: r.baseSource, line: r.line, column: r.column, changed: r.changed })}\n`;
}

/** `absolutize: warning [code] message (document[ part P]:line:column)`. */
export function warningLine(document: string, w: HtmlWarning, part?: string): string {
  const where = w.line !== undefined ? ` (${document}${part === undefined ? '' : ` part ${part}`}:${w.line}:${w.column ?? 0})` : part === undefined ? '' : ` (${document} part ${part})`;
  return `absolutize: warning [${w.code}] ${inFlags(w.message)}${where}\n`;
}
