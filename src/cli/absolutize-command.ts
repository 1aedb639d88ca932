/**
 * `absolutize [INPUT] [-o OUT] --url URL --base URL --type html|css|auto ...`: the main job (SPEC §7).
 * A Unix filter (stdin → stdout) or a file tool; the output is written atomically.
 */
import { mkdir, open, realpath, stat } from 'node:fs/promises';
import { basename, join, resolve as resolvePath, sep } from 'node:path';
import { fstatSync } from 'node:fs';
import { Transform, Writable } from 'node:stream';
import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BaseDecision } from '../base/base.ts';
import { linkLine, warningLine, warningRecord } from '../batch/report-lines.ts';
import { parseTypeOption, typeOfName } from '../batch/document-types.ts';
import type { DocumentType } from '../batch/document-types.ts';
import type { RewriteSettings } from '../batch/rewriters.ts';
import { AbsError } from '../errors.ts';
import { getResolver } from '../uri/index.ts';
import { tuneForMail } from './heap-growth.ts';
import { checkOutputPath, commitOutputs, createAtomicFile } from './atomic-file.ts';
import { explainEncoding } from './explain-encoding.ts';
import { PrefixKeeper, printHint, typeHint } from './hints.ts';
import { isDirectory, isFetchInvocation, isWarcFile, isWarcName, isWithin } from './detect.ts';
import type { AtomicFile, LinkSink } from './atomic-file.ts';
import { EXIT_INPUT, EXIT_OK, report } from './io.ts';
import type { CliIo } from './io.ts';
import { parseCommandLine, parseResolverName, validateEncodingLabel } from './options.ts';
import { configureReporter, reporterOf, thousands } from './reporter.ts';
import { progressText } from './progress.ts';
import { FETCH_OPTIONS, WARC_OPTIONS } from './usage.ts';

// The URL, crawl and directory commands are imported once chosen: a run loads only the modules it needs (undici
// only to retrieve URLs; start-up, docs/performance.md).

export async function absolutizeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    {
      url: { type: 'string', short: 'u' },
      base: { type: 'string', short: 'b' },
      output: { type: 'string', short: 'o' },
      type: { type: 'string', short: 't', default: 'auto' },
      resolver: { type: 'string', default: 'browser' },
      charset: { type: 'string' },
      links: { type: 'string', short: 'l' },
      explain: { type: 'boolean', short: 'e', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      warnings: { type: 'string' },
      root: { type: 'string' },
      'exact-base': { type: 'boolean', default: false },
      fragments: { type: 'boolean', default: false },
      'lazy-load': { type: 'boolean', default: false },
      'content-location': { type: 'boolean', default: false },
      jobs: { type: 'string', short: 'j' },
      'host-dirs': { type: 'boolean', default: false },
      scheme: { type: 'string' },
      ...FETCH_OPTIONS,
      ...WARC_OPTIONS,
    },
    ['help', 'version'],
  );
  // --type is checked first, whatever the input: its error names every type.
  parseTypeOption(values.type);
  if (values.warnings !== undefined) {
    if (values.warnings === '-' || positionals.includes(values.warnings)) throw new AbsError(`--warnings ${values.warnings}: give a file that is not an input`, 'ABS_ERR_USAGE');
    if (values.output !== undefined && (await samePath(values.output, values.warnings))) throw new AbsError(`--warnings ${values.warnings} and -o ${values.output} are one file: give each its own`, 'ABS_ERR_USAGE');
    await checkOutputPath(values.warnings, '--warnings');
    if (positionals.length === 1 && (await isDirectory(positionals[0])) && isWithin(resolvePath(values.warnings), await realpath(positionals[0]!))) {
      throw new AbsError(`--warnings ${values.warnings} is inside the input ${positionals[0]}: absolutize never writes into its input`, 'ABS_ERR_USAGE');
    }
  }
  configureReporter(io, values);
  // `-o -` is standard output, as for curl and tar (never a file named "-").
  if (values.output === '-') {
    if (values.links === '-') throw new AbsError('-o - and --links - are both standard output: give one of them a file', 'ABS_ERR_USAGE');
    delete (values as { output?: string }).output;
  }
  if (values.root !== undefined && (values.url === undefined || positionals.length < 2 && !(await isFile(positionals[0])))) {
    throw new AbsError('--root applies to FILE... with --url (each file\'s URL is --url plus its path below --root)', 'ABS_ERR_USAGE');
  }
  // URLs and --input-list first: their -o DIR/ is the fetch command's own (one file per URL).
  if (isFetchInvocation(positionals, values)) {
    const charset = values.charset === undefined ? undefined : validateEncodingLabel(values.charset);
    const { fetchCommand } = await import('./fetch-command.ts');
    return fetchCommand(positionals, values, io, { resolver: getResolver(parseResolverName(values.resolver)), charset });
  }
  // -o DIR/ (or an existing directory) for one input: DIR/NAME-OF-INPUT, DIR made if missing (as cp and curl -O).
  if (values.output !== undefined && positionals.length <= 1 && !(await isDirectory(positionals[0])) && !/^https?:/i.test(positionals[0] ?? '')) {
    values.output = await outputInDirectory(positionals[0] ?? '-', values.output);
  }
  const resolver = getResolver(parseResolverName(values.resolver));
  const charset = values.charset === undefined ? undefined : validateEncodingLabel(values.charset);
  for (const [name, value] of [['--url', values.url], ['--base', values.base]] as const) {
    if (value !== undefined && !resolver.isValidBase(value)) {
      throw new AbsError(`${name} ${JSON.stringify(value)} is not an absolute URL`, 'ABS_ERR_INVALID_BASE');
    }
  }
  // WARC and ARC: by --type warc, the extension, or the first bytes (src/cli/warc-command.ts).
  if (positionals.length <= 1) {
    const single = positionals[0] ?? '-';
    if (!(await isDirectory(single)) && (values.type === 'warc' || (values.type === 'auto' && single !== '-' && (isWarcName(single) || (await isWarcFile(single)))))) {
      await checkOutputs(single, values);
      const { warcCommand } = await import('./warc-command.ts');
      return warcCommand(single, values, resolver, io);
    }
  }
  const scheme = values.scheme ?? 'https';
  if (scheme !== 'http' && scheme !== 'https') throw new AbsError(`--scheme must be http or https, not ${JSON.stringify(scheme)}`, 'ABS_ERR_USAGE');
  if (values.scheme !== undefined && !values['host-dirs']) throw new AbsError('--scheme applies to --host-dirs only', 'ABS_ERR_USAGE');
  if (values['host-dirs'] && values.url !== undefined) throw new AbsError('--host-dirs takes each URL from the path; --url names one for all', 'ABS_ERR_USAGE');
  if (positionals.length > 1 || (await isDirectory(positionals[0]))) {
    const input = positionals[0]!;
    if (values.output === undefined) {
      throw new AbsError(positionals.length > 1 ? `several inputs: give -o DIR for the rewritten files` : `${input} is a directory: give -o DIR for the rewritten tree`, 'ABS_ERR_USAGE');
    }
    // --type: every file is of that type (a Maildir's messages have no extension); otherwise by extension.
    const every = parseTypeOption(values.type);
    const { directoryCommand } = await import('./directory-command.ts');
    return directoryCommand(
      {
        inputs: positionals,
        output: values.output,
        url: values.url,
        root: values.root,
        hostDirs: values['host-dirs'] ? scheme : null,
        links: values.links,
        jobs: values.jobs,
        every: every === 'auto' ? null : every,
        settings: settingsOf(values, charset),
      },
      io,
    );
  }
  const input = positionals[0] ?? '-';
  if (values.jobs !== undefined) throw new AbsError('--jobs applies to a directory or several inputs only', 'ABS_ERR_USAGE');
  if (values['host-dirs']) throw new AbsError('--host-dirs applies to a directory INPUT only', 'ABS_ERR_USAGE');
  const type = inputType(values.type, input);
  if (type === 'mbox' || type === 'mime') tuneForMail();
  await checkOutputs(input, values);
  const reportOnly = values.links === '-' && values.output === undefined;

  // Set up: links report, output, rewriter.
  const started = performance.now();
  const documentName = input;
  let links: LinkSink | null = null;
  if (values.links === '-') {
    links = { write: (l) => io.stdout.write(l), close: async () => {}, abort: async () => {} };
  } else if (values.links !== undefined) {
    const file = createAtomicFile(values.links);
    links = { write: (l) => file.stream.write(l), close: () => file.commit(), abort: () => file.abort() };
  }
  // `part`: null for HTML and CSS; the MIME section path ("2.1") in a message; "MESSAGE:PATH" in an mbox
  // ("3:2.1" is part 2.1 of the third message).
  let rewriter: Duplex;
  let rewritten: () => Promise<number>;
  let records: () => Promise<number>;
  const reporter = reporterOf(io);
  let warnings = 0;
  // Loaded here, not at start-up: a WARC run's reading thread (above) needs no rewriter (~60 ms of CPU).
  const { createDocumentRewriter } = await import('../batch/rewriters.ts');
  try {
    const documentRewriter = createDocumentRewriter(type, settingsOf(values, charset), {
      onReference: links === null ? undefined : (r, part) => links.write(linkLine(documentName, r, part)),
      onWarning: (w, part) => {
        warnings++;
        if (reporter !== undefined) reporter.warning(warningRecord(documentName, w, part));
        else io.stderr.write(warningLine(documentName, w, part));
      },
      onBase: values.explain ? (d, what) => explain(io, what === null ? documentName : `${documentName} ${what}`, d) : undefined,
      onEncoding: values.explain ? (e, what) => explainEncoding(io, what === null ? documentName : `${documentName} ${what}`, e, what === null ? '--charset' : "the part's Content-Type charset") : undefined,
    });
    rewriter = documentRewriter.stream;
    rewritten = async () => (await documentRewriter.stats()).rewritten;
    records = async () => (await documentRewriter.stats()).records;
  } catch (err) {
    await links?.abort();
    throw err;
  }

  let output: AtomicFile | null = null;
  let sink: Writable;
  if (reportOnly) sink = new Writable({ write: (_c, _e, cb) => cb() });
  else if (values.output !== undefined) {
    output = createAtomicFile(values.output);
    sink = output.stream;
  } else sink = io.stdout as Writable;

  // The first bytes, for a hint if the input was taken for HTML by default and is something else (hints.ts).
  const prefix = new PrefixKeeper();
  // Open the input before anything is created, so that a missing input leaves no output behind.
  let source: Readable;
  let total: number | null = input === '-' ? sizeOfStandardInput(io) : null;
  try {
    if (input === '-') source = io.stdin as Readable;
    else {
      const handle = await open(input, 'r');
      const st = await handle.stat();
      total = st.isFile() ? st.size : null;
      source = handle.createReadStream();
    }
  } catch (err) {
    await output?.abort();
    await links?.abort();
    report(io, 'error', 'ABS_ERR_INPUT', `${documentName}: ${(err as Error).message}`);
    return EXIT_INPUT;
  }
  let sinkFailedFirst: boolean | null = null;
  try {
    sink.once('error', () => (sinkFailedFirst ??= true));
    source.once('error', () => (sinkFailedFirst ??= false));
    await pipeline(source, progressCounter(io, total, type, rewriter), prefix, rewriter, sink, { end: sink !== io.stdout });
  } catch (err) {
    await output?.abort();
    await links?.abort();
    const e = err as NodeJS.ErrnoException;
    if (sinkFailedFirst === true && output !== null) {
      report(io, 'error', 'ABS_ERR_OUTPUT', `-o ${values.output}: ${e.code ?? e.message}`);
      return EXIT_INPUT;
    }
    if (e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'EISDIR') {
      report(io, 'error', 'ABS_ERR_INPUT', `${documentName}: ${e.message}`);
      return EXIT_INPUT;
    }
    throw err;
  }
  if (!(await commitOutputs(io, output, links))) return EXIT_INPUT;
  // A run over more than one document (the messages of an mbox) ends with a summary line, as a directory run does.
  const n = await records();
  if (n > 1) {
    const seconds = (performance.now() - started) / 1000;
    io.stderr.write(`absolutize: ${thousands(n)} ${type === 'mbox' ? 'messages' : 'documents'}, ${thousands(await rewritten())} references rewritten, ${thousands(warnings)} warning${warnings === 1 ? '' : 's'} in ${seconds.toFixed(1)} s\n`);
  }
  if (values.type === 'auto' && type === 'html') {
    const hint = typeHint(documentName, prefix.prefix, await rewritten());
    if (hint !== null) printHint(io, hint);
  }
  return EXIT_OK;
}

/** The size of standard input where it is a regular file (`absolutize < big.html`), for the progress line. */
function sizeOfStandardInput(io: CliIo): number | null {
  const fd = (io.stdin as { fd?: number }).fd;
  if (fd === undefined) return null;
  try {
    const st = fstatSync(fd);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

/**
 * A pass-through that counts the bytes read, for the progress line of one document (reporter.ts: on a terminal,
 * once the run is PROGRESS_DELAY_MS old): bytes of the total, rate, time left, and an mbox's messages so far.
 */
function progressCounter(io: CliIo, total: number | null, type: DocumentType, rewriter: Duplex): Transform {
  const reporter = reporterOf(io);
  const started = performance.now();
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (reporter?.showsProgress === true) {
        const messages = type === 'mbox' ? (rewriter as { messages?: number }).messages : undefined;
        reporter.progress(progressText({ bytes, total, started, count: messages === undefined ? undefined : { n: messages, noun: 'messages' } }));
      }
      callback(null, chunk);
    },
  });
}

function inputType(value: string, input: string): DocumentType {
  const type = parseTypeOption(value);
  return type !== 'auto' ? type : (typeOfName(input) ?? 'html');
}

/**
 * `-o OUT` for one input: OUT itself, or — when OUT ends in "/" or is a directory — OUT/NAME-OF-INPUT, the
 * directory made if missing (only once the input is known to be there, so that a typo leaves nothing behind).
 */
async function outputInDirectory(input: string, output: string): Promise<string> {
  const slash = output.endsWith('/') || output.endsWith(sep);
  if (!slash && !(await isDirectory(output))) return output;
  if (input === '-') throw new AbsError(`-o ${output} is a directory: standard input has no name to write under; give -o FILE`, 'ABS_ERR_USAGE');
  try {
    await stat(input);
  } catch (err) {
    throw new AbsError(`${input}: ${(err as Error).message}`, 'ABS_ERR_INPUT');
  }
  try {
    await mkdir(output, { recursive: true });
  } catch (err) {
    throw new AbsError(`-o ${output}: ${(err as Error).message}`, 'ABS_ERR_OUTPUT');
  }
  return join(output, basename(input));
}

async function isFile(input: string | undefined): Promise<boolean> {
  if (input === undefined || input === '-') return false;
  return (await stat(input).catch(() => null))?.isFile() === true;
}

/** The rewrite options of the one-document command, as plain data (what each job of a batch gets too). */
export function settingsOf(
  values: { url?: string | undefined; base?: string | undefined; resolver: string; explain: boolean; 'exact-base': boolean; fragments: boolean; 'lazy-load': boolean; 'content-location': boolean; 'warc-output'?: string | undefined; 'link-keys'?: boolean | undefined; 'warc-header-references'?: boolean | undefined; 'http-content-location'?: boolean | undefined },
  charset: string | undefined,
): RewriteSettings {
  const warcOutput = values['warc-output'];
  if (warcOutput !== undefined && warcOutput !== 'replace' && warcOutput !== 'conversion') throw new AbsError(`--warc-output must be replace or conversion, not ${JSON.stringify(warcOutput)}`, 'ABS_ERR_USAGE');
  return {
    warcOutput,
    linkKeys: values['link-keys'],
    warcHeaderReferences: values['warc-header-references'],
    httpContentLocation: values['http-content-location'],
    url: values.url ?? null,
    base: values.base ?? null,
    resolver: parseResolverName(values.resolver),
    charset,
    explain: values.explain,
    exactBase: values['exact-base'],
    fragments: values.fragments,
    lazyLoad: values['lazy-load'],
    contentLocation: values['content-location'],
  };
}

/**
 * Outputs are checked against the input and each other before anything is written (SPEC §7): for every one-input
 * command, a crawl's too (`-o crawl.warc.gz` over its input, or `--links` over it, once replaced the input).
 */
async function checkOutputs(input: string, values: { output?: string | undefined; links?: string | undefined }): Promise<void> {
  if (values.output !== undefined && input !== '-' && (await samePath(input, values.output))) {
    throw new AbsError(`-o ${values.output} is the input: absolutize never writes over its input`, 'ABS_ERR_USAGE');
  }
  if (values.links !== undefined && values.links !== '-') {
    if (input !== '-' && (await samePath(input, values.links))) throw new AbsError(`--links ${values.links} is the input: absolutize never writes over its input`, 'ABS_ERR_USAGE');
    if (values.output !== undefined && (await samePath(values.output, values.links))) throw new AbsError(`--links ${values.links} and -o ${values.output} are one file: give each its own`, 'ABS_ERR_USAGE');
  }
  if (values.output !== undefined) await checkOutputPath(values.output, '-o');
  if (values.links !== undefined && values.links !== '-') await checkOutputPath(values.links, '--links');
}

async function samePath(a: string, b: string): Promise<boolean> {
  const real = async (p: string): Promise<string> => realpath(p).catch(() => resolvePath(p));
  return (await real(a)) === (await real(b));
}

/** `--explain`: the base decision and the chain beneath it, one layer a line. */
export function explain(io: CliIo, document: string, decision: BaseDecision): void {
  const lines = [`absolutize: base of ${document}: ${decision.url ?? '(none)'} [${decision.source}]`];
  for (let d: BaseDecision | null = decision; d !== null; d = d.below) {
    lines.push(`  ${d.source}: ${d.url ?? '(none)'}${d.raw !== null && d.raw !== d.url ? ` (written ${JSON.stringify(d.raw)})` : ''}`);
    if (d.redirects !== undefined) for (const r of d.redirects) lines.push(`    redirected from ${r}`);
  }
  for (const i of decision.ignored) lines.push(`  ignored ${i.source} ${JSON.stringify(i.raw)}: ${i.reason}`);
  io.stderr.write(`${lines.join('\n')}\n`);
}
