/**
 * Differential test of the MIME layer against Python's `email` (issue 10, "Done when"): every malformation of
 * the mutator (test/mime/differential/mutator.ts), each message checked four ways — (a) no base: output = input;
 * (b) Python's text/html, application/xhtml+xml and text/css leaves are exactly the parts we rewrite; (c) with a
 * base, every header and every other part decodes (Python) to what it was; (d) every probe link comes out
 * absolute against the base Python's view of the Content-Base / Content-Location chain gives — fed whole, byte by
 * byte and in seeded random chunks, under a watchdog, and with a warning for every injected defect.
 * Harness: test/mime/differential/harness.ts; oracle: scripts/mime-oracle.py; allowed differences: deliberate.ts.
 *
 *   npm exec -- vitest run test/mime/differential   (part of npm test)
 *   MIME_DIFF_SWEEP=1 …    a bigger sweep: more random chunkings and several mutator seeds (minutes)
 *   CHUNK_SEED=n …         reproduce a chunking
 *   MIME_DIFF_DUMP=dir …   also write every generated message to dir/<class>__<variant>.eml, to read by hand
 *                          (python3 scripts/mime-oracle.py dir/….eml shows Python's view)
 *
 * The summary table (one row per mutation class, failing cases per check) is printed at the end.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHUNK_SEED } from '../../helpers/chunks.ts';
import { COMPAT32, DELIBERATE } from './deliberate.ts';
import { checkCases, describeGroups } from './harness.ts';
import type { CaseOutcome } from './harness.ts';
import { generateCases } from './mutator.ts';

const SWEEP = process.env['MIME_DIFF_SWEEP'] === '1';
const SEEDS = SWEEP ? [1, 2, 3, 4, 5] : [1];

const cases = SEEDS.flatMap((seed) => generateCases(seed).map((c) => ({ ...c, id: SEEDS.length > 1 ? `${c.id}@${seed}` : c.id })));
// A variant that does not depend on the seed comes out the same for every seed: check it once.
const unique = [...new Map(cases.map((c) => [c.input.toString('latin1'), c])).values()];
const mutations = [...new Set(unique.map((c) => c.mutation))];
const dump = process.env['MIME_DIFF_DUMP'];
if (dump !== undefined) {
  mkdirSync(dump, { recursive: true });
  for (const c of unique) writeFileSync(join(dump, `${c.id.replace(/[/@]/g, '__')}.eml`), c.input);
}
const outcomes = new Map<string, CaseOutcome[]>();

const results = checkCases(unique, { randomRuns: SWEEP ? 12 : 2, bytewiseMax: SWEEP ? 1 << 16 : 4096, seed: CHUNK_SEED, deliberate: DELIBERATE, compat32: COMPAT32 }).then((all) => {
  const byId = new Map(all.map((o) => [o.id, o]));
  for (const c of unique) {
    const list = outcomes.get(c.mutation) ?? [];
    list.push(byId.get(c.id)!);
    outcomes.set(c.mutation, list);
  }
  return all;
});

describeGroups(`MIME differential, mutations (${unique.length} messages, CHUNK_SEED=${CHUNK_SEED})`, 'cases', mutations, results, outcomes);
