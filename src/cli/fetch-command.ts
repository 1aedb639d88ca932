/**
 * `absolutize URL... [-o FILE|DIR]` and `absolutize --input-list FILE -o DIR`: retrieve over HTTP(S), follow
 * redirects, and rewrite each document with its final URL as the base (SPEC §6, issue 5). Called by the main
 * command when its inputs are URLs. One clear line per failed URL; the others are still processed; exit 1 if
 * any failed.
 */
import { createReadStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { Transform, Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BaseDecision } from '../base/base.ts';
import { relOf } from '../base/reference-policy.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import { AbsError, FetchError, LimitExceededError } from '../errors.ts';
import type { RedirectHop } from '../errors.ts';
import type { HtmlWarning } from '../html/rewriter.ts';
import { redactUrl } from '../http/credentials.ts';
import { createFetchAgent, fetchDocument, httpStatusError } from '../http/fetch.ts';
import type { FetchedDocument } from '../http/fetch.ts';
import { outputFileName } from '../http/output-name.ts';
import { escapeLines, jsonLine } from '../http/printable.ts';
import { createResponseRewriter } from '../http/response-rewriter.ts';
import { readUrlList } from '../http/url-list.ts';
import { rewriteHeaderReferences } from '../http/header-references.ts';
import type { HeaderReferenceRecord } from '../http/header-references.ts';
import type { UrlListEntry } from '../http/url-list.ts';
import type { FailureKind, FileJob, JobResult } from '../batch/job.ts';
import type { RewriteSettings } from '../batch/rewriters.ts';
import { getResolver } from '../uri/index.ts';
import { runStreaming } from '../batch/scheduler.ts';
import { addToSummary, emptySummary, summaryLine } from '../batch/summary.ts';
import { BATCH_LIMITS, resolveHttpLimits } from '../limits.ts';
import type { HttpLimits } from '../limits.ts';
import type { Resolver } from '../uri/types.ts';
import { explain } from './absolutize-command.ts';
import { checkOutputPath, createAtomicFile } from './atomic-file.ts';
import type { AtomicFile } from './atomic-file.ts';
import type { EncodingDecision } from '../encoding/index.ts';
import { explainEncoding } from './explain-encoding.ts';
import { runProgress } from './interrupt.ts';
import { EXIT_INPUT, EXIT_OK, inFlags } from './io.ts';
import { limitHeapGrowth } from './heap-growth.ts';
import type { CliIo } from './io.ts';
import { createProgress } from './progress.ts';
import { isFetchInvocation } from './detect.ts';
import { FETCH_HELP, FETCH_OPTIONS, HTTP_HELP, HTTP_OPTIONS } from './usage.ts';

export { FETCH_HELP, FETCH_OPTIONS, HTTP_HELP, HTTP_OPTIONS, isFetchInvocation };
import type { Progress } from './progress.ts';

/** The values of HTTP_OPTIONS, as parsed. */
export interface HttpOptionValues {
  readonly 'http-content-location'?: boolean | undefined;
  readonly 'keep-error-bodies'?: boolean | undefined;
  readonly 'refuse-private-addresses'?: boolean | undefined;
  readonly 'max-redirects'?: string | undefined;
  readonly 'connect-timeout'?: string | undefined;
  readonly 'headers-timeout'?: string | undefined;
  readonly 'body-timeout'?: string | undefined;
  readonly 'max-body-size'?: string | undefined;
  readonly 'max-decompressed-size'?: string | undefined;
  readonly concurrency?: string | undefined;
  readonly 'per-host'?: string | undefined;
  readonly deadline?: string | undefined;
}

/** The HTTP limits the options state (each unset one its default); an invalid value is a usage error. */
export function httpLimitsOf(values: HttpOptionValues): HttpLimits {
  return resolveHttpLimits({
    maxRedirects: integerOption(values, 'max-redirects'),
    connectTimeoutMs: integerOption(values, 'connect-timeout'),
    headersTimeoutMs: integerOption(values, 'headers-timeout'),
    bodyTimeoutMs: integerOption(values, 'body-timeout'),
    maxBodyBytes: integerOption(values, 'max-body-size'),
    maxDecompressedBytes: integerOption(values, 'max-decompressed-size'),
    maxConcurrentRequests: integerOption(values, 'concurrency'),
    maxConnectionsPerOrigin: integerOption(values, 'per-host'),
    deadlineMs: integerOption(values, 'deadline'),
  });
}

/** The option values the URL path reads (the main command's parsed values). */
export interface FetchCommandValues extends HttpOptionValues {
  readonly url?: string | undefined;
  readonly base?: string | undefined;
  readonly output?: string | undefined;
  readonly type?: string | undefined;
  readonly charset?: string | undefined;
  readonly links?: string | undefined;
  readonly explain?: boolean | undefined;
  readonly 'exact-base'?: boolean | undefined;
  readonly fragments?: boolean | undefined;
  readonly 'lazy-load'?: boolean | undefined;
  readonly 'input-list'?: string | undefined;
}

/** What the rewriting of each document shares: set up once from the options. */
export interface FetchContext {
  readonly io: CliIo;
  readonly stderrIo: CliIo;
  readonly progress: Progress;
  readonly values: FetchCommandValues;
  readonly resolver: Resolver;
  readonly charset: string | undefined;
  readonly type: 'html' | 'css' | undefined;
  readonly limits: HttpLimits;
  readonly agent: ReturnType<typeof createFetchAgent>;
  /** -o DIR; null when writing a single file or standard output. */
  readonly directory: string | null;
  readonly file: string | null;
  readonly reportOnly: boolean;
  readonly batch: boolean;
  readonly links: { write(line: string): void } | null;
}

export async function fetchCommand(positionals: readonly string[], values: FetchCommandValues, io: CliIo, setup: { resolver: Resolver; charset: string | undefined }): Promise<number> {
  if (values.url !== undefined) throw new AbsError('--url states the retrieval URL of a file; a fetched URL is its own (its final URL after redirects)', 'ABS_ERR_USAGE');
  const type = values.type === undefined || values.type === 'auto' ? undefined : values.type;
  if (type !== undefined && type !== 'html' && type !== 'css') throw new AbsError(`--type must be html, css or auto, not ${JSON.stringify(type)}`, 'ABS_ERR_USAGE');
  const limits = httpLimitsOf(values);
  const batch = positionals.length > 1 || values['input-list'] !== undefined;
  // A list of URLs is a long run with a small, constant live heap: bound how far V8 lets it grow (heap-growth.ts).
  if (batch) limitHeapGrowth();
  const reportOnly = values.links === '-' && values.output === undefined;
  let directory: string | null = null;
  let file: string | null = null;
  if (values.output !== undefined) {
    if (batch || values.output.endsWith('/') || (await isDirectory(values.output))) directory = values.output;
    else file = values.output;
  } else if (batch && !reportOnly) {
    throw new AbsError('several URLs need -o DIR (one file per URL), or --links - for only the link report', 'ABS_ERR_USAGE');
  }
  // Outputs are checked against the inputs and each other before anything is written.
  if (values.links !== undefined && values.links !== '-') {
    const links = resolvePath(values.links);
    if (file !== null && resolvePath(file) === links) throw new AbsError(`--links ${values.links} and -o ${file} are one file: give each its own`, 'ABS_ERR_USAGE');
    if (values['input-list'] !== undefined && resolvePath(values['input-list']) === links) throw new AbsError(`--links ${values.links} is the --input-list: absolutize never writes over its input`, 'ABS_ERR_USAGE');
  }
  if (file !== null) await checkOutputPath(file, '-o');
  if (values.links !== undefined && values.links !== '-') await checkOutputPath(values.links, '--links');
  let list: Readable | null = null;
  if (values['input-list'] !== undefined) {
    list = await openList(values['input-list']);
  }
  if (directory !== null) {
    try {
      await mkdir(directory, { recursive: true });
    } catch (err) {
      list?.destroy();
      throw new AbsError(`-o ${directory}: ${(err as Error).message}`, 'ABS_ERR_OUTPUT');
    }
  }

  const progress = escaping(createProgress(io, batch));
  const stderrIo: CliIo = { ...io, stderr: { write: (s: string) => (progress.line(s), true) } as unknown as NodeJS.WritableStream };
  let linksFile: AtomicFile | null = null;
  let links: FetchContext['links'] = null;
  if (values.links === '-') links = { write: (l) => io.stdout.write(l) };
  else if (values.links !== undefined) {
    const f = createAtomicFile(values.links);
    linksFile = f;
    links = { write: (l) => f.stream.write(l) };
  }
  const agent = createFetchAgent({ httpLimits: limits, refusePrivateAddresses: values['refuse-private-addresses'] === true });
  const context: FetchContext = { io, stderrIo, progress, values, resolver: setup.resolver, charset: setup.charset, type, limits, agent, directory, file, reportOnly, batch, links };

  const summary = emptySummary();
  const started = performance.now();
  let read = 0;
  runProgress.written = 0;
  runProgress.total = 0;
  const status = (): string => `absolutize: [${summary.done + summary.failed + summary.skipped}/${read}]${summary.failed > 0 ? ` ${summary.failed} failed` : ''}`;
  // The URLs: the arguments, then the list's entries as they are read (a frontier of millions is never held).
  // A line that is not a URL (too long, not text) is an entry too, failed with its reason; a list that cannot
  // be read to its end is one failed entry more, after every URL read before it was tried.
  const listName = `--input-list ${values['input-list']}`;
  async function* entries(): AsyncGenerator<UrlListEntry | { readonly line: null; readonly url: string }> {
    for (const p of positionals) {
      runProgress.total = ++read;
      yield { line: null, url: p };
    }
    if (list === null) return;
    try {
      for await (const entry of readUrlList(list)) {
        runProgress.total = ++read;
        yield entry;
      }
    } catch (err) {
      runProgress.total = ++read;
      yield { line: 0, code: 'ABS_ERR_INPUT', reason: `cannot be read to its end: ${(err as Error).message}` };
    }
  }
  const failLine = (entry: { readonly line: number; readonly code: string; readonly reason: string }): void => {
    const message = `${listName}: ${entry.reason}`;
    progress.line(`absolutize: error [${entry.code}] ${message}`);
    links?.write(`${jsonLine({ document: null, listLine: entry.line === 0 ? null : entry.line, error: entry.code, message })}\n`);
    addToSummary(summary, { status: 'failed', kind: 'input', rewritten: 0, warnings: 0, copied: false, bytesIn: 0, bytesOut: 0 });
  };
  let finished = false;
  try {
    await runStreaming(entries(), { concurrency: limits.maxConcurrentRequests, perKey: limits.maxConnectionsPerOrigin, keyOf: (e) => ('url' in e ? hostKey(e.url) : ''), window: BATCH_LIMITS.window }, async (entry) => {
      if (!('url' in entry)) return failLine(entry);
      const url = entry.url;
      // A list line that is no http(s) URL is reported with its line number, as the other bad lines are.
      if (entry.line !== null && !isHttpUrl(url)) {
        const shown = url.length > 200 ? `${url.slice(0, 200)}…` : url;
        return failLine({ line: entry.line, code: 'ABS_ERR_INPUT', reason: `line ${entry.line}: ${JSON.stringify(redactUrl(shown))} is not an http: or https: URL` });
      }
      progress.update(`${status()} ${redactUrl(url)}`);
      const target: RetrievalTarget = context.reportOnly ? { kind: 'discard' } : context.directory !== null ? { kind: 'directory', directory: context.directory } : context.file !== null ? { kind: 'file', path: context.file } : { kind: 'stdout' };
      const r = await retrieveOne(context, url, target, context.links);
      if (r.status === 'done') runProgress.written++;
      addToSummary(summary, r);
      progress.update(status());
    });
    finished = true;
  } finally {
    // Whatever stopped the run (a bug, an output that fails), the summary of what was done is printed and the link
    // report holds every line written (a batch) or is removed: never a temporary file left behind.
    progress.done();
    await agent.close().catch(() => {});
    summary.ms = Math.round(performance.now() - started);
    if (batch) io.stderr.write(summaryLine(summary));
    if (linksFile !== null) {
      // The report of a single URL that failed is not kept; a batch keeps every line (failures are marked in it).
      try {
        if (!batch && (!finished || summary.failed > 0)) await linksFile.abort();
        else await linksFile.commit();
      } catch (err) {
        await linksFile.abort();
        if (finished) throw new AbsError(`--links ${values.links}: ${(err as Error).message}`, 'ABS_ERR_OUTPUT');
      }
    }
  }
  return summary.failed > 0 ? EXIT_INPUT : EXIT_OK;
}

/** Where a retrieved document goes: a file named from its final URL in a directory, a given file, stdout, nowhere. */
export type RetrievalTarget =
  | { readonly kind: 'directory'; readonly directory: string }
  | {
      readonly kind: 'file';
      readonly path: string;
      readonly temp?: string | undefined;
      readonly beforeCommit?: (() => Promise<void>) | undefined;
      /** A re-run skips an output that exists (a batch): a transient failure's error body is not kept, so the re-run retries it. */
      readonly rerunSkips?: boolean | undefined;
    }
  | { readonly kind: 'stdout' }
  | { readonly kind: 'discard' };

/** Failures worth a retry (sysexits 75): the network, and a server that says it is busy or failing. */
function failureKindOf(err: unknown): FailureKind {
  if (!(err instanceof AbsError)) return 'input';
  if (err.code === 'ABS_ERR_OUTPUT') return 'output';
  if (err.code === 'ABS_ERR_HTTP_CONNECT' || err.code === 'ABS_ERR_HTTP_TIMEOUT' || err.code === 'ABS_ERR_HTTP_NETWORK') return 'transient';
  const status = err instanceof FetchError ? err.status : undefined;
  if (err.code === 'ABS_ERR_HTTP_STATUS' && status !== undefined && (status >= 500 || status === 429 || status === 408)) return 'transient';
  return 'input';
}

/**
 * Every line the URL path prints to standard error goes through here: server-supplied text in it (a reason
 * phrase, a `Content-Type`, a `Location`, text quoted from the document) cannot drive the terminal.
 */
function escaping(progress: Progress): Progress {
  return { update: (text) => progress.update(escapeLines(text)), line: (text) => progress.line(escapeLines(text)), done: () => progress.done() };
}

/**
 * Retrieves and rewrites one URL into `target`, its references to `links`; reports what went wrong on one line.
 * The result is the job model's status record (src/batch/job.ts).
 */
export async function retrieveOne(context: FetchContext, url: string, target: RetrievalTarget, links: FetchContext['links'], id = 0): Promise<JobResult> {
  const started = performance.now();
  try {
    return await retrieveAndRewrite(context, url, target, links, id);
  } catch (err) {
    // Whatever was not foreseen is still one line with a code, and the batch goes on.
    const code = err instanceof AbsError ? err.code : 'ABS_ERR_INPUT';
    const message = `${redactUrl(url)}: ${err instanceof Error ? err.message : String(err)}`;
    context.progress.line(`absolutize: error [${code}] ${message}`);
    links?.write(`${jsonLine({ document: redactUrl(url), error: code, message })}\n`);
    return { id, status: 'failed', code, kind: failureKindOf(err), message, records: 0, rewritten: 0, bytesIn: 0, bytesOut: 0, warnings: 0, copied: false, ms: Math.round(performance.now() - started) };
  }
}

async function retrieveAndRewrite(context: FetchContext, url: string, target: RetrievalTarget, links: FetchContext['links'], id: number): Promise<JobResult> {
  const { values, progress } = context;
  const started = performance.now();
  let bytesIn = 0;
  let bytesOut = 0;
  let warnings = 0;
  let rewritten = 0;
  const result = (r: Pick<JobResult, 'status'> & Partial<JobResult>): JobResult => ({ id, code: null, kind: null, message: null, records: 0, rewritten, bytesIn, bytesOut, warnings, copied: false, ...r, ms: Math.round(performance.now() - started) });
  const fail = (err: unknown, document: FetchedDocument | null, extra = ''): JobResult => {
    const code = err instanceof AbsError ? err.code : 'ABS_ERR_INPUT';
    const where = redactUrl(document?.url ?? url);
    let message = err instanceof Error ? err.message : String(err);
    if (err instanceof LimitExceededError) message = `${where}: ${message}: the document is incomplete${extra}`;
    else if (!message.includes(where) && !(err instanceof FetchError)) message = `${where}: ${message}`;
    progress.line(`absolutize: error [${code}] ${inFlags(message)}`);
    links?.write(`${jsonLine({ document: where, error: code, message, redirects: chainOf(document, err) })}\n`);
    return result({ status: 'failed', code, kind: failureKindOf(err), message });
  };

  let document: FetchedDocument;
  try {
    document = await fetchDocument(url, {
      dispatcher: context.agent,
      httpLimits: context.limits,
      onWarning: (w) => {
        warnings++;
        progress.line(`absolutize: warning [${w.code}] ${inFlags(w.message)}`);
      },
    });
  } catch (err) {
    if (err instanceof AbsError && err.code === 'ABS_ERR_USAGE') return fail(new AbsError(err.message, 'ABS_ERR_INPUT'), null);
    return fail(err, null);
  }
  if (values.explain === true) explainRetrieval(context, document);
  const statusError = httpStatusError(document);
  if (statusError !== null && values['keep-error-bodies'] !== true) {
    document.body.destroy();
    return fail(new FetchError(`${statusError.message} (body not written; --keep-error-bodies keeps it)`, statusError.code, statusError), document);
  }

  const name = redactUrl(document.url);
  const honoured = values['http-content-location'] === true;
  const redirects = document.chain.length === 0 ? undefined : document.chain;
  const rewriter = createResponseRewriter(document, {
    resolver: context.resolver,
    fallback: values.base ?? null,
    honourHttpContentLocation: honoured,
    charset: context.charset,
    type: context.type,
    exactBase: values['exact-base'],
    absolutizeFragments: values.fragments,
    lazyLoad: values['lazy-load'],
    onWarning: (w: HtmlWarning) => {
      warnings++;
      const at = w.line !== undefined ? ` (${name}:${w.line}:${w.column ?? 0})` : '';
      progress.line(`absolutize: warning [${w.code}] ${inFlags(w.message)}${at}`);
    },
    onReference:
      links === null
        ? (r: ReferenceRecord) => void (r.changed && rewritten++)
        : (r: ReferenceRecord) => {
            if (r.changed) rewritten++;
            links.write(`${jsonLine({ document: name, part: null, element: r.element, attribute: r.attribute, ...relOf(r), raw: r.raw, resolved: r.resolved, base: r.base, baseSource: r.baseSource, line: r.line, column: r.column, changed: r.changed, redirects })}\n`);
          },
    onBase: values.explain === true ? (d: BaseDecision) => explain(context.stderrIo, name, d) : undefined,
    onEncoding: values.explain === true ? (e: EncodingDecision) => explainEncoding(context.stderrIo, name, e, values.charset === undefined ? "the response's Content-Type charset" : '--charset') : undefined,
  });
  if (rewriter.passthroughReason !== null) {
    if (context.batch && target.kind === 'directory') {
      document.body.destroy();
      warnings++;
      progress.line(`absolutize: warning [content-type-not-rewritten] ${name}: ${rewriter.passthroughReason.replace(/passed through untouched$/, 'skipped')}`);
      return statusError === null ? result({ status: 'skipped' }) : fail(statusError, document);
    }
    warnings++;
    progress.line(`absolutize: warning [content-type-not-rewritten] ${name}: ${rewriter.passthroughReason}`);
  }

  // The references of the response's own header fields (Link, Refresh, Content-Location) go first in the
  // report: resolved against the final URL, never `changed` (the output is the body; the headers are not in it).
  if (links !== null) {
    for (const r of responseHeaderReferences(document, context.resolver)) {
      links.write(`${jsonLine({ document: name, part: null, element: null, attribute: r.attribute, ...(r.rel === undefined ? {} : { rel: r.rel }), ...(r.parameter === undefined ? {} : { parameter: r.parameter }), raw: r.raw, resolved: r.resolved, base: r.base, baseSource: r.baseSource, line: null, column: null, changed: false, redirects })}\n`);
    }
  }

  let output: AtomicFile | null = null;
  let sink: Writable;
  try {
    if (target.kind === 'discard') sink = new Writable({ write: (_c, _e, cb) => cb() });
    else if (target.kind === 'directory') {
      output = createAtomicFile(join(target.directory, outputFileName(document.url, rewriter.kind)));
      sink = output.stream;
    } else if (target.kind === 'file') {
      output = createAtomicFile(target.path, target.temp);
      sink = output.stream;
    } else sink = context.io.stdout as Writable;
  } catch (err) {
    document.body.destroy();
    return fail(new AbsError((err as Error).message, 'ABS_ERR_OUTPUT'), document, '; not written');
  }
  const stages: Array<Readable | Writable> = [document.body, counter((n) => (bytesIn += n))];
  if (rewriter.transform !== null) stages.push(rewriter.transform);
  stages.push(counter((n) => (bytesOut += n)));
  // The stage that failed first (the pipeline then destroys the others with the same error).
  let firstFailed: unknown = null;
  for (const stage of [...stages, sink]) stage.once('error', () => (firstFailed ??= stage));
  try {
    await pipeline([...stages, sink] as unknown as [Readable, Writable], { end: sink !== context.io.stdout });
  } catch (err) {
    await output?.abort();
    const e = firstFailed === sink ? new AbsError(`${(err as Error).message}`, 'ABS_ERR_OUTPUT') : err;
    return fail(e, document, output !== null ? '; not written' : sink === context.io.stdout ? '; the output above stops there' : '');
  }
  if (statusError !== null && target.kind === 'file' && target.rerunSkips === true && failureKindOf(statusError) === 'transient') {
    await output?.abort();
    return fail(new FetchError(`${statusError.message} (body not kept: a batch re-run retries it)`, statusError.code, statusError), document);
  }
  try {
    // A batch's links file goes first: an output that exists is a finished job (skipped on a re-run).
    if (statusError === null && target.kind === 'file') await target.beforeCommit?.();
    await output?.commit();
  } catch (err) {
    await output?.abort();
    return fail(new AbsError((err as Error).message, 'ABS_ERR_OUTPUT'), document, '; not written');
  }
  if (statusError !== null) return fail(statusError, document);
  return result({ status: 'done', records: 1 });
}

/** The references of a retrieved response's `Link`, `Refresh` and `Content-Location` fields (header-references.ts). */
function responseHeaderReferences(document: FetchedDocument, resolver: Resolver): HeaderReferenceRecord[] {
  // undici gives each field's value as Latin-1 text (one character a byte): the bytes are rebuilt as they came.
  const lines: string[] = [];
  for (const [name, field] of [['link', 'Link'], ['refresh', 'Refresh'], ['content-location', 'Content-Location']] as const) {
    const value = document.headers[name];
    for (const v of value === undefined ? [] : Array.isArray(value) ? value : [value]) lines.push(`${field}: ${v}\r\n`);
  }
  if (lines.length === 0) return [];
  const records: HeaderReferenceRecord[] = [];
  rewriteHeaderReferences(Buffer.from(lines.join(''), 'latin1'), { base: document.url, resolver, onReference: (r) => records.push(r) });
  return records;
}

function counter(add: (n: number) => void): Transform {
  return new Transform({ transform: (c: Buffer, _e, cb) => (add(c.length), cb(null, c)) });
}

/** `--explain` for a retrieved document: the redirect chain with statuses, before the base decision. */
function explainRetrieval(context: FetchContext, document: FetchedDocument): void {
  const lines = [`absolutize: retrieved ${redactUrl(document.url)} (HTTP ${document.status}${document.contentType.raw === null ? ', no Content-Type' : `, ${document.contentType.raw}`}${document.contentCodings.length > 0 ? `, ${document.contentCodings.join(', ')}` : ''})`];
  if (document.chain.length === 0) lines.push('  no redirects');
  for (const hop of document.chain) lines.push(`  ${hop.status} ${hop.url} -> Location: ${hop.location}`);
  context.stderrIo.stderr.write(`${lines.join('\n')}\n`);
}

function chainOf(document: FetchedDocument | null, err: unknown): readonly RedirectHop[] | undefined {
  const chain = document?.chain ?? (err instanceof FetchError ? err.chain : []);
  return chain.length === 0 ? undefined : chain;
}

function isHttpUrl(text: string): boolean {
  const url = URL.parse(text);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:');
}

export function hostKey(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

function integerOption(values: HttpOptionValues, name: keyof HttpOptionValues): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new AbsError(`--${name} must be a positive integer, not ${JSON.stringify(value)}`, 'ABS_ERR_INVALID_OPTION');
  return Number(value);
}

/** The input list, opened (a file that cannot be read is a usage-time error, before anything is written). */
async function openList(path: string): Promise<Readable> {
  const stream = createReadStream(path);
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (err) {
    throw new AbsError(`--input-list ${path}: ${(err as Error).message}`, 'ABS_ERR_INPUT');
  }
  return stream;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The runner of URL jobs in a batch (src/batch): each URL retrieved under the batch's HTTP options (`limits`,
 * from httpLimitsOf, and the flags of HTTP_OPTIONS in `http`) and written to the job's output (atomically, under
 * the job's temporary name), its links to the job's links file. An output that exists is skipped before anything
 * is retrieved.
 */
export function createUrlJobRunner(io: CliIo, batchProgress: Progress, settings: RewriteSettings, charset: string | undefined, withLinks: boolean, http: { readonly limits: HttpLimits; readonly values: HttpOptionValues }): ((job: FileJob) => Promise<JobResult>) & { close(): Promise<void> } {
  const { limits } = http;
  const progress = escaping(batchProgress);
  const agent = createFetchAgent({ httpLimits: limits, refusePrivateAddresses: http.values['refuse-private-addresses'] === true });
  const values: FetchCommandValues = {
    base: settings.base ?? undefined,
    explain: settings.explain,
    'exact-base': settings.exactBase,
    fragments: settings.fragments,
    'lazy-load': settings.lazyLoad,
    'http-content-location': http.values['http-content-location'],
    'keep-error-bodies': http.values['keep-error-bodies'],
  };
  const stderrIo: CliIo = { ...io, stderr: { write: (s: string) => (progress.line(s), true) } as unknown as NodeJS.WritableStream };
  const context: FetchContext = { io, stderrIo, progress, values, resolver: getResolver(settings.resolver), charset, type: undefined, limits, agent, directory: null, file: null, reportOnly: false, batch: true, links: null };
  const run = async (job: FileJob): Promise<JobResult> => {
    const output = job.output as string;
    if (job.skipExisting && (await stat(output).catch(() => null)) !== null) {
      return { id: job.id, status: 'skipped', code: null, kind: null, message: null, records: 0, rewritten: 0, bytesIn: 0, bytesOut: 0, ms: 0, warnings: 0, copied: false };
    }
    const linksFile = withLinks && job.links !== null ? createAtomicFile(job.links.path, job.links.temp ?? undefined) : null;
    let linksDone = false;
    const beforeCommit = linksFile === null ? undefined : async (): Promise<void> => {
      await linksFile.commit();
      linksDone = true;
    };
    const r = await retrieveOne(context, job.input as string, { kind: 'file', path: output, temp: job.outputTemp as string, beforeCommit, rerunSkips: true }, linksFile === null ? null : { write: (l) => linksFile.stream.write(l) }, job.id);
    if (linksFile !== null && !linksDone) await linksFile.abort();
    return r;
  };
  return Object.assign(run, { close: () => agent.close().catch(() => {}) });
}
