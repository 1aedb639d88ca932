/**
 * Every buffer's limit: name, unit, default, and what happens past it. Users may lower or raise each one;
 * values are validated (a limit is a positive safe integer), never `value || DEFAULT`.
 */
import { AbsError } from './errors.ts';

export interface Limits {
  /**
   * Bytes of a document held back while looking for the first `<base href>` (SPEC §4). Past it the rewriter
   * commits to the base known so far, writes what it held, and warns (`base-lookahead-limit`).
   * Threat: a document whose head never ends would otherwise be held whole. Cost: the held bytes, once.
   * Evidence: in the 258 real pages of htmlparser-benchmark the first `</head>` or `<body>` comes at 7.2 KiB
   * (median) and 71 KiB at the latest (`scripts/head-offsets.py`).
   * @default 1048576 (1 MiB)
   */
  readonly maxBaseLookaheadBytes: number;
  /**
   * Bytes held with `exactBase` (the whole document, to honour a `<base href>` wherever it is). Past it the
   * rewriter commits as with `maxBaseLookaheadBytes` and warns.
   * @default 268435456 (256 MiB)
   */
  readonly maxExactBaseBytes: number;
  /**
   * Bytes of an HTML document held back while looking for a charset `<meta>` in its head, when no BOM or transport
   * charset decided the encoding (Chromium reads a charset `<meta>` anywhere in the head, not only in the first
   * 1024 bytes: src/encoding/meta-scan.ts). A `<meta>` counts if it ends within this many bytes; past it the
   * document is read in the default encoding and a warning is given (`charset-lookahead-limit`).
   * Threat: a head that never ends would otherwise be held whole. Cost: the held bytes, once. Evidence: as
   * `maxBaseLookaheadBytes` (heads end by 71 KiB in the 258 real pages of htmlparser-benchmark).
   * @default 1048576 (1 MiB)
   */
  readonly maxCharsetLookaheadBytes: number;
  /**
   * Bytes of one token (a tag with its attributes, a comment, a doctype) or of one `<style>` / JSON `<script>`
   * text. parse5 frees its buffer only at token boundaries, so one giant tag or comment is otherwise unbounded.
   * Past it the rest of the document passes through unchanged (`token-limit`).
   * @default 16777216 (16 MiB)
   */
  readonly maxTokenBytes: number;
  /**
   * Elements on the HTML tree builder's stack of open elements (src/html/tokenizer-driver.ts), which decides how
   * the tokenizer reads what follows (foreign content, raw text). Unclosed elements pile up there; past the
   * limit the rest of the document passes through unchanged (`open-elements-limit`). Evidence: the deepest
   * stack in the 258 real pages of htmlparser-benchmark is far below it; Chromium stops nesting the DOM at 512.
   * @default 65536
   */
  readonly maxOpenElements: number;
  /**
   * Nesting depth of `iframe srcdoc` documents rewritten inside one another. Deeper ones pass through.
   * @default 8
   */
  readonly maxSrcdocDepth: number;
  /**
   * Bytes of one MIME body part (`text/html`, `text/css` parts of mail, MHTML and mbox) held whole to be
   * decoded, rewritten and encoded again. A larger part, in any transfer encoding, is rewritten in bounded pieces
   * as it comes (`src/mime/streamed-part.ts`: quoted-printable and base64 decoded and re-encoded segment by
   * segment, whatever the line length), so no part is too large to rewrite. It also sizes the memory a spool
   * holds before it goes to a temporary file (a part or mbox message whose Content-Length must be rewritten).
   * Cost: a held part takes several times its size while it is rewritten.
   * @default 1048576 (1 MiB)
   */
  readonly maxMimePartBytes: number;
  /**
   * No longer used: base64 parts are rewritten in pieces past `maxMimePartBytes` like every other part (issue
   * 20), and `mime-part-too-large` is no longer given. Accepted, so that existing settings stay valid.
   * @default 67108864 (64 MiB)
   */
  readonly maxMimeBase64PartBytes: number;
  /**
   * Bytes of one MIME header block. Past it the rest of the message, from that header block on, passes through
   * unchanged (`mime-structure-error`); in an mbox, the next message is read as usual.
   * @default 1048576 (1 MiB)
   */
  readonly maxMimeHeaderBytes: number;
  /**
   * Nesting depth of multiparts and encapsulated messages whose parts are rewritten. Parts deeper than that are
   * still read (and reported) but pass through unchanged (`mime-depth-limit`).
   * @default 32
   */
  readonly maxMimeDepth: number;
  /**
   * Nesting depth to which the MIME structure is read at all. A multipart or message this deep is one opaque
   * part (`mime-depth-limit`): no delimiter inside it is looked for. Threat: every line that begins with "--" is
   * compared with the boundary of every enclosing multipart, so nesting costs time per line.
   * @default 256
   */
  readonly maxMimeStructureDepth: number;
  /**
   * Bytes of one line held until its end to tell what it is: a line that begins like a boundary delimiter
   * (`--boundary` then transport padding) or, in an mbox, a line that begins with "From ". Past it, the line is
   * taken for text (not a delimiter, not a From_ line). Body lines are never held.
   * @default 16777216 (16 MiB)
   */
  readonly maxMimeLineBytes: number;
  /**
   * Bytes of an mbox message held to check its `Content-Length` (mboxcl2): from a line inside the length that
   * would otherwise start a message, to the end of the length. Past it the length is ignored (`mbox-content-length`).
   * @default 67108864 (64 MiB)
   */
  readonly maxMboxContentLengthBytes: number;
  /**
   * Bytes of a JavaScript module or web app manifest held whole to be rewritten (es-module-lexer and the JSON
   * reader need the whole text). A larger one passes through unchanged (`document-too-large`).
   * Threat: a huge script held in memory; cost: about three times this while it is rewritten (bytes, text, output).
   * @default 67108864 (64 MiB)
   */
  readonly maxWholeTextBytes: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxBaseLookaheadBytes: 1 << 20,
  maxExactBaseBytes: 1 << 28,
  maxCharsetLookaheadBytes: 1 << 20,
  maxTokenBytes: 1 << 24,
  maxOpenElements: 1 << 16,
  maxSrcdocDepth: 8,
  maxMimePartBytes: 1 << 20,
  maxMimeBase64PartBytes: 1 << 26,
  maxMimeHeaderBytes: 1 << 20,
  maxMimeDepth: 32,
  maxMimeStructureDepth: 256,
  maxMimeLineBytes: 1 << 24,
  maxMboxContentLengthBytes: 1 << 26,
  maxWholeTextBytes: 1 << 26,
});

/** Merges user limits over the defaults, validating each: a positive safe integer. */
export function resolveLimits(user: Partial<Limits> | undefined): Limits {
  return mergeLimits(DEFAULT_LIMITS, user);
}

/** Merges user limits over `defaults`, validating each: a positive safe integer. */
function mergeLimits<T extends object>(defaults: T, user: { readonly [K in keyof T]?: T[K] | undefined } | undefined): T {
  if (user === undefined) return defaults;
  const out: Record<string, number> = { ...(defaults as Record<string, number>) };
  for (const [name, value] of Object.entries(user)) {
    if (!(name in defaults)) throw new AbsError(`unknown limit ${JSON.stringify(name)}`, 'ABS_ERR_INVALID_OPTION');
    if (value === undefined) continue;
    // A limit that is off by default (Infinity, e.g. deadlineMs) may be given as off again (resolved limits
    // passed back in).
    if (value === Infinity && (defaults as Record<string, number>)[name] === Infinity) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new AbsError(`limit ${name} must be a positive integer, not ${String(value)}`, 'ABS_ERR_INVALID_OPTION');
    }
    out[name] = value;
  }
  return out as unknown as T;
}

/**
 * Limits of HTTP retrieval (src/http, SPEC §6). Timeouts are in milliseconds, sizes in bytes. Past a size limit
 * the rest is not downloaded and the document is reported incomplete (`LimitExceededError`); it is never
 * passed off as whole. Past a timeout the retrieval fails (`ABS_ERR_HTTP_TIMEOUT`).
 */
export interface HttpLimits {
  /**
   * Redirects followed for one URL; the next one fails the retrieval. The Fetch standard's limit (20).
   * @default 20
   */
  readonly maxRedirects: number;
  /**
   * Milliseconds to establish a connection (TCP, and TLS for https). undici's default.
   * @default 10000 (10 s)
   */
  readonly connectTimeoutMs: number;
  /**
   * Milliseconds from sending a request to receiving the complete response headers.
   * Threat: a server that accepts and never answers holds a connection and a concurrency slot.
   * @default 30000 (30 s)
   */
  readonly headersTimeoutMs: number;
  /**
   * Milliseconds the body may stall: the longest wait between two chunks (not the whole download, which
   * `maxBodyBytes` bounds instead).
   * @default 30000 (30 s)
   */
  readonly bodyTimeoutMs: number;
  /**
   * Bytes of one response body as transferred (before content decoding). Past it the download stops.
   * Threat: an endless or huge response fills the disk. Cost: none held in memory (streamed); the bytes on disk.
   * Evidence: HTML pages are typically tens of KiB; a document of 64 MiB is far beyond any real page.
   * @default 67108864 (64 MiB)
   */
  readonly maxBodyBytes: number;
  /**
   * Bytes of one body after content decoding (gzip, deflate, br). Past it the download stops.
   * Threat: a decompression bomb (gzip expands up to ~1000×, brotli far more: 1 MiB of br can decode to GiBs).
   * @default 268435456 (256 MiB)
   */
  readonly maxDecompressedBytes: number;
  /**
   * URLs retrieved at the same time in a batch.
   * @default 8
   */
  readonly maxConcurrentRequests: number;
  /**
   * Connections (so requests in flight) to one origin (scheme, host and port) at a time: the `connections`
   * option of the one undici Agent, and the batch scheduler's per-host limit.
   * @default 2
   */
  readonly maxConnectionsPerOrigin: number;
  /**
   * Milliseconds for the whole retrieval of one URL: every redirect, the headers and the body, from the first
   * request to the body's last byte. Past it the retrieval fails (`ABS_ERR_HTTP_TIMEOUT`) and the document is
   * incomplete. Threat: a server that trickles a byte just inside `bodyTimeoutMs`, or redirects slowly,
   * holds a slot without end; the other timeouts bound one wait each, this bounds their sum.
   * @default Infinity (none; a value above 2³¹−1 ms is none too)
   */
  readonly deadlineMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = Object.freeze({
  maxRedirects: 20,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  maxBodyBytes: 1 << 26,
  maxDecompressedBytes: 1 << 28,
  maxConcurrentRequests: 8,
  maxConnectionsPerOrigin: 2,
  deadlineMs: Infinity,
});

/** Merges user HTTP limits over the defaults, validating each: a positive safe integer. */
export function resolveHttpLimits(user: { readonly [K in keyof HttpLimits]?: number | undefined } | undefined): HttpLimits {
  return mergeLimits(DEFAULT_HTTP_LIMITS, user);
}

/**
 * Limits of batch work (src/batch: directories, several files, URL lists, `absolutize batch` manifests). They
 * bound what a batch holds however long its input list is.
 */
export interface BatchLimits {
  /**
   * Inputs read ahead of the running ones (the scheduler's window): the memory of the intake is this many
   * short records, whatever the length of the list.
   * @default 4096
   */
  readonly window: number;
  /**
   * The longest line of a manifest or URL list.
   * Threat: a list with no line feeds would otherwise be held whole.
   * @default 65536
   */
  readonly maxLineBytes: number;
}

export const BATCH_LIMITS: BatchLimits = Object.freeze({
  window: 4096,
  maxLineBytes: 1 << 16,
});

// ---- WARC and ARC (src/warc) ----

/** What the WARC/ARC reader holds at once: one record (or gzip member) and its header. */
export interface WarcLimits {
  /**
   * Bytes of one record as held: its gzip member, and the record inflated (a member is inflated whole; a plain
   * record's block is read whole). Past it a record of an uncompressed file is copied through in pieces as it
   * comes (not rewritten); a gzip member fails the run with a LimitExceededError (ABS_ERR_LIMIT). A record is
   * never cut. Threat: a decompression bomb or a huge capture (a video) held in memory. Cost: up to about four
   * times this for the record being rewritten (raw, inflated, decoded, rewritten).
   * Evidence: HTML pages are typically tens of KiB; Common Crawl truncates payloads at 1 MiB, Heritrix at 100 MiB
   * by default (`maxLengthBytes`).
   * @default 134217728 (128 MiB)
   */
  readonly maxWarcRecordBytes: number;
  /**
   * Bytes of one WARC header block (or ARC header line) of an uncompressed file. A header with no end within it
   * is copied as a gap and reading resumes at the next `WARC/1.` line. Inside a gzip member, held whole already
   * (maxWarcRecordBytes), a header is read whatever its length. Evidence: real WARC headers are under 2 KiB.
   * @default 65536 (64 KiB)
   */
  readonly maxWarcHeaderBytes: number;
  /**
   * Rewritten records remembered (id, Target-URI and date, payload digest) so that a later revisit of one is
   * reported (`revisitOfRewritten`). Past it revisits of later records are not, with one warning.
   * Cost: about 400 bytes a record. Evidence: a 1 GB crawl WARC holds some 10^4–10^5 responses.
   * @default 1000000
   */
  readonly maxWarcRevisitIndex: number;
  /**
   * Replaced records remembered in the `replace` model (original WARC-Record-ID → the replacement's id, payload
   * digest and length), so that a later record that names the original (`WARC-Concurrent-To`, `WARC-Refers-To`)
   * is written naming the replacement. Past it, later references are copied as they are, with one warning.
   * Cost: about 250 bytes a record. Evidence: a 1 GB crawl WARC holds some 10^4–10^5 responses.
   * @default 1000000
   */
  readonly maxWarcReplacedIds: number;
}

export const DEFAULT_WARC_LIMITS: WarcLimits = Object.freeze({
  maxWarcRecordBytes: 1 << 27,
  maxWarcHeaderBytes: 1 << 16,
  maxWarcRevisitIndex: 1_000_000,
  maxWarcReplacedIds: 1_000_000,
});

/** Merges user WARC limits over the defaults, validating each: a positive safe integer. */
export function resolveWarcLimits(user: { readonly [K in keyof WarcLimits]?: number | undefined } | undefined): WarcLimits {
  return mergeLimits(DEFAULT_WARC_LIMITS, user);
}
