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
import { Duplex, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BaseDecision } from '../base/base.ts';
import type { ReferenceRecord } from '../base/reference-policy.ts';

import type { Warning } from '../errors.ts';
import type { HtmlWarning, RewriteChoices } from '../html/rewriter.ts';
import { transformWhole } from '../html/stream.ts';
import { createByteLimit, createDecoders, parseContentEncoding } from '../http/content-decoding.ts';
import { parseContentType } from '../http/content-type.ts';
import type { FetchedDocument } from '../http/fetch.ts';
import { createResponseRewriter, responseKind } from '../http/response-rewriter.ts';
import { resolveWarcLimits } from '../limits.ts';
import type { WarcLimits } from '../limits.ts';
import { browserResolver } from '../uri/browser.ts';
import { normalizeUri } from '../uri/normalize.ts';
import { surt } from '../uri/surt.ts';
import { dechunk, headerValues, lastHeader, parseHttpHead } from './http-message.ts';
import type { HttpHead } from './http-message.ts';
import { readWarc } from './reader.ts';
import type { WarcReaderInfo } from './reader.ts';
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
  /** Stretches of bytes that were no record, copied as they were (from ARC input: each in a `metadata` record). */
  gaps: number;
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

/** What one record becomes: its replacement (null: its bytes as they were) and records written after it. */
interface RecordOutcome {
  readonly replacement: Buffer | null;
  readonly after: Buffer[];
}

const FRAMING_HEADERS = new Set(['transfer-encoding', 'content-encoding', 'content-length']);

/**
 * The WARC rewriting of a whole input as an async generator: input chunks in, output chunks out; the summary is
 * its return value. The per-file entry point (`rewriteWarcStream`, `createWarcRewriter`) wraps it.
 */
export async function* rewriteWarcChunks(source: AsyncIterable<Buffer | string>, options: WarcRewriteOptions = {}): AsyncGenerator<Buffer, WarcSummary> {
  const limits = resolveWarcLimits(options.warcLimits);
  const info: WarcReaderInfo = { format: null, compressed: null };
  const summary: WarcSummary = { format: null, compressed: null, records: 0, gaps: 0, rewritten: 0, references: 0, bytesIn: 0, bytesOut: 0, warnings: 0 };
  const session = new RecordRewriter(options, summary);
  let first = true;
  for await (const unit of readWarc(source, limits, info)) {
    summary.bytesIn += unit.raw.length;
    Object.assign(summary, { format: info.format, compressed: info.compressed });
    const out: Buffer[] = [];
    if (first && options.warcinfo !== false) {
      const firstRecord = unit.items.find((i) => i.kind === 'record');
      const version = firstRecord?.kind === 'record' && firstRecord.format === 'warc' ? firstRecord.header.protocol : 'WARC/1.0';
      out.push(encodeUnit(session.warcinfo(version), unit.compressed || info.compressed === true));
    }
    first = false;
    const outcomes: Array<RecordOutcome | null> = [];
    for (const item of unit.items) {
      if (item.kind === 'gap') {
        summary.gaps++;
        session.warn({ code: 'warc-gap', message: `${item.bytes.length} bytes copied as they are: ${item.reason}`, offset: unit.offset });
        // In WARC output from ARC input, bytes that were no ARC record are kept in a record of their own.
        outcomes.push(info.format === 'arc' ? { replacement: session.gapRecord(item.bytes, item.reason), after: [] } : null);
      } else {
        summary.records++;
        outcomes.push(await session.record(item, unit.offset));
      }
    }
    if (unit.items.filter((i) => i.kind === 'record').length > 1) {
      session.warn({ code: 'warc-multi-record-member', message: `one gzip member holds ${unit.items.length} records or gaps (whole-file gzip?): read, but written one member per record where any changes`, offset: unit.offset });
    }
    if (outcomes.every((o) => o === null || o.replacement === null)) {
      out.push(unit.raw);
      for (const o of outcomes) if (o !== null) for (const a of o.after) out.push(encodeUnit(a, unit.compressed));
    } else {
      unit.items.forEach((item, i) => {
        const o = outcomes[i];
        out.push(encodeUnit(o?.replacement ?? item.bytes, unit.compressed));
        if (o != null) for (const a of o.after) out.push(encodeUnit(a, unit.compressed));
      });
    }
    for (const b of out) {
      summary.bytesOut += b.length;
      yield b;
    }
    options.onProgress?.({ records: summary.records, bytesIn: summary.bytesIn, bytesOut: summary.bytesOut });
  }
  if (first && info.compressed === null) {
    // An empty input: an empty output (not even a warcinfo, which would describe nothing).
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

  constructor(options: WarcRewriteOptions, summary: WarcSummary) {
    this.options = options;
    this.limits = resolveWarcLimits(options.warcLimits);
    this.summary = summary;
    this.newId = options.newRecordId ?? newRecordId;
    this.document = options.document ?? '-';
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

  async record(item: Extract<WarcItem, { kind: 'record' }>, offset: number): Promise<RecordOutcome> {
    let header = item.header;
    let bytes: Buffer | null = null;
    if (item.format === 'arc') {
      // ARC → WARC: the record as a WARC record (always written anew), then rewritten like any other.
      const fields: Array<readonly [string, string]> = [...header.fields.filter(([n]) => n !== 'Content-Length'), ['WARC-Record-ID', this.newId()], ['WARC-Block-Digest', sha1Digest(item.block)]];
      const head = field(header, 'WARC-Type') === 'response' ? parseHttpHead(item.block) : null;
      if (head !== null) fields.push(['WARC-Payload-Digest', sha1Digest(item.block.subarray(head.length))]);
      header = { protocol: 'WARC/1.0', fields };
      bytes = serializeRecord('WARC/1.0', fields, item.block);
    }
    const type = field(header, 'WARC-Type') ?? null;
    const id = field(header, 'WARC-Record-ID') ?? null;
    const targetUri = stripAngles(field(header, 'WARC-Target-URI'));
    const date = field(header, 'WARC-Date') ?? null;
    const context: WarcLineContext = { document: this.document, warcRecordId: id, warcOffset: offset, targetUri, warcDate: date };
    const copy = (reason: string, extra: { status?: number | null; contentType?: string | null; revisitOfRewritten?: boolean; counts?: Counts } = {}): RecordOutcome => {
      this.recordLine(context, type, extra.status ?? null, extra.contentType ?? null, 'copied', reason, extra.counts ?? ZERO, null, extra.revisitOfRewritten);
      return { replacement: bytes, after: [] };
    };

    if (type === 'revisit') {
      const of = this.isRevisitOfRewritten(header);
      return copy(of ? 'revisit of a rewritten record: copied (its original now reads as rewritten)' : 'revisit: copied', { revisitOfRewritten: of });
    }
    if (type !== 'response') return copy(`${type ?? 'untyped'} record: copied`);
    if (field(header, 'WARC-Truncated') !== undefined) return copy(`WARC-Truncated: ${field(header, 'WARC-Truncated')}: copied`);
    const recordType = (field(header, 'Content-Type') ?? '').toLowerCase();
    if (!recordType.startsWith('application/http')) return copy(`Content-Type ${recordType || '(none)'} is not an HTTP response: copied`);
    const head = parseHttpHead(item.block);
    if (head === null) return copy('the block does not start with an HTTP response head: copied');
    const contentTypeRaw = lastHeader(head, 'Content-Type') ?? null;
    const meta = { status: head.status, contentType: contentTypeRaw };
    if (head.status >= 300 && head.status < 400) {
      for (const location of headerValues(head, 'Location')) this.redirectLine(context, head.status, location);
      return copy(`HTTP ${head.status}: copied`, meta);
    }
    if (head.status < 200 || head.status >= 300) return copy(`HTTP ${head.status}: copied`, meta);
    const contentType = parseContentType(contentTypeRaw);
    const kind = responseKind(contentType);
    if (kind === 'none') return copy(`${contentTypeRaw === null ? 'no Content-Type' : `Content-Type ${contentType.essence ?? JSON.stringify(contentTypeRaw)}`}: not rewritten, copied`, meta);

    // The payload: de-chunked only if it parses as chunked, then content codings undone.
    let body = item.block.subarray(head.length);
    const notes: string[] = [];
    if (headerValues(head, 'Transfer-Encoding').some((v) => /chunked/i.test(v))) {
      const plain = dechunk(body);
      if (plain === null) notes.push('Transfer-Encoding: chunked, stored de-chunked');
      else {
        body = plain;
        notes.push('de-chunked');
      }
    }
    let decoded: Buffer;
    try {
      const codings = parseContentEncoding(lastHeader(head, 'Content-Encoding'));
      decoded = codings.length === 0 ? body : await decode(body, codings, this.limits.maxWarcRecordBytes);
      if (codings.length > 0) notes.push(`${codings.join(', ')} decoded`);
    } catch (err) {
      this.warn({ code: 'warc-record-not-rewritten', message: `${targetUri ?? '(no Target-URI)'}: ${(err as Error).message}: the record is copied`, offset, warcRecordId: id ?? undefined });
      return copy(`Content-Encoding cannot be decoded (${(err as Error).message}): copied`, meta);
    }

    const references: ReferenceRecord[] = [];
    const parts: Array<string | null> = [];
    const warnings: HtmlWarning[] = [];
    let base: BaseDecision | null = null;
    const document: FetchedDocument = {
      url: targetUri ?? '',
      requestedUrl: targetUri ?? '',
      chain: [],
      retrieval: { url: targetUri ?? '' },
      status: head.status,
      statusText: head.statusText,
      headers: Object.fromEntries(head.fields.map(([n, v]) => [n.toLowerCase(), v])),
      contentType,
      contentCodings: [],
      body: Readable.from([]),
    };
    const rewriter = createResponseRewriter(document, {
      resolver: this.options.resolver,
      exactBase: this.options.exactBase,
      absolutizeFragments: this.options.absolutizeFragments,
      lazyLoad: this.options.lazyLoad,
      limits: this.options.limits,
      fallback: this.options.fallback,
      honourHttpContentLocation: this.options.honourHttpContentLocation,
      onReference: ((r: ReferenceRecord, part?: string) => {
        references.push(r);
        parts.push(part ?? null);
      }) as (r: ReferenceRecord) => void,
      onWarning: (w) => warnings.push(w),
      onBase: (d) => {
        base = d;
      },
    });
    const output = await transformWhole(rewriter.transform!, decoded);
    for (const w of warnings) this.warn({ ...w, message: `${targetUri ?? ''}: ${w.message}`, offset, warcRecordId: id ?? undefined });
    const counts: Counts = { rewritten: 0, unchanged: 0, unresolvable: 0 };
    references.forEach((r, i) => {
      if (r.changed) counts.rewritten++;
      else if (r.resolved === null) counts.unresolvable++;
      else counts.unchanged++;
      this.referenceLine(context, r, parts[i] ?? null);
    });
    if (counts.rewritten === 0) return copy(`nothing to rewrite (${kind})`, { ...meta, counts });

    this.summary.rewritten++;
    this.summary.references += counts.rewritten;
    const payloadDigest = field(header, 'WARC-Payload-Digest');
    if (this.rewrittenIds.size < this.limits.maxWarcRevisitIndex) {
      if (id !== null) this.rewrittenIds.add(id);
      if (targetUri !== null && date !== null) this.rewrittenCaptures.add(`${targetUri} ${date}`);
      if (payloadDigest !== undefined) this.rewrittenDigests.add(`${targetUri} ${payloadDigest.toLowerCase()}`);
      this.rewrittenDigests.add(`${targetUri} ${sha1Digest(body).toLowerCase()}`);
    } else if (this.rewrittenIds.size === this.limits.maxWarcRevisitIndex) {
      this.rewrittenIds.add('');
      this.warn({ code: 'warc-record-not-rewritten', message: `more than ${this.limits.maxWarcRevisitIndex} records rewritten (maxWarcRevisitIndex): revisits of later ones are not reported as revisitOfRewritten`, offset });
    }

    const finalBase = base as BaseDecision | null;
    const newId = this.newId();
    const version = header.protocol.startsWith('WARC/') ? header.protocol : 'WARC/1.0';
    const baseFields: Array<[string, string | number | null]> = [
      ['absolutize-base', finalBase?.url ?? null],
      ['absolutize-base-source', finalBase?.source ?? null],
      ['absolutize-references-changed', counts.rewritten],
      ['absolutize-payload', notes.join('; ') || null],
    ];
    if ((this.options.output ?? 'replace') === 'conversion') {
      const mediaType = contentTypeRaw ?? 'application/octet-stream';
      const digest = sha1Digest(output);
      const conversion = serializeRecord(version, [
        ['WARC-Type', 'conversion'],
        ['WARC-Record-ID', newId],
        ['WARC-Date', date ?? warcDateNow()],
        ...(targetUri === null ? [] : ([['WARC-Target-URI', targetUri]] as Array<[string, string]>)),
        ...(id === null ? [] : ([['WARC-Refers-To', id]] as Array<[string, string]>)),
        ['Content-Type', mediaType],
        ['WARC-Block-Digest', digest],
        ['WARC-Payload-Digest', digest],
      ], output);
      this.recordLine(context, type, head.status, contentTypeRaw, 'rewritten', `conversion record added (${kind}${notes.length > 0 ? `; ${notes.join('; ')}` : ''})`, counts, newId);
      return { replacement: bytes, after: [conversion] };
    }

    // replace: the HTTP head as it was, framing headers renamed X-Archive-Orig-*, a new Content-Length.
    const newHead = rewriteHead(item.block, head, output.length);
    const block = Buffer.concat([newHead, output]);
    const blockDigest = sha1Digest(block);
    const newPayloadDigest = sha1Digest(output);
    const fields: Array<[string, string]> = [];
    let sawBlock = false;
    let sawPayload = false;
    for (const [n, v] of header.fields) {
      const lower = n.toLowerCase();
      if (lower === 'warc-record-id') fields.push([n, newId]);
      else if (lower === 'warc-block-digest') {
        fields.push([n, blockDigest]);
        sawBlock = true;
      } else if (lower === 'warc-payload-digest') {
        fields.push([n, newPayloadDigest]);
        sawPayload = true;
      } else fields.push([n, v]);
    }
    if (!sawBlock) fields.push(['WARC-Block-Digest', blockDigest]);
    if (!sawPayload) fields.push(['WARC-Payload-Digest', newPayloadDigest]);
    const replacement = serializeRecord(version, fields, block);
    const metaBlock = warcFields([
      ['absolutize-original-record-id', id],
      ['absolutize-original-block-digest', field(header, 'WARC-Block-Digest') ?? sha1Digest(item.block)],
      ['absolutize-original-payload-digest', payloadDigest ?? sha1Digest(body)],
      ...baseFields,
    ]);
    const metadata = serializeRecord(version, [
      ['WARC-Type', 'metadata'],
      ['WARC-Record-ID', this.newId()],
      ['WARC-Date', date ?? warcDateNow()],
      ...(targetUri === null ? [] : ([['WARC-Target-URI', targetUri]] as Array<[string, string]>)),
      ['WARC-Refers-To', newId],
      ['Content-Type', 'application/warc-fields'],
      ['WARC-Block-Digest', sha1Digest(metaBlock)],
    ], metaBlock);
    this.recordLine(context, type, head.status, contentTypeRaw, 'rewritten', `replaced (${kind}${notes.length > 0 ? `; ${notes.join('; ')}` : ''})`, counts, newId);
    return { replacement, after: [metadata] };
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

interface Counts {
  rewritten: number;
  unchanged: number;
  unresolvable: number;
}
const ZERO: Counts = Object.freeze({ rewritten: 0, unchanged: 0, unresolvable: 0 });

/** `WARC-Target-URI` without the `<…>` wget 1.14 wrote around it. */
export function stripAngles(value: string | undefined): string | null {
  if (value === undefined) return null;
  const v = value.trim();
  return v.startsWith('<') && v.endsWith('>') ? v.slice(1, -1) : v;
}

/** The content codings undone with the HTTP path's decoders, bounded by the record limit. */
async function decode(body: Buffer, codings: readonly string[], max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  await pipeline([Readable.from([body]), ...createDecoders(codings), createByteLimit('maxWarcRecordBytes', max), sink]);
  return Buffer.concat(chunks);
}

/** The head's bytes with Transfer-Encoding, Content-Encoding and Content-Length renamed X-Archive-Orig-*, and a new Content-Length. */
function rewriteHead(block: Buffer, head: HttpHead, length: number): Buffer {
  const parts: Buffer[] = [];
  let copied = 0;
  for (const line of head.lines) {
    if (!FRAMING_HEADERS.has(line.name.toLowerCase())) continue;
    parts.push(block.subarray(copied, line.start), Buffer.from('X-Archive-Orig-'));
    copied = line.start;
  }
  parts.push(block.subarray(copied, head.emptyLine), Buffer.from(`Content-Length: ${length}${head.eol}`), block.subarray(head.emptyLine, head.length));
  return Buffer.concat(parts);
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

