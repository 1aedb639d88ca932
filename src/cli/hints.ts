/**
 * One-line hints for a run that rewrote nothing because the input was taken for something it is not: CSS read as
 * HTML (standard input, or a name without .css), mail read as HTML, or mail copied unchanged from a directory
 * (a Maildir's messages have no extension). Printed once per run, after the run, with a stable code:
 * `absolutize: hint [looks-like-css] …` (docs/errors.md, Hints). A missing base has its own warning (`no-base`).
 */
import { readFilePrefix } from '../batch/sniff.ts';
import { looksLikeCss } from '../kinds/sniff.ts';
import { basename } from 'node:path';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type { CliIo } from './io.ts';

export type HintCode = 'looks-like-css' | 'looks-like-mail' | 'looks-like-mbox' | 'httrack-local-links';

export interface Hint {
  readonly code: HintCode;
  readonly message: string;
}

/** Bytes of the input a hint looks at. */
export const HINT_PREFIX_BYTES = 1024;

/** A pass-through stream that keeps the first HINT_PREFIX_BYTES bytes it sees. */
export class PrefixKeeper extends Transform {
  prefix: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.prefix.length < HINT_PREFIX_BYTES) this.prefix = Buffer.concat([this.prefix, chunk.subarray(0, HINT_PREFIX_BYTES - this.prefix.length)]);
    callback(null, chunk);
  }
}

// RFC 5322 §2.2: a header field is a name of printable ASCII but ":", a colon, a body. The names below are the
// ones a message (or a saved MHTML page) starts with; a first line "From " is an mbox separator (RFC 4155).
const FIELD = /^([!-9;-~]+)[ \t]*:/; // RFC 5322 §4.5.3 (obsolete syntax) allows white space before the colon
const MESSAGE_FIELDS = new Set(['from', 'to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'received', 'return-path', 'delivered-to', 'snapshot-content-location']);

/**
 * `mbox` when the bytes start with an mbox "From " line, `mail` when with a message's header block (two fields
 * or more, or one and the blank line that ends the block, one of them a field messages start with; or four
 * fields of any names, as a message whose first kilobyte is X- fields), else null.
 */
export function mailKind(prefix: Uint8Array): 'mail' | 'mbox' | null {
  const text = Buffer.from(prefix).toString('latin1');
  if (/^From \S/.test(text)) return 'mbox';
  const lines = text.split(/\r?\n/);
  let fields = 0;
  let known = false;
  let complete = false;
  for (const [i, line] of lines.entries()) {
    if (line === '') {
      complete = true; // the end of the header block
      break;
    }
    if (i === lines.length - 1) break; // cut off by the prefix: not judged
    if (/^[ \t]/.test(line) && fields > 0) continue; // a folded field body
    const m = FIELD.exec(line);
    if (m === null) {
      if (fields === 0) return null;
      break; // a malformed line within the header: judged on the fields before it
    }
    fields++;
    known ||= MESSAGE_FIELDS.has(m[1]!.toLowerCase());
  }
  return (known && (fields >= 2 || complete)) || fields >= 4 ? 'mail' : null;
}

/** The hint for one input read as HTML because no --type said otherwise, or null. */
export function typeHint(document: string, prefix: Uint8Array, rewritten: number): Hint | null {
  const mail = mailKind(prefix);
  if (mail === 'mbox') return { code: 'looks-like-mbox', message: `${document} was read as HTML but looks like an mbox archive (it starts with a "From " line): give --type mbox` };
  if (mail === 'mail') return { code: 'looks-like-mail', message: `${document} was read as HTML but looks like a mail message or MHTML file (it starts with header fields): give --type mime` };
  if (rewritten === 0 && looksLikeCss(prefix)) return { code: 'looks-like-css', message: `nothing was rewritten: ${document} was read as HTML but looks like CSS: give --type css` };
  return null;
}

export function printHint(io: CliIo, hint: Hint): void {
  io.stderr.write(`absolutize: hint [${hint.code}] ${hint.message}\n`);
}

/**
 * A directory run copies the files it cannot type by name. For one whose name says nothing of its type (no
 * extension, or a Maildir name such as "1700000000.M1P1.host:2,S") and that starts as a mail message or mbox
 * does, the hint that `--type` rewrites them; null otherwise. Reads at most HINT_PREFIX_BYTES of the file.
 */
export async function copiedMailHint(path: string | Buffer, shown: string): Promise<Hint | null> {
  // A Maildir message: in new/ or cur/ (a delivered message in new/ has no ":2," flags yet), or flagged ":2,".
  const inMaildir = /(?:^|\/)(?:new|cur)\/[^/]+$/.test(shown) || /:2,[A-Za-z]*$/.test(shown);
  if (basename(shown).includes('.') && !inMaildir) return null;
  const prefix = await readFilePrefix(path, HINT_PREFIX_BYTES);
  if (prefix === null) return null; // the copy reports it
  const kind = mailKind(prefix);
  if (kind === null) return null;
  return {
    code: kind === 'mbox' ? 'looks-like-mbox' : 'looks-like-mail',
    message: `files with no known extension were copied unchanged, and ${shown} looks like ${kind === 'mbox' ? 'an mbox archive' : 'a mail message'}: give --type ${kind === 'mbox' ? 'mbox' : 'mime'} to rewrite every file as one (a Maildir's messages have no extension)`,
  };
}
