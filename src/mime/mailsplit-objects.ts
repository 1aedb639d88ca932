/**
 * The objects mailsplit 5.4's Splitter emits, as src/mime/rewriter.ts reads them. mailsplit ships no types; these
 * live in a module of ours (not in src/types/mailsplit.d.ts) because the package's own declaration files name
 * them, and a declaration that imported 'mailsplit' would not type-check in a project that installs absolutize.
 */

export interface MailsplitHeaders {
  getFirst(key: string): string;
  get(key: string): string[];
  update(key: string, value: string): void;
  build(lineEnd?: string): Buffer;
}

/** One MIME entity, emitted when its header ends (`type: 'node'`). */
export interface MimeNode {
  readonly type: 'node';
  readonly root: boolean;
  readonly parentNode: MimeNode | false;
  readonly headers: MailsplitHeaders;
  readonly contentType: string | false;
  readonly charset: string | false;
  readonly encoding: string | false;
  readonly multipart: string | false;
  readonly messageNode?: boolean;
  readonly partNr: string[] | false;
  getHeaders(): Buffer;
}

/** Framing (`data`: boundaries, preamble, epilogue) or body bytes (`body`) of a node, a line at a time. */
export interface MimeChunk {
  readonly type: 'data' | 'body';
  readonly node: MimeNode;
  readonly value: Buffer;
}
