/**
 * `absolutize crawl.warc.gz -o out.warc.gz [--links links.jsonl]`: WARC and ARC input (SPEC §5b), detected by
 * `--type warc`, the extension (.warc, .arc, either .gz) or the first bytes. Writes WARC (ARC input too), or with
 * `--links -` and no -o only the report. Progress (records, MB, rate) on a terminal.
 */
import { open, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { AbsError } from '../errors.ts';
import { rewriteWarcStream } from '../warc/rewriter.ts';
import type { WarcOutputModel } from '../warc/rewriter.ts';
import type { Resolver } from '../uri/types.ts';
import { mimeTypeParser } from '../http/content-type.ts';
import { limitWarcHeap } from './heap-growth.ts';
import { commitOutputs, createAtomicFile } from './atomic-file.ts';
import type { AtomicFile, LinkSink } from './atomic-file.ts';
import { EXIT_INPUT, EXIT_OK, EXIT_PARTIAL, report } from './io.ts';
import type { CliIo } from './io.ts';
import { createProgress, progressText } from './progress.ts';
import { WARC_HELP, WARC_OPTIONS } from './usage.ts';
import { isWarcFile, isWarcName } from './detect.ts';

export { WARC_HELP, WARC_OPTIONS, isWarcFile, isWarcName };

export interface WarcCommandValues {
  readonly output?: string | undefined;
  readonly links?: string | undefined;
  readonly base?: string | undefined;
  readonly url?: string | undefined;
  readonly charset?: string | undefined;
  readonly jobs?: string | undefined;
  readonly explain?: boolean | undefined;
  readonly 'exact-base'?: boolean | undefined;
  readonly fragments?: boolean | undefined;
  readonly 'lazy-load'?: boolean | undefined;
  readonly 'http-content-location'?: boolean | undefined;
  readonly 'warc-output'?: string | undefined;
  readonly 'link-keys'?: boolean | undefined;
  readonly 'warc-header-references'?: boolean | undefined;
}

/**
 * A crawl file smaller than this is rewritten in the reading thread: a worker thread costs ~0.2 s of CPU before
 * it rewrites anything (starting, loading the rewriters again, its own JIT warm-up). Whole-process CPU, inline
 * against one worker (`BENCH_WARC_THREADS=0|1 node bench/warc.ts ours FILE`, the bench crawl's first members, 3
 * alternating rounds, a machine loaded by other jobs): 1 MB 0.55 s against 0.77 s, 5 MB 1.00 s against 1.23 s,
 * 15 MB 1.96 s against 2.20 s, and the wall time no longer; the whole 45 MB crawl 4.0–4.1 s against 4.4 s, but on
 * two idle cores its wall time is what the worker is for. That bench runs without the compile cache the command's
 * worker has; the command itself (`/usr/bin/time`, 3 rounds each): 1 MB 0.39–0.41 s against 0.52–0.55 s, 3 MB
 * 0.63–0.74 s against 0.73–0.88 s.
 */
export const INLINE_BELOW_BYTES: number = 4 * 1024 * 1024;

/** The WARC options as given, for each file's run in directory mode. */
export function warcPassOn(values: WarcCommandValues): string[] {
  return [...(values['warc-output'] === undefined ? [] : ['--warc-output', values['warc-output']]), ...(values['link-keys'] === true ? ['--link-keys'] : []), ...(values['warc-header-references'] === true ? ['--warc-header-references'] : [])];
}

export async function warcCommand(input: string, values: WarcCommandValues, resolver: Resolver, io: CliIo): Promise<number> {
  const model = values['warc-output'] ?? 'replace';
  if (model !== 'replace' && model !== 'conversion') throw new AbsError(`--warc-output must be replace or conversion, not ${JSON.stringify(model)}`, 'ABS_ERR_USAGE');
  // A directory's --url reaches every file: for a crawl file it says nothing (each record has its own URL).
  if (values.url !== undefined) report(io, 'warning', 'invalid-base-layer', `--url ${values.url} is not used for ${input}: each WARC record's WARC-Target-URI is its URL`);
  if (values.charset !== undefined) throw new AbsError('--charset does not apply to WARC input: each record\'s HTTP Content-Type charset is used', 'ABS_ERR_USAGE');
  if (values.jobs !== undefined) throw new AbsError('--jobs applies to a directory INPUT only', 'ABS_ERR_USAGE');
  const reportOnly = values.links === '-' && values.output === undefined;
  if ((values.output === undefined || values.output === '-') && !reportOnly && (io.stdout as { isTTY?: boolean }).isTTY === true) {
    throw new AbsError('a WARC is not written to a terminal: give -o FILE, or --links - for the report only', 'ABS_ERR_USAGE');
  }

  let links: LinkSink | null = null;
  let output: AtomicFile | null = null;
  let source: Readable;
  try {
    source = input === '-' ? (io.stdin as Readable) : (await open(input, 'r')).createReadStream({ highWaterMark: 1 << 20 });
  } catch (err) {
    report(io, 'error', 'ABS_ERR_INPUT', `${input}: ${(err as Error).message}`);
    return EXIT_INPUT;
  }
  if (values.links === '-') links = { write: (l) => io.stdout.write(l), close: async () => {}, abort: async () => {} };
  else if (values.links !== undefined) links = linkFile(values.links);
  // `-o -` is standard output, as an INPUT of `-` is standard input.
  const toStdout = values.output === '-';
  if (values.output === '-' && values.links === '-') throw new AbsError('-o - and --links - cannot both be standard output', 'ABS_ERR_USAGE');
  if (!reportOnly && values.output !== undefined && !toStdout) output = createAtomicFile(values.output);
  const sink: NodeJS.WritableStream | null = reportOnly ? null : output !== null ? output.stream : io.stdout;

  const progress = createProgress(io, true);
  // The progress line (progress.ts): bytes read of the file's size, rate, time left, records.
  const total = input === '-' ? null : ((await stat(input).catch(() => null))?.size ?? null);
  // Responses are rewritten on worker threads, one a core beside the one reading the file; a small file in this
  // thread (INLINE_BELOW_BYTES).
  const threads = total !== null && total < INLINE_BELOW_BYTES ? 0 : Math.max(0, availableParallelism() - 1);
  // A crawl is a long run of independent records: bound how far V8 lets the heaps grow, and hold its optimizing
  // compiler back until the rewriting code's types have settled; with threads, once they have loaded
  // (heap-growth.ts). A crawl with nothing to rewrite starts no thread, and runs under V8's defaults.
  // undici's MIME type parser (content-type.ts) is loaded here, before those flags: loaded after them, V8 rejected
  // its three modules' cached code in each thread and compiled them from source, and Node wrote the cache anew,
  // on every run (NODE_DEBUG_NATIVE=COMPILE_CACHE). The worker loads it before it says it has loaded.
  mimeTypeParser();
  if (threads === 0) limitWarcHeap();
  const progressStarted = performance.now();
  /** Why the output is partial (a damaged input), or null. */
  let partial: string | null = null;
  let lastDraw = 0;
  try {
    const summary = await rewriteWarcStream(source, sink, {
      output: model as WarcOutputModel,
      resolver,
      fallback: values.base ?? null,
      exactBase: values['exact-base'],
      absolutizeFragments: values.fragments,
      lazyLoad: values['lazy-load'],
      honourHttpContentLocation: values['http-content-location'],
      linkKeys: values['link-keys'],
      rewriteHeaderReferences: values['warc-header-references'],
      threads,
      onThreadsLoaded: limitWarcHeap,
      document: input,
      filename: values.output === undefined || toStdout ? undefined : basename(values.output),
      // No listener without a report: the rewriter then keeps no reference records (src/warc/record-job.ts).
      onLink: links === null && values.explain !== true ? undefined : (line) => {
        if (values.explain === true && line.kind === 'record') progress.line(`absolutize: ${line.warcType ?? '?'} ${line.targetUri ?? ''}: ${line.action}, ${line.reason}`);
        links?.write(`${JSON.stringify(line)}\n`);
      },
      onWarning: (w) => progress.line(`absolutize: warning [${w.code}] ${w.message} (${input} at offset ${w.offset})`),
      onProgress: (p) => {
        const now = Date.now();
        if (now - lastDraw < 200) return;
        lastDraw = now;
        progress.update(progressText({ bytes: p.bytesIn, total, started: progressStarted, count: { n: p.records, noun: 'records' } }));
      },
    }, sink !== io.stdout);
    progress.done();
    if (summary.partial) {
      partial = `the input is damaged (${summary.truncated ? 'cut short' : 'bytes that are no record'}${summary.gaps > 0 ? `; ${summary.gaps} stretches of bytes kept in metadata records` : ''}): every whole record (${summary.records}) was written, exit status 3 (partial)`;
    }
    if (values.explain === true || summary.records > 1) {
      progress.line(`absolutize: ${input}: ${summary.records} records, ${summary.rewritten} rewritten, ${summary.references} references changed, ${summary.bytesIn} bytes in, ${summary.bytesOut} out, ${summary.warnings} warnings`);
    }
  } catch (err) {
    progress.done();
    await output?.abort();
    await links?.abort();
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'EISDIR') {
      report(io, 'error', 'ABS_ERR_INPUT', `${input}: ${e.message}`);
      return EXIT_INPUT;
    }
    if (err instanceof AbsError) throw new AbsError(`${input}: ${err.message}`, err.code);
    throw err;
  }
  if (!(await commitOutputs(io, output, links))) return EXIT_INPUT;
  if (partial !== null) {
    report(io, 'error', 'ABS_ERR_WARC_PARTIAL', `${input}: ${partial}`);
    return EXIT_PARTIAL;
  }
  return EXIT_OK;
}

/**
 * The link report as a file, put in place when done; gzip-compressed when its name ends in `.gz` (a crawl's
 * report is several times the crawl's size as plain JSON lines).
 */
function linkFile(path: string): LinkSink {
  const file = createAtomicFile(path);
  if (!/\.gz$/i.test(path)) return { write: (l) => file.stream.write(l), close: () => file.commit(), abort: () => file.abort() };
  const gzip = createGzip();
  gzip.pipe(file.stream);
  return {
    write: (l) => gzip.write(l),
    close: async () => {
      gzip.end();
      // Both sides done: every compressed byte has gone into the file, which pipe() has ended.
      await finished(gzip);
      await file.commit();
    },
    abort: async () => {
      gzip.destroy();
      await file.abort();
    },
  };
}

