/**
 * `absolutize batch-report OUTDIR`: the merge step of a sharded batch. Reads every shard's status lines
 * (OUTDIR/.absolutize/status-*.jsonl; a later line for an input — the manifest line as written — replaces an
 * earlier one, so re-runs count once)
 * and the manifests kept there, and says what is done, skipped, failed (by code), the bytes and rate, and what is
 * left — the inputs with no done or skipped line yet, listed — so that a user knows whether to re-submit.
 * Exit 0 when nothing is left; 75 (EX_TEMPFAIL: re-submit) when an input is left that a re-run may do (not run
 * yet, or failed for a transient reason); else 65 (EX_DATAERR) or 74 (EX_IOERR) when what is left failed for a
 * reason a re-run meets again (an input that is missing or unreadable, an output that cannot be written): re-
 * submitting would not help, the input or the output must be fixed.
 *
 * Memory: one record per input of the manifest (the report must know every input's last word).
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AbsError } from '../errors.ts';
import type { CliIo } from '../cli/io.ts';
import { report } from '../cli/io.ts';
import type { StatusLine } from './batch-command.ts';
import { EX_DATAERR, EX_IOERR, EX_OK, EX_TEMPFAIL, EX_USAGE } from './batch-command.ts';
import { wrapHelp } from '../cli/help.ts';
import { inputLines, readLines } from './lines.ts';

/** Inputs left listed by name, at most (the count says how many in all). */
const LISTED = 20;

export const BATCH_REPORT_HELP = `Usage: absolutize batch-report OUTDIR

Reads the status lines every shard of \`absolutize batch MANIFEST -o OUTDIR\` left in OUTDIR/.absolutize and
says what is done, skipped and failed (by code), the bytes and rate, and which inputs are left.

Options:
  -h, --help              this help

Exit status (sysexits): 0 nothing left; 75 inputs left that a re-run may do (not run yet, or failed for a
transient reason: network, storage): re-submit; 65 what is left failed for a reason a re-run meets again
(a missing or unreadable input): fix it first; 74 likewise for an output; 64 usage (no batch status in OUTDIR).

Example:
  absolutize batch-report out/ || echo "re-submit or fix what is listed"
`;

export async function batchReportCommand(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout.write(wrapHelp(BATCH_REPORT_HELP));
    return EX_OK;
  }
  const outDir = argv[0];
  if (outDir === undefined || argv.length > 1 || outDir.startsWith('-')) {
    report(io, 'error', 'ABS_ERR_USAGE', outDir?.startsWith('-') === true ? `unknown option ${outDir} (see absolutize batch-report --help)` : 'usage: absolutize batch-report OUTDIR (see --help)');
    return EX_USAGE;
  }
  const state = join(outDir, '.absolutize');
  let names: string[];
  try {
    names = await readdir(state);
  } catch (err) {
    report(io, 'error', 'ABS_ERR_INPUT', `${outDir}: no batch status here (${(err as Error).message})`);
    return EX_USAGE;
  }
  const statusFiles = names.filter((n) => /^status-\d+-of-\d+\.jsonl$/.test(n));
  // Older files first, so that a later attempt (another sharding, say) has the last word.
  const mtimes = new Map<string, number>();
  for (const n of statusFiles) mtimes.set(n, (await stat(join(state, n))).mtimeMs);
  statusFiles.sort((a, b) => mtimes.get(a)! - mtimes.get(b)! || (a < b ? -1 : 1));
  const last = new Map<string, Map<string, StatusLine>>(); // manifest → input → last line
  for (const n of statusFiles) {
    for await (const line of readLines(createReadStream(join(state, n)), n)) {
      if (line === '') continue;
      let s: StatusLine;
      try {
        s = JSON.parse(line) as StatusLine;
      } catch {
        continue; // a line cut short by a killed run
      }
      let inputs = last.get(s.manifest);
      if (inputs === undefined) last.set(s.manifest, (inputs = new Map()));
      inputs.set(s.input, s);
    }
  }
  let left = 0;
  // Of what is left: what a re-run may do, and what fails again as it is (input, output).
  const again = { retry: 0, input: 0, output: 0 };
  const kindOf = (s: StatusLine | undefined): 'retry' | 'input' | 'output' => (s === undefined || s.kind === undefined || s.kind === null || s.kind === 'transient' ? 'retry' : s.kind);
  for (const [manifest, inputs] of last) {
    const counts = { done: 0, skipped: 0, failed: 0 };
    const codes = new Map<string, number>();
    let bytesIn = 0;
    let bytesOut = 0;
    let ms = 0;
    for (const s of inputs.values()) {
      counts[s.status]++;
      if (s.status === 'failed') codes.set(s.code ?? 'unknown', (codes.get(s.code ?? 'unknown') ?? 0) + 1);
      bytesIn += s.bytesIn;
      bytesOut += s.bytesOut;
      ms += s.ms;
    }
    const out: string[] = [`manifest ${manifest}:`];
    out.push(`  ${counts.done} done, ${counts.skipped} skipped, ${counts.failed} failed${codes.size > 0 ? ` (${[...codes].map(([c, n]) => `${c} ${n}`).join(', ')})` : ''}`);
    out.push(`  ${bytesIn} bytes in, ${bytesOut} bytes out${ms > 0 ? `, ${(bytesIn / 1e6 / (ms / 1000)).toFixed(1)} MB/s per task` : ''}`);
    // What is left: every input of the kept manifest without a done or skipped line (a failed one, or none).
    const leftHere: string[] = [];
    let leftCount = 0;
    const kept = join(state, `manifest-${manifest}.txt`);
    const keptExists = (await stat(kept).catch(() => null)) !== null;
    if (keptExists) {
      for await (const { text } of inputLines(readLines(createReadStream(kept), kept))) {
        const s = inputs.get(text);
        if (s === undefined || s.status === 'failed') {
          leftCount++;
          again[kindOf(s)]++;
          if (leftHere.length < LISTED) leftHere.push(`    ${text}${s === undefined ? ' (not run)' : ` (${s.code})`}`);
        }
      }
    } else {
      for (const s of inputs.values()) {
        if (s.status !== 'failed') continue;
        leftCount++;
        again[kindOf(s)]++;
        if (leftHere.length < LISTED) leftHere.push(`    ${s.input} (${s.code})`);
      }
    }
    out.push(leftCount === 0 ? '  nothing left' : `  ${leftCount} left${keptExists ? '' : ' (of those run: the manifest is not kept)'}:`);
    out.push(...leftHere);
    if (leftCount > leftHere.length) out.push(`    … ${leftCount - leftHere.length} more`);
    io.stdout.write(`${out.join('\n')}\n`);
    left += leftCount;
  }
  if (last.size === 0) throw new AbsError(`${outDir}: no status lines yet`, 'ABS_ERR_INPUT');
  if (left === 0) return EX_OK;
  if (again.retry > 0) return EX_TEMPFAIL;
  io.stdout.write(`what is left fails again as it is: fix the ${again.output > 0 ? 'outputs' : 'inputs'} listed, then re-run\n`);
  return again.output > 0 ? EX_IOERR : EX_DATAERR;
}
