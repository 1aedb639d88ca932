/**
 * JavaScript modules and web app manifests as streams: the text is held whole (es-module-lexer and a JSON reader
 * need all of it), within `maxWholeTextBytes`; past it the document passes through unchanged
 * (`document-too-large`). Both are UTF-8 whatever the transport says (HTML "fetch a single module script" and
 * the manifest's "processing" both UTF-8 decode); text that is not valid UTF-8 passes through unchanged.
 * Output: the input bytes with each rewritten token replaced, nothing else re-encoded.
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { establishBase } from '../base/base.ts';
import type { BaseDecision } from '../base/base.ts';
import { ReferencePolicy } from '../base/reference-policy.ts';
import type { DocumentContextOptions, ReferenceStats, SiteWarning } from '../base/reference-policy.ts';
import { findModuleReferences, initModuleLexer, javaScriptStringLiteral } from '../js/module-references.ts';
import { findManifestUrls } from '../manifest/manifest.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import type { Limits } from '../limits.ts';
import { browserResolver } from '../uri/browser.ts';

export type WholeTextKind = 'js' | 'manifest';

export interface WholeTextOptions extends DocumentContextOptions {
  readonly kind: WholeTextKind;
  readonly onBase?: ((decision: BaseDecision) => void) | undefined;
}

/** One replacement: [start, end) of the text by `text`. */
interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export class WholeTextRewriterStream extends Transform {
  stats: ReferenceStats & { warnings: number } = { rewritten: 0, unchanged: 0, unresolvable: 0, warnings: 0 };
  base: BaseDecision | null = null;
  readonly encoding: string = 'UTF-8';

  private readonly options: WholeTextOptions;
  private readonly limits: Limits;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private passthrough = false;

  constructor(options: WholeTextOptions) {
    super();
    this.options = options;
    this.limits = options.limits ?? DEFAULT_LIMITS;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    if (this.passthrough) {
      this.push(chunk);
      return callback();
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes > this.limits.maxWholeTextBytes) {
      this.warn({ code: 'document-too-large', message: `${this.options.kind === 'js' ? 'script' : 'manifest'} larger than maxWholeTextBytes (${this.limits.maxWholeTextBytes} bytes): passed through unchanged` });
      for (const c of this.held) this.push(c);
      this.held = [];
      this.passthrough = true;
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.passthrough) return callback();
    const input = Buffer.concat(this.held);
    this.held = [];
    const o = this.options;
    this.base = establishBase({ retrieval: o.retrieval, fallback: o.fallback, encapsulating: o.encapsulating }, { resolver: o.resolver });
    o.onBase?.(this.base);
    const done = (): void => {
      try {
        this.push(this.rewrite(input));
        callback();
      } catch (err) {
        callback(err as Error);
      }
    };
    if (o.kind === 'js') initModuleLexer().then(done, (err: unknown) => callback(err as Error));
    else done();
  }

  private rewrite(input: Buffer): Buffer {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      this.warn({ code: 'undecodable-value', message: 'not valid UTF-8: passed through unchanged' });
      return input;
    }
    const policy = new ReferencePolicy(this.base!, { resolver: this.options.resolver ?? browserResolver, encoding: 'utf-8', onReference: this.options.onReference, onWarning: (w) => this.warn(w) });
    const lines = lineIndex(text);
    // A byte order mark (kept in the output) is read as a space: the same offsets.
    const withoutBom = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
    const edits: Edit[] = [];
    if (this.options.kind === 'manifest') {
      const urls = findManifestUrls(withoutBom);
      if (urls === null) {
        this.warn({ code: 'invalid-json', message: 'the manifest is not valid JSON: left as it is' });
        return input;
      }
      for (const u of urls) {
        const url = policy.apply(u.value, { element: 'manifest', attribute: u.member, ...lines(u.start) });
        if (url !== null) edits.push({ start: u.start, end: u.end, text: JSON.stringify(url) });
      }
    } else {
      const refs = findModuleReferences(withoutBom);
      if (refs === null) {
        this.warn({ code: 'invalid-script', message: 'the module lexer cannot read this script (a syntax error): left as it is' });
        return input;
      }
      for (const r of refs) {
        const url = policy.apply(r.value, { element: 'script', attribute: r.kind, ...lines(r.start) });
        if (url === null) continue;
        // A source map URL in a comment ends at whitespace: a resolved URL holds none.
        edits.push({ start: r.start, end: r.end, text: r.kind === 'source-map' ? url : javaScriptStringLiteral(url, r.quote) });
      }
    }
    Object.assign(this.stats, policy.stats, { warnings: this.stats.warnings });
    if (edits.length === 0) return input;
    // Splice in UTF-16 offsets, then encode: text outside the edits decodes and encodes back to the same bytes
    // (valid UTF-8, BOM kept as U+FEFF).
    let out = '';
    let at = 0;
    for (const e of edits) {
      out += text.slice(at, e.start) + e.text;
      at = e.end;
    }
    return Buffer.from(out + text.slice(at), 'utf8');
  }

  private warn(w: SiteWarning): void {
    this.stats.warnings++;
    this.options.onWarning?.(w);
  }
}

/** Line and column (1-based, in UTF-16 units) of increasing offsets. */
function lineIndex(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}

export function createWholeTextRewriter(options: WholeTextOptions): WholeTextRewriterStream {
  return new WholeTextRewriterStream(options);
}
