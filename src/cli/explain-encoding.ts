/** `--explain`: which encoding a document is read in, and why (the sniffing step that decided it). */
import type { EncodingDecision, EncodingSource } from '../encoding/index.ts';
import type { CliIo } from './io.ts';

// https://html.spec.whatwg.org/multipage/parsing.html#encoding-sniffing-algorithm and
// https://drafts.csswg.org/css-syntax-3/#input-byte-stream, one step each.
const WHY: Readonly<Record<Exclude<EncodingSource, 'transport'>, string>> = {
  bom: 'a byte order mark',
  meta: 'a charset <meta> in the head (or an XML declaration)',
  'charset-rule': 'the @charset rule',
  environment: "the referring document's encoding",
  default: 'nothing in the document or its transport names one: the default',
};

/**
 * One line on stderr: `absolutize: encoding of DOC: windows-1252 [default] (…why…)`. `transport` says who gave
 * a transport charset: `--charset`, the response's Content-Type, the part's Content-Type.
 */
export function explainEncoding(io: CliIo, document: string, decision: EncodingDecision, transport: string): void {
  const why = decision.source === 'transport' ? transport : WHY[decision.source];
  io.stderr.write(`absolutize: encoding of ${document}: ${decision.name} [${decision.source}] (${why})\n`);
}
