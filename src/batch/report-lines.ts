/** The lines every command writes the same way: a `--links` record and a warning. */
import { inFlags } from '../cli/io.ts';
import { relOf } from '../base/reference-policy.ts';
import type { HtmlWarning, ReferenceRecord } from '../html/rewriter.ts';

/** One `--links` line. `part`: null for HTML and CSS; "2.1" in a message; "MESSAGE:PATH" in an mbox. */
export function linkLine(document: string, r: ReferenceRecord, part: string | null): string {
  return `${JSON.stringify({ document, part, element: r.element, attribute: r.attribute, ...relOf(r), raw: r.raw, resolved: r.resolved, base: r.base, baseSource: r.baseSource, line: r.line, column: r.column, changed: r.changed })}\n`;
}

/** A warning and where it was found: one line of `--warnings FILE` (null where a field does not apply). */
export interface WarningRecord {
  readonly document: string | null;
  readonly part: string | null;
  readonly code: string;
  readonly message: string;
  readonly line: number | null;
  readonly column: number | null;
}

export function warningRecord(document: string, w: HtmlWarning, part?: string): WarningRecord {
  return { document, part: part ?? null, code: w.code, message: inFlags(w.message), line: w.line ?? null, column: w.line === undefined ? null : (w.column ?? 0) };
}

/** `absolutize: warning [code] message (document[ part P]:line:column)`. */
export function formatWarning(r: WarningRecord): string {
  const part = r.part === null ? '' : ` part ${r.part}`;
  const where = r.document === null ? '' : r.line !== null ? ` (${r.document}${part}:${r.line}:${r.column ?? 0})` : r.part === null ? '' : ` (${r.document}${part})`;
  return `absolutize: warning [${r.code}] ${r.message}${where}\n`;
}

export function warningLine(document: string, w: HtmlWarning, part?: string): string {
  return formatWarning(warningRecord(document, w, part));
}

/**
 * A job's reports go to a scratch file that the main thread appends to standard error in input order; a warning
 * is written there as this mark and its record as JSON, so that the run's reporter gets it whole.
 */
export const WARNING_RECORD_MARK = '\x1e';
