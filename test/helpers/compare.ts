/** Compare two Chromium collections (original vs rewritten) reference by reference. */
import type { Collected, ResolvedRef } from './chromium.ts';

export type Mismatch =
  | { kind: 'missing'; id: string; expected: ResolvedRef }
  | { kind: 'extra'; id: string; actual: ResolvedRef }
  | { kind: 'different'; id: string; expected: ResolvedRef; actual: ResolvedRef }
  | { kind: 'duplicate-id'; id: string; side: 'expected' | 'actual' }
  | { kind: 'request-missing'; url: string }
  | { kind: 'request-extra'; url: string };

function index(refs: readonly ResolvedRef[], side: 'expected' | 'actual', out: Mismatch[]): Map<string, ResolvedRef> {
  const map = new Map<string, ResolvedRef>();
  for (const ref of refs) {
    if (map.has(ref.id)) out.push({ kind: 'duplicate-id', id: ref.id, side });
    map.set(ref.id, ref);
  }
  return map;
}

function withoutFragment(url: string): string {
  const i = url.indexOf('#');
  return i === -1 ? url : url.slice(0, i);
}

/** The URLs of the two documents compared: the original's, and that of the copy (rewritten, relocated). */
export interface DocumentUrls {
  readonly original: string;
  readonly copy: string;
}

/**
 * What a reference of the copy may resolve to, given what it resolved to in the original.
 *
 * Same-document references (issue "HTML and CSS" §3, RFC 3986 §4.4): an empty or fragment-only reference is left
 * as it is by default, so in the copy it designates the copy itself — where the original's resolved to the
 * original document's URL, the copy's may resolve to the copy's URL, with the same fragment. The same holds for
 * the base of an `iframe srcdoc` document of a page without `<base>` (its fallback base is the parent's URL).
 * Resolving exactly as in the original (fragments absolutized, or a `<base>` pointing at the original) is
 * accepted too.
 */
export function acceptedInCopy(exp: ResolvedRef, docs: DocumentUrls | undefined): readonly (string | null)[] {
  const resolved = exp.resolved;
  if (docs === undefined || resolved === null || docs.original === docs.copy) return [resolved];
  const original = withoutFragment(docs.original);
  const copy = withoutFragment(docs.copy);
  const raw = exp.raw.trim();
  if ((raw === '' || raw.startsWith('#')) && (resolved === original || resolved.startsWith(original + '#'))) {
    return [resolved, copy + resolved.slice(original.length)];
  }
  const srcdoc = 'about:srcdoc base=';
  if (resolved === srcdoc + original) return [resolved, srcdoc + copy];
  return [resolved];
}

/** Mismatches between the references of `expected` and `actual`, matched by id. */
export function compareRefs(expected: readonly ResolvedRef[], actual: readonly ResolvedRef[], docs?: DocumentUrls): Mismatch[] {
  const out: Mismatch[] = [];
  const e = index(expected, 'expected', out);
  const a = index(actual, 'actual', out);
  for (const [id, exp] of e) {
    const act = a.get(id);
    if (act === undefined) {
      out.push({ kind: 'missing', id, expected: exp });
      continue;
    }
    const equal = acceptedInCopy(exp, docs).includes(act.resolved) || (exp.optional === true && exp.raw === act.raw);
    if (!equal) out.push({ kind: 'different', id, expected: exp, actual: act });
  }
  for (const [id, act] of a) {
    if (!e.has(id)) out.push({ kind: 'extra', id, actual: act });
  }
  return out;
}

/** Multiset difference of request URLs. */
export function compareRequests(expected: readonly string[], actual: readonly string[]): Mismatch[] {
  const counts = new Map<string, number>();
  for (const u of expected) counts.set(u, (counts.get(u) ?? 0) + 1);
  for (const u of actual) counts.set(u, (counts.get(u) ?? 0) - 1);
  const out: Mismatch[] = [];
  for (const [url, n] of [...counts].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))) {
    for (let i = 0; i < n; i++) out.push({ kind: 'request-missing', url });
    for (let i = 0; i < -n; i++) out.push({ kind: 'request-extra', url });
  }
  return out;
}

export function compareCollections(expected: Collected, actual: Collected): Mismatch[] {
  return [...compareRefs(expected.refs, actual.refs, { original: expected.url, copy: actual.url }), ...compareRequests(expected.requests, actual.requests)];
}

/** Human-readable, one line per mismatch. */
export function formatMismatches(mismatches: readonly Mismatch[], limit = 50): string {
  const lines = mismatches.slice(0, limit).map((m) => {
    switch (m.kind) {
      case 'missing':
        return `missing   ${m.id}  raw=${JSON.stringify(m.expected.raw)} expected=${m.expected.resolved}`;
      case 'extra':
        return `extra     ${m.id}  raw=${JSON.stringify(m.actual.raw)} actual=${m.actual.resolved}`;
      case 'different':
        return (
          `different ${m.id}  raw=${JSON.stringify(m.expected.raw)} → ${JSON.stringify(m.actual.raw)}\n` +
          `            expected ${m.expected.resolved}\n            actual   ${m.actual.resolved}`
        );
      case 'duplicate-id':
        return `duplicate ${m.id} (${m.side})`;
      case 'request-missing':
        return `request missing ${m.url}`;
      case 'request-extra':
        return `request extra   ${m.url}`;
    }
  });
  if (mismatches.length > limit) lines.push(`… and ${mismatches.length - limit} more`);
  return lines.join('\n');
}
