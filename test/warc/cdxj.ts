/**
 * A CDXJ index of a WARC as pywb's indexer (webrecorder/cdxj-indexer, `cdxj_indexer/main.py`) makes it, and the
 * look-ups replay makes in it; read with npm warcio, sharing nothing with the rewriter but the SURT function.
 *
 * cdxj-indexer's rules followed: records indexed are `response`, `revisit`, `resource` and `metadata`, except
 * `resource`/`metadata` records of `application/warc-fields`; the key is the SURT of WARC-Target-URI and the
 * 14-digit WARC-Date; `mime` is `warc/revisit` for a revisit, the HTTP Content-Type (first token) for a response,
 * else the record's Content-Type; `digest` is WARC-Payload-Digest; `offset`/`length` the record's gzip member.
 * A revisit is resolved as pywb's ResolvingLoader does: the capture, not itself a revisit, with the same key
 * (WARC-Refers-To-Target-URI's when given, else its own) and the same digest.
 */
import { WARCParser } from 'warcio';
import { surt } from '../../src/uri/surt.ts';

export interface CdxjEntry {
  readonly urlkey: string;
  readonly timestamp: string;
  readonly url: string;
  readonly mime: string | null;
  readonly status: string | null;
  readonly digest: string | null;
  readonly offset: number;
  readonly length: number;
  /** Not in a CDXJ line; kept to check what replay resolves. */
  readonly type: string;
  readonly id: string | null;
  readonly refersTo: string | null;
  readonly refersToUrl: string | null;
  /** The HTTP head's headers (lowercase names), for a response or revisit. */
  readonly http: Map<string, string> | null;
  readonly payloadLength: number | null;
}

export interface WarcIndex {
  readonly entries: CdxjEntry[];
  /** Every record's id (indexed or not) → its type. */
  readonly ids: Map<string, string>;
  /** Every WARC-Concurrent-To and WARC-Refers-To, with the id of the record that holds it. */
  readonly references: Array<{ readonly from: string | null; readonly field: string; readonly to: string }>;
}

const timestamp = (date: string): string => date.replace(/[^0-9]/g, '').slice(0, 14).padEnd(14, '0');

export async function indexCdxj(bytes: Buffer): Promise<WarcIndex> {
  const parser = new WARCParser([bytes]);
  const entries: CdxjEntry[] = [];
  const ids = new Map<string, string>();
  const references: Array<{ from: string | null; field: string; to: string }> = [];
  for await (const record of parser) {
    const payload = await record.readFully(false);
    const h = record.warcHeaders.headers as unknown as Map<string, string>;
    const get = (name: string): string | null => {
      for (const [k, v] of h as unknown as Iterable<[string, string]>) if (k.toLowerCase() === name) return v;
      return null;
    };
    const type = record.warcType ?? '';
    const id = get('warc-record-id');
    if (id !== null) ids.set(id, type);
    for (const [k, v] of h as unknown as Iterable<[string, string]>) {
      if (/^warc-(concurrent|refers)-to$/i.test(k)) references.push({ from: id, field: k, to: v });
    }
    if (!['response', 'revisit', 'resource', 'metadata'].includes(type)) continue;
    const contentType = get('content-type');
    if ((type === 'resource' || type === 'metadata') && contentType === 'application/warc-fields') continue;
    const httpHeaders = record.httpHeaders;
    let http: Map<string, string> | null = null;
    if (httpHeaders !== null && httpHeaders !== undefined) {
      http = new Map();
      for (const [k, v] of httpHeaders.headers as unknown as Iterable<[string, string]>) http.set(k.toLowerCase(), v);
    }
    const mime = type === 'revisit' ? 'warc/revisit' : (type === 'response' ? (http?.get('content-type') ?? null) : contentType)?.split(/[ ;]/)[0] ?? null;
    const url = (get('warc-target-uri') ?? '').replace(/^<(.*)>$/, '$1');
    entries.push({
      urlkey: surt(url) ?? url,
      timestamp: timestamp(get('warc-date') ?? ''),
      url,
      mime,
      status: httpHeaders?.statusCode === undefined ? null : String(httpHeaders.statusCode),
      digest: get('warc-payload-digest'),
      offset: parser.offset,
      length: parser.recordLength,
      type,
      id,
      refersTo: get('warc-refers-to'),
      refersToUrl: get('warc-refers-to-target-uri'),
      http,
      payloadLength: payload.length,
    });
  }
  return { entries, ids, references };
}

/** The capture a revisit replays, as pywb finds it (urlkey and digest), or null. */
export function resolveRevisit(index: WarcIndex, revisit: CdxjEntry): CdxjEntry | null {
  const key = revisit.refersToUrl === null ? revisit.urlkey : (surt(revisit.refersToUrl) ?? revisit.refersToUrl);
  return index.entries.find((e) => e.type !== 'revisit' && e.urlkey === key && e.digest === revisit.digest) ?? null;
}
