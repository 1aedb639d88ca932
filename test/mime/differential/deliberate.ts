/**
 * Deliberate differences from Python's `email` (issue 10: "a short, justified list"). A failure of one of the
 * listed checks on a listed case is excused only when the run also gave a warning of the listed family (a
 * difference on bad input is never silent), or, with no family listed, when the input is not wrong at all.
 * docs/mail.md ("Deliberate differences from Python's email") mirrors this table.
 */
import { FAMILY } from './mutator.ts';
import type { Compat32, Deliberate } from './harness.ts';

export const DELIBERATE: readonly Deliberate[] = [
  {
    ids: /^deep-nesting\/multipart-40(@|$)/,
    checks: ['b', 'd'],
    withWarning: FAMILY.depth,
    why: 'parts nested deeper than maxMimeDepth (32) pass through unchanged; Python reads any depth',
  },
  {
    ids: /^huge-header-line\/over-limit(@|$)/,
    checks: ['b', 'd'],
    withWarning: FAMILY.limit,
    why: 'a header block over maxMimeHeaderBytes (1 MiB) is not read as headers: that part (and what follows it, if the scanner gives up) passes through unchanged',
  },
  {
    ids: /^broken-base64\//,
    checks: ['d'],
    withWarning: FAMILY.decode,
    why: 'an HTML part whose base64 is broken passes through unchanged: Python decodes it leniently (skipping bad characters, padding a short quantum); re-encoding a guess would change bytes nobody can check',
  },
  {
    ids: /^unknown-transfer-encoding\//,
    checks: ['d'],
    withWarning: FAMILY.transferEncoding,
    why: 'an HTML part with a Content-Transfer-Encoding we do not know passes through unchanged: Python hands out its raw bytes as the payload; we cannot know the bytes are not encoded',
  },
  {
    ids: /^message-partial-external\//,
    checks: ['b', 'd'],
    withWarning: [],
    why: 'message/partial (a fragment of a message, RFC 2046 §5.2.2) and message/external-body (headers of a body kept elsewhere, §5.2.3) are passed through as leaves: HTML cut at a fragment edge must not be rewritten, and a phantom body is not content; Python parses every message/* type as a message',
  },
  {
    ids: /^message-rfc822-encoded\//,
    checks: ['warn'],
    withWarning: FAMILY.encodedMessage,
    why: 'a message/rfc822 part with a base64 or quoted-printable transfer encoding (RFC 2046 §5.2.1 forbids it) passes through whole; Python parses its encoded text as a message (and records a missing header/body separator in it)',
  },
];

/**
 * Messages read as Python's compat32 policy reads them, not policy default: the only place the two policies
 * disagree on structure in the corpus and the mutations (compared with `scripts/mime-oracle.py --compat32`).
 */
export const COMPAT32: readonly Compat32[] = [
  {
    ids: /^(mikel-mail\/mime_emails\/raw_email_with_illegal_boundary\.eml|mikel-mail\/mime_emails\/raw_email_with_binary_encoded\.eml|mikel-mail\/plain_emails\/raw_email_bad_time\.eml|boundary-unquoted-equals\/)/,
    withWarning: [...FAMILY.boundary, ...FAMILY.contentType],
    why: 'an unquoted boundary with "=" in it (boundary=----=_NextPart_…; RFC 2045 §5.1 wants it quoted) is the whole token, as compat32, mailsplit and the producers read it (TMail\'s own test of raw_email_with_illegal_boundary: multipart, boundary "----=_NextPart_000_0093_01C81419.EB75E850"); policy default cuts it at the "=" and finds no part. A warning says the parameter was malformed',
  },
];
