/**
 * `absolutize [INPUT] [-o OUT] --url URL --base URL --type html|css|auto ...`: the main job (SPEC §7).
 * A Unix filter (stdin → stdout) or a file tool; the output is written atomically.
 */
import { open, realpath } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { Writable } from 'node:stream';
import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BaseDecision } from '../base/base.ts';
import { linkLine, warningLine } from '../batch/report-lines.ts';
import { createDocumentRewriter, parseTypeOption, typeOfName } from '../batch/rewriters.ts';
import type { DocumentType, RewriteSettings } from '../batch/rewriters.ts';
import { AbsError } from '../errors.ts';
import { CONTENT_KINDS } from '../kinds/index.ts';
import { getResolver } from '../uri/index.ts';
import { checkOutputPath, commitOutputs, createAtomicFile } from './atomic-file.ts';
import { explainEncoding } from './explain-encoding.ts';
import { PrefixKeeper, printHint, typeHint } from './hints.ts';
import { directoryCommand, isDirectory } from './directory-command.ts';
import { FETCH_HELP, FETCH_OPTIONS, fetchCommand, isFetchInvocation } from './fetch-command.ts';
import type { AtomicFile, LinkSink } from './atomic-file.ts';
import { EXIT_INPUT, EXIT_OK, report } from './io.ts';
import type { CliIo } from './io.ts';
import { parseCommandLine, parseResolverName, validateEncodingLabel } from './options.ts';
import { WARC_HELP, WARC_OPTIONS, isWarcFile, isWarcName, warcCommand, warcPassOn } from './warc-command.ts';

export const MAIN_HELP: string = `Usage: absolutize [INPUT] [options]
       absolutize DIR -o OUTDIR [options]
       absolutize FILE... -o OUTDIR [options]
       absolutize batch MANIFEST -o OUTDIR [options]   (see absolutize batch --help)
       absolutize URL... [-o FILE|DIR] [options]

Rewrites every relative URL reference of an HTML or CSS document, a mail message, an MHTML file or an mbox
archive to absolute form, leaving every other byte as it was. Reads INPUT (a file; "-" or none: standard
input) and writes standard output or -o OUT. A directory is rewritten into OUTDIR as a whole tree: files
typed by their extension (every file, with --type) are rewritten on all cores; other files are copied as is.

Options:
  --url URL               the URL the document was retrieved from (base layer 4; the document's own URL)
  --base URL              fallback base when nothing else gives one (base layer 5)
  -o, --output FILE       write here (atomically) instead of standard output; never over INPUT
  --type TYPE             html, css, mime (mail, MHTML), mbox, warc, svg, xhtml, feed (Atom/RSS), sitemap,
                          xml (the root element decides), manifest (web app manifest), js (JavaScript module)
                          or auto (default: from the file extension — .css, .eml/.mht/.mhtml, .mbox,
                          .warc/.arc[.gz] or WARC/ARC bytes, .svg, .xhtml, .atom, .rss, .xml, .webmanifest,
                          .mjs, .js — else html)
  --resolver NAME         browser (WHATWG URL, as Chromium; default) or rfc3986
  --charset LABEL         the document's encoding, as a transport charset would say (beats <meta>)
  --links FILE|-          write one JSON line per reference; "-" without -o prints only the report
  --explain               print the base decision and its chain to standard error
  --exact-base            hold the whole document so that a late <base href> is honoured exactly
  --fragments             absolutize fragment-only references (href="#x") too
  --lazy-load             also rewrite data-src, data-srcset and data-original
  --content-location      mail/MHTML: also write relative Content-Location headers as absolute URLs
  --jobs N                DIR, FILE...: files rewritten at once (default: the number of cores)
  --host-dirs             DIR is a wget/HTTrack mirror: its first directories are hosts
                          (DIR/example.com/a.html is https://example.com/a.html; --scheme http for http:)
  -h, --help              this help
  -V, --version           print the version

${FETCH_HELP}
${WARC_HELP}
Exit status: 0 success, 1 an input could not be processed, 2 usage error.

Examples:
  absolutize page.html --url https://example.com/docs/page.html -o page.abs.html
  curl -s https://example.com/ | absolutize --url https://example.com/ --links - > links.jsonl
  absolutize style.css --type css --url https://example.com/css/style.css
  absolutize saved.mhtml --explain -o saved.abs.mhtml
  absolutize archive.mbox --base thismessage:/ --links links.jsonl -o archive.abs.mbox
  absolutize mirror/example.com/ --url https://example.com/ -o offline/ --links links.jsonl
  absolutize https://example.com/docs/ --explain -o page.html
  absolutize --input-list urls.txt -o mirror/ --links links.jsonl
  absolutize resolve --base https://example.com/a/b ../c      (see absolutize resolve --help)
`;

export async function absolutizeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    {
      url: { type: 'string' },
      base: { type: 'string' },
      output: { type: 'string', short: 'o' },
      type: { type: 'string', default: 'auto' },
      resolver: { type: 'string', default: 'browser' },
      charset: { type: 'string' },
      links: { type: 'string' },
      explain: { type: 'boolean', default: false },
      'exact-base': { type: 'boolean', default: false },
      fragments: { type: 'boolean', default: false },
      'lazy-load': { type: 'boolean', default: false },
      'content-location': { type: 'boolean', default: false },
      jobs: { type: 'string' },
      'host-dirs': { type: 'boolean', default: false },
      scheme: { type: 'string' },
      ...FETCH_OPTIONS,
      ...WARC_OPTIONS,
    },
    ['help', 'version'],
  );
  if (isFetchInvocation(positionals, values)) {
    const charset = values.charset === undefined ? undefined : validateEncodingLabel(values.charset);
    return fetchCommand(positionals, values, io, { resolver: getResolver(parseResolverName(values.resolver)), charset });
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
    return directoryCommand(
      {
        inputs: positionals,
        output: values.output,
        url: values.url,
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
  // Outputs are checked against the input and each other before anything is written (SPEC §7).
  if (values.output !== undefined && input !== '-' && (await samePath(input, values.output))) {
    throw new AbsError(`-o ${values.output} is the input: absolutize never writes over its input`, 'ABS_ERR_USAGE');
  }
  if (values.links !== undefined && values.links !== '-') {
    if (input !== '-' && (await samePath(input, values.links))) throw new AbsError(`--links ${values.links} is the input: absolutize never writes over its input`, 'ABS_ERR_USAGE');
    if (values.output !== undefined && (await samePath(values.output, values.links))) throw new AbsError(`--links ${values.links} and -o ${values.output} are one file: give each its own`, 'ABS_ERR_USAGE');
  }
  if (values.output !== undefined) await checkOutputPath(values.output, '-o');
  if (values.links !== undefined && values.links !== '-') await checkOutputPath(values.links, '--links');
  const reportOnly = values.links === '-' && values.output === undefined;

  // Set up: links report, output, rewriter.
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
  try {
    const documentRewriter = createDocumentRewriter(type, settingsOf(values, charset), {
      onReference: links === null ? undefined : (r, part) => links.write(linkLine(documentName, r, part)),
      onWarning: (w, part) => io.stderr.write(warningLine(documentName, w, part)),
      onBase: values.explain ? (d, what) => explain(io, what === null ? documentName : `${documentName} ${what}`, d) : undefined,
      onEncoding: values.explain ? (e, what) => explainEncoding(io, what === null ? documentName : `${documentName} ${what}`, e, what === null ? '--charset' : "the part's Content-Type charset") : undefined,
    });
    rewriter = documentRewriter.stream;
    rewritten = async () => (await documentRewriter.stats()).rewritten;
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
  try {
    source = input === '-' ? (io.stdin as Readable) : (await open(input, 'r')).createReadStream();
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
    await pipeline(source, prefix, rewriter, sink, { end: sink !== io.stdout });
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
  if (values.type === 'auto' && type === 'html') {
    const hint = typeHint(documentName, prefix.prefix, await rewritten());
    if (hint !== null) printHint(io, hint);
  }
  return EXIT_OK;
}

function inputType(value: string, input: string): DocumentType {
  const type = parseTypeOption(value, ['html', 'css', 'mime', 'mbox', ...CONTENT_KINDS]);
  return type !== 'auto' ? type : (typeOfName(input) ?? 'html');
}

/** The rewrite options of the one-document command, as plain data (what each job of a batch gets too). */
export function settingsOf(
  values: { url?: string | undefined; base?: string | undefined; resolver: string; explain: boolean; 'exact-base': boolean; fragments: boolean; 'lazy-load': boolean; 'content-location': boolean; 'warc-output'?: string | undefined; 'link-keys'?: boolean | undefined; 'http-content-location'?: boolean | undefined },
  charset: string | undefined,
): RewriteSettings {
  const warcOutput = values['warc-output'];
  if (warcOutput !== undefined && warcOutput !== 'replace' && warcOutput !== 'conversion') throw new AbsError(`--warc-output must be replace or conversion, not ${JSON.stringify(warcOutput)}`, 'ABS_ERR_USAGE');
  return {
    warcOutput,
    linkKeys: values['link-keys'],
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
