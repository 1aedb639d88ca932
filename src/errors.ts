/**
 * One error class with stable codes, branded like undici's errors so that `instanceof` works across
 * copies of the package. Users match on `err.code`; codes are append-only and listed in docs/errors.md.
 */

export type AbsErrorCode =
  | 'ABS_ERR_INVALID_OPTION'
  | 'ABS_ERR_USAGE'
  | 'ABS_ERR_UNSUPPORTED_NODE'
  | 'ABS_ERR_LIMIT'
  | 'ABS_ERR_ENCODING_UNSUPPORTED'
  | 'ABS_ERR_INVALID_BASE'
  | 'ABS_ERR_INPUT'
  | 'ABS_ERR_OUTPUT'
  | 'ABS_ERR_HTTP_DNS'
  | 'ABS_ERR_HTTP_CONNECT'
  | 'ABS_ERR_HTTP_TLS'
  | 'ABS_ERR_HTTP_TIMEOUT'
  | 'ABS_ERR_HTTP_NETWORK'
  | 'ABS_ERR_HTTP_STATUS'
  | 'ABS_ERR_HTTP_REDIRECT'
  | 'ABS_ERR_HTTP_ADDRESS_REFUSED'
  | 'ABS_ERR_HTTP_CONTENT_ENCODING'
  // issue 11 (HTTP edges)
  | 'ABS_ERR_HTTP_PROTOCOL'
  // batch work (src/batch) and the CLI's top-level guard
  | 'ABS_ERR_INTERNAL'
  // WARC and ARC (src/warc)
  | 'ABS_ERR_WARC_FORMAT'
  | 'ABS_ERR_WARC_TRUNCATED'
  | 'ABS_ERR_WARC_PARTIAL';

// The brand, a registered symbol, is the same in every copy of the package (undici's kUndiciError).
const kAbsError = Symbol.for('absolutize.error');

export class AbsError extends Error {
  static override [Symbol.hasInstance](x: unknown): boolean {
    // Subclasses keep the ordinary prototype check; the brand answers for AbsError itself.
    if (this !== AbsError) return Function.prototype[Symbol.hasInstance].call(this, x);
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[kAbsError] === true;
  }

  override name = 'AbsError';
  readonly code: AbsErrorCode;

  constructor(message: string, code: AbsErrorCode, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
// Defined on the prototype (not as a computed class member, which isolatedDeclarations cannot type).
Object.defineProperty(AbsError.prototype, kAbsError, { value: true });

/** Thrown (or reported, under the `'error'` overflow policy) when a named limit from limits.ts is exceeded. */
export class LimitExceededError extends AbsError {
  override name = 'LimitExceededError';
  readonly limit: string;
  readonly value: number;
  readonly unit: string;

  constructor(limit: string, value: number, unit: string) {
    super(`limit ${limit} exceeded: ${value} ${unit}`, 'ABS_ERR_LIMIT');
    this.limit = limit;
    this.value = value;
    this.unit = unit;
  }
}

/** One hop of an HTTP redirect chain: the URL requested, the status it answered and its `Location` value. */
export interface RedirectHop {
  /** The URL requested (credentials removed). */
  readonly url: string;
  readonly status: number;
  /** The `Location` header as sent (credentials removed when it is absolute). */
  readonly location: string;
}

/**
 * A retrieval that failed (`ABS_ERR_HTTP_*`): the URL (credentials removed), the redirects followed before the
 * failure, and the status for `ABS_ERR_HTTP_STATUS`.
 */
export class FetchError extends AbsError {
  override name = 'FetchError';
  readonly url: string;
  readonly chain: readonly RedirectHop[];
  readonly status: number | undefined;

  constructor(message: string, code: AbsErrorCode, details: { url: string; chain?: readonly RedirectHop[] | undefined; status?: number | undefined }, options?: ErrorOptions) {
    super(message, code, options);
    this.url = details.url;
    this.chain = details.chain ?? [];
    this.status = details.status;
  }
}

/**
 * Warning codes. Malformed input is data, not an exception: it is reported with one of these codes and the
 * input passes through. Append-only; each is described in docs/errors.md.
 */
export type WarningCode =
  | 'unresolvable-reference'
  | 'no-base'
  | 'base-href-ignored'
  | 'invalid-base-layer'
  | 'base-lookahead-limit'
  | 'base-href-after-commit'
  | 'token-limit'
  | 'undecodable-value'
  | 'invalid-json'
  | 'srcdoc-depth-limit'
  | 'encoding-not-rewritable'
  | 'charset-lookahead-limit'
  | 'content-type-not-rewritten'
  | 'mime-part-too-large'
  | 'mime-undecodable-body'
  | 'mime-unknown-transfer-encoding'
  | 'mime-depth-limit'
  | 'mime-structure-error'
  | 'open-elements-limit'
  // WARC and ARC (src/warc)
  | 'warc-gap'
  | 'warc-truncated'
  | 'warc-arc-length'
  | 'warc-content-encoding-stale'
  | 'warc-multi-record-member'
  | 'warc-record-not-rewritten'
  // MIME structure defects (src/mime/scanner.ts; Python's email defect named in docs/errors.md)
  | 'mime-missing-header-separator'
  | 'mime-missing-close-delimiter'
  | 'mime-missing-start-delimiter'
  | 'mime-no-boundary'
  | 'mime-header-continuation'
  | 'mime-invalid-content-type'
  | 'mime-encoded-message'
  | 'mime-malformed-boundary'
  | 'mime-duplicate-parameter'
  | 'mime-content-length'
  | 'mime-base64-padding'
  | 'mime-unknown-charset'
  | 'mbox-content-length'
  // HTTP retrieval (src/http)
  | 'content-encoding-trailing-bytes'
  // JavaScript modules and manifests held whole (src/kinds/whole-text.ts)
  | 'document-too-large'
  | 'invalid-script';

export interface Warning {
  readonly code: WarningCode;
  readonly message: string;
  /** What the warning is about: the reference or header value, as written. */
  readonly detail?: string;
}
