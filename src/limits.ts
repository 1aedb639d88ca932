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
   * Bytes of one token (a tag with its attributes, a comment, a doctype) or of one `<style>` / JSON `<script>`
   * text. parse5 frees its buffer only at token boundaries, so one giant tag or comment is otherwise unbounded.
   * Past it the rest of the document passes through unchanged (`token-limit`).
   * @default 16777216 (16 MiB)
   */
  readonly maxTokenBytes: number;
  /**
   * Nesting depth of `iframe srcdoc` documents rewritten inside one another. Deeper ones pass through.
   * @default 8
   */
  readonly maxSrcdocDepth: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxBaseLookaheadBytes: 1 << 20,
  maxExactBaseBytes: 1 << 28,
  maxTokenBytes: 1 << 24,
  maxSrcdocDepth: 8,
});

/** Merges user limits over the defaults, validating each: a positive safe integer. */
export function resolveLimits(user: Partial<Limits> | undefined): Limits {
  if (user === undefined) return DEFAULT_LIMITS;
  const out: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(user)) {
    if (!(name in DEFAULT_LIMITS)) throw new AbsError(`unknown limit ${JSON.stringify(name)}`, 'ABS_ERR_INVALID_OPTION');
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new AbsError(`limit ${name} must be a positive integer, not ${String(value)}`, 'ABS_ERR_INVALID_OPTION');
    }
    out[name] = value;
  }
  return out as unknown as Limits;
}
