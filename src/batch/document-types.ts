/**
 * An input's type: from `--type`, else its name's extension, else (batch inputs) its first bytes. Apart from the
 * rewriters (./rewriters.ts), so that a command that only decides (the WARC command's reading thread) loads none.
 */
import { AbsError } from '../errors.ts';
import { CONTENT_KINDS, KIND_EXTENSIONS } from '../kinds/table.ts';
import type { ContentKind } from '../kinds/table.ts';

export type DocumentType = 'html' | 'css' | 'mime' | 'mbox' | 'warc' | ContentKind;

export const DOCUMENT_TYPES: readonly DocumentType[] = ['html', 'css', 'mime', 'mbox', 'warc', ...CONTENT_KINDS];

const EXTENSION_TYPES: ReadonlyArray<readonly [string, DocumentType]> = [
  ['.html', 'html'],
  ['.htm', 'html'],
  // SVG, XHTML (parsed as XML, as browsers do), feeds, XML, manifests, JavaScript: src/kinds.
  ...CONTENT_KINDS.flatMap((k) => KIND_EXTENSIONS.filter(([, kind]) => kind === k)),
  ['.shtml', 'html'],
  ['.css', 'css'],
  ['.eml', 'mime'],
  ['.mht', 'mime'],
  ['.mhtml', 'mime'],
  ['.mbox', 'mbox'],
  ['.warc', 'warc'],
  ['.warc.gz', 'warc'],
  ['.arc', 'warc'],
  ['.arc.gz', 'warc'],
];

/** The type a file name's extension names, if any (`.warc.gz` is two). */
export function typeOfName(name: string): DocumentType | undefined {
  const lower = name.toLowerCase();
  let best: readonly [string, DocumentType] | undefined;
  for (const e of EXTENSION_TYPES) if (lower.endsWith(e[0]) && (best === undefined || e[0].length > best[0].length)) best = e;
  return best?.[1];
}

/** Bytes `typeOfBytes` looks at. */
export const SNIFF_BYTES = 16;

/**
 * The type the first bytes show, where they show one: a WARC record starts "WARC/" (ISO 28500 §4), an ARC file
 * "filedesc://" (ARC 1.0); gzip (1f 8b) members of either are told by the name (.warc.gz, .arc.gz).
 */
export function typeOfBytes(head: Uint8Array): DocumentType | undefined {
  const ascii = Buffer.from(head).toString('latin1');
  if (ascii.startsWith('WARC/') || ascii.startsWith('filedesc://')) return 'warc';
  return undefined;
}

/** `--type` as written: a type, or `auto`. */
export function parseTypeOption(value: string, allowed: readonly string[] = DOCUMENT_TYPES): DocumentType | 'auto' {
  if (value === 'auto' || ((DOCUMENT_TYPES as readonly string[]).includes(value) && allowed.includes(value))) return value as DocumentType | 'auto';
  throw new AbsError(`--type must be ${allowed.join(', ')} or auto, not ${JSON.stringify(value)}`, 'ABS_ERR_USAGE');
}
