/**
 * The differential test's machinery: Python's `email` as the oracle (scripts/mime-oracle.py, one process per
 * batch), our MIME rewriter fed whole, byte by byte and in seeded random chunks under a watchdog, and the four
 * checks of issue 10 — (a) no base: output = input; (b) the HTML/CSS leaves Python finds are the parts we rewrite;
 * (c) with a base: every header and every non-HTML/CSS part (and preamble, epilogue) decodes, in Python, to what it
 * was; (d) every probe link of every HTML/CSS part is absolute against the base Python's view of the
 * Content-Base / Content-Location chain gives — plus `stream` (every chunking gives the same output), `crash`,
 * `hang`, and `warn` (an injected defect, or a structural defect Python records, gives a warning).
 *
 * The expected base is computed here, independently of src/base: a part's Content-Base, else its
 * Content-Location (the value as Python decodes it: RFC 2047 words, raw UTF-8), comments at either end and ASCII
 * whitespace removed (never U+00A0), resolved with the WHATWG URL parser against the enclosing entity's base;
 * `cid:`/`mid:` values are labels, not bases (RFC 2557 §8.3); Chromium's Snapshot-Content-Location on the top
 * entity stands for its Content-Location; the bottom layer is the retrieval URL.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { browserResolver } from '../../../src/uri/index.ts';
import type { Resolver } from '../../../src/uri/index.ts';
import { createMimeRewriter } from '../../../src/mime/stream.ts';
import type { MimePartInfo, MimeRewriteOptions } from '../../../src/mime/rewriter.ts';
import { kindOfContentType } from '../../../src/kinds/index.ts';
import { randomChunks, seededRandom } from '../../helpers/chunks.ts';
import { FAMILY, ofFamily } from './mutator.ts';

export const ORACLE = fileURLToPath(new URL('../../../scripts/mime-oracle.py', import.meta.url));
/** `$PYTHON`, or the interpreter `python3` names (resolved once: a pyenv shim costs ~0.4 s a call). */
export const PYTHON: string = process.env['PYTHON'] ?? execFileSync('python3', ['-c', 'import sys; print(sys.executable)']).toString().trim();
/** The retrieval URL of the "with a base" run (SPEC §2 layer 4). */
export const RETRIEVAL = 'http://retrieval.example/mail/archive/msg.eml';
/** A run that takes longer than this has hung (generous: the machine is shared; no run here needs a second). */
export const WATCHDOG_MS = Number(process.env['MIME_DIFF_WATCHDOG_MS'] ?? 30_000);

export interface OracleEntity {
  readonly path: string;
  readonly type: string;
  readonly parent: number | null;
  readonly headers: Array<[string, string]>;
  readonly defects: string[];
  readonly 'content-base'?: string | { error: string };
  readonly 'content-location'?: string | { error: string };
  readonly 'snapshot-content-location'?: string | { error: string };
  readonly container?: 'multipart' | 'message';
  readonly preamble?: string | null;
  readonly epilogue?: string | null;
  readonly kind?: 'html' | 'css' | 'other';
  readonly sha256?: string;
  readonly text?: string;
  readonly charset?: string | null;
}

export interface OracleResult {
  readonly entities?: OracleEntity[];
  readonly error?: string;
  readonly file: string;
}

/**
 * Python's view of each message: policy default, or compat32 where `compat32[i]` (deliberate.ts says where and
 * why); one process per policy for the whole batch.
 */
export function runOracle(messages: readonly Buffer[], compat32: readonly boolean[] = []): OracleResult[] {
  const results: OracleResult[] = new Array<OracleResult>(messages.length);
  for (const policy of [false, true]) {
    const indices = messages.map((_m, i) => i).filter((i) => (compat32[i] ?? false) === policy);
    runOracleBatch(indices.map((i) => messages[i]!), policy).forEach((r, k) => (results[indices[k]!] = r));
  }
  return results;
}

function runOracleBatch(messages: readonly Buffer[], compat32: boolean): OracleResult[] {
  if (messages.length === 0) return [];
  const dir = mkdtempSync(join(tmpdir(), 'mime-diff-'));
  try {
    const paths = messages.map((m, i) => {
      const p = join(dir, `${i}.eml`);
      writeFileSync(p, m);
      return p;
    });
    writeFileSync(join(dir, 'list.txt'), paths.join('\n') + '\n');
    const out = execFileSync(PYTHON, [ORACLE, ...(compat32 ? ['--compat32'] : []), '--list', join(dir, 'list.txt')], { maxBuffer: 1 << 30 }).toString('utf8');
    const results = out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as OracleResult);
    if (results.length !== messages.length) throw new Error(`oracle: ${results.length} results for ${messages.length} messages`);
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const isKind = (e: OracleEntity): boolean => e.kind === 'html' || e.kind === 'css';

/** A Content-Base / Content-Location value as a URL string to resolve, or null when it is no base. */
export function headerBaseValue(value: OracleEntity['content-location']): string | null {
  if (value === undefined || typeof value !== 'string') return null;
  let v = value.replace(/[\r\n]/g, '');
  // RFC 2557 §4.1: [CFWS] URI [CFWS] — comments at either end.
  for (;;) {
    const before = v;
    v = v.replace(/^[\t ]*\((?:[^()\\]|\\.)*\)/, '').replace(/[\t ]+\((?:[^()\\]|\\.)*\)[\t ]*$/, '');
    if (v === before) break;
  }
  v = v.replace(/[\t\n\f\r ]+/g, ''); // ASCII whitespace only (RFC 2557 §4.4.2 folding); U+00A0 stays
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
  if (v === '' || /^(?:cid|mid):/i.test(v)) return null;
  return v;
}

function resolve(value: string, base: string | null): string | null {
  try {
    const url = base === null ? new URL(value) : new URL(value, base);
    return url.href;
  } catch {
    return null;
  }
}

/** The base of every entity, as Python's view of the header chain gives it, above `retrieval`. */
export function expectedBases(entities: readonly OracleEntity[], retrieval: string | null): Array<string | null> {
  const bases: Array<string | null> = [];
  entities.forEach((e, i) => {
    const below = e.parent === null ? retrieval : bases[e.parent]!;
    let own: string | null = null;
    const location = e['content-location'] ?? (i === 0 ? e['snapshot-content-location'] : undefined);
    for (const raw of [e['content-base'], location]) {
      const v = headerBaseValue(raw);
      if (v === null) continue;
      own = resolve(v, below);
      if (own !== null) break;
    }
    bases.push(own ?? below);
  });
  return bases;
}

/**
 * Probe values in a decoded HTML/CSS text (latin-1 string of its bytes), in order. In HTML: `href`/`src`
 * attributes, and `url()` only inside a `style` attribute or a `<style>` element (elsewhere it is text); in CSS:
 * every `url()`.
 */
export function probes(text: string, kind: 'html' | 'css'): string[] {
  const out: Array<[number, string]> = [];
  const urls = (s: string, offset: number): void => {
    for (const m of s.matchAll(/url\(\s*["']?([^"')\s]*)/gi)) if (/probe[/-]\d+/.test(m[1]!)) out.push([offset + m.index, m[1]!]);
  };
  if (kind === 'css') urls(text, 0);
  else {
    for (const m of text.matchAll(/\b(?:href|src)\s*=\s*"([^"]*)"/gi)) if (/probe[/-]\d+/.test(m[1]!)) out.push([m.index, m[1]!]);
    for (const m of text.matchAll(/\bstyle\s*=\s*"([^"]*)"|<style\b[^>]*>([^]*?)<\/style/gi)) urls(m[1] ?? m[2]!, m.index);
  }
  return out.sort((x, y) => x[0] - y[0]).map((x) => x[1]);
}

/** A resolver that accepts no base: with it nothing relative can be resolved, so nothing may change. */
export const NO_BASE_RESOLVER: Resolver = {
  name: browserResolver.name,
  resolve: (reference, base, options) => browserResolver.resolve(reference, base, options),
  isValidBase: () => false,
};

export interface Run {
  output: Buffer;
  parts: MimePartInfo[];
  warnings: Array<{ code: string; part: string }>;
  references: Array<{ part: string; raw: string; resolved: string | null; base: string | null; baseSource: string; changed: boolean }>;
}

/** Makes the stream under test (the harness's own test plants faults with it). */
export type RewriterFactory = (options: MimeRewriteOptions) => Transform;

/** One run of the streaming rewriter over `chunks`, under the watchdog. */
export async function runOurs(chunks: readonly Buffer[], options: MimeRewriteOptions, factory: RewriterFactory = createMimeRewriter, watchdogMs = WATCHDOG_MS): Promise<Run> {
  const run: Run = { output: Buffer.alloc(0), parts: [], warnings: [], references: [] };
  const stream = factory({
    ...options,
    onPart: (p) => run.parts.push(p),
    onWarning: (w, part) => run.warnings.push({ code: w.code, part }),
    onReference: (r, part) => run.references.push({ part, raw: r.raw, resolved: r.resolved, base: r.base, baseSource: r.baseSource, changed: r.changed }),
  });
  const work = (async (): Promise<Buffer> => {
    const out: Buffer[] = [];
    for await (const c of Readable.from(chunks, { objectMode: false }).pipe(stream)) out.push(c as Buffer);
    return Buffer.concat(out);
  })();
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HangError(`no end after ${watchdogMs} ms`)), watchdogMs);
  });
  try {
    run.output = await Promise.race([work, watchdog]);
  } finally {
    clearTimeout(timer);
    stream.destroy();
  }
  return run;
}

export class HangError extends Error {}

export type CheckName = 'a' | 'b' | 'c' | 'd' | 'stream' | 'warn' | 'crash' | 'hang' | 'oracle';
export const CHECKS: readonly CheckName[] = ['a', 'b', 'c', 'd', 'stream', 'warn', 'crash', 'hang', 'oracle'];

export interface Failure {
  readonly check: CheckName;
  readonly detail: string;
}

/** Python defects that are structure (or an HTML/CSS part's body), and the warning family each must produce. */
const DEFECT_FAMILY: Readonly<Record<string, readonly string[]>> = {
  MissingHeaderBodySeparatorDefect: FAMILY.separator,
  CloseBoundaryNotFoundDefect: FAMILY.close,
  StartBoundaryNotFoundDefect: FAMILY.boundary,
  NoBoundaryInMultipartDefect: FAMILY.boundary,
  FirstHeaderLineIsContinuationDefect: FAMILY.header,
};
/** Body defects: a warning only where we decode the body (HTML and CSS parts). */
const BODY_DEFECT_FAMILY: Readonly<Record<string, readonly string[]>> = {
  InvalidBase64PaddingDefect: FAMILY.decode,
  InvalidBase64CharactersDefect: FAMILY.decode,
  InvalidBase64LengthDefect: FAMILY.decode,
};

export interface CaseInput {
  readonly id: string;
  readonly input: Buffer;
  readonly warn: readonly string[] | null;
}

export interface Deliberate {
  /** Which case ids (regex) and checks it covers. */
  readonly ids: RegExp;
  readonly checks: readonly CheckName[];
  /** The warning (code contains one of the words) that must accompany the difference; [] when nothing is wrong with the input. */
  readonly withWarning: readonly string[];
  readonly why: string;
}

export interface Compat32 {
  readonly ids: RegExp;
  /** The warning (code contains one of the words) that must be given. */
  readonly withWarning: readonly string[];
  readonly why: string;
}

export interface CaseOutcome {
  readonly id: string;
  readonly failures: Failure[];
  readonly excused: Failure[];
}

export interface CheckOptions {
  /** Random chunkings per run. */
  readonly randomRuns: number;
  /** Feed one byte at a time when the input is at most this long. */
  readonly bytewiseMax: number;
  readonly seed: number;
  readonly deliberate: readonly Deliberate[];
  /** Cases read with Python's compat32 policy instead of default (deliberate.ts, COMPAT32). */
  readonly compat32?: readonly Compat32[];
  /** The stream under test. @default createMimeRewriter */
  readonly factory?: RewriterFactory;
  /** @default WATCHDOG_MS */
  readonly watchdogMs?: number;
}

const KINDS = new Set(['text/html', 'application/xhtml+xml', 'text/css']);

/** Runs every check on every case: two oracle batches (inputs, then our outputs), our runs in between. */
export async function checkCases(cases: readonly CaseInput[], opts: CheckOptions): Promise<CaseOutcome[]> {
  const compat = cases.map((c) => opts.compat32?.find((x) => x.ids.test(c.id)));
  const before = runOracle(cases.map((c) => c.input), compat.map((x) => x !== undefined));
  const random = seededRandom(opts.seed);
  const states: Array<{ failures: Failure[]; based: Buffer | null; warnings: string[] }> = [];
  for (const [i, c] of cases.entries()) {
    const failures: Failure[] = [];
    const py = before[i]!;
    const warnings: string[] = [];
    let based: Buffer | null = null;
    let basedRun: Run | null = null;
    const guard = async (what: string, chunks: readonly Buffer[], options: MimeRewriteOptions): Promise<Run | null> => {
      try {
        const r = await runOurs(chunks, options, opts.factory, opts.watchdogMs);
        warnings.push(...r.warnings.map((w) => w.code));
        return r;
      } catch (err) {
        failures.push({ check: err instanceof HangError ? 'hang' : 'crash', detail: `${what}: ${(err as Error).message.slice(0, 200)}` });
        return null;
      }
    };
    const chunkings = (input: Buffer): Array<[string, Buffer[]]> => {
      const out: Array<[string, Buffer[]]> = [];
      if (input.length <= opts.bytewiseMax) out.push(['byte by byte', Array.from(input, (_b, k) => input.subarray(k, k + 1))]);
      for (let k = 0; k < opts.randomRuns; k++) {
        // Small chunks for small messages; a 1 MB MHTML page in 64-byte chunks would only cost time.
        const scale = input.length <= 1 << 16 ? 64 : 4096;
        const max = 1 + Math.floor(random() * (k % 2 === 0 ? scale : scale * 64));
        out.push([`random chunks (max ${max})`, randomChunks(input, random, max)]);
      }
      return out;
    };
    if (py.entities === undefined) {
      failures.push({ check: 'oracle', detail: py.error ?? 'no result' });
      states.push({ failures, based, warnings });
      continue;
    }
    const entities = py.entities;
    // (a) no base: byte for byte. If Python sees a header base on an HTML/CSS leaf, "no base" needs a resolver
    // that accepts none (a message with Content-Location has a base of its own).
    const headerBased = expectedBases(entities, null).some((b, k) => b !== null && isKind(entities[k]!));
    const aOptions: MimeRewriteOptions = headerBased ? { resolver: NO_BASE_RESOLVER } : {};
    const aWhole = await guard('no base, whole', [c.input], aOptions);
    if (aWhole !== null && !aWhole.output.equals(c.input)) failures.push({ check: 'a', detail: `${headerBased ? '(no-base resolver) ' : ''}${firstDifference(c.input, aWhole.output)}` });
    // With a base (the retrieval URL): whole, then every chunking must give the same bytes.
    const options: MimeRewriteOptions = { retrieval: { url: RETRIEVAL } };
    basedRun = await guard('with base, whole', [c.input], options);
    if (basedRun !== null) {
      based = basedRun.output;
      for (const [how, chunks] of chunkings(c.input)) {
        const r = await guard(`with base, ${how}`, chunks, options);
        if (r !== null && !r.output.equals(based)) {
          failures.push({ check: 'stream', detail: `${how}: ${firstDifference(based, r.output)}` });
          break;
        }
        // The same warnings, with the same codes, for the same parts, however the input is cut.
        const codes = (x: Run): string => x.warnings.map((w) => `${w.code}@${w.part}`).sort().join(' ');
        if (r !== null && codes(r) !== codes(basedRun)) {
          failures.push({ check: 'stream', detail: `${how}: warnings ${codes(r) || 'none'}, whole: ${codes(basedRun) || 'none'}` });
          break;
        }
      }
    }
    if (aWhole !== null) {
      const r = await guard('no base, random chunks', randomChunks(c.input, random, 1 + Math.floor(random() * 300)), aOptions);
      if (r !== null && !r.output.equals(aWhole.output)) failures.push({ check: 'stream', detail: `no base, random chunks: ${firstDifference(aWhole.output, r.output)}` });
    }
    // (b) the HTML/CSS leaves Python finds are the parts we rewrite.
    if (basedRun !== null) {
      const pyPaths = new Set(entities.filter(isKind).map((e) => e.path));
      const ours = new Set([...basedRun.parts.filter((p) => KINDS.has(p.contentType)).map((p) => p.path), ...basedRun.references.map((r) => r.part)]);
      const missing = [...pyPaths].filter((p) => !ours.has(p));
      // Parts of the kinds beyond HTML and CSS (SVG, feeds, scripts: src/kinds) are ours to rewrite too.
      const otherKinds = new Set(basedRun.parts.filter((p) => !KINDS.has(p.contentType) && kindOfContentType(p.contentType) !== null).map((p) => p.path));
      const extra = [...ours].filter((p) => !pyPaths.has(p) && !otherKinds.has(p));
      if (missing.length > 0 || extra.length > 0) failures.push({ check: 'b', detail: `${missing.length > 0 ? `not rewritten: ${missing.join(' ')}` : ''}${missing.length > 0 && extra.length > 0 ? '; ' : ''}${extra.length > 0 ? `rewritten but not HTML/CSS to Python: ${extra.join(' ')}` : ''}` });
      // (d, from our references) every reference's base is the one Python's header chain gives.
      const bases = expectedBases(entities, RETRIEVAL);
      const byPath = new Map(entities.map((e, k) => [e.path, k] as const).filter(([, k]) => isKind(entities[k]!)));
      const wrongBase = new Set<string>();
      for (const r of basedRun.references) {
        const k = byPath.get(r.part);
        if (k === undefined || r.baseSource === 'embedded') continue;
        if (r.base !== bases[k]) wrongBase.add(`${r.part}: base ${r.base} (${r.baseSource}), Python's chain gives ${bases[k]}`);
      }
      if (wrongBase.size > 0) failures.push({ check: 'd', detail: [...wrongBase].slice(0, 3).join('; ') });
    }
    states.push({ failures, based, warnings });
  }
  // (c) and (d): Python reads our output with a base.
  const outputs = states.map((s, k) => s.based ?? cases[k]!.input);
  const after = runOracle(outputs, compat.map((x) => x !== undefined));
  return cases.map((c, i) => {
    const { failures, warnings, based } = states[i]!;
    const py = before[i]!;
    if (py.entities !== undefined && based !== null) {
      const pyAfter = after[i]!;
      if (pyAfter.entities === undefined) failures.push({ check: 'c', detail: `Python cannot read our output: ${pyAfter.error}` });
      else {
        failures.push(...compareParsed(py.entities, pyAfter.entities));
      }
    }
    // warn: the injected defect, and every structural defect Python records, give a warning of its family.
    if (py.entities !== undefined) {
      const families: Array<[string, readonly string[]]> = [];
      if (c.warn !== null) families.push(['injected', c.warn]);
      if (compat[i] !== undefined) families.push(['read as compat32 reads', compat[i].withWarning]);
      // Not inside message/delivery-status: Python reads its status fields as header blocks, we read it as a leaf.
      const inStatus = (e: OracleEntity): boolean => e.parent !== null && (py.entities![e.parent]!.type === 'message/delivery-status' || inStatus(py.entities![e.parent]!));
      for (const e of py.entities) {
        if (inStatus(e)) continue;
        for (const d of e.defects) {
          const family = DEFECT_FAMILY[d] ?? (isKind(e) ? BODY_DEFECT_FAMILY[d] : undefined);
          if (family !== undefined) families.push([`${d} at ${e.path}`, family]);
        }
      }
      const unmet = families.filter(([, words]) => !warnings.some((w) => ofFamily(w, words)));
      if (unmet.length > 0) failures.push({ check: 'warn', detail: `no warning for ${[...new Set(unmet.map(([what]) => what))].join(', ')} (got: ${[...new Set(warnings)].join(' ') || 'none'})` });
    }
    // Deliberate differences: excused when the case and check match and the warning was given.
    const excused: Failure[] = [];
    const kept = failures.filter((f) => {
      const d = opts.deliberate.find((x) => x.ids.test(c.id) && x.checks.includes(f.check) && (x.withWarning.length === 0 || warnings.some((w) => ofFamily(w, x.withWarning))));
      if (d !== undefined) excused.push(f);
      return d === undefined;
    });
    return { id: c.id, failures: kept, excused };
  });
}

/** (c) headers, non-HTML/CSS payloads, preambles and epilogues unchanged; (d) probes absolute against the right base. */
function compareParsed(before: readonly OracleEntity[], after: readonly OracleEntity[]): Failure[] {
  const failures: Failure[] = [];
  const shape = (es: readonly OracleEntity[]): string => es.map((e) => `${e.path}=${e.type}`).join(' ');
  if (shape(before) !== shape(after)) {
    failures.push({ check: 'c', detail: `structure changed: ${shape(before).slice(0, 300)} → ${shape(after).slice(0, 300)}` });
    return failures;
  }
  const cDiffs: string[] = [];
  const dDiffs: string[] = [];
  const bases = expectedBases(before, RETRIEVAL);
  before.forEach((b, k) => {
    const a = after[k]!;
    if (JSON.stringify(b.headers) !== JSON.stringify(a.headers)) cDiffs.push(`${b.path} headers`);
    if (b.container === 'multipart' && (b.preamble !== a.preamble || b.epilogue !== a.epilogue)) cDiffs.push(`${b.path} ${b.preamble !== a.preamble ? 'preamble' : 'epilogue'}`);
    if (b.kind === 'other' && (b.sha256 !== a.sha256 || b.kind !== a.kind)) cDiffs.push(`${b.path} ${b.type} payload`);
    if (isKind(b)) {
      const base = bases[k]!;
      const want = probes(b.text!, b.kind as 'html' | 'css').map((v) => (base === null ? v : (resolve(v, base) ?? v)));
      const got = probes(a.text ?? '', b.kind as 'html' | 'css');
      if (JSON.stringify(want) !== JSON.stringify(got)) {
        const at = Array.from({ length: Math.max(want.length, got.length) }, (_, j) => j).find((j) => want[j] !== got[j])!;
        dDiffs.push(`${b.path}: probe ${at + 1} of ${want.length} (Python's view of the input) is ${JSON.stringify(got[at] ?? null)}, want ${JSON.stringify(want[at] ?? null)}`);
      }
    }
  });
  if (cDiffs.length > 0) failures.push({ check: 'c', detail: `changed: ${cDiffs.slice(0, 5).join(', ')}${cDiffs.length > 5 ? ` (+${cDiffs.length - 5})` : ''}` });
  if (dDiffs.length > 0) failures.push({ check: 'd', detail: dDiffs.slice(0, 3).join('; ') });
  return failures;
}

export function firstDifference(want: Buffer, got: Buffer): string {
  let i = 0;
  while (i < want.length && i < got.length && want[i] === got[i]) i++;
  const show = (b: Buffer): string => JSON.stringify(b.subarray(Math.max(0, i - 20), i + 30).toString('latin1'));
  return `${got.length - want.length >= 0 ? '+' : ''}${got.length - want.length} bytes, first difference at ${i}: want ${show(want)}, got ${show(got)}`;
}

/** The compact summary: for each mutation class, how many cases fail each check. */
export function summarize(groups: ReadonlyMap<string, readonly CaseOutcome[]>): string {
  const lines: string[] = [];
  const head = ['class', 'cases', ...CHECKS, 'excused'];
  const rows: string[][] = [];
  for (const [group, outcomes] of groups) {
    const count = (check: CheckName): string => {
      const n = outcomes.filter((o) => o.failures.some((f) => f.check === check)).length;
      return n === 0 ? '.' : String(n);
    };
    const excused = outcomes.filter((o) => o.excused.length > 0).length;
    rows.push([group, String(outcomes.length), ...CHECKS.map(count), excused === 0 ? '.' : String(excused)]);
  }
  const widths = head.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k]!.length)));
  const fmt = (r: readonly string[]): string => r.map((x, k) => (k === 0 ? x.padEnd(widths[k]!) : x.padStart(widths[k]!))).join('  ');
  lines.push(fmt(head));
  for (const r of rows) lines.push(fmt(r));
  return lines.join('\n');
}

/** The failures of some outcomes, one line each (capped). */
export function describeFailures(outcomes: readonly CaseOutcome[], max = 12): string {
  const lines = outcomes.flatMap((o) => o.failures.map((f) => `${o.id} [${f.check}] ${f.detail}`));
  return lines.slice(0, max).join('\n') + (lines.length > max ? `\n… and ${lines.length - max} more` : '');
}

/**
 * One test per group (mutation class, corpus folder), each failing with its cases' failures; the summary table
 * is printed once all have run.
 */
export function describeGroups(title: string, noun: string, groups: readonly string[], done: Promise<unknown>, outcomes: ReadonlyMap<string, readonly CaseOutcome[]>): void {
  describe(title, () => {
    it.each(groups)('%s', async (group) => {
      await done;
      const mine = outcomes.get(group)!;
      expect(mine.length).toBeGreaterThan(0);
      const failed = mine.filter((o) => o.failures.length > 0);
      expect(failed.length, `${failed.length}/${mine.length} ${noun} fail:\n${describeFailures(failed)}`).toBe(0);
    });

    afterAll(() => {
      process.stdout.write(`\n${title}: failing ${noun} per check (a b c d = issue 10's four checks)\n${summarize(outcomes)}\n`);
    });
  });
}
