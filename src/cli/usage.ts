/**
 * The command's help texts and option tables, apart from the commands that use them: `--help` and `--version`
 * load this module and nothing of the rewriters, the HTTP client or the crawl reader (start-up, docs/performance.md).
 */
import { DEFAULT_HTTP_LIMITS } from '../limits.ts';

/** Warnings of one code shown in full before the rest are only counted. */
export const WARNINGS_SHOWN_PER_CODE = 5;
/** A run shorter than this shows no progress line. */
export const PROGRESS_DELAY_MS = 2000;
type StringOption = { readonly type: 'string' };
type FlagOption = { readonly type: 'boolean'; readonly default: false };

/** The HTTP options of retrieval: the URL path's, and `absolutize batch`'s for a manifest's URL lines. */
export const HTTP_OPTIONS: {
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
  readonly deadline: StringOption;
} = {
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
  deadline: { type: 'string' },
} as const;

/** The options of URL retrieval, merged into the main command's. */
export const FETCH_OPTIONS: typeof HTTP_OPTIONS & { readonly 'input-list': StringOption } = {
  'input-list': { type: 'string' },
  ...HTTP_OPTIONS,
} as const;

/** The help of HTTP_OPTIONS. */
export const HTTP_HELP: string = `  --http-content-location honour the response's Content-Location / Content-Base as a base
  --keep-error-bodies     write the body of a 4xx/5xx response too (still reported as failed)
  --refuse-private-addresses  refuse loopback, private and link-local addresses
  --max-redirects N       redirects followed (default ${DEFAULT_HTTP_LIMITS.maxRedirects})
  --connect-timeout MS    connection timeout (default ${DEFAULT_HTTP_LIMITS.connectTimeoutMs})
  --headers-timeout MS    wait for the response headers (default ${DEFAULT_HTTP_LIMITS.headersTimeoutMs})
  --body-timeout MS       longest stall while the body arrives (default ${DEFAULT_HTTP_LIMITS.bodyTimeoutMs})
  --max-body-size BYTES   body as transferred (default ${DEFAULT_HTTP_LIMITS.maxBodyBytes})
  --max-decompressed-size BYTES  body after gzip/deflate/br decoding (default ${DEFAULT_HTTP_LIMITS.maxDecompressedBytes})
  --concurrency N         URLs retrieved at once (default ${DEFAULT_HTTP_LIMITS.maxConcurrentRequests})
  --per-host N            of which to one host (default ${DEFAULT_HTTP_LIMITS.maxConnectionsPerOrigin})
  --deadline MS           whole retrieval of one URL: redirects, headers and body (default none)
`;

export const FETCH_HELP: string = `
Fetching URLs (INPUT is an http: or https: URL; several URLs, or --input-list, need -o DIR):
  --input-list FILE       read URLs from FILE, one a line (blank lines and # comments skipped); a line that
                          is no URL, not UTF-8 or over 64 KiB is one failure, the other lines are still tried
  -o DIR                  with several URLs: one file per URL, named from its final URL
${HTTP_HELP}`;

/** The options only WARC input takes (merged into the main command's parseArgs table). */
export const WARC_OPTIONS = {
  'warc-output': { type: 'string' },
  'link-keys': { type: 'boolean', default: false },
  'warc-header-references': { type: 'boolean', default: false },
} as const;

export const WARC_HELP = `WARC and ARC (crawl files; .warc, .arc, .warc.gz, .arc.gz, or --type warc):
  absolutize crawl.warc.gz -o out.warc.gz [--links links.jsonl]
  absolutize crawl.warc.gz --links -          report only (one JSON line per reference, redirect, record)
  absolutize old.arc.gz -o out.warc.gz        ARC in, WARC out
  absolutize crawl.warc.gz -o - | …           the WARC on standard output
  --links FILE.gz         the report gzip-compressed
  A damaged crawl (cut short, corrupt members) is salvaged: every whole record is written, the damage kept in
  metadata records, and the exit status is 3 (partial).
  --warc-output MODEL     replace (default: the rewritten response replaces the original, with a metadata
                          record naming it) or conversion (every original kept, a conversion record added)
  --warc-header-references
                          also rewrite the Link, Refresh and Content-Location headers of response records
                          copied for their payload (an image, a redirect): such a record is replaced too
                          (replace output; header references are reported in every case)
  --link-keys             add "surt" and "normalized" (RFC 3986 §6) keys to reference and redirect lines
`;

export const MAIN_HELP: string = `Usage: absolutize [INPUT] [options]          one document (none or "-": stdin)
       absolutize DIR -o OUTDIR [options]    a tree: a mirror, a Maildir
       absolutize FILE... -o OUTDIR [options]
       absolutize URL... [-o FILE|DIR] [options]
       absolutize batch MANIFEST -o OUTDIR   (absolutize batch --help)
       absolutize batch-report OUTDIR        (absolutize batch-report --help)
       absolutize resolve -b BASE REF...     (absolutize resolve --help)

Rewrites every relative URL reference of an HTML or CSS document, a mail message, an MHTML file, an mbox
archive or a WARC/ARC crawl to absolute form, leaving every other byte as it was. Writes standard output or
-o OUT. A directory is rewritten into OUTDIR as a whole tree: each file typed by its extension, else by its
content as a browser sniffs it (HTML, CSS; every file as --type says, with --type); other files are copied.

Options:
  -u, --url URL           the URL the document was retrieved from (its own URL);
                          for DIR or FILE...: the URL of DIR (or of --root)
  -b, --base URL          fallback base when nothing else gives one
  -o, --output FILE|DIR   write here (atomically), never over INPUT; a name that ends in "/" (or an existing
                          directory) is a directory: the output is DIR/NAME-OF-INPUT
  -t, --type TYPE         html, css, mime (mail, MHTML), mbox, warc, svg, xhtml,
                          feed (Atom/RSS), sitemap, xml (the root decides),
                          manifest (web app manifest), js (JavaScript module)
                          or auto (default: by extension — .css, .eml/.mht/.mhtml,
                          .mbox, .warc/.arc[.gz], .svg, .xhtml, .atom, .rss, .xml,
                          .webmanifest, .mjs, .js — else by content, else html)
  -l, --links FILE|-      write one JSON line per reference; "-" without -o prints only the report
  -e, --explain           print the base decision and its chain to standard error
  -q, --quiet             errors only: no warnings, hints, progress or summary
      --warnings FILE     write every warning as a JSON line (standard error shows the first
                          ${WARNINGS_SHOWN_PER_CODE} of each code, then a count per code)
  -j, --jobs N            DIR, FILE...: files rewritten at once (default: the number of cores)
      --root DIR          FILE... with --url: each file's URL is --url plus its path below DIR
                          (default: the current directory)
      --host-dirs         DIR is a wget/HTTrack mirror: its first directories are hosts
                          (DIR/example.com/a.html is https://example.com/a.html; a "?" in a name
                          starts the query; --scheme http for http:)
      --resolver NAME     browser (WHATWG URL, as Chromium; default) or rfc3986
      --charset LABEL     the document's encoding, as a transport charset would say (beats <meta>)
      --exact-base        hold the whole document so that a late <base href> is honoured exactly
      --fragments         absolutize fragment-only references (href="#x") too
      --lazy-load         also rewrite data-src, data-srcset and data-original
      --content-location  mail/MHTML: also write relative Content-Location headers as absolute URLs
  -h, --help              this help
  -V, --version           print the version

On a terminal, a run longer than ${PROGRESS_DELAY_MS / 1000} s shows a progress line (bytes of the total, rate, time
left); a run over more than one document or record ends with a summary line.
${FETCH_HELP}
${WARC_HELP}
Exit status: 0 success, 1 an input could not be processed, 2 usage error.

Examples:
  absolutize page.html -u https://example.com/docs/page.html -o page.abs.html
  curl -s https://example.com/ | absolutize -u https://example.com/ -l -
  absolutize style.css -t css -u https://example.com/css/style.css
  absolutize saved.mhtml --explain -o saved.abs.mhtml
  absolutize archive.mbox -b thismessage:/ -l links.jsonl -o archive.abs.mbox
  absolutize mirror/example.com/ -u https://example.com/ -o offline/
  absolutize mirror/ --host-dirs -o offline/ -q --warnings warnings.jsonl
  absolutize site/*.html -u https://example.com/ --root site -o out/
  absolutize https://example.com/docs/ --explain -o page.html
  absolutize --input-list urls.txt -o mirror/ -l links.jsonl
  absolutize resolve -b https://example.com/a/b ../c
`;

