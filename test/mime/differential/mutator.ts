/**
 * The differential test's message generator: templates with probe links, and the malformations of issue 10 (and
 * more) applied to them. Deterministic: the same seed gives the same messages, byte for byte.
 *
 * Probe links: `<a href="probe/N">` in HTML, `url(probe-N.png)` in CSS — and the same text in text/plain parts,
 * quoted-printable text, preambles and epilogues, where it must never be rewritten. N is unique in a message. What
 * a probe is (HTML or not) is never decided here: the test asks Python's `email` which parts are HTML/CSS.
 *
 * Each case names its mutation class (the summary groups by it) and, if the mutation injects a defect, the
 * family of warning codes that must report it (`warn`: words one of which the code must contain).
 */
import { seededRandom } from '../../helpers/chunks.ts';

export interface MutationCase {
  /** Unique: class, template and variant. */
  readonly id: string;
  /** The mutation class, for the summary. */
  readonly mutation: string;
  readonly input: Buffer;
  /** Words one of which a warning code must contain, when the mutation injects a defect; null when it does not. */
  readonly warn: readonly string[] | null;
  /** A short note on what the case is, printed with failures. */
  readonly note: string;
}

/**
 * Warning code families: a code is of a family when it contains one of its words. The structure families name
 * no code in particular (the scanner picks the names); they only need the code to say what kind of defect it is.
 * Every family but `charset` and `badLocation` also needs the code to start with `mime-` (those two may be reported
 * by the HTML, CSS or base layer).
 */
export const FAMILY = {
  separator: ['separator', 'header-body', 'blank-line'],
  close: ['close', 'unclosed', 'unterminated'],
  boundary: ['boundary', 'delimiter'],
  decode: ['undecodable', 'base64', 'decode'],
  charset: ['charset', 'unknown-encoding', 'encoding-unknown', 'encoding-not-rewritable'],
  /** A Content-Location / Content-Base that is not a URL (reported by the base layer, or the MIME layer). */
  badLocation: ['invalid-base-layer', 'base-layer', 'location', 'not-a-url', 'invalid-url'],
  depth: ['depth'],
  limit: ['limit', 'too-large', 'too-long', 'structure-error'],
  contentType: ['content-type', 'media-type'],
  header: ['header', 'continuation'],
  transferEncoding: ['transfer-encoding', 'undecodable'],
  encodedMessage: ['encoded-message', 'message-encoding', 'rfc822', 'transfer-encoding'],
} as const;

/** True when warning `code` is of the family `words`. */
export function ofFamily(code: string, words: readonly string[]): boolean {
  return (code.startsWith('mime-') || words === FAMILY.charset || words === FAMILY.badLocation) && words.some((w) => code.includes(w));
}

let probeCounter = 0;
/** An HTML probe: `<a href="probe/N">`. */
const a = (): string => `<a href="probe/${++probeCounter}">p${probeCounter}</a>`;
/** A CSS probe: `url(probe-N.png)`. */
const u = (): string => `url(probe-${++probeCounter}.png)`;

const HEAD = 'From: Ann <ann@example.org>\nTo: bob@example.org\nSubject: differential\nDate: Mon, 23 Nov 2026 10:00:00 +0000\nMessage-ID: <m@example.org>\nMIME-Version: 1.0\n';

function html(extra = ''): string {
  return `<html><head><title>t</title></head><body>\n<p>Intro ${a()} and <img src="probe/${++probeCounter}.png">${extra}</p>\n<p style="background: ${u()}">${a()}</p>\n</body></html>\n`;
}

function css(): string {
  return `body { background: ${u()} }\n.x { list-style: ${u()} }\n`;
}

function plain(): string {
  return `Plain text that quotes HTML: ${a()} and ${u()}\nand must stay as it is.\n`;
}

/** Quoted-printable text/plain whose raw bytes look like HTML (`href=3D"…"`): never rewritten. */
function qpPlain(): string {
  return `<p>raw <a href=3D"probe/${++probeCounter}">x</a> soft=\nbreak <a href=3D"probe/${++probeCounter}">y</a></p>\n`;
}

const GIF_B64 = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7\n';

/** The templates (LF line endings; the line-ending mutations change them). */
export function templates(): Array<{ name: string; text: string }> {
  probeCounter = 0;
  const mixed =
    `${HEAD}Content-Type: multipart/mixed; boundary="B1"\n\nThis is a preamble ${a()}\n--B1\nContent-Type: text/plain; charset=utf-8\n\n${plain()}` +
    `--B1\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 7bit\n\n${html()}` +
    `--B1\nContent-Type: text/css; charset=us-ascii\n\n${css()}` +
    `--B1\nContent-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: quoted-printable\n\n${qpPlain()}` +
    `--B1\nContent-Type: image/gif\nContent-Transfer-Encoding: base64\nContent-Disposition: attachment; filename="dot.gif"\n\n${GIF_B64}` +
    `--B1--\nEpilogue ${a()}\n`;
  probeCounter = 0;
  const related =
    `${HEAD}Content-Type: multipart/related; boundary="R1"; type="text/html"\nContent-Location: http://loc.example/site/index/\n\n` +
    `--R1\nContent-Type: multipart/alternative; boundary="A1"\n\n` +
    `--A1\nContent-Type: text/plain; charset=utf-8\n\n${plain()}` +
    `--A1\nContent-Type: text/html; charset=utf-8\nContent-Location: page/main.html\nContent-Transfer-Encoding: quoted-printable\n\n${qp(html(' soft'))}` +
    `--A1--\n` +
    `--R1\nContent-Type: text/css\nContent-Base: http://base.example/css/\n\n${css()}` +
    `--R1\nContent-Type: message/rfc822\nContent-Disposition: attachment\n\n` +
    `From: inner@example.org\nSubject: inner\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="I1"\nContent-Location: http://inner.example/fwd/\n\n` +
    `--I1\nContent-Type: text/plain\n\n${plain()}--I1\nContent-Type: application/xhtml+xml\nContent-Transfer-Encoding: base64\n\n` +
    `${base64Lines(`<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body>${a()}</body></html>\n`)}--I1--\n` +
    `--R1\nContent-Type: image/gif\nContent-Location: img/dot.gif\nContent-Transfer-Encoding: base64\n\n${GIF_B64}` +
    `--R1--\n`;
  probeCounter = 0;
  const single = `${HEAD}Content-Type: text/html; charset=utf-8\nContent-Location: http://loc.example/single/doc.html\n\n${html()}`;
  probeCounter = 0;
  const bare = `${HEAD}Content-Type: text/html\n\n${html()}`;
  return [
    { name: 'mixed', text: mixed },
    { name: 'related', text: related },
    { name: 'single', text: single },
    { name: 'bare', text: bare },
  ];
}

/** Quoted-printable text: "=" escaped, and a soft line break after " soft" (RFC 2045 §6.7 rule 5). */
function qp(text: string): string {
  return text.replace(/=/g, '=3D').replace(' soft', ' soft=\nbreak');
}

function base64Lines(text: string): string {
  return (Buffer.from(text).toString('base64').match(/.{1,76}/g) ?? []).join('\n') + '\n';
}

/** LF → CRLF (the templates are LF). */
const crlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');
const bytes = (s: string, eol: 'crlf' | 'lf' = 'crlf'): Buffer => Buffer.from(eol === 'crlf' ? crlf(s) : s, 'utf8');

/** Replaces the first occurrence, and fails loudly if the template does not have it (a harness bug). */
function sub(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`mutator: ${String(from)} not found`);
  return out;
}

/** Every mutation, applied to the templates it makes sense for. */
export function generateCases(seed: number): MutationCase[] {
  const random = seededRandom(seed);
  const t = Object.fromEntries(templates().map((x) => [x.name, x.text])) as Record<string, string>;
  const mixed = t['mixed']!;
  const related = t['related']!;
  const single = t['single']!;
  probeCounter = 500; // probes added below are numbered apart from the templates' own
  const cases: MutationCase[] = [];
  const add = (mutation: string, variant: string, input: Buffer | string, warn: readonly string[] | null, note: string): void => {
    cases.push({ id: `${mutation}/${variant}`, mutation, input: typeof input === 'string' ? bytes(input) : input, warn, note });
  };

  // Baselines: every template as written, in CRLF and LF.
  for (const [name, text] of Object.entries(t)) {
    add('baseline', `${name}-crlf`, bytes(text), null, 'template as written');
    add('baseline', `${name}-lf`, bytes(text, 'lf'), null, 'template as written, LF');
  }

  // Line endings: bare CR, and a mix of CRLF, LF and CR line by line.
  for (const name of ['mixed', 'related', 'single']) {
    add('eol-bare-cr', name, Buffer.from(t[name]!.replace(/\n/g, '\r'), 'utf8'), null, 'every line ends in a bare CR');
    const lines = t[name]!.split('\n');
    const mixedEol = lines.map((l, i) => (i === lines.length - 1 ? l : l + ['\r\n', '\n', '\r\n', '\n'][Math.floor(random() * 4)])).join('');
    add('eol-mixed', name, Buffer.from(mixedEol, 'utf8'), null, 'CRLF and LF mixed line by line');
  }

  // Header block not ended by an empty line: the next delimiter arrives (the part is headers only) …
  add('no-blank-then-delimiter', 'mixed-plain', sub(mixed, /(Content-Type: text\/plain; charset=utf-8\n)\n[^]*?(--B1\n)/, '$1$2'), null, 'a text/plain part\'s headers run into the next delimiter: a part of headers only (RFC 2046 §5.1.1: the CRLF and body are optional), no defect');
  add('no-blank-then-delimiter', 'related-alt', sub(related, 'boundary="A1"\n\n--A1', 'boundary="A1"\n--A1'), FAMILY.separator, 'RFC 2557 9.6 shape: a nested multipart\'s headers run into its own first delimiter');
  // … or a body line that cannot be a header.
  add('no-blank-then-body', 'mixed-html', sub(mixed, 'Content-Transfer-Encoding: 7bit\n\n<html>', 'Content-Transfer-Encoding: 7bit\n<html>'), FAMILY.separator, 'text/html headers run into the body (no empty line)');
  add('no-blank-then-body', 'mixed-plain', sub(mixed, 'charset=utf-8\n\nPlain text', 'charset=utf-8\nPlain text'), FAMILY.separator, 'text/plain headers run into a body line');
  add('no-blank-then-body', 'garbage-in-headers', sub(mixed, 'Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 7bit\n', 'X-Note: before\nthis line is no header\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 7bit\n'), FAMILY.separator, 'a line with no colon inside a part\'s header block: the rest is body (Content-Type: text/html is body text)');
  add('first-header-continuation', 'mixed', sub(mixed, '--B1\nContent-Type: text/html; charset=utf-8\n', '--B1\n Content-Type: text/html; charset=utf-8\n'), FAMILY.header, 'a part\'s first header line starts with whitespace');

  // A leaf with a stray boundary parameter (CPython msg_40 shape): the --X lines are body text.
  add('stray-boundary-on-leaf', 'single', sub(single, 'Content-Type: text/html; charset=utf-8\n', 'Content-Type: text/html; charset=utf-8; boundary="X"\n').replace('<p style', `--X\nContent-Type: text/html\n\n${a()}\n--X\n<p style`), null, 'text/html with boundary=X and --X lines in its body');
  add('stray-boundary-on-leaf', 'mixed-plain', sub(mixed, 'Content-Type: text/plain; charset=utf-8\n\n', 'Content-Type: text/plain; charset=utf-8; boundary="P"\n\n--P\nContent-Type: text/html\n\n<a href="probe/900">x</a>\n--P--\n'), null, 'text/plain with boundary=P and a --P framed HTML "part" in its body');

  // An inner multipart that never closes, followed by siblings of its parent.
  add('unclosed-inner', 'related', sub(related, '--A1--\n', ''), FAMILY.close, 'multipart/alternative with no close delimiter; the enclosing delimiter ends it');
  const nestedMixed = sub(mixed, '--B1\nContent-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: quoted-printable', `--B1\nContent-Type: multipart/alternative; boundary="IN"\n\n--IN\nContent-Type: text/html\n\n${html()}--B1\nContent-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: quoted-printable`);
  add('unclosed-inner', 'mixed', nestedMixed, FAMILY.close, 'an unclosed inner multipart, followed by a quoted-printable text/plain and a base64 sibling');

  // Epilogue with delimiter-like lines and HTML; preamble with delimiter-like lines.
  add('epilogue-html', 'mixed', `${mixed}--B1\nContent-Type: text/html\n\n${html()}--B1--\nmore\n`, null, 'after --B1--: a delimiter, headers and HTML, all epilogue');
  add('epilogue-html', 'related', `${related}\n--R1\nContent-Type: text/css\n\n${css()}`, null, 'after --R1--: a delimiter and CSS, all epilogue');
  add('preamble-delimiter-like', 'mixed', sub(mixed, 'This is a preamble', '--B1x not a delimiter\n--B1 x neither\n--B1-- nor this\nThis is a preamble'), null, 'preamble lines that begin like the delimiter but are not one');
  add('delimiter-like-body-line', 'mixed', sub(mixed, 'and must stay as it is.\n', `and must stay as it is.\n--B1garbage\n--B1--garbage\n${a()}\n`), null, 'body lines that begin with the delimiter but are not one');

  // No Content-Type, filename page.html: text/plain (RFC 2045 §5.2).
  add('no-content-type-html-filename', 'mixed', sub(mixed, /Content-Type: text\/plain; charset=utf-8\n\n[^]*?(?=--B1\n)/, `Content-Disposition: attachment; filename="page.html"\n\n${html()}`), null, 'no Content-Type, filename="page.html", HTML body: text/plain');
  add('content-type-invalid', 'mixed', sub(mixed, 'Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 7bit', 'Content-Type: text\nContent-Transfer-Encoding: 7bit'), FAMILY.contentType, 'Content-Type "text" (no subtype): text/plain');
  add('content-type-case', 'mixed', sub(mixed, 'Content-Type: text/html; charset=utf-8', 'content-TYPE: TEXT/HTML; CHARSET="UTF-8"'), null, 'upper-case type and parameter names');

  // Delimiters: transport padding, boundary parameter forms.
  add('delimiter-trailing-whitespace', 'mixed', mixed.replace(/^--B1(--)?$/gm, (m) => `${m} \t `), null, 'every delimiter followed by spaces and a tab (RFC 2046 transport padding)');
  add('delimiter-trailing-whitespace', 'related', related.replace(/^--(R1|A1|I1)$/gm, (m) => `${m}  `), null, 'delimiters (not close delimiters) followed by spaces');
  add('boundary-comment', 'mixed', sub(mixed, 'boundary="B1"', 'boundary="B1" (a comment)'), null, 'boundary="B1" (comment)');
  add('boundary-comment', 'unquoted', sub(mixed, 'boundary="B1"', 'boundary=B1 (comment); x-other=1'), null, 'boundary=B1 (comment); another parameter');
  add('boundary-rfc2231', 'mixed', sub(mixed, 'boundary="B1"', "boundary*=us-ascii''B1"), null, "RFC 2231 boundary*=us-ascii''B1");
  add('boundary-rfc2231', 'continuation', sub(mixed, 'boundary="B1"', 'boundary*0="B"; boundary*1="1"'), null, 'RFC 2231 continuations boundary*0, boundary*1');
  add('boundary-unquoted-equals', 'mixed', mixed.replace(/B1/g, '----=_NextPart_000_0093_01C81419.EB75E850').replace('boundary="----=_NextPart_000_0093_01C81419.EB75E850"', 'boundary=----=_NextPart_000_0093_01C81419.EB75E850'), FAMILY.boundary, 'boundary=----=_NextPart_… unquoted (an "=" in a token), read as compat32 reads it (deliberate.ts)');
  add('boundary-prefix', 'related', related.replace(/\bA1\b/g, 'R1x'), null, 'inner boundary "R1x" begins with the outer "R1"');
  add('boundary-with-space', 'mixed', mixed.replace(/B1/g, 'B 1 (x)'), null, 'boundary "B 1 (x)": spaces and parentheses, quoted');
  add('no-boundary-parameter', 'mixed', sub(mixed, '; boundary="B1"', ''), FAMILY.boundary, 'multipart/mixed with no boundary: a leaf, nothing inside is HTML');

  // Missing close delimiter; truncation.
  add('missing-close', 'mixed', sub(mixed, /--B1--\nEpilogue.*\n$/, ''), FAMILY.close, 'outer multipart never closed');
  add('missing-close', 'related-all', related.replace(/--(R1|I1|A1)--\n/g, ''), FAMILY.close, 'no multipart closed');
  for (const [name, text] of [['mixed', mixed], ['related', related]] as const) {
    const body = text.indexOf('\n\n') + 2;
    for (let k = 0; k < 3; k++) {
      const cut = body + Math.floor(random() * (text.length - body - 30));
      add('truncated', `${name}-${cut}`, Buffer.from(text.slice(0, cut), 'utf8'), FAMILY.close, `cut at character ${cut}`);
    }
  }

  // Broken base64 and unknown charsets in HTML parts.
  const htmlBody = /Content-Transfer-Encoding: 7bit\n\n([^]*?)(?=--B1\n)/.exec(mixed)![1]!;
  const b64html = sub(mixed, `Content-Transfer-Encoding: 7bit\n\n${htmlBody}`, `Content-Transfer-Encoding: base64\n\n${base64Lines(htmlBody)}`);
  add('base64-html', 'mixed', b64html, null, 'HTML part in base64');
  add('broken-base64', 'bad-chars', b64html.replace(/(Content-Transfer-Encoding: base64\n\n)(.{20})/, '$1$2!!*'), FAMILY.decode, 'base64 HTML with characters outside the alphabet');
  add('broken-base64', 'truncated-quantum', b64html.replace(/(Content-Transfer-Encoding: base64\n\n[^]*?)\n--B1\nContent-Type: text\/css/, (_m, p: string) => `${p.slice(0, -3)}\n--B1\nContent-Type: text/css`), FAMILY.decode, 'base64 HTML whose last quantum is cut short');
  add('unknown-charset', 'mixed', sub(mixed, 'Content-Type: text/html; charset=utf-8', 'Content-Type: text/html; charset=x-no-such-charset'), FAMILY.charset, 'HTML part with an unknown charset');
  add('unknown-charset', 'single', sub(single, 'charset=utf-8', 'charset="unknown-8bit"'), FAMILY.charset, 'single-part HTML, charset unknown-8bit');
  add('latin1-8bit-html', 'single', Buffer.concat([bytes(sub(single, 'charset=utf-8', 'charset=iso-8859-1\nContent-Transfer-Encoding: 8bit').split('<p>Intro')[0]!), Buffer.from('<p>caf\xe9 \xa0', 'latin1'), bytes(`Intro${single.split('<p>Intro')[1]!}`)]), null, 'ISO-8859-1 HTML with 8-bit bytes before the probes');

  // Content-Location / Content-Base values.
  add('content-location-utf8', 'single', sub(single, 'http://loc.example/single/doc.html', 'http://loc.example/café/doc.html'), null, 'raw UTF-8 Content-Location (RFC 6532)');
  add('content-location-utf8', 'related-relative', sub(related, 'Content-Location: page/main.html', 'Content-Location: pagé/main.html'), null, 'relative raw UTF-8 Content-Location');
  add('content-location-rfc2047', 'single', sub(single, 'Content-Location: http://loc.example/single/doc.html', 'Content-Location: =?utf-8?q?http://loc.example/caf=C3=A9/doc.html?='), null, 'RFC 2047 encoded Content-Location (RFC 2557 §4.4.1)');
  add('content-location-rfc2047', 'folded-b', sub(single, 'Content-Location: http://loc.example/single/doc.html', 'Content-Location: =?utf-8?b?aHR0cDovL2xvYy5leGFtcGxlL2Nh?=\n =?utf-8?b?ZsOpL2RvYy5odG1s?='), null, 'RFC 2047 B words, folded over two lines');
  add('content-location-nbsp', 'single', sub(single, 'http://loc.example/single/doc.html', 'http://loc.example/a\u00a0b/doc.html\u00a0'), null, 'U+00A0 (raw UTF-8) inside and at the end of Content-Location: kept, not stripped');
  add('content-location-folded', 'single', sub(single, 'Content-Location: http://loc.example/single/doc.html', 'Content-Location:\n      http://loc.example/single/\n      doc.html'), null, 'Content-Location folded (RFC 2557 §4.4.2)');
  add('content-location-comment', 'single', sub(single, 'Content-Location: http://loc.example/single/doc.html', 'Content-Location: (the page) http://loc.example/single/doc.html (saved)'), null, 'comments around the Content-Location value');
  add('content-base-over-location', 'single', sub(single, 'Content-Location: http://loc.example/single/doc.html', 'Content-Location: doc.html\nContent-Base: http://base.example/b/'), null, 'Content-Base and a relative Content-Location');

  // multipart/digest and message/global.
  const innerMsg = (n: string): string => `From: d${n}@example.org\nSubject: digest ${n}\nContent-Type: text/html\nContent-Location: http://digest.example/${n}/\n\n${html()}`;
  add('multipart-digest', 'default-children', `${HEAD}Content-Type: multipart/digest; boundary="D"\n\n--D\n\n${innerMsg('1')}--D\n\n${innerMsg('2')}--D\nContent-Type: text/plain\n\n${plain()}--D--\n`, null, 'multipart/digest: children with no Content-Type are message/rfc822');
  add('message-global', 'mixed', `${HEAD}Content-Type: multipart/mixed; boundary="G"\n\n--G\nContent-Type: text/plain\n\n${plain()}--G\nContent-Type: message/global\n\nFrom: Jürgen <j@example.org>\nSubject: grüße\nContent-Type: text/html; charset=utf-8\nContent-Location: http://global.example/ü/\n\n${html()}--G--\n`, null, 'message/global (RFC 6532) holding an HTML message with UTF-8 headers');
  add('message-rfc822-encoded', 'base64', `${HEAD}Content-Type: multipart/mixed; boundary="E"\n\n--E\nContent-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n${base64Lines(`Content-Type: text/html\n\n${html()}`)}--E--\n`, FAMILY.encodedMessage, 'message/rfc822 with Content-Transfer-Encoding base64 (RFC 2046 §5.2.1 forbids it)');

  // Deep nesting: multiparts beyond maxMimeDepth (32), and message/rfc822 five deep.
  const deep = (levels: number): string => {
    let s = `Content-Type: text/html\n\n${html()}`;
    for (let i = levels; i >= 1; i--) s = `Content-Type: multipart/mixed; boundary="L${i}"\n\n--L${i}\n${s}--L${i}\nContent-Type: text/html\n\n${html()}--L${i}--\n`;
    return `${HEAD}Content-Location: http://deep.example/\n${s}`;
  };
  add('deep-nesting', 'multipart-12', deep(12), null, '12 nested multiparts, HTML at every level');
  add('deep-nesting', 'multipart-40', deep(40), FAMILY.depth, '40 nested multiparts (beyond maxMimeDepth 32), HTML at every level');
  let msg = `Content-Type: text/html\nContent-Location: http://rfc822.example/6/\n\n${html()}`;
  for (let i = 5; i >= 1; i--) msg = `Content-Type: multipart/mixed; boundary="M${i}"\nContent-Location: http://rfc822.example/${i}/\n\n--M${i}\nContent-Type: text/html\n\n${html()}--M${i}\nContent-Type: message/rfc822\n\nSubject: level ${i}\n${msg}--M${i}--\n`;
  add('deep-nesting', 'message-5', `${HEAD}${msg}`, null, 'message/rfc822 five deep, each level with its own Content-Location');

  // Huge header lines (under and over maxMimeHeaderBytes, 1 MiB).
  add('huge-header-line', 'x-long-200k', sub(mixed, 'Content-Type: text/html; charset=utf-8\n', `Content-Type: text/html; charset=utf-8\nX-Long: ${'y'.repeat(200_000)}\n`), null, 'a 200 kB header line in the HTML part');
  add('huge-header-line', 'folded-300k', sub(mixed, 'Content-Type: text/html; charset=utf-8\n', `X-Folded: ${Array.from({ length: 4000 }, (_, i) => `word${i}`.padEnd(70, 'z')).join('\n ')}\nContent-Type: text/html; charset=utf-8\n`), null, 'a 300 kB folded header before the HTML part\'s Content-Type');
  add('huge-header-line', 'over-limit', sub(mixed, 'Content-Type: text/html; charset=utf-8\n', `Content-Type: text/html; charset=utf-8\nX-Huge: ${'h'.repeat(1_200_000)}\n`), FAMILY.limit, 'a header block over maxMimeHeaderBytes (1 MiB)');

  // Odds and ends.
  add('mbox-from-line-start', 'single', `From ann@example.org Mon Nov 23 10:00:00 2026\n${single}`, null, 'a message that starts with a Unix From_ line');
  add('nul-bytes', 'mixed', sub(mixed, 'and must stay as it is.', 'and must\0stay\0as it is.'), null, 'NUL bytes in a text/plain body');
  add('qp-html-soft-break-in-url', 'related', sub(related, /<p>Intro <a href=3D"probe\/(\d+)">/, '<p>Intro <a href=3D"pro=\nbe/$1">'), null, 'quoted-printable HTML with a soft line break inside a probe URL');
  add('qp-unescaped-equals', 'related', sub(related, /(Content-Transfer-Encoding: quoted-printable\n\n)([^]*?)(?=--A1--)/, '$1').replace(/(Content-Transfer-Encoding: quoted-printable\n\n)(?=--A1--)/, (_m, h: string) => h + /Content-Transfer-Encoding: quoted-printable\n\n([^]*?)(?=--A1--)/.exec(related)![1]!.replace(/=3D/g, '=')), null, 'quoted-printable HTML with bare "=" signs, as RFC 2557\'s own examples have');
  add('empty-parts', 'mixed', sub(mixed, '--B1--', '--B1\n--B1\nContent-Type: text/html\n\n--B1--'), null, 'an empty part (no headers, no body) and an HTML part with an empty body');

  // More structure traps.
  add('eol-mixed-cr', 'mixed', Buffer.from(mixed.split('\n').map((l, i, all) => (i === all.length - 1 ? l : l + ['\r\n', '\n', '\r'][Math.floor(random() * 3)])).join(''), 'utf8'), null, 'CRLF, LF and bare CR mixed line by line');
  add('empty-line-before-part-headers', 'mixed', sub(mixed, '--B1\nContent-Type: text/html; charset=utf-8\n', '--B1\n\nContent-Type: text/html; charset=utf-8\n'), null, 'an empty line right after the delimiter: the part has no headers (text/plain), "Content-Type: text/html" is its body');
  add('header-space-before-colon', 'mixed', sub(mixed, 'Content-Type: text/html; charset=utf-8\n', 'Content-Type : text/html; charset=utf-8\n'), FAMILY.separator, '"Content-Type : text/html" (space before the colon): Python reads no header there, the body starts');
  add('duplicate-content-type', 'mixed', sub(mixed, 'Content-Type: text/html; charset=utf-8\n', 'Content-Type: text/plain; charset=utf-8\nContent-Type: text/html; charset=utf-8\n'), null, 'two Content-Type fields, text/plain first: the first counts');
  add('duplicate-content-type', 'html-first', sub(mixed, 'Content-Type: text/plain; charset=utf-8\n', 'Content-Type: text/html; charset=utf-8\nContent-Type: text/plain; charset=utf-8\n'), null, 'two Content-Type fields, text/html first: the first counts');
  add('nested-same-boundary', 'mixed', `${HEAD}Content-Type: multipart/mixed; boundary="S"\n\n--S\nContent-Type: multipart/alternative; boundary="S"\n\n--S\nContent-Type: text/html\n\n${html()}--S--\n\n--S\nContent-Type: text/html\n\n${html()}--S--\n`, FAMILY.boundary, 'an inner multipart with the outer multipart\'s boundary (CPython msg_15 shape): the inner one ends at once');
  add('folded-content-type', 'mixed', sub(mixed, 'Content-Type: multipart/mixed; boundary="B1"', 'Content-Type: multipart/mixed;\n\tboundary="B1";\n\tcharset=us-ascii'), null, 'boundary on a folded continuation line');
  add('no-preamble-no-final-eol', 'mixed', sub(mixed, /This is a preamble .*\n/, '').replace(/--B1--\nEpilogue.*\n$/, '--B1--'), null, 'the first delimiter right after the header block, and the close delimiter with no line break after it');
  add('unknown-transfer-encoding', 'mixed', sub(mixed, 'Content-Transfer-Encoding: 7bit', 'Content-Transfer-Encoding: x-custom'), FAMILY.transferEncoding, 'HTML part with an unknown Content-Transfer-Encoding');
  add('content-location-cid', 'single', sub(single, 'Content-Location: http://loc.example/single/doc.html', 'Content-Location: cid:part1@example.org'), null, 'a cid: Content-Location is a label, not a base');
  add('content-location-not-url', 'related', sub(related, 'Content-Location: page/main.html', 'Content-Location: http://[not a host]/x.html'), FAMILY.badLocation, 'a Content-Location that is not a URL: ignored (the enclosing base applies), with a warning');
  add('message-partial-external', 'mixed', `${HEAD}Content-Type: multipart/mixed; boundary="P"\n\n--P\nContent-Type: message/partial; id="frag@example.org"; number=1; total=2\n\nSubject: original\nContent-Type: text/html\n\n${html()}--P\nContent-Type: message/external-body; access-type=URL; URL="http://external.example/x.html"\n\nContent-Type: text/html\n\n${html()}--P--\n`, null, 'message/partial and message/external-body holding HTML (deliberate.ts: leaves)');
  add('headers-only', 'single', `${HEAD}Content-Type: text/html\nContent-Location: http://loc.example/x/`, null, 'a message that is a header block with no empty line and no body');
  add('empty-input', 'empty', Buffer.alloc(0), null, 'zero bytes');

  return cases;
}
