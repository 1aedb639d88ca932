/**
 * The summary line at the end of every batch (directory, several files, URL list, manifest), on standard error
 * after the progress line is erased: `absolutize: 12 rewritten, 3 unchanged, 40 copied, 1 failed, 2 warnings in
 * 1.4 s`. A document is `rewritten` when at least one reference in it changed, `unchanged` when none did.
 */
import type { JobResult } from './job.ts';

export interface Summary {
  rewritten: number;
  unchanged: number;
  copied: number;
  skipped: number;
  failed: number;
  warnings: number;
  /** Jobs done (rewritten, unchanged or copied). */
  done: number;
  bytesIn: number;
  bytesOut: number;
  ms: number;
  /** The failures by kind, for the exit code. */
  input: number;
  output: number;
  transient: number;
}

export function emptySummary(): Summary {
  return { rewritten: 0, unchanged: 0, copied: 0, skipped: 0, failed: 0, warnings: 0, done: 0, bytesIn: 0, bytesOut: 0, ms: 0, input: 0, output: 0, transient: 0 };
}

export function addToSummary(s: Summary, r: Pick<JobResult, 'status' | 'kind' | 'rewritten' | 'warnings' | 'copied' | 'bytesIn' | 'bytesOut'>): void {
  s.warnings += r.warnings;
  if (r.status === 'skipped') s.skipped++;
  else if (r.status === 'failed') {
    s.failed++;
    s[r.kind ?? 'input']++;
  } else {
    s.done++;
    s.bytesIn += r.bytesIn;
    s.bytesOut += r.bytesOut;
    if (r.copied) s.copied++;
    else if (r.rewritten > 0) s.rewritten++;
    else s.unchanged++;
  }
}

export function summaryLine(s: Summary): string {
  const parts = [`${s.rewritten} rewritten`, `${s.unchanged} unchanged`, `${s.copied} copied`];
  if (s.skipped > 0) parts.push(`${s.skipped} skipped`);
  parts.push(`${s.failed} failed`, `${s.warnings} warning${s.warnings === 1 ? '' : 's'}`);
  return `absolutize: ${parts.join(', ')} in ${(s.ms / 1000).toFixed(1)} s\n`;
}
