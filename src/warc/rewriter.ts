/**
 * WARC/ARC rewriting (SPEC §5b), record by record: each record's payload goes where `routePayload`
 * (payload-route.ts) sends it — HTML at any status but a redirect, `resource` records, bodies sniffed as HTML,
 * CSS, MHTML — through the rewriter the HTTP response path uses (`createResponseRewriter`, with `WARC-Target-URI`
 * as the retrieval URL and the HTTP `Content-Type` charset as the transport charset); every other record, and
 * every record in which nothing changes, is copied byte for byte (its gzip member as it was). 3xx `Location`s
 * (of responses and of revisits) become redirect edges of the link report.
 *
 * Output models: `replace` (default): the rewritten response takes the original's place with a new record id
 * and digests, its HTTP framing headers renamed `X-Archive-Orig-*`, followed by a `metadata` record naming the
 * original; later records that name the original (`WARC-Concurrent-To`, `WARC-Refers-To`) are written naming the
 * replacement, and a revisit of it takes its payload digest and framing (`relink`). References to records that
 * come later in the file, or live in other files, are copied as written. `conversion`: the original is copied
 * and followed by a `conversion` record holding the rewritten document. One new `warcinfo` record comes first.
 * ARC input is written as WARC (ARC records become `warcinfo`, `response` and `resource` records).
 *
 * Damage never loses what is whole: bytes that are no record (and the tail of an input cut short) are kept in
 * `metadata` records of their own, and the summary says `partial`.
 */
import { Duplex, Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type { Warning, WarningCode } from '../errors.ts';
import type { RewriteChoices } from '../html/rewriter.ts';
import { parseContentType } from '../http/content-type.ts';
import { resolveWarcLimits } from '../limits.ts';
import type { WarcLimits } from '../limits.ts';
import { browserResolver } from '../uri/browser.ts';
import { normalizeUri } from '../uri/normalize.ts';
import { surt } from '../uri/surt.ts';
import { parseHttpHead } from './http-message.ts';
import { RewritePool } from './pool.ts';
import { addCounts, buildRecords, headReferences, headerOnlyRecords, rewriteHead, runRewriteJob, warcUri } from './record-job.ts';
import { routePayload } from './payload-route.ts';
import type { Counts, JobOptions, JobReference, JobResult, KeptOriginal, RewriteJob } from './record-job.ts';
import { readWarc } from './reader.ts';
import type { WarcReaderInfo, WarcUnit } from './reader.ts';
import { field } from './record.ts';
import type { WarcHeader, WarcItem } from './record.ts';
import { encodeUnit, newRecordId, serializeRecord, sha1Digest, warcDateNow, warcFields } from './writer.ts';

export type WarcOutputModel = 'replace' | 'conversion';

export interface WarcRewriteOptions extends RewriteChoices {
  /** @default 'replace' */
  readonly output?: WarcOutputModel | undefined;
  /** The fallback base (layer 5) for records whose Target-URI is not a usable base. */
  readonly fallback?: string | null | undefined;
  /** Honour HTTP `Content-Location` / `Content-Base` as a base (SPEC §2). @default false */
  readonly honourHttpContentLocation?: boolean | undefined;
  /**
   * Also rewrite the HTTP header references (`Link`, `Refresh`, `Content-Location`) of `response` records whose
   * payload is copied (an image, a page with nothing else to rewrite, a redirect): such a record is then replaced
   * as a rewritten one is (new record id and block digest, a metadata record naming the original). Without it,
   * header references are rewritten only in records replaced for their payload, and reported everywhere.
   * `replace` output only (a conversion record holds the payload alone). @default false
   */
  readonly rewriteHeaderReferences?: boolean | undefined;
  /** Add `surt` and `normalized` to reference and redirect lines. @default false */
  readonly linkKeys?: boolean | undefined;
  /** Write a new `warcinfo` record first. @default true */
  readonly warcinfo?: boolean | undefined;
  /** The output file's name, for the new warcinfo's `WARC-Filename`. */
  readonly filename?: string | undefined;
  /** The input's name, the `document` of report lines. @default '-' */
  readonly document?: string | undefined;
  readonly warcLimits?: Partial<WarcLimits> | undefined;
  /** The link report: reference, redirect and record lines (see WarcLinkLine). */
  readonly onLink?: ((line: WarcLinkLine) => void) | undefined;
  readonly onWarning?: ((warning: WarcWarning) => void) | undefined;
  /** After each unit (record or gzip member) is written. */
  readonly onProgress?: ((progress: WarcProgress) => void) | undefined;
  /** Record ids of new records (tests). @default random UUID URNs */
  readonly newRecordId?: (() => string) | undefined;
  /**
   * Worker threads rewriting responses while the input is read (the CLI: the number of cores). Needs the built
   * package. @default 0 (in this thread)
   */
  readonly threads?: number | undefined;
  /**
   * Called once, when every worker thread has loaded the rewriters (never without `threads`, nor when nothing
   * came to rewrite). The CLI sets its V8 flags here: set before a thread starts, a flag changes the hash V8
   * checks code caches against, and the thread then compiles Node's own modules from source (heap-growth.ts).
   * It is called from a worker's message event: what it throws is uncaught.
   */
  readonly onThreadsLoaded?: (() => void) | undefined;
  /** WARC-Date of the new warcinfo. @default now */
  readonly now?: string | undefined;
}

export interface WarcWarning extends Warning {
  /** Offset of the unit (record or gzip member) in the input. */
  readonly offset: number;
  readonly warcRecordId?: string | undefined;
}

export interface WarcProgress {
  readonly records: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

export interface WarcSummary {
  readonly format: 'warc' | 'arc' | null;
  readonly compressed: boolean | null;
  /** Records read (gaps not counted). */
  records: number;
  /**
   * Stretches of bytes that were no record (garbage, a corrupt gzip member, the tail of an input cut short): each
   * kept, byte for byte, in a `metadata` record of its own (`Content-Type: application/octet-stream`,
   * `X-Absolutize-Unparsed: why`), so that the output is a valid WARC.
   */
  gaps: number;
  /** The input ends inside a record, header or gzip member (a crawl cut short). */
  truncated: boolean;
  /**
   * The input was damaged (`gaps > 0` or `truncated`): every record that was whole is in the output, rewritten as
   * usual; the CLI exits with status 3 ("partial").
   */
  partial: boolean;
  /** Records rewritten (replaced, or followed by a conversion record). */
  rewritten: number;
  /** References changed, over all records. */
  references: number;
  bytesIn: number;
  bytesOut: number;
  warnings: number;
}

/** Fields every line of a record carries. */
export interface WarcLineContext {
  readonly document: string;
  /** The input record's WARC-Record-ID (for ARC input: the id of the WARC record it became). */
  readonly warcRecordId: string | null;
  /** Byte offset of the record (its gzip member) in the input. */
  readonly warcOffset: number;
  readonly targetUri: string | null;
  readonly warcDate: string | null;
}

export type WarcLinkLine =
  | (WarcLineContext & {
      readonly kind: 'reference';
      /** MIME section path for a multipart/message record, else null. */
      readonly part: string | null;
      readonly element: string | null;
      readonly attribute: string | null;
      /** The element's `rel`, on the references it governs (ReferenceSite.rel), or a `Link`'s; absent otherwise. */
      readonly rel?: string;
      /** `anchor` for a `Link` header's anchor parameter (`element` null, `attribute` "Link"). */
      readonly parameter?: 'anchor';
      readonly raw: string;
      readonly resolved: string | null;
      readonly base: string | null;
      readonly baseSource: string;
      readonly line: number | null;
      readonly column: number | null;
      readonly changed: boolean;
      readonly surt?: string | null;
      readonly normalized?: string | null;
    })
  | (WarcLineContext & {
      readonly kind: 'redirect';
      readonly part: null;
      readonly element: null;
      readonly attribute: 'Location';
      readonly status: number;
      readonly raw: string;
      readonly resolved: string | null;
      readonly base: string | null;
      readonly baseSource: 'retrieval';
      readonly line: null;
      readonly column: null;
      readonly changed: false;
      readonly surt?: string | null;
      readonly normalized?: string | null;
    })
  | (WarcLineContext & {
      readonly kind: 'record';
      readonly warcType: string | null;
      readonly status: number | null;
      readonly contentType: string | null;
      readonly action: 'rewritten' | 'copied' | 'skipped';
      /** Why it was copied (or what was done). */
      readonly reason: string;
      readonly rewritten: number;
      readonly unchanged: number;
      readonly unresolvable: number;
      /** The id of the record that replaced it (replace) or of its conversion record. */
      readonly newRecordId: string | null;
      /** A revisit whose original (by WARC-Refers-To, Refers-To-Target-URI and -Date, or payload digest) was rewritten. */
      readonly revisitOfRewritten?: boolean;
    });

/** What one record becomes: its replacement (null: its bytes as they were) and records after it, encoded. */
interface RecordOutcome {
  readonly replacement: Uint8Array | null;
  readonly after: readonly Uint8Array[];
}

/** One item of a unit, classified; a rewrite job may still be running. */
type Prepared =
  | { readonly kind: 'gap'; readonly bytes: Buffer; readonly reason: string; readonly truncated: boolean; readonly separator: boolean }
  | {
      readonly kind: 'copy';
      readonly context: WarcLineContext;
      readonly type: string | null;
      readonly reason: string;
      readonly status: number | null;
      readonly contentType: string | null;
      readonly replacement: Uint8Array | null;
      readonly revisit: WarcHeader | null;
      readonly redirects?: readonly string[];
      readonly warning?: WarcWarning;
      /** The record as read (for ARC input: as converted), to write anew when a reference in it changes. */
      readonly record?: { readonly header: WarcHeader; readonly block: Buffer; readonly compressed: boolean };
    }
  | { readonly kind: 'job'; readonly warning?: WarcWarning; readonly context: WarcLineContext; readonly type: string | null; readonly status: number | null; readonly contentType: string | null; readonly replacement: Uint8Array | null; readonly result: Promise<JobResult>; readonly job: RewriteJob; readonly kept?: KeptOriginal | undefined; done: boolean };

interface PendingUnit {
  readonly unit: WarcUnit;
  readonly prepared: Prepared[];
}

/**
 * The WARC rewriting of a whole input as an async generator: input chunks in, output chunks out; the summary is
 * its return value. The per-file entry point (`rewriteWarcStream`, `createWarcRewriter`) wraps it. With
 * `threads`, responses are rewritten on worker threads while later records are read; output, report lines and
 * warnings still come in input order.
 */
export async function* rewriteWarcChunks(source: AsyncIterable<Buffer | string>, options: WarcRewriteOptions = {}): AsyncGenerator<Buffer, WarcSummary> {
  const limits = resolveWarcLimits(options.warcLimits);
  const info: WarcReaderInfo = { format: null, compressed: null };
  const summary: WarcSummary = { format: null, compressed: null, records: 0, gaps: 0, truncated: false, partial: false, rewritten: 0, references: 0, bytesIn: 0, bytesOut: 0, warnings: 0 };
  const threads = options.threads ?? 0;
  const pool = threads > 0 ? new RewritePool(threads, options.onThreadsLoaded) : null;
  const session = new RecordRewriter(options, summary, limits, pool);
  // Units read ahead while rewrites run: rewrite jobs a few per thread (most units are copies that need no
  // thread: requests, images, revisits), a bound on the units, and one on their bytes.
  const jobWindow = pool === null ? 1 : 3 * (threads + 1);
  const window = pool === null ? 1 : 16 * (threads + 1);
  let pendingJobs = 0;
  const pending: PendingUnit[] = [];
  let pendingBytes = 0;
  let first = true;
  /** The last bytes written (uncompressed output): whether the record before a gap record was ended. */
  let tail: Uint8Array = new Uint8Array(0);
  const finish = function* (p: PendingUnit, outcomes: Array<RecordOutcome | null>): Generator<Buffer> {
    const out: Uint8Array[] = [];
    const { unit } = p;
    if (unit.items.filter((i) => i.kind === 'record').length > 1) {
      session.warn({ code: 'warc-multi-record-member', message: `one gzip member holds ${unit.items.length} records or gaps (whole-file gzip?): read, but written one member per record where any changes`, offset: unit.offset });
    }
    if (outcomes.every((o) => o === null || o.replacement === null)) {
      out.push(unit.raw);
      for (const o of outcomes) if (o !== null) out.push(...o.after);
    } else {
      unit.items.forEach((item, i) => {
        const o = outcomes[i];
        // A record whose block is not followed by its CRLF CRLF (a wrong Content-Length: the bytes after the block
        // are a gap) would run into the metadata record that keeps the gap: the trailer WARC 1.1 §4 requires is
        // written first, so that both read as records. The gap record keeps the bytes that followed, as they were.
        if (item.kind === 'gap' && summary.compressed !== true && o?.replacement != null && o.replacement.length > 0 && !endsRecord(out.length > 0 ? out : [tail])) {
          out.push(RECORD_TRAILER);
        }
        out.push(o?.replacement ?? encodeUnit(item.bytes, unit.compressed));
        if (o != null) out.push(...o.after);
      });
    }
    for (const b of out) {
      summary.bytesOut += b.length;
      yield Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    }
    if (out.length > 0) tail = lastBytes(out, 4);
    options.onProgress?.({ records: summary.records, bytesIn: summary.bytesIn, bytesOut: summary.bytesOut });
  };
  const flushOne = async function* (): AsyncGenerator<Buffer> {
    const p = pending.shift()!;
    pendingBytes -= p.unit.raw.length;
    pendingJobs -= p.prepared.filter((x) => x.kind === 'job').length;
    const outcomes: Array<RecordOutcome | null> = [];
    for (const item of p.prepared) outcomes.push(await session.commit(item, p.unit.offset));
    yield* finish(p, outcomes);
  };
  try {
    for await (const unit of readWarc(source, limits, info)) {
      summary.bytesIn += unit.raw.length;
      Object.assign(summary, { format: info.format, compressed: info.compressed });
      if (first && options.warcinfo !== false) {
        const firstRecord = unit.items.find((i) => i.kind === 'record');
        const version = firstRecord?.kind === 'record' && firstRecord.format === 'warc' ? firstRecord.header.protocol : 'WARC/1.0';
        const warcinfo = encodeUnit(session.warcinfo(version), unit.compressed || info.compressed === true);
        summary.bytesOut += warcinfo.length;
        yield warcinfo;
      }
      first = false;
      const prepared = unit.items.map((item, i) => {
        if (item.kind === 'gap') return { kind: 'gap', bytes: item.separator === true ? Buffer.alloc(0) : item.bytes, reason: item.reason, truncated: item.truncated === true, separator: item.separator === true } as const;
        summary.records++;
        const offset = unit.itemOffsets?.[i] ?? unit.offset;
        if (item.kind === 'oversize') return session.oversize(item.header, offset, item.length);
        // A member's inflated data is its record's alone when it holds only that record (reader.ts) and is larger
        // than Buffer's pool (smaller Buffers may share one): a worker may be lent it.
        const p = session.prepare(item, offset, unit.compressed, unit.compressed && unit.items.length === 1 && item.block.buffer.byteLength > Buffer.poolSize);
        if (item.lengthNote === undefined || p.kind === 'gap') return p;
        // Warned in commit, in input order.
        return { ...p, warning: { code: 'warc-arc-length', message: `${p.context.targetUri ?? 'an ARC record'}: ${item.lengthNote}`, offset } } as Prepared;
      });
      pending.push({ unit, prepared });
      pendingBytes += unit.raw.length;
      pendingJobs += prepared.filter((x) => x.kind === 'job').length;
      while (pending.length > 0 && (pending.length >= window || pendingJobs >= jobWindow || pendingBytes > limits.maxWarcRecordBytes || pending[0]!.prepared.every((x) => x.kind !== 'job' || x.done))) {
        yield* flushOne();
      }
    }
    while (pending.length > 0) yield* flushOne();
  } finally {
    await pool?.close();
  }
  return summary;
}

/** A replaced record: its new id, and its payload's digest and length. */
interface Replacement {
  readonly id: string;
  readonly payloadDigest: string;
  readonly payloadLength: number;
}

/** The state kept across records: what was rewritten (for revisits), ids, the options. */
class RecordRewriter {
  private readonly options: WarcRewriteOptions;
  private readonly summary: WarcSummary;
  private readonly newId: () => string;
  /** Rewritten records by id, Target-URI and date, Target-URI and payload digest: their replacement (replace) or null. */
  private readonly rewrittenIds = new Map<string, Replacement | null>();
  private readonly rewrittenCaptures = new Map<string, Replacement | null>();
  private readonly rewrittenDigests = new Map<string, Replacement | null>();
  /** Payload digests of rewritten records, whatever their URL. */
  private readonly rewrittenPayloads = new Set<string>();
  private revisitIndexFull = false;
  /** Replaced records by original id (replace): what records naming them name now. */
  private readonly replacedIds = new Map<string, Replacement>();
  private replacedIdsFull = false;
  private readonly document: string;
  private readonly limits: WarcLimits;
  private readonly pool: RewritePool | null;
  private readonly jobOptions: JobOptions;

  constructor(options: WarcRewriteOptions, summary: WarcSummary, limits: WarcLimits, pool: RewritePool | null) {
    this.options = options;
    this.limits = limits;
    this.pool = pool;
    this.summary = summary;
    this.newId = options.newRecordId ?? newRecordId;
    this.document = options.document ?? '-';
    this.jobOptions = {
      output: options.output ?? 'replace',
      resolver: (options.resolver ?? browserResolver).name,
      fallback: options.fallback ?? null,
      honourHttpContentLocation: options.honourHttpContentLocation === true,
      exactBase: options.exactBase === true,
      absolutizeFragments: options.absolutizeFragments === true,
      lazyLoad: options.lazyLoad === true,
      limits: options.limits,
      maxRecordBytes: limits.maxWarcRecordBytes,
      references: options.onLink !== undefined,
    };
  }

  warn(w: WarcWarning): void {
    this.summary.warnings++;
    this.options.onWarning?.(w);
  }

  warcinfo(version: string): Buffer {
    const block = warcFields([
      ['software', 'absolutize (https://www.npmjs.com/package/absolutize)'],
      ['format', version === 'WARC/1.1' ? 'WARC File Format 1.1' : 'WARC File Format 1.0'],
      ['description', `relative URL references rewritten to absolute form; output model: ${this.options.output ?? 'replace'}`],
      ['absolutize-input', this.options.document],
    ]);
    return serializeRecord(version, [
      ['WARC-Type', 'warcinfo'],
      ['WARC-Record-ID', this.newId()],
      ['WARC-Date', this.options.now ?? warcDateNow()],
      // A name of our own, in UTF-8 (WARC 1.1 §4): as its bytes one character each, the way serializeRecord writes
      // every field (a name of Latin-1 characters, "café", was written as Latin-1).
      ...(this.options.filename === undefined ? [] : ([['WARC-Filename', Buffer.from(this.options.filename, 'utf8').toString('latin1')]] as Array<[string, string]>)),
      ['Content-Type', 'application/warc-fields'],
      ['WARC-Block-Digest', sha1Digest(block)],
    ], block);
  }

  /** A `metadata` record holding bytes of an ARC file that were no ARC record. */
  gapRecord(bytes: Buffer, reason: string): Buffer {
    return serializeRecord('WARC/1.0', [
      ['WARC-Type', 'metadata'],
      ['WARC-Record-ID', this.newId()],
      ['WARC-Date', this.options.now ?? warcDateNow()],
      ['Content-Type', 'application/octet-stream'],
      ['WARC-Block-Digest', sha1Digest(bytes)],
      // The reason may quote the input's bytes (an ARC line that was none): ASCII only, so that the header stays
      // UTF-8 (WARC 1.1 §4) whatever they were.
      ['X-Absolutize-Unparsed', reason.replace(/[\r\n]+/g, ' ').replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)],
    ], bytes);
  }

  /** A record too large to hold (`maxWarcRecordBytes`): copied through as it comes. */
  oversize(header: WarcHeader, offset: number, length: number): Prepared {
    const context: WarcLineContext = { document: this.document, warcRecordId: field(header, 'WARC-Record-ID') ?? null, warcOffset: offset, targetUri: stripAngles(field(header, 'WARC-Target-URI')), warcDate: field(header, 'WARC-Date') ?? null };
    // Warned in commit, in input order.
    const warning: WarcWarning = { code: 'warc-record-not-rewritten', message: `a record of ${length} bytes, more than maxWarcRecordBytes (${this.limits.maxWarcRecordBytes}): copied through as it is`, offset, warcRecordId: context.warcRecordId ?? undefined };
    return { kind: 'copy', context, type: field(header, 'WARC-Type') ?? null, reason: `larger than maxWarcRecordBytes (${length} bytes): copied`, status: null, contentType: null, replacement: null, revisit: null, warning };
  }

  /** Classifies a record in input order (routePayload); a payload to rewrite starts its job (inline or on a worker). */
  prepare(item: Extract<WarcItem, { kind: 'record' }>, offset: number, compressed: boolean, lendable = false): Prepared {
    let header = item.header;
    let replacement: Uint8Array | null = null;
    if (item.format === 'arc') {
      // ARC → WARC: the record as a WARC record (always written anew), then rewritten like any other. Its URL as
      // WARC 1.1 allows it in WARC-Target-URI (a raw space percent-encoded).
      const fields: Array<readonly [string, string]> = [...header.fields.filter(([n]) => n !== 'Content-Length').map(([n, v]) => (n === 'WARC-Target-URI' ? ([n, warcUri(v)] as const) : ([n, v] as const))), ['WARC-Record-ID', this.newId()], ['WARC-Block-Digest', sha1Digest(item.block)]];
      const head = field(header, 'WARC-Type') === 'response' ? parseHttpHead(item.block) : null;
      if (head !== null) fields.push(['WARC-Payload-Digest', sha1Digest(item.block.subarray(head.length))]);
      header = { protocol: 'WARC/1.0', fields };
      replacement = encodeUnit(serializeRecord('WARC/1.0', fields, item.block), compressed);
    }
    const type = field(header, 'WARC-Type') ?? null;
    const id = field(header, 'WARC-Record-ID') ?? null;
    const targetUri = stripAngles(field(header, 'WARC-Target-URI'));
    const date = field(header, 'WARC-Date') ?? null;
    const context: WarcLineContext = { document: this.document, warcRecordId: id, warcOffset: offset, targetUri, warcDate: date };
    const record = { header, block: item.block, compressed };
    const route = routePayload(header, item.block);
    if (!route.rewrite) {
      // The redirect lines come out with the record's, in input order (commit).
      return { kind: 'copy', context, type, reason: route.reason, status: route.status, contentType: route.contentType, replacement, revisit: type === 'revisit' ? header : null, redirects: route.redirects, record };
    }
    // A worker with nothing else to do builds the records too (digests, deflate: the reader's thread is then the
    // limit); one with jobs waiting leaves them to this thread. (Running jobs in this thread as well when the
    // workers are behind used its idle time but cost 25% more CPU: its heap is not sized for the HTML rewriter.)
    const load = this.pool?.load ?? 0;
    const inline = this.pool === null;
    // ARC input is converted into a record of its own first (the block is still read by `replacement`'s).
    const lent = !inline && lendable && item.format === 'warc';
    const job: RewriteJob = {
      block: item.block,
      protocol: header.protocol,
      fields: header.fields,
      targetUri,
      id,
      date,
      kind: route.kind,
      http: route.http !== null,
      contentType: route.contentType,
      newIds: [this.newId(), this.newId()],
      compressed,
      buildLater: !inline && load > 0,
      lent,
      options: this.jobOptions,
    };
    // What the records need of a lent block, kept before it goes (a rewritten record's block does not come back).
    const kept: KeptOriginal | undefined = lent ? { head: Buffer.from(item.block.subarray(0, route.http?.length ?? 0)), blockDigest: field(header, 'WARC-Block-Digest') === undefined ? sha1Digest(item.block) : undefined } : undefined;
    const prepared: Prepared = { kind: 'job', context, type, status: route.status, contentType: route.contentType, replacement, result: inline ? runRewriteJob(job) : this.pool!.run(job), job, kept, done: false };
    prepared.result.then(
      () => (prepared.done = true),
      () => (prepared.done = true),
    );
    return prepared;
  }

  /** In input order: report lines and warnings, what later records need to know, and the record's outcome. */
  async commit(p: Prepared, offset: number): Promise<RecordOutcome | null> {
    if (p.kind === 'gap') {
      if (p.separator) return { replacement: new Uint8Array(0), after: [] };
      this.summary.partial = true;
      if (p.truncated) {
        this.summary.truncated = true;
        this.warn({ code: 'warc-truncated', message: `the input is cut short: ${p.reason}; ${p.bytes.length > 0 ? `its ${p.bytes.length} bytes kept in a metadata record` : 'nothing of it is left to keep'}`, offset });
      } else this.warn({ code: 'warc-gap', message: `${p.bytes.length} bytes that are no record kept in a metadata record: ${p.reason}`, offset });
      if (p.bytes.length === 0) return { replacement: new Uint8Array(0), after: [] };
      this.summary.gaps++;
      // Bytes that were no record are kept in a record of their own: the output stays a valid WARC.
      return { replacement: encodeUnit(this.gapRecord(p.bytes, p.reason), this.summary.compressed === true), after: [] };
    }
    if (p.kind === 'copy') {
      const original = p.revisit === null ? undefined : this.revisitOriginal(p.revisit);
      const revisitOf = original === undefined ? undefined : original !== null;
      if (p.warning !== undefined) this.warn(p.warning);
      for (const location of p.redirects ?? []) this.redirectLine(p.context, p.status!, location);
      let replacement = p.replacement;
      let reason = revisitOf === true ? 'revisit of a rewritten record: copied (its original now reads as rewritten)' : p.reason;
      const own = p.record === undefined ? null : this.headerPass(p.context, p.record, reason, offset);
      if (own?.replaced != null) {
        this.recordLine(p.context, p.type, p.status, p.contentType, 'rewritten', own.replaced.reason, own.counts, own.replaced.id);
        return { replacement: own.replaced.replacement, after: own.replaced.after };
      }
      if (this.jobOptions.output === 'replace' && p.record !== undefined) {
        const relinked = this.relink(p.record.header, p.record.block, original ?? null);
        if (relinked !== null) {
          replacement = encodeUnit(relinked.record, p.record.compressed);
          reason = `${reason.replace(/: copied.*$/, '')}: ${relinked.what}`;
        }
      }
      this.recordLine(p.context, p.type, p.status, p.contentType, 'copied', reason, own?.counts ?? ZERO, null, revisitOf);
      return { replacement, after: [] };
    }
    // A worker's payload: its records are built (digests, serialization, deflate) here, on the reader's thread.
    const result = await p.result;
    // A lent block is the worker's returned one (the job's view was detached when it was sent); a rewritten
    // record's comes not back, and its records are built from what was kept of it.
    const job = result.block === undefined ? p.job : { ...p.job, block: result.block };
    const r = buildRecords(job, result, p.kept);
    if (p.warning !== undefined) this.warn(p.warning);
    for (const w of r.warnings) this.warn({ ...w, code: w.code as WarningCode, offset, warcRecordId: p.context.warcRecordId ?? undefined });
    if (r.action === 'copied') {
      // Copied for its payload: its head's references are reported (and, with rewriteHeaderReferences, rewritten).
      const record = { header: { protocol: job.protocol, fields: job.fields }, block: Buffer.from(job.block.buffer, job.block.byteOffset, job.block.byteLength), compressed: job.compressed };
      const own = this.headerPass(p.context, record, r.reason, offset);
      for (const ref of r.references) this.referenceLine(p.context, ref.reference, ref.part, ref.header === true);
      const counts = { ...r.counts };
      if (own !== null) addCounts(counts, own.counts);
      if (own?.replaced != null) {
        this.recordLine(p.context, p.type, p.status, p.contentType, 'rewritten', own.replaced.reason, counts, own.replaced.id);
        return { replacement: own.replaced.replacement, after: own.replaced.after };
      }
      this.recordLine(p.context, p.type, p.status, p.contentType, r.action, r.reason, counts, r.newRecordId);
      return { replacement: p.replacement, after: r.after };
    }
    for (const ref of r.references) this.referenceLine(p.context, ref.reference, ref.part, ref.header === true);
    this.recordLine(p.context, p.type, p.status, p.contentType, r.action, r.reason, r.counts, r.newRecordId);
    if (r.action === 'rewritten') {
      this.summary.rewritten++;
      this.summary.references += r.counts.rewritten;
      const replaced = r.replaced === undefined || r.newRecordId === null ? null : { id: r.newRecordId, ...r.replaced };
      this.remember(p.context, r.digestKeys, replaced, offset);
    }
    return { replacement: r.replacement ?? p.replacement, after: r.after };
  }

  /**
   * The HTTP head of a `response` record copied for its payload: its `Link`, `Refresh` and `Content-Location`
   * references reported (header lines first, as they come first in the record), and with
   * `rewriteHeaderReferences` (replace output) the record replaced by one whose head has them absolute. Null
   * (no work at all) when there is no report to write and nothing to rewrite, or no HTTP head.
   */
  private headerPass(context: WarcLineContext, record: { readonly header: WarcHeader; readonly block: Buffer; readonly compressed: boolean }, reason: string, offset: number): { counts: Counts; replaced: { replacement: Uint8Array; after: Uint8Array[]; id: string; reason: string } | null } | null {
    const rewrite = this.options.rewriteHeaderReferences === true && this.jobOptions.output === 'replace';
    if (this.options.onLink === undefined && !rewrite) return null;
    if (field(record.header, 'WARC-Type') !== 'response' || !/^application\/http\b/i.test(field(record.header, 'Content-Type') ?? '')) return null;
    const head = parseHttpHead(record.block);
    if (head === null) return null;
    const own = headReferences(record.block.subarray(0, head.length), context.targetUri, this.jobOptions.resolver, rewrite);
    for (const w of own.warnings) this.warn({ code: w.code as WarningCode, message: `${context.targetUri ?? ''}: ${w.message}`, offset, warcRecordId: context.warcRecordId ?? undefined });
    for (const reference of own.references) this.referenceLine(context, reference, null, true);
    if (own.counts.rewritten === 0) return { counts: own.counts, replaced: null };
    const ids = [this.newId(), this.newId()] as const;
    const built = headerOnlyRecords(record.header, record.block, head.length, own.output, ids, own.counts.rewritten);
    // Records naming others (WARC-Concurrent-To) name their replacements, as copied records do.
    const relinked = this.relink({ protocol: built.version, fields: built.fields }, built.block, null);
    const serialized = relinked?.record ?? serializeRecord(built.version, built.fields, built.block);
    this.summary.rewritten++;
    this.summary.references += own.counts.rewritten;
    // Records that name the original (WARC-Concurrent-To, WARC-Refers-To) name the replacement; its payload is
    // the original's, so revisits of it are left as they are.
    this.rememberReplaced(context, { id: ids[0], payloadDigest: field(record.header, 'WARC-Payload-Digest') ?? '', payloadLength: record.block.length - head.length }, offset);
    return {
      counts: own.counts,
      replaced: { replacement: encodeUnit(serialized, record.compressed), after: [encodeUnit(built.metadata, record.compressed)], id: ids[0], reason: `replaced: HTTP header references rewritten (${reason.replace(/: copied.*$/, '').replace(/^replaced \((.*)\)$/, '$1')})` },
    };
  }

  /**
   * What a later record needs to know of a rewritten one: by its id, the replacement (replace; within
   * maxWarcReplacedIds), and for revisits (within maxWarcRevisitIndex) its Target-URI and date, and its payload
   * digest with and without its Target-URI.
   */
  private remember(context: WarcLineContext, digestKeys: readonly string[], replaced: Replacement | null, offset: number): void {
    if (replaced !== null) this.rememberReplaced(context, replaced, offset);
    if (this.rewrittenIds.size < this.limits.maxWarcRevisitIndex) {
      if (context.warcRecordId !== null) this.rewrittenIds.set(context.warcRecordId, replaced);
      if (context.targetUri !== null && context.warcDate !== null) this.rewrittenCaptures.set(`${context.targetUri} ${context.warcDate}`, replaced);
      for (const k of digestKeys) {
        this.rewrittenDigests.set(k, replaced);
        this.rewrittenPayloads.add(k.slice(k.lastIndexOf(' ') + 1));
      }
    } else if (!this.revisitIndexFull) {
      this.revisitIndexFull = true;
      this.warn({ code: 'warc-record-not-rewritten', message: `more than ${this.limits.maxWarcRevisitIndex} records rewritten (maxWarcRevisitIndex): revisits of later ones are not reported as revisitOfRewritten`, offset });
    }
  }

  /** A replaced record by its original id (within maxWarcReplacedIds): what records naming it name now. */
  private rememberReplaced(context: WarcLineContext, replaced: Replacement, offset: number): void {
    if (context.warcRecordId === null) return;
    if (this.replacedIds.size < this.limits.maxWarcReplacedIds) this.replacedIds.set(context.warcRecordId, replaced);
    else if (!this.replacedIdsFull) {
      this.replacedIdsFull = true;
      this.warn({ code: 'warc-record-not-rewritten', message: `more than ${this.limits.maxWarcReplacedIds} records replaced (maxWarcReplacedIds): records that name later ones (WARC-Concurrent-To, WARC-Refers-To) are copied naming the originals`, offset });
    }
  }

  /**
   * The rewritten original of a revisit (its replacement in `replace`; null in `conversion`), or null when its
   * original was not rewritten; undefined entries never occur. The original is named by WARC-Refers-To (WARC 1.1
   * §5.11), by WARC-Refers-To-Target-URI and -Date (§5.13–14), or, as replay tools look it up, by Target-URI and
   * payload digest (the identical-payload-digest profile, §6.7.2). A revisit whose payload digest is that of any
   * rewritten payload (whatever its URL) is a revisit of a rewritten payload too: flagged, without a replacement.
   */
  private revisitOriginal(header: WarcHeader): { readonly replaced: Replacement | null; readonly exact: boolean } | null {
    const refersTo = field(header, 'WARC-Refers-To');
    if (refersTo !== undefined && this.rewrittenIds.has(refersTo.trim())) return { replaced: this.rewrittenIds.get(refersTo.trim()) ?? null, exact: true };
    const uri = stripAngles(field(header, 'WARC-Refers-To-Target-URI'));
    const date = field(header, 'WARC-Refers-To-Date');
    if (uri !== null && date !== undefined && this.rewrittenCaptures.has(`${uri} ${date}`)) return { replaced: this.rewrittenCaptures.get(`${uri} ${date}`) ?? null, exact: true };
    const digest = field(header, 'WARC-Payload-Digest')?.trim().toLowerCase();
    if (digest === undefined) return null;
    const target = uri ?? stripAngles(field(header, 'WARC-Target-URI'));
    const key = `${target} ${digest}`;
    if (this.rewrittenDigests.has(key)) return { replaced: this.rewrittenDigests.get(key) ?? null, exact: true };
    return this.rewrittenPayloads.has(digest) ? { replaced: null, exact: false } : null;
  }

  /**
   * In `replace`: the record written anew when it names a replaced record — `WARC-Concurrent-To` and
   * `WARC-Refers-To` then name the replacement; a revisit of a replaced record takes the replacement's payload
   * digest and, in its HTTP head, the framing the replacement has (Content-Length of the new payload, Content-
   * and Transfer-Encoding renamed X-Archive-Orig-*), so replay that joins the two serves the rewritten payload
   * whole. It keeps its own record id: it is the same capture, naming what now stands for its original. Null
   * when nothing it names was replaced.
   */
  private relink(header: WarcHeader, block: Buffer, original: { readonly replaced: Replacement | null; readonly exact: boolean } | null): { record: Buffer; what: string } | null {
    const changes: string[] = [];
    let fields = header.fields.map(([n, v]): readonly [string, string] => {
      const lower = n.toLowerCase();
      if (lower !== 'warc-concurrent-to' && lower !== 'warc-refers-to') return [n, v];
      const replacement = this.replacedIds.get(v.trim());
      if (replacement === undefined) return [n, v];
      changes.push(`${n} names the replacement`);
      return [n, replacement.id];
    });
    let newBlock = block;
    const replaced = original?.exact === true ? original.replaced : null;
    if (replaced !== null && field(header, 'WARC-Type') === 'revisit') {
      const head = /^application\/http\b/i.test(field(header, 'Content-Type') ?? '') ? parseHttpHead(block) : null;
      if (head !== null) newBlock = Buffer.concat([rewriteHead(block, head, replaced.payloadLength), block.subarray(head.length)]);
      let sawPayload = false;
      fields = fields.map(([n, v]): readonly [string, string] => {
        const lower = n.toLowerCase();
        if (lower === 'warc-payload-digest') {
          sawPayload = true;
          return [n, replaced.payloadDigest];
        }
        if (lower === 'warc-block-digest') return [n, sha1Digest(newBlock)];
        return [n, v];
      });
      if (!sawPayload) fields.push(['WARC-Payload-Digest', replaced.payloadDigest]);
      changes.push("the replacement's payload digest and framing");
    }
    if (changes.length === 0) return null;
    return { record: serializeRecord(header.protocol.startsWith('WARC/') ? header.protocol : 'WARC/1.0', fields, newBlock), what: `written anew: ${changes.join('; ')}` };
  }

  private keys(url: string | null): { surt?: string | null; normalized?: string | null } {
    if (this.options.linkKeys !== true) return {};
    return { surt: url === null ? null : surt(url), normalized: url === null ? null : normalizeUri(url) };
  }

  /** A reference line; one of the HTTP head (`header`) has no line and column (they would read as the payload's). */
  private referenceLine(context: WarcLineContext, r: JobReference['reference'], part: string | null, header = false): void {
    this.options.onLink?.({
      kind: 'reference',
      ...context,
      part,
      element: r.element,
      attribute: r.attribute,
      ...(r.rel === undefined ? {} : { rel: r.rel }),
      ...('parameter' in r && r.parameter !== undefined ? { parameter: r.parameter } : {}),
      raw: r.raw,
      resolved: r.resolved,
      base: r.base,
      baseSource: r.baseSource,
      line: header ? null : r.line,
      column: header ? null : r.column,
      changed: r.changed,
      ...this.keys(r.resolved),
    });
  }

  private redirectLine(context: WarcLineContext, status: number, location: string): void {
    const resolver = this.options.resolver ?? browserResolver;
    const resolved = context.targetUri === null ? null : resolver.resolve(location, context.targetUri).href;
    this.options.onLink?.({
      kind: 'redirect',
      ...context,
      part: null,
      element: null,
      attribute: 'Location',
      status,
      raw: location,
      resolved,
      base: context.targetUri,
      baseSource: 'retrieval',
      line: null,
      column: null,
      changed: false,
      ...this.keys(resolved),
    });
  }

  private recordLine(context: WarcLineContext, warcType: string | null, status: number | null, contentType: string | null, action: 'rewritten' | 'copied', reason: string, counts: Counts, newRecordId: string | null, revisitOfRewritten?: boolean): void {
    this.options.onLink?.({
      kind: 'record',
      ...context,
      warcType,
      status,
      contentType,
      action,
      reason,
      ...counts,
      newRecordId,
      ...(revisitOfRewritten === undefined ? {} : { revisitOfRewritten }),
    });
  }
}

const ZERO: Counts = Object.freeze({ rewritten: 0, unchanged: 0, unresolvable: 0 });

/** `WARC-Target-URI` without the `<…>` wget 1.14 wrote around it. */
export function stripAngles(value: string | undefined): string | null {
  if (value === undefined) return null;
  const v = value.trim();
  return v.startsWith('<') && v.endsWith('>') ? v.slice(1, -1) : v;
}

const OUTPUT_BATCH_BYTES = 256 * 1024;

/** The summary of a finished stream (see createWarcRewriter). */
export type WarcRewriterStream = Duplex & { readonly summary: Promise<WarcSummary> };

/**
 * WARC/ARC bytes in, WARC bytes out, as a Node Duplex; `summary` resolves when it has finished. Use
 * `toWebTransform` for a web TransformStream.
 */
export function createWarcRewriter(options: WarcRewriteOptions = {}): WarcRewriterStream {
  let settle!: (s: WarcSummary) => void;
  let fail!: (e: unknown) => void;
  const summary = new Promise<WarcSummary>((res, rej) => {
    settle = res;
    fail = rej;
  });
  summary.catch(() => {});
  const stream = Duplex.from(async function* (source: AsyncIterable<Buffer>) {
    try {
      const gen = rewriteWarcChunks(source, options);
      // The output in pieces of at least OUTPUT_BATCH_BYTES: a record or gzip member a write cost the reader's
      // thread more in the stream machinery and fs.write calls (~4,600 of them on the bench crawl) than one copy.
      let batch: Buffer[] = [];
      let batched = 0;
      for (;;) {
        const r = await gen.next();
        if (r.done === true) {
          if (batched > 0) yield batch.length === 1 ? batch[0]! : Buffer.concat(batch, batched);
          settle(r.value);
          return;
        }
        batch.push(r.value);
        batched += r.value.length;
        if (batched >= OUTPUT_BATCH_BYTES) {
          yield batch.length === 1 ? batch[0]! : Buffer.concat(batch, batched);
          batch = [];
          batched = 0;
        }
      }
    } catch (err) {
      fail(err);
      throw err;
    }
  }) as Duplex;
  return Object.assign(stream, { summary });
}

/**
 * The per-file entry point: reads `input` to the end, writes the WARC to `output` (or nowhere: report only),
 * and resolves with the summary. `output` is not ended when `end` is false (standard output).
 */
export async function rewriteWarcStream(input: Readable, output: NodeJS.WritableStream | null, options: WarcRewriteOptions = {}, end = true): Promise<WarcSummary> {
  const rewriter = createWarcRewriter(options);
  const sink = output ?? new Writable({ write: (_c, _e, cb) => cb() });
  await (pipeline as (...streams: unknown[]) => Promise<void>)(input, rewriter, sink, { end });
  return rewriter.summary;
}

/** The CRLF CRLF that ends a WARC record (WARC 1.1 §4). */
const RECORD_TRAILER = Buffer.from('\r\n\r\n');

/** The last `n` bytes of a run of pieces. */
function lastBytes(pieces: readonly Uint8Array[], n: number): Uint8Array {
  const parts: Uint8Array[] = [];
  let have = 0;
  for (let i = pieces.length - 1; i >= 0 && have < n; i--) {
    const p = pieces[i]!;
    const take = Math.min(n - have, p.length);
    parts.unshift(p.subarray(p.length - take));
    have += take;
  }
  return Buffer.concat(parts);
}

/** Whether output so far ends a record: nothing yet, or a blank line (CRLF CRLF, or LF LF as some writers leave it). */
function endsRecord(pieces: readonly Uint8Array[]): boolean {
  const t = Buffer.from(lastBytes(pieces, 4));
  if (t.length === 0) return true;
  return t.toString('latin1').endsWith('\r\n\r\n') || t.toString('latin1').endsWith('\n\n');
}
