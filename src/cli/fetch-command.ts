/**
 * `absolutize URL... [-o FILE|DIR]` and `absolutize --input-list FILE -o DIR`: retrieve over HTTP(S), follow
 * redirects, and rewrite each document with its final URL as the base (SPEC §6, issue 5). Called by the main
 * command when its inputs are URLs. One clear line per failed URL; the others are still processed; exit 1 if
 * any failed.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BaseDecision } from '../base/base.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import { AbsError, FetchError, LimitExceededError } from '../errors.ts';
import type { RedirectHop } from '../errors.ts';
import type { HtmlWarning } from '../html/rewriter.ts';
import { redactUrl } from '../http/credentials.ts';
import { createFetchAgent, fetchDocument, httpStatusError } from '../http/fetch.ts';
import type { FetchedDocument } from '../http/fetch.ts';
import { outputFileName } from '../http/output-name.ts';
import { createResponseRewriter } from '../http/response-rewriter.ts';
import { runScheduled } from '../http/schedule.ts';
import { DEFAULT_HTTP_LIMITS, resolveHttpLimits } from '../limits.ts';
import type { HttpLimits } from '../limits.ts';
import type { Resolver } from '../uri/types.ts';
import { explain } from './absolutize-command.ts';
import { createAtomicFile } from './atomic-file.ts';
import type { AtomicFile } from './atomic-file.ts';
import type { EncodingDecision } from '../encoding/index.ts';
import { explainEncoding } from './explain-encoding.ts';
import { EXIT_INPUT, EXIT_OK, inFlags } from './io.ts';
import type { CliIo } from './io.ts';
import { createProgress } from './progress.ts';
import type { Progress } from './progress.ts';

type StringOption = { readonly type: 'string' };
type FlagOption = { readonly type: 'boolean'; readonly default: false };

/** The options of URL retrieval, merged into the main command's. */
export const FETCH_OPTIONS: {
  readonly 'input-list': StringOption;
  readonly 'http-content-location': FlagOption;
  readonly 'keep-error-bodies': FlagOption;
  readonly 'refuse-private-addresses': FlagOption;
  readonly 'max-redirects': StringOption;
  readonly 'connect-timeout': StringOption;
  readonly 'headers-timeout': StringOption;
  readonly 'body-timeout': StringOption;
  readonly 'max-body-size': StringOption;
  readonly 'max-decompressed-size': StringOption;
  readonly concurrency: StringOption;
  readonly 'per-host': StringOption;
} = {
  'input-list': { type: 'string' },
  'http-content-location': { type: 'boolean', default: false },
  'keep-error-bodies': { type: 'boolean', default: false },
  'refuse-private-addresses': { type: 'boolean', default: false },
  'max-redirects': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'body-timeout': { type: 'string' },
  'max-body-size': { type: 'string' },
  'max-decompressed-size': { type: 'string' },
  concurrency: { type: 'string' },
  'per-host': { type: 'string' },
} as const;

export const FETCH_HELP: string = `
Fetching URLs (INPUT is an http: or https: URL; several URLs, or --input-list, need -o DIR):
  --input-list FILE       read URLs from FILE, one a line (blank lines and # comments skipped)
  -o DIR                  with several URLs: one file per URL, named from its final URL
  --http-content-location honour the response's Content-Location / Content-Base as a base
  --keep-error-bodies     write the body of a 4xx/5xx response too (still reported, exit 1)
  --refuse-private-addresses  refuse loopback, private and link-local addresses
  --max-redirects N       redirects followed (default ${DEFAULT_HTTP_LIMITS.maxRedirects})
  --connect-timeout MS    connection timeout (default ${DEFAULT_HTTP_LIMITS.connectTimeoutMs})
  --headers-timeout MS    wait for the response headers (default ${DEFAULT_HTTP_LIMITS.headersTimeoutMs})
  --body-timeout MS       longest stall while the body arrives (default ${DEFAULT_HTTP_LIMITS.bodyTimeoutMs})
  --max-body-size BYTES   body as transferred (default ${DEFAULT_HTTP_LIMITS.maxBodyBytes})
  --max-decompressed-size BYTES  body after gzip/deflate/br decoding (default ${DEFAULT_HTTP_LIMITS.maxDecompressedBytes})
  --concurrency N         URLs retrieved at once (default ${DEFAULT_HTTP_LIMITS.maxConcurrentRequests})
  --per-host N            of which to one host (default ${DEFAULT_HTTP_LIMITS.maxConnectionsPerOrigin})
`;

/** The option values the URL path reads (the main command's parsed values). */
export interface FetchCommandValues {
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
}

const URL_ARGUMENT = /^https?:\/\//i;

/** True when the command's inputs are URLs (or an input list) rather than a file or standard input. */
export function isFetchInvocation(positionals: readonly string[], values: FetchCommandValues): boolean {
  if (values['input-list'] !== undefined) return true;
  if (positionals.length === 0 || !positionals.some((p) => URL_ARGUMENT.test(p))) return false;
  const file = positionals.find((p) => !URL_ARGUMENT.test(p));
  if (file !== undefined) throw new AbsError(`${JSON.stringify(file)}: URLs and files cannot be mixed in one run`, 'ABS_ERR_USAGE');
  return true;
}

/** What the rewriting of each document shares: set up once from the options. */
interface Context {
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
  const limits = resolveHttpLimits({
    maxRedirects: integerOption(values, 'max-redirects'),
    connectTimeoutMs: integerOption(values, 'connect-timeout'),
    headersTimeoutMs: integerOption(values, 'headers-timeout'),
    bodyTimeoutMs: integerOption(values, 'body-timeout'),
    maxBodyBytes: integerOption(values, 'max-body-size'),
    maxDecompressedBytes: integerOption(values, 'max-decompressed-size'),
    maxConcurrentRequests: integerOption(values, 'concurrency'),
    maxConnectionsPerOrigin: integerOption(values, 'per-host'),
  });
  const urls = [...positionals];
  if (values['input-list'] !== undefined) urls.push(...(await readInputList(values['input-list'])));
  const batch = urls.length > 1 || values['input-list'] !== undefined;
  const reportOnly = values.links === '-' && values.output === undefined;
  let directory: string | null = null;
  let file: string | null = null;
  if (values.output !== undefined) {
    if (batch || values.output.endsWith('/') || (await isDirectory(values.output))) directory = values.output;
    else file = values.output;
  } else if (batch && !reportOnly) {
    throw new AbsError('several URLs need -o DIR (one file per URL), or --links - for only the link report', 'ABS_ERR_USAGE');
  }
  if (directory !== null) await mkdir(directory, { recursive: true });

  const progress = createProgress(io, batch);
  const stderrIo: CliIo = { ...io, stderr: { write: (s: string) => (progress.line(s), true) } as unknown as NodeJS.WritableStream };
  let linksFile: AtomicFile | null = null;
  let links: Context['links'] = null;
  if (values.links === '-') links = { write: (l) => io.stdout.write(l) };
  else if (values.links !== undefined) {
    const f = createAtomicFile(values.links);
    linksFile = f;
    links = { write: (l) => f.stream.write(l) };
  }
  const agent = createFetchAgent({ httpLimits: limits, refusePrivateAddresses: values['refuse-private-addresses'] === true });
  const context: Context = { io, stderrIo, progress, values, resolver: setup.resolver, charset: setup.charset, type, limits, agent, directory, file, reportOnly, batch, links };

  let done = 0;
  let failed = 0;
  try {
    await runScheduled(urls, { concurrency: limits.maxConcurrentRequests, perHost: limits.maxConnectionsPerOrigin, hostOf: hostKey }, async (url) => {
      progress.update(`absolutize: [${done}/${urls.length}]${failed > 0 ? ` ${failed} failed` : ''} ${redactUrl(url)}`);
      if (!(await retrieveOne(context, url))) failed++;
      done++;
      progress.update(`absolutize: [${done}/${urls.length}]${failed > 0 ? ` ${failed} failed` : ''}`);
    });
  } finally {
    progress.done();
    await agent.close().catch(() => {});
  }
  if (linksFile !== null) {
    // The report of a single URL that failed is not kept; a batch keeps every line (failures are marked in it).
    if (!batch && failed > 0) await linksFile.abort();
    else await linksFile.commit();
  }
  return failed > 0 ? EXIT_INPUT : EXIT_OK;
}

/** Retrieves and rewrites one URL; reports what went wrong on one line. Returns false if it failed. */
async function retrieveOne(context: Context, url: string): Promise<boolean> {
  const { values, progress } = context;
  const fail = (err: unknown, document: FetchedDocument | null, extra = ''): false => {
    const code = err instanceof AbsError ? err.code : 'ABS_ERR_INPUT';
    const where = document?.url ?? redactUrl(url);
    let message = err instanceof Error ? err.message : String(err);
    if (err instanceof LimitExceededError) message = `${where}: ${message}: the document is incomplete${extra}`;
    else if (!message.includes(where) && !(err instanceof FetchError)) message = `${where}: ${message}`;
    progress.line(`absolutize: error [${code}] ${inFlags(message)}`);
    context.links?.write(`${JSON.stringify({ document: where, error: code, message, redirects: chainOf(document, err) })}\n`);
    return false;
  };

  let document: FetchedDocument;
  try {
    document = await fetchDocument(url, { dispatcher: context.agent, httpLimits: context.limits });
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

  const name = document.url;
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
      const at = w.line !== undefined ? ` (${name}:${w.line}:${w.column ?? 0})` : '';
      progress.line(`absolutize: warning [${w.code}] ${inFlags(w.message)}${at}`);
    },
    onReference:
      context.links === null
        ? undefined
        : (r: ReferenceRecord) => {
            context.links!.write(`${JSON.stringify({ document: name, part: null, element: r.element, attribute: r.attribute, raw: r.raw, resolved: r.resolved, base: r.base, baseSource: r.baseSource, line: r.line, column: r.column, changed: r.changed, redirects })}\n`);
          },
    onBase: values.explain === true ? (d: BaseDecision) => explain(context.stderrIo, name, d) : undefined,
    onEncoding: values.explain === true ? (e: EncodingDecision) => explainEncoding(context.stderrIo, name, e, values.charset === undefined ? "the response's Content-Type charset" : '--charset') : undefined,
  });
  if (rewriter.passthroughReason !== null) {
    if (context.batch && context.directory !== null) {
      document.body.destroy();
      progress.line(`absolutize: warning [content-type-not-rewritten] ${name}: ${rewriter.passthroughReason.replace(/passed through untouched$/, 'skipped')}`);
      return statusError === null;
    }
    progress.line(`absolutize: warning [content-type-not-rewritten] ${name}: ${rewriter.passthroughReason}`);
  }

  let output: AtomicFile | null = null;
  let sink: Writable;
  if (context.reportOnly) sink = new Writable({ write: (_c, _e, cb) => cb() });
  else if (context.directory !== null) {
    output = createAtomicFile(join(context.directory, outputFileName(document.url, rewriter.kind)));
    sink = output.stream;
  } else if (context.file !== null) {
    output = createAtomicFile(context.file);
    sink = output.stream;
  } else sink = context.io.stdout as Writable;
  const stages: Array<Readable | Writable> = [document.body];
  if (rewriter.transform !== null) stages.push(rewriter.transform);
  try {
    await pipeline([...stages, sink] as unknown as [Readable, Writable], { end: sink !== context.io.stdout });
    await output?.commit();
  } catch (err) {
    await output?.abort();
    return fail(err, document, output !== null ? '; not written' : sink === context.io.stdout ? '; the output above stops there' : '');
  }
  if (statusError !== null) return fail(statusError, document);
  return true;
}

/** `--explain` for a retrieved document: the redirect chain with statuses, before the base decision. */
function explainRetrieval(context: Context, document: FetchedDocument): void {
  const lines = [`absolutize: retrieved ${document.url} (HTTP ${document.status}${document.contentType.raw === null ? ', no Content-Type' : `, ${document.contentType.raw}`}${document.contentCodings.length > 0 ? `, ${document.contentCodings.join(', ')}` : ''})`];
  if (document.chain.length === 0) lines.push('  no redirects');
  for (const hop of document.chain) lines.push(`  ${hop.status} ${hop.url} -> Location: ${hop.location}`);
  context.stderrIo.stderr.write(`${lines.join('\n')}\n`);
}

function chainOf(document: FetchedDocument | null, err: unknown): readonly RedirectHop[] | undefined {
  const chain = document?.chain ?? (err instanceof FetchError ? err.chain : []);
  return chain.length === 0 ? undefined : chain;
}

function hostKey(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

function integerOption(values: FetchCommandValues, name: keyof FetchCommandValues): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new AbsError(`--${name} must be a positive integer, not ${JSON.stringify(value)}`, 'ABS_ERR_INVALID_OPTION');
  return Number(value);
}

/** The URLs of an input list: one a line; blank lines and lines starting with # are skipped. */
async function readInputList(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new AbsError(`--input-list ${path}: ${(err as Error).message}`, 'ABS_ERR_INPUT');
  }
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
