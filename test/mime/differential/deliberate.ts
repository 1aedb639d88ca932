/**
 * Deliberate differences from Python's `email` (issue 10: "a short, justified list"). A failure of one of the
 * listed checks on a listed case is excused only when the run also gave a warning of the listed family: a
 * difference is never silent. README's MIME section mirrors this table.
 */
import { FAMILY } from './mutator.ts';
import type { Deliberate } from './harness.ts';

export const DELIBERATE: readonly Deliberate[] = [
  {
    ids: /^deep-nesting\/multipart-40(@|$)/,
    checks: ['d'],
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
    ids: /^message-rfc822-encoded\//,
    checks: ['warn'],
    withWarning: FAMILY.encodedMessage,
    why: 'a message/rfc822 part with a base64 or quoted-printable transfer encoding (RFC 2046 §5.2.1 forbids it) passes through whole; Python parses its encoded text as a message (and records a missing header/body separator in it)',
  },
];
