/**
 * Which rewriter a WARC/ARC record's payload goes to, or why it is copied: the one place that decides it
 * (SPEC §5b "every HTML a browser would render is rewritten"). Extend `routePayload` (and `kindOf`) for new
 * document kinds or header rewriting; the rest of the WARC code follows its answer. Pure.
 *
 * - `response` records holding an HTTP response (`application/http`): by the HTTP `Content-Type`, whatever the
 *   status (a custom 404 page is a page a browser shows) except a redirect (3xx with `Location`: the browser
 *   follows it; its `Location`s become redirect edges) and 1xx;
 * - `resource` records (and `response` records of other protocols): the block is the payload, typed by the WARC
 *   `Content-Type`;
 * - no `Content-Type` (or `unknown/unknown`, `application/unknown`, `*∕*`): the body is sniffed for HTML as the
 *   MIME Sniffing standard's "rules for identifying an unknown MIME type" do (`sniffsAsHtml`), after its content
 *   coding is undone;
 * - `revisit` records are copied; a revisit of a 3xx gives its redirect edges.
 */
import { extractContentType, parseContentType, rewriteKindFor } from '../http/content-type.ts';
import type { RewriteKind } from '../http/content-type.ts';
import { headerText, headerValues, parseHttpHead } from './http-message.ts';
import type { HttpHead } from './http-message.ts';
import { field } from './record.ts';
import type { WarcHeader } from './record.ts';

/** A rewriter's kind, or `sniff`: HTML if the decoded body sniffs as HTML, else copied. */
export type PayloadKind = Exclude<RewriteKind, 'none'> | 'sniff';

export type PayloadRoute =
  | {
      readonly rewrite: true;
      readonly kind: PayloadKind;
      /** The HTTP response head, or null when the block is the payload (resource records). */
      readonly http: HttpHead | null;
      readonly status: number | null;
      /** The payload's Content-Type as written (HTTP, or the WARC header's for a resource). */
      readonly contentType: string | null;
    }
  | {
      readonly rewrite: false;
      readonly reason: string;
      readonly status: number | null;
      readonly contentType: string | null;
      /** `Location` values of a redirect (3xx), read as UTF-8 first (headerText). */
      readonly redirects: readonly string[];
    };

/** Media types that mean "unknown": the body is sniffed (MIME Sniffing §8.1, "supplied MIME type" unknown). */
const UNKNOWN = new Set(['unknown/unknown', 'application/unknown', '*/*']);

function kindOf(contentType: string | null): PayloadKind | null {
  const essence = parseContentType(contentType).essence;
  if (essence === null || UNKNOWN.has(essence)) return 'sniff';
  const kind = rewriteKindFor(essence);
  return kind === 'none' ? null : kind;
}

/**
 * A response's Content-Type as a browser replaying it extracts one (Fetch: every field line, split at commas
 * outside quotes, the last valid type wins — `text/plain, text/html` is HTML), as a value `parseContentType`
 * reads the same way: one plain field is itself; else the winning piece, with the charset an earlier piece of
 * the same essence gave when it states none.
 */
export function responseContentType(head: HttpHead): string | null {
  const values = headerValues(head, 'Content-Type');
  if (values.length === 0) return null;
  if (values.length === 1 && !values[0]!.includes(',')) return values[0]!;
  const extracted = extractContentType(values);
  if (extracted.essence === null) return values[values.length - 1]!;
  const raw = extracted.raw!;
  return extracted.charset !== undefined && parseContentType(raw).charset === undefined ? `${raw}; charset=${extracted.charset}` : raw;
}

const copy = (reason: string, status: number | null = null, contentType: string | null = null, redirects: readonly string[] = []): PayloadRoute => ({ rewrite: false, reason, status, contentType, redirects });

export function routePayload(header: WarcHeader, block: Buffer): PayloadRoute {
  const type = field(header, 'WARC-Type') ?? null;
  const recordType = (field(header, 'Content-Type') ?? '').trim();
  const isHttp = /^application\/http\b/i.test(recordType);
  if (type === 'revisit') {
    const head = isHttp ? parseHttpHead(block) : null;
    if (head !== null && head.status >= 300 && head.status < 400) return copy('revisit of a redirect: copied', head.status, responseContentType(head), headerValues(head, 'Location').map(headerText));
    return copy('revisit: copied', head?.status ?? null, head === null ? null : responseContentType(head));
  }
  if (type !== 'response' && type !== 'resource') return copy(`${type ?? 'untyped'} record: copied`);
  if (field(header, 'WARC-Truncated') !== undefined) return copy(`WARC-Truncated: ${field(header, 'WARC-Truncated')}: copied`);
  // WARC 1.1 §5.13: a record in segments holds the first of them, its payload continued in `continuation`
  // records that name it by WARC-Segment-Origin-ID. Rewritten alone it would get a new id (the continuations would
  // name none) and a payload of a rewritten first part and original rest.
  if (field(header, 'WARC-Segment-Number') !== undefined) return copy(`WARC-Segment-Number: ${field(header, 'WARC-Segment-Number')}: a record in segments, copied`);
  if (type === 'response' && isHttp) {
    const head = parseHttpHead(block);
    if (head === null) return copy('the block does not start with an HTTP response head: copied');
    const contentType = responseContentType(head);
    const locations = headerValues(head, 'Location');
    if (head.status >= 300 && head.status < 400 && locations.length > 0) return copy(`HTTP ${head.status}: copied`, head.status, contentType, locations.map(headerText));
    if (head.status < 200) return copy(`HTTP ${head.status}: copied`, head.status, contentType);
    const kind = kindOf(contentType);
    if (kind === null) return copy(`Content-Type ${parseContentType(contentType).essence ?? JSON.stringify(contentType)}: not rewritten, copied`, head.status, contentType);
    return { rewrite: true, kind, http: head, status: head.status, contentType };
  }
  // A resource (or a response of another protocol): the block is the payload, typed by the record.
  const contentType = recordType === '' ? null : recordType;
  const kind = kindOf(contentType);
  if (kind === null) return copy(`Content-Type ${parseContentType(contentType).essence ?? JSON.stringify(contentType)}: not rewritten, copied`, null, contentType);
  return { rewrite: true, kind, http: null, status: null, contentType };
}
