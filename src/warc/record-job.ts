/**
 * The heavy part of rewriting one WARC response: undo the content coding, rewrite the payload through the HTTP
 * response routing (`createResponseRewriter`), build the new records and encode them. Plain data in and out, so
 * that it runs the same inline or in a worker thread (rewrite-worker.ts); nothing here depends on other records.
 */
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import type { BaseDecision } from '../base/base.ts';
import { AbsError } from '../errors.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';
import type { HtmlWarning } from '../html/rewriter.ts';
import type { OutputRoom } from '../html/stream.ts';
import { parseContentEncoding } from '../http/content-decoding.ts';
import { parseContentType } from '../http/content-type.ts';
import type { RewriteKind } from '../http/content-type.ts';
import { looksLikeText, sniffsAsHtml } from '../kinds/sniff.ts';
import type { PayloadKind } from './payload-route.ts';
import type { FetchedDocument } from '../http/fetch.ts';
import { rewriteHeaderReferences } from '../http/header-references.ts';
import type { HeaderReferenceRecord } from '../http/header-references.ts';
import type { Limits } from '../limits.ts';
import { getResolver } from '../uri/index.ts';
import type { ResolverName } from '../uri/types.ts';
import { dechunk, headerText, headerValues, lastHeader, parseHttpHead } from './http-message.ts';
import type { HttpHead } from './http-message.ts';
import { gzipChunkSize } from './gzip-member.ts';
import { RECORD_END, encodeUnit, serializeRecord, sha1Digest, warcDateNow, warcFields } from './writer.ts';

export interface JobOptions {
  readonly output: 'replace' | 'conversion';
  readonly resolver: ResolverName;
  readonly fallback: string | null;
  readonly honourHttpContentLocation: boolean;
  readonly exactBase: boolean;
  readonly absolutizeFragments: boolean;
  readonly lazyLoad: boolean;
  readonly limits: Limits | undefined;
  readonly maxRecordBytes: number;
  /**
   * Whether the result carries the reference records and all three counts (a link report is written); without,
   * only the changed count is made, from the rewriter's statistics.
   */
  readonly references: boolean;
}

export interface RewriteJob {
  readonly block: Uint8Array;
  readonly protocol: string;
  readonly fields: ReadonlyArray<readonly [string, string]>;
  readonly targetUri: string | null;
  readonly id: string | null;
  readonly date: string | null;
  /** From routePayload: `sniff` is HTML if the decoded body sniffs as HTML, else copied. */
  readonly kind: PayloadKind;
  /** Whether the block is an HTTP response (a head, then the payload); else the block is the payload (resource). */
  readonly http: boolean;
  readonly contentType: string | null;
  /** Ids for the new record and its metadata record, made by the caller (in input order). */
  readonly newIds: readonly [string, string];
  readonly compressed: boolean;
  /**
   * The records are built by the caller (`buildRecords`): a worker thread (pool.ts) rewrites the payload and
   * leaves the digests, the records and their deflating to the reader's thread, which otherwise mostly waits for
   * the worker.
   */
  readonly buildLater?: boolean | undefined;
  /**
   * The block's buffer is this job's alone (the inflated data of a gzip member that holds only this record):
   * a worker thread is sent the buffer itself, not a copy, and sends it back in the result (`JobResult.block`).
   */
  readonly lent?: boolean | undefined;
  readonly options: JobOptions;
}

/** A reference of the record: in its payload (`part`: the MIME section path, or null), or in its HTTP head (`header`). */
export interface JobReference {
  readonly reference: ReferenceRecord | HeaderReferenceRecord;
  readonly part: string | null;
  /** A reference of the HTTP head (Link, Refresh, Content-Location): reported with no line and column. */
  readonly header?: true | undefined;
}

export interface Counts {
  rewritten: number;
  unchanged: number;
  unresolvable: number;
}

export interface JobResult {
  readonly action: 'rewritten' | 'copied';
  readonly reason: string;
  readonly warnings: Array<{ code: string; message: string; line?: number | undefined; column?: number | undefined }>;
  readonly references: JobReference[];
  readonly counts: Counts;
  /** The record in the original's place (encoded as the unit was), or null: the original's bytes. */
  readonly replacement: Uint8Array | null;
  /** Records written after it (encoded). */
  readonly after: Uint8Array[];
  /** With `buildLater`, a rewritten payload whose records are still to be built (then replacement and after are empty). */
  readonly payload?: RewrittenPayload | undefined;
  readonly newRecordId: string | null;
  /** `Target-URI digest` keys of the original payload, for revisits. */
  readonly digestKeys: string[];
  /** In `replace`, what records that name the original now name: the replacement's payload digest and length. */
  readonly replaced?: { readonly payloadDigest: string; readonly payloadLength: number } | undefined;
  /**
   * A `lent` job's block, sent back by the worker thread (the job's own view of it is detached by then) when the
   * record is copied; a rewritten record's records are built from what the reader's thread kept (KeptOriginal).
   */
  readonly block?: Uint8Array | undefined;
}

/**
 * What the reader's thread keeps of a block it lends (RewriteJob `lent`): all buildRecords needs of the original,
 * so that a rewritten record's block stays in the worker instead of coming back (the bench crawl's 39 MB of
 * lent blocks adopted again, as external memory, by the reader's thread's heap).
 */
export interface KeptOriginal {
  /** The block's HTTP head (its first bytes up to the empty line), copied; empty for a resource. */
  readonly head: Buffer;
  /** `sha1:` of the block when its record has no WARC-Block-Digest (the metadata record names it). */
  readonly blockDigest: string | undefined;
}

/** What buildRecords needs of a rewritten payload besides the job. */
export interface RewrittenPayload {
  readonly output: Uint8Array;
  /**
   * `output` lies in a buffer of its own with free bytes around it (`recordRoom`): its record is written there
   * (serializeRecord `inRoom`), and a worker thread moves the whole buffer rather than a copy of the output.
   */
  readonly inRoom?: boolean | undefined;
  /** The original payload's SHA-1 (base32), after de-chunking, before content decoding. */
  readonly bodyDigest: string;
  readonly notes: readonly string[];
  readonly base: { readonly url: string | null; readonly source: string | null } | null;
}

const FRAMING_HEADERS = new Set(['transfer-encoding', 'content-encoding', 'content-length']);

function field(fields: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [n, v] of fields) if (n.toLowerCase() === lower) return v;
  return undefined;
}

/**
 * The rewriters, imported when the first job runs: the reader's thread builds records (buildRecords) but, with
 * worker threads, never rewrites, and loading the HTML, CSS and MIME rewriters cost it ~0.06 s of CPU at start
 * (0.21 s against 0.15 s for `node -e "import('./dist/cli/warc-command.js')"`, compile cache off). The MIME
 * rewriters (libmime and its charset tables, ~55 ms of CPU) are imported when the first MIME record comes, which
 * most crawls never hold.
 */
let rewriters: Promise<[typeof import('../html/stream.ts'), typeof import('../http/response-dispatch.ts')]> | undefined;
let mimeRewriters: Promise<typeof import('../mime/stream.ts')> | undefined;

export async function runRewriteJob(job: RewriteJob): Promise<JobResult> {
  const [{ transformWhole }, { dispatchResponse, responseKind }] = await (rewriters ??= Promise.all([import('../html/stream.ts'), import('../http/response-dispatch.ts')]));
  const block = Buffer.from(job.block.buffer, job.block.byteOffset, job.block.byteLength);
  const head = job.http ? parseHttpHead(block)! : null;
  const { targetUri, id, date, options } = job;
  const warnings: JobResult['warnings'] = [];
  const copied = (reason: string, counts: Counts = { rewritten: 0, unchanged: 0, unresolvable: 0 }, references: JobResult['references'] = []): JobResult => ({
    action: 'copied',
    reason,
    warnings,
    references,
    counts,
    replacement: null,
    after: [],
    newRecordId: null,
    digestKeys: [],
  });

  // The payload: de-chunked only if it parses as chunked, then content codings undone.
  const stored = head === null ? block : block.subarray(head.length);
  let body = stored;
  const notes: string[] = [];
  if (head !== null && headerValues(head, 'Transfer-Encoding').some((v) => /chunked/i.test(v))) {
    const plain = dechunk(body);
    if (plain === null) notes.push('Transfer-Encoding: chunked, stored de-chunked');
    else {
      body = plain;
      notes.push('de-chunked');
    }
  }
  let decoded: Buffer;
  let codings: readonly string[] = [];
  try {
    codings = head === null ? [] : parseContentEncoding(lastHeader(head, 'Content-Encoding'));
    decoded = codings.length === 0 ? body : decode(body, codings, options.maxRecordBytes);
    if (codings.length > 0) notes.push(`${codings.join(', ')} decoded`);
  } catch (err) {
    if (!looksLikeText(body)) {
      warnings.push({ code: 'warc-record-not-rewritten', message: `${targetUri ?? '(no Target-URI)'}: ${(err as Error).message}: the record is copied` });
      return copied(`Content-Encoding cannot be decoded (${(err as Error).message}): copied`);
    }
    // A Content-Encoding the crawler already undid (the body stored decoded, the header kept): read as it is,
    // as Python warcio falls back to the raw body when decompression fails.
    const coding = head === null ? '' : (lastHeader(head, 'Content-Encoding') ?? '');
    warnings.push({ code: 'warc-content-encoding-stale', message: `${targetUri ?? '(no Target-URI)'}: Content-Encoding ${coding} does not decode (${(err as Error).message}) and the body is text: read as already decoded` });
    notes.push(`Content-Encoding ${coding} stale: the body was stored decoded`);
    decoded = body;
  }
  let kind: RewriteKind = job.kind === 'sniff' ? 'html' : job.kind;
  if (job.kind === 'sniff') {
    if (!sniffsAsHtml(decoded)) return copied(`${job.contentType === null ? 'no Content-Type' : `Content-Type ${job.contentType}`}, and the body does not sniff as HTML: copied`);
    notes.push('sniffed as HTML');
    kind = 'html';
  }

  const references: JobResult['references'] = [];
  const counts: Counts = { rewritten: 0, unchanged: 0, unresolvable: 0 };
  let base: BaseDecision | null = null;
  const document: FetchedDocument = {
    url: targetUri ?? '',
    requestedUrl: targetUri ?? '',
    chain: [],
    retrieval: { url: targetUri ?? '' },
    status: head?.status ?? 200,
    statusText: head?.statusText ?? '',
    // Header values read as UTF-8 first, as Chromium reads Content-Location and Refresh.
    headers: head === null ? {} : Object.fromEntries(head.fields.map(([n, v]) => [n.toLowerCase(), headerText(v)])),
    contentType: parseContentType(job.contentType),
    contentCodings: [],
    body: Readable.from([]),
  };
  const mime = responseKind(document.contentType, job.kind === 'sniff' ? 'html' : undefined) === 'mime' ? await (mimeRewriters ??= import('../mime/stream.ts')) : null;
  const listen = options.references || mime !== null;
  const rewriter = dispatchResponse(document, {
    ...(job.kind === 'sniff' ? { type: 'html' as const } : {}),
    resolver: getResolver(options.resolver),
    exactBase: options.exactBase,
    absolutizeFragments: options.absolutizeFragments,
    lazyLoad: options.lazyLoad,
    limits: options.limits,
    fallback: options.fallback,
    honourHttpContentLocation: options.honourHttpContentLocation,
    // MIME rewriters pass the part's section path as a second argument. Without a report the counts come from
    // the rewriter's statistics (below): a listener makes the rewriter build a record for every reference, which
    // cost a tenth of the CLI's CPU on the bench crawl (bench/warc.ts jobs).
    onReference: listen ? (((r: ReferenceRecord, part?: string) => {
      if (r.changed) counts.rewritten++;
      else if (r.resolved === null) counts.unresolvable++;
      else counts.unchanged++;
      if (options.references) references.push({ reference: r, part: part ?? null });
    }) as (r: ReferenceRecord) => void) : undefined,
    onWarning: (w: HtmlWarning) => warnings.push({ code: w.code, message: `${targetUri ?? ''}: ${w.message}`, line: w.line, column: w.column }),
    onBase: (d) => {
      base = d;
    },
  }, mime);
  const output = await transformWhole(rewriter.transform!, decoded, recordRoom(job, head));
  // Without a report only the changed count is used (whether the record is replaced, the summary, the metadata
  // record); the statistics' unchanged and unresolvable are not the report's (a reference with a scheme that
  // does not parse is "unchanged" there, "unresolvable" in a record line), so they are not taken.
  if (!listen) counts.rewritten = referenceStats(rewriter.transform!).rewritten;
  if (counts.rewritten === 0) return copied(`nothing to rewrite (${kind})`, counts, references);
  // The HTTP head's own references (Link, Refresh, Content-Location): reported first; rewritten in the
  // replacement's head by buildRecords (a conversion record holds the payload only: reported, not changed).
  if (head !== null) {
    const own = headReferences(block.subarray(0, head.length), targetUri, options.resolver, options.output === 'replace');
    addCounts(counts, own.counts);
    for (const w of own.warnings) warnings.push({ ...w, message: `${targetUri ?? ''}: ${w.message}` });
    if (options.references) references.unshift(...own.references.map((reference) => ({ reference, part: null, header: true as const })));
  }

  const payloadDigest = field(job.fields, 'WARC-Payload-Digest');
  // The original payload's digest, hashed once (the revisit keys and the metadata record both use it): of the
  // bytes after the HTTP head as stored, chunk framing and all, as warcio and the crawlers that write
  // WARC-Payload-Digest compute it; a chunked body's de-chunked digest is a revisit key too.
  const bodyDigest = sha1Digest(stored);
  const digestKeys = [`${targetUri} ${bodyDigest.toLowerCase()}`, ...(body === stored ? [] : [`${targetUri} ${sha1Digest(body).toLowerCase()}`]), ...(payloadDigest === undefined ? [] : [`${targetUri} ${payloadDigest.toLowerCase()}`])];
  const finalBase = base as BaseDecision | null;
  const what = `${kind}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
  const result: JobResult = {
    action: 'rewritten',
    reason: options.output === 'conversion' ? `conversion record added (${what})` : `replaced (${what})`,
    warnings,
    references,
    counts,
    replacement: null,
    after: [],
    newRecordId: job.newIds[0],
    digestKeys,
    payload: { output, inRoom: true, bodyDigest, notes, base: finalBase === null ? null : { url: finalBase.url, source: finalBase.source } },
  };
  return job.buildLater === true ? result : buildRecords(job, result);
}

/**
 * Free bytes to leave around a rewritten payload for its record (transformWhole's `room`): before it, the WARC
 * header and the HTTP head of the new record; after it, the CRLF CRLF that ends it. The header is the input's
 * fields with a new id, Content-Length and digests, and the Target-URI percent-encoded (up to 3 bytes a byte:
 * warcUri); the head is the input's with framing headers renamed and references in Link, Refresh and
 * Content-Location made absolute, which can lengthen them: twice each, and RECORD_HEAD_ROOM_BYTES for what
 * comes in anew. A record that does not fit is copied into a buffer of its own as before.
 */
function recordRoom(job: RewriteJob, head: HttpHead | null): OutputRoom {
  let fields = job.protocol.length + 2;
  for (const [n, v] of job.fields) fields += n.length + v.length + 4;
  return { before: 3 * fields + 2 * (head?.length ?? 0) + RECORD_HEAD_ROOM_BYTES, after: RECORD_END.length };
}

/**
 * The header fields a rewritten record adds or lengthens (ids, two digests, a Content-Length: ~200 bytes) and the
 * HTTP head's new Content-Length and renamed framing headers (~100), with room to spare.
 */
const RECORD_HEAD_ROOM_BYTES = 1024;

/**
 * The records of a rewritten payload (`result.payload`): in `replace` mode the new response (the HTTP head as it
 * was, framing headers renamed, new digests) and its metadata record; in `conversion` mode the conversion record.
 * Encoded as the input's unit was.
 */
export function buildRecords(job: RewriteJob, result: JobResult, kept?: KeptOriginal): JobResult {
  const { payload } = result;
  if (payload === undefined) return result;
  // The head is all of the block read here but for its digest: a lent block's kept head will do.
  const block = kept?.head ?? Buffer.from(job.block.buffer, job.block.byteOffset, job.block.byteLength);
  const output = Buffer.from(payload.output.buffer, payload.output.byteOffset, payload.output.byteLength);
  const { targetUri, id, date, options } = job;
  const [newId, metadataId] = job.newIds;
  const version = job.protocol.startsWith('WARC/') ? job.protocol : 'WARC/1.0';
  const optional = (name: string, value: string | null): Array<[string, string]> => (value === null ? [] : [[name, value]]);
  const encode = (record: Buffer): Buffer => encodeUnit(record, job.compressed);
  const done = { ...result, payload: undefined };
  if (options.output === 'conversion') {
    const digest = sha1Digest(output);
    const conversion = serializeRecord(version, [
      ['WARC-Type', 'conversion'],
      ['WARC-Record-ID', newId],
      ['WARC-Date', date ?? warcDateNow()],
      ...optional('WARC-Target-URI', targetUri === null ? null : warcUri(targetUri)),
      ...optional('WARC-Refers-To', id),
      ['Content-Type', warcContentType(job)],
      ['WARC-Block-Digest', digest],
      ['WARC-Payload-Digest', digest],
    ], output, payload.inRoom === true);
    return { ...done, after: [encode(conversion)] };
  }

  // replace: the HTTP head as it was, framing headers renamed X-Archive-Orig-*, a new Content-Length (a resource:
  // the payload is the block).
  const head = job.http ? parseHttpHead(block)! : null;
  // The head's references are rewritten after the framing rename, in the renamed head parsed anew.
  // The block in two pieces, hashed and then copied once into the record (serializeRecord).
  const newBlock = head === null ? [output] : [headReferences(rewriteHead(block, head, output.length), targetUri, options.resolver, true).output, output];
  const blockDigest = sha1Digest(...newBlock);
  const newPayloadDigest = sha1Digest(output);
  const fields: Array<[string, string]> = [];
  let sawBlock = false;
  let sawPayload = false;
  for (const [n, v] of job.fields) {
    const lower = n.toLowerCase();
    if (lower === 'warc-record-id') fields.push([n, newId]);
    else if (lower === 'warc-block-digest') {
      fields.push([n, blockDigest]);
      sawBlock = true;
    } else if (lower === 'warc-payload-digest') {
      fields.push([n, newPayloadDigest]);
      sawPayload = true;
    } else if (lower === 'warc-target-uri') fields.push([n, warcUri(v)]);
    else fields.push([n, v]);
  }
  if (!sawBlock) fields.push(['WARC-Block-Digest', blockDigest]);
  if (!sawPayload) fields.push(['WARC-Payload-Digest', newPayloadDigest]);
  const metaBlock = warcFields([
    ['absolutize-original-record-id', id],
    ['absolutize-original-block-digest', field(job.fields, 'WARC-Block-Digest') ?? kept?.blockDigest ?? sha1Digest(block)],
    ['absolutize-original-payload-digest', field(job.fields, 'WARC-Payload-Digest') ?? payload.bodyDigest],
    ['absolutize-base', payload.base?.url ?? null],
    ['absolutize-base-source', payload.base?.source ?? null],
    ['absolutize-references-changed', result.counts.rewritten],
    ['absolutize-payload', payload.notes.join('; ') || null],
  ]);
  const metadata = serializeRecord(version, [
    ['WARC-Type', 'metadata'],
    ['WARC-Record-ID', metadataId],
    ['WARC-Date', date ?? warcDateNow()],
    ...optional('WARC-Target-URI', targetUri === null ? null : warcUri(targetUri)),
    ['WARC-Refers-To', newId],
    ['Content-Type', 'application/warc-fields'],
    ['WARC-Block-Digest', sha1Digest(metaBlock)],
  ], metaBlock);
  return { ...done, replacement: encode(serializeRecord(version, fields, newBlock, payload.inRoom === true)), after: [encode(metadata)], replaced: { payloadDigest: newPayloadDigest, payloadLength: output.length } };
}

/**
 * A URI as WARC 1.1 §5.6 allows it in `WARC-Target-URI` (RFC 3986, no angle brackets): the `<…>` wget 1.14
 * wrote around it removed, and each byte a URI cannot hold (space, controls, non-ASCII, `"<>\\^\`{|}`)
 * percent-encoded, as a browser's URL parser would (a raw space in an ARC URL becomes `%20`).
 */
export function warcUri(value: string): string {
  const v = value.trim();
  const bare = v.startsWith('<') && v.endsWith('>') ? v.slice(1, -1) : v;
  // Header values are read one character a byte (Latin-1): each character is one byte of the URI.
  return bare.replace(/[\x00-\x20\x7f-\xff"<>\\^`{|}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * The conversion record's `Content-Type`: the payload's media type as WARC 1.1 needs it (RFC 2045 syntax), never
 * a malformed HTTP header copied: its essence and a valid `charset` parameter, or the rewriter kind's type.
 */
function warcContentType(job: RewriteJob): string {
  const parsed = parseContentType(job.contentType);
  const fallback: Record<string, string> = { html: 'text/html', sniff: 'text/html', xhtml: 'application/xhtml+xml', css: 'text/css', mime: 'message/rfc822' };
  const essence = parsed.essence !== null && !/^(?:unknown\/unknown|application\/unknown|\*\/\*)$/.test(parsed.essence) ? parsed.essence : (fallback[job.kind] ?? 'application/octet-stream');
  const charset = parsed.charset !== undefined && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(parsed.charset) ? `; charset=${parsed.charset}` : '';
  const boundary = parsed.boundary !== undefined ? `; boundary="${parsed.boundary.replace(/["\\]/g, '\\$&')}"` : '';
  return `${essence}${charset}${boundary}`;
}

/**
 * The content codings undone (the codings parseContentEncoding accepted), last applied first, bounded by the
 * record limit. Synchronous: the whole body is here, and zlib's thread pool would only add waits. "deflate" is
 * a zlib stream or, as some servers send it, raw DEFLATE: the first byte decides, as in content-decoding.ts.
 */
function decode(body: Buffer, codings: readonly string[], max: number): Buffer {
  let out = body;
  for (const c of [...codings].reverse()) {
    const options = { maxOutputLength: max };
    out = c === 'br' ? brotliDecompressSync(out, options) : c === 'deflate' ? ((out[0]! & 0x0f) === 0x08 ? inflateSync(out, options) : inflateRawSync(out, options)) : gunzipSync(out, { ...options, chunkSize: gzipChunkSize(out, max) });
  }
  return out;
}

/** The head's bytes with Transfer-Encoding, Content-Encoding and Content-Length renamed X-Archive-Orig-*, and a new Content-Length. */
export function rewriteHead(block: Buffer, head: HttpHead, length: number): Buffer {
  const parts: Buffer[] = [];
  let copied = 0;
  for (const line of head.lines) {
    if (!FRAMING_HEADERS.has(line.name.toLowerCase())) continue;
    parts.push(block.subarray(copied, line.start), Buffer.from('X-Archive-Orig-'));
    copied = line.start;
  }
  // A head cut short (a revisit's block is often the head alone) has no empty line, and its last field may have no
  // line end: the new field goes on a line of its own, and the empty line that ends a head follows it.
  const cut = head.emptyLine === head.length;
  const lineEnd = cut && head.emptyLine > 0 && block[head.emptyLine - 1] !== 0x0a ? head.eol : '';
  parts.push(block.subarray(copied, head.emptyLine), Buffer.from(`${lineEnd}Content-Length: ${length}${head.eol}${cut ? head.eol : ''}`), block.subarray(head.emptyLine, head.length));
  return Buffer.concat(parts);
}

/** The statistics of a finished rewriter of any kind but MIME (whose statistics count per part). */
function referenceStats(transform: object): { readonly rewritten: number } {
  const stats = (transform as { stats?: { rewritten?: number } }).stats;
  if (typeof stats?.rewritten !== 'number') throw new AbsError('a rewriter without reference statistics', 'ABS_ERR_INTERNAL');
  return stats as { rewritten: number };
}

export function addCounts(to: Counts, from: Counts): void {
  to.rewritten += from.rewritten;
  to.unchanged += from.unchanged;
  to.unresolvable += from.unresolvable;
}

/** The references of an HTTP head and, with `rewrite`, the head with them absolute. */
export interface HeadReferences {
  /** The head, its relative references absolute (with `rewrite`; else the head as it was). */
  readonly output: Buffer;
  readonly references: HeaderReferenceRecord[];
  readonly counts: Counts;
  readonly warnings: Array<{ code: string; message: string }>;
}

/**
 * The `Link`, `Refresh` and `Content-Location` references of an HTTP response head (header-references.ts),
 * resolved against `WARC-Target-URI` as a browser resolves them against the response's URL. Without `rewrite`
 * they are reported unchanged (`changed: false`) and the head is returned as it was. Pure: the same head gives
 * the same bytes on any thread.
 */
export function headReferences(head: Uint8Array, targetUri: string | null, resolver: ResolverName, rewrite: boolean): HeadReferences {
  const references: HeaderReferenceRecord[] = [];
  const warnings: Array<{ code: string; message: string }> = [];
  const counts: Counts = { rewritten: 0, unchanged: 0, unresolvable: 0 };
  const result = rewriteHeaderReferences(head, {
    base: targetUri,
    resolver: getResolver(resolver),
    onReference: (r) => {
      const reference = rewrite ? r : { ...r, changed: false };
      if (reference.changed) counts.rewritten++;
      else if (reference.resolved === null) counts.unresolvable++;
      else counts.unchanged++;
      references.push(reference);
    },
    onWarning: (w) => warnings.push({ code: w.code, message: w.message }),
  });
  return { output: rewrite ? result.output : Buffer.from(head.buffer, head.byteOffset, head.byteLength), references, counts, warnings };
}

/**
 * A response record whose payload is copied but whose HTTP head had references rewritten (`--warc-header-references`):
 * the new head and the payload bytes as they were, a new record id and block digest (the payload digest is
 * unchanged: the payload is), and a metadata record naming the original, as buildRecords writes them.
 */
export function headerOnlyRecords(
  header: { readonly protocol: string; readonly fields: ReadonlyArray<readonly [string, string]> },
  block: Buffer,
  headLength: number,
  newHead: Buffer,
  ids: readonly [string, string],
  changed: number,
): { fields: Array<readonly [string, string]>; block: Buffer; metadata: Buffer; version: string } {
  const [newId, metadataId] = ids;
  const version = header.protocol.startsWith('WARC/') ? header.protocol : 'WARC/1.0';
  const newBlock = Buffer.concat([newHead, block.subarray(headLength)]);
  const blockDigest = sha1Digest(newBlock);
  let sawBlock = false;
  const fields = header.fields.map(([n, v]): readonly [string, string] => {
    const lower = n.toLowerCase();
    if (lower === 'warc-record-id') return [n, newId];
    if (lower === 'warc-block-digest') {
      sawBlock = true;
      return [n, blockDigest];
    }
    if (lower === 'warc-target-uri') return [n, warcUri(v)];
    return [n, v];
  });
  if (!sawBlock) fields.push(['WARC-Block-Digest', blockDigest]);
  const targetUri = field(header.fields, 'WARC-Target-URI');
  const date = field(header.fields, 'WARC-Date');
  const metaBlock = warcFields([
    ['absolutize-original-record-id', field(header.fields, 'WARC-Record-ID') ?? null],
    ['absolutize-original-block-digest', field(header.fields, 'WARC-Block-Digest') ?? sha1Digest(block)],
    ['absolutize-references-changed', changed],
    ['absolutize-payload', 'unchanged; HTTP header references rewritten'],
  ]);
  const metadata = serializeRecord(version, [
    ['WARC-Type', 'metadata'],
    ['WARC-Record-ID', metadataId],
    ['WARC-Date', date ?? warcDateNow()],
    ...(targetUri === undefined ? [] : ([['WARC-Target-URI', warcUri(targetUri)]] as Array<[string, string]>)),
    ['WARC-Refers-To', newId],
    ['Content-Type', 'application/warc-fields'],
    ['WARC-Block-Digest', sha1Digest(metaBlock)],
  ], metaBlock);
  return { fields, block: newBlock, metadata, version };
}
