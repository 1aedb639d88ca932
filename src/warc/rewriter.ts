/**
 * WARC/ARC rewriting (SPEC §5b), record by record: `response` records of 2xx with HTML, CSS or MHTML bodies go
 * to the rewriter the HTTP response path uses (`createResponseRewriter`, with `WARC-Target-URI` as the retrieval
 * URL and the HTTP `Content-Type` charset as the transport charset); every other record, and every record in
 * which nothing changes, is copied byte for byte (its gzip member as it was). 3xx `Location`s become redirect
 * edges of the link report.
 *
 * Output models: `replace` (default): the rewritten response takes the original's place with a new record id
 * and digests, its HTTP framing headers renamed `X-Archive-Orig-*`, followed by a `metadata` record naming the
 * original. `conversion`: the original is copied and followed by a `conversion` record holding the rewritten
 * document. One new `warcinfo` record comes first. ARC input is written as WARC (ARC records become `warcinfo`,
 * `response` and `resource` records).
 */
import { Duplex, Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { relOf } from '../base/reference-policy.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';

import type { Warning, WarningCode } from '../errors.ts';
import type { RewriteChoices } from '../html/rewriter.ts';
import { parseContentType } from '../http/content-type.ts';
import { responseKind } from '../http/response-rewriter.ts';
import { resolveWarcLimits } from '../limits.ts';
import type { WarcLimits } from '../limits.ts';
import { browserResolver } from '../uri/browser.ts';
import { normalizeUri } from '../uri/normalize.ts';
import { surt } from '../uri/surt.ts';
import { headerValues, lastHeader, parseHttpHead } from './http-message.ts';
import { RewritePool } from './pool.ts';
import { buildRecords, runRewriteJob } from './record-job.ts';
import type { Counts, JobOptions, JobResult, RewriteJob } from './record-job.ts';
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
      /** The element's `rel`, on the references it governs (ReferenceSite.rel); absent otherwise. */
      readonly rel?: string;
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
  | { readonly kind: 'copy'; readonly context: WarcLineContext; readonly type: string | null; readonly reason: string; readonly status: number | null; readonly contentType: string | null; readonly replacement: Uint8Array | null; readonly revisit: WarcHeader | null; readonly redirects?: readonly string[]; readonly warning?: WarcWarning }
  | { readonly kind: 'job'; readonly warning?: WarcWarning; readonly context: WarcLineContext; readonly type: string | null; readonly status: number; readonly contentType: string | null; readonly replacement: Uint8Array | null; readonly result: Promise<JobResult>; readonly job: RewriteJob; done: boolean };

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
  const pool = threads > 0 ? new RewritePool(threads) : null;
  const session = new RecordRewriter(options, summary, limits, pool);
  // Units read ahead while rewrites run: rewrite jobs a few per thread (most units are copies that need no
  // thread: requests, images, revisits), a bound on the units, and one on their bytes.
  const jobWindow = pool === null ? 1 : 3 * (threads + 1);
  const window = pool === null ? 1 : 16 * (threads + 1);
  let pendingJobs = 0;
  const pending: PendingUnit[] = [];
  let pendingBytes = 0;
  let first = true;
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
        out.push(o?.replacement ?? encodeUnit(item.bytes, unit.compressed));
        if (o != null) out.push(...o.after);
      });
    }
    for (const b of out) {
      summary.bytesOut += b.length;
      yield Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    }
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
        const p = session.prepare(item, offset, unit.compressed);
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

/** The state kept across records: what was rewritten (for revisits), ids, the options. */
class RecordRewriter {
  private readonly options: WarcRewriteOptions;
  private readonly summary: WarcSummary;
  private readonly newId: () => string;
  private readonly rewrittenIds = new Set<string>();
  private readonly rewrittenCaptures = new Set<string>();
  private readonly rewrittenDigests = new Set<string>();
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
      ...(this.options.filename === undefined ? [] : ([['WARC-Filename', this.options.filename]] as Array<[string, string]>)),
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
      ['X-Absolutize-Unparsed', reason.replace(/[\r\n]+/g, ' ')],
    ], bytes);
  }

  /** A record too large to hold (`maxWarcRecordBytes`): copied through as it comes. */
  oversize(header: WarcHeader, offset: number, length: number): Prepared {
    const context: WarcLineContext = { document: this.document, warcRecordId: field(header, 'WARC-Record-ID') ?? null, warcOffset: offset, targetUri: stripAngles(field(header, 'WARC-Target-URI')), warcDate: field(header, 'WARC-Date') ?? null };
    // Warned in commit, in input order.
    const warning: WarcWarning = { code: 'warc-record-not-rewritten', message: `a record of ${length} bytes, more than maxWarcRecordBytes (${this.limits.maxWarcRecordBytes}): copied through as it is`, offset, warcRecordId: context.warcRecordId ?? undefined };
    return { kind: 'copy', context, type: field(header, 'WARC-Type') ?? null, reason: `larger than maxWarcRecordBytes (${length} bytes): copied`, status: null, contentType: null, replacement: null, revisit: null, warning };
  }

  /** Classifies a record in input order; a response to rewrite starts its job (inline or on a worker). */
  prepare(item: Extract<WarcItem, { kind: 'record' }>, offset: number, compressed: boolean): Prepared {
    let header = item.header;
    let replacement: Uint8Array | null = null;
    if (item.format === 'arc') {
      // ARC → WARC: the record as a WARC record (always written anew), then rewritten like any other.
      const fields: Array<readonly [string, string]> = [...header.fields.filter(([n]) => n !== 'Content-Length'), ['WARC-Record-ID', this.newId()], ['WARC-Block-Digest', sha1Digest(item.block)]];
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
    const copy = (reason: string, status: number | null = null, contentType: string | null = null, revisit: WarcHeader | null = null, redirects: readonly string[] = []): Prepared => ({ kind: 'copy', context, type, reason, status, contentType, replacement, revisit, redirects });

    if (type === 'revisit') return copy('revisit: copied', null, null, header);
    if (type !== 'response') return copy(`${type ?? 'untyped'} record: copied`);
    if (field(header, 'WARC-Truncated') !== undefined) return copy(`WARC-Truncated: ${field(header, 'WARC-Truncated')}: copied`);
    const recordType = (field(header, 'Content-Type') ?? '').toLowerCase();
    if (!recordType.startsWith('application/http')) return copy(`Content-Type ${recordType || '(none)'} is not an HTTP response: copied`);
    const head = parseHttpHead(item.block);
    if (head === null) return copy('the block does not start with an HTTP response head: copied');
    const contentTypeRaw = lastHeader(head, 'Content-Type') ?? null;
    if (head.status >= 300 && head.status < 400) {
      // The redirect lines come out with the record's, in input order (commit).
      return copy(`HTTP ${head.status}: copied`, head.status, contentTypeRaw, null, headerValues(head, 'Location'));
    }
    if (head.status < 200 || head.status >= 300) return copy(`HTTP ${head.status}: copied`, head.status, contentTypeRaw);
    const contentType = parseContentType(contentTypeRaw);
    const kind = responseKind(contentType);
    if (kind === 'none') return copy(`${contentTypeRaw === null ? 'no Content-Type' : `Content-Type ${contentType.essence ?? JSON.stringify(contentTypeRaw)}`}: not rewritten, copied`, head.status, contentTypeRaw);

    const job: RewriteJob = {
      block: item.block,
      protocol: header.protocol,
      fields: header.fields,
      targetUri,
      id,
      date,
      kind,
      contentType: contentTypeRaw,
      newIds: [this.newId(), this.newId()],
      compressed,
      buildLater: this.pool !== null,
      options: this.jobOptions,
    };
    const prepared: Prepared = { kind: 'job', context, type, status: head.status, contentType: contentTypeRaw, replacement, result: this.pool === null ? runRewriteJob(job) : this.pool.run(job), job, done: false };
    prepared.result.then(
      () => (prepared.done = true),
      () => (prepared.done = true),
    );
    return prepared;
  }

  /** In input order: report lines and warnings, what revisits need to know, and the record's outcome. */
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
      const revisitOf = p.revisit === null ? undefined : this.isRevisitOfRewritten(p.revisit);
      const reason = revisitOf === true ? 'revisit of a rewritten record: copied (its original now reads as rewritten)' : p.reason;
      if (p.warning !== undefined) this.warn(p.warning);
      for (const location of p.redirects ?? []) this.redirectLine(p.context, p.status!, location);
      this.recordLine(p.context, p.type, p.status, p.contentType, 'copied', reason, ZERO, null, revisitOf);
      return { replacement: p.replacement, after: [] };
    }
    // A worker's payload: its records are built (digests, serialization, deflate) here, on the reader's thread.
    const r = buildRecords(p.job, await p.result);
    if (p.warning !== undefined) this.warn(p.warning);
    for (const w of r.warnings) this.warn({ ...w, code: w.code as WarningCode, offset, warcRecordId: p.context.warcRecordId ?? undefined });
    for (const { reference, part } of r.references) this.referenceLine(p.context, reference, part);
    this.recordLine(p.context, p.type, p.status, p.contentType, r.action, r.reason, r.counts, r.newRecordId);
    if (r.action === 'rewritten') {
      this.summary.rewritten++;
      this.summary.references += r.counts.rewritten;
      this.remember(p.context, r.digestKeys, offset);
    }
    return { replacement: r.replacement ?? p.replacement, after: r.after };
  }

  /** What a later revisit of a rewritten record is matched by, within maxWarcRevisitIndex. */
  private remember(context: WarcLineContext, digestKeys: readonly string[], offset: number): void {
    if (this.rewrittenIds.size < this.limits.maxWarcRevisitIndex) {
      if (context.warcRecordId !== null) this.rewrittenIds.add(context.warcRecordId);
      if (context.targetUri !== null && context.warcDate !== null) this.rewrittenCaptures.add(`${context.targetUri} ${context.warcDate}`);
      for (const k of digestKeys) this.rewrittenDigests.add(k);
    } else if (this.rewrittenIds.size === this.limits.maxWarcRevisitIndex) {
      this.rewrittenIds.add('');
      this.warn({ code: 'warc-record-not-rewritten', message: `more than ${this.limits.maxWarcRevisitIndex} records rewritten (maxWarcRevisitIndex): revisits of later ones are not reported as revisitOfRewritten`, offset });
    }
  }

  /**
   * Whether a revisit's original was rewritten. The original is named by WARC-Refers-To (WARC 1.1 §5.11), else by
   * WARC-Refers-To-Target-URI and -Date (§5.13–14), else, as replay tools look it up, by its Target-URI and
   * payload digest (the identical-payload-digest profile, §6.7.2).
   */
  private isRevisitOfRewritten(header: WarcHeader): boolean {
    const refersTo = field(header, 'WARC-Refers-To');
    if (refersTo !== undefined) return this.rewrittenIds.has(refersTo);
    const uri = stripAngles(field(header, 'WARC-Refers-To-Target-URI'));
    const date = field(header, 'WARC-Refers-To-Date');
    if (uri !== null && date !== undefined) return this.rewrittenCaptures.has(`${uri} ${date}`);
    const digest = field(header, 'WARC-Payload-Digest');
    const target = uri ?? stripAngles(field(header, 'WARC-Target-URI'));
    return digest !== undefined && this.rewrittenDigests.has(`${target} ${digest.toLowerCase()}`);
  }

  private keys(url: string | null): { surt?: string | null; normalized?: string | null } {
    if (this.options.linkKeys !== true) return {};
    return { surt: url === null ? null : surt(url), normalized: url === null ? null : normalizeUri(url) };
  }

  private referenceLine(context: WarcLineContext, r: ReferenceRecord, part: string | null): void {
    this.options.onLink?.({
      kind: 'reference',
      ...context,
      part,
      element: r.element,
      attribute: r.attribute,
      ...relOf(r),
      raw: r.raw,
      resolved: r.resolved,
      base: r.base,
      baseSource: r.baseSource,
      line: r.line,
      column: r.column,
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
      for (;;) {
        const r = await gen.next();
        if (r.done === true) {
          settle(r.value);
          return;
        }
        yield r.value;
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

