/**
 * The segment codec (src/mime/codec.ts) on random bytes: what the quoted-printable and base64 encoders write, fed
 * in random pieces, decodes (Python's quopri / binascii, and our decoders) to exactly the bytes given; lines are
 * at most 76 long, soft line breaks use the part's line ending, and no quoted-printable line begins with "From "
 * or "--". The Reencoder copies an unchanged original exactly.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { Base64Decoder, Base64Encoder, decodeQuotedPrintable, decodeQuotedPrintableLines, MAX_SEGMENT_BYTES, QuotedPrintableDecoder, QuotedPrintableEncoder, quotedPrintableSegments, reencodeQuotedPrintable, Reencoder } from '../../src/mime/codec.ts';
import { encodedStyleOf, endsWithLineEnding } from '../../src/mime/transfer-encoding.ts';
import type { LineEnding } from '../../src/mime/codec.ts';
import { CHUNK_SEED, seededRandom } from '../helpers/chunks.ts';
import { PYTHON } from './differential/harness.ts';

/** Bytes rich in what matters: line endings of every kind, "From ", "--", "=", whitespace before line ends. */
function sample(random: () => number, length: number): Buffer {
  const pieces = ['From ', '--', '=', ' ', '\t', '\r\n', '\n', '\r', 'F', '-', 'a', 'xyz', '\u00e9', '\u0000', '<a href="x">'];
  let s = '';
  while (s.length < length) s += pieces[Math.floor(random() * pieces.length)];
  return Buffer.from(s, 'latin1');
}

function inPieces(random: () => number, data: Buffer, each: (b: Buffer, final: boolean) => void): void {
  for (let at = 0; at < data.length; ) {
    const n = 1 + Math.floor(random() * 9);
    each(data.subarray(at, at + n), false);
    at += n;
  }
  each(Buffer.alloc(0), true);
}

describe('QuotedPrintableEncoder', () => {
  for (const eol of ['\r\n', '\n', '\r'] as LineEnding[]) {
    it(`random bytes, in random pieces, ${JSON.stringify(eol)} line endings: decodes back exactly; lines <= 76; no "From " or "--" line start`, () => {
      const random = seededRandom(CHUNK_SEED);
      const samples: Buffer[] = [];
      const encoded: string[] = [];
      for (let n = 0; n < 60; n++) {
        // The decoded text's own line endings are the part's.
        const data = Buffer.from(sample(random, 300).toString('latin1').replace(/\r\n|\r|\n/g, eol), 'latin1');
        const enc = new QuotedPrintableEncoder(eol);
        let text = '';
        inPieces(random, data, (b, final) => (text += enc.write(b, final)));
        samples.push(data);
        encoded.push(text);
        const lines = text.split(eol);
        expect(lines.every((l) => l.length <= 76)).toBe(true);
        expect(lines.filter((l) => l.startsWith('From ') || l.startsWith('--'))).toEqual([]);
        const ours = Buffer.concat(new QuotedPrintableDecoder().push(Buffer.from(text, 'latin1'), true).map((s) => s.decoded));
        expect(ours.toString('latin1')).toBe(data.toString('latin1'));
      }
      if (eol !== '\r') {
        // Python's quopri (what email's get_payload(decode=True) uses) reads it the same.
        const script = 'import json, quopri, sys\nfor t in json.load(sys.stdin): sys.stdout.write(quopri.decodestring(t.encode("latin-1")).decode("latin-1") + "\\u0001")';
        const back = execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(encoded) }).toString('utf8').split('\u0001').slice(0, -1);
        // quopri removes trailing whitespace before a line ending, as RFC 2045 rule 3 says: the encoder never leaves any.
        expect(back).toEqual(samples.map((s) => s.toString('latin1')));
      }
    });
  }
});

describe('Base64Encoder and Base64Decoder', () => {
  it('random bytes in random pieces: lines of the given length, decoded back exactly', () => {
    const random = seededRandom(CHUNK_SEED);
    for (const lineLength of [76, 64, 74, 4]) {
      const data = sample(random, 1000);
      const enc = new Base64Encoder('\n', lineLength);
      let text = '';
      inPieces(random, data, (b, final) => (text += enc.write(b, final)));
      expect(text.split('\n').slice(0, -1).every((l) => l.length === lineLength)).toBe(true);
      expect(Buffer.from(text, 'base64').equals(data)).toBe(true);
      const dec = new Base64Decoder();
      const back: Buffer[] = [];
      inPieces(random, Buffer.from(`${text}\n`), (b, final) => back.push(...dec.push(b, final).map((s) => s.decoded)));
      expect(Buffer.concat(back).equals(data)).toBe(true);
    }
  });
});

describe('Reencoder', () => {
  it('an unchanged quoted-printable or base64 body is copied byte for byte, whatever its layout', () => {
    const random = seededRandom(CHUNK_SEED);
    const qp = Buffer.from('odd =3d case=\r\nsoft  \r\n=46rom here=\r\n\r\n-- x\r\nlast=\r\n', 'latin1');
    const b64 = Buffer.from('PGEgaHJlZj0ieCI+eDwvYT4=\nPGEg\naHJlZj0ieCI+eDwvYT4=\n');
    for (const [encoding, body] of [['quoted-printable', qp], ['base64', b64]] as const) {
      const segments = (encoding === 'base64' ? new Base64Decoder() : new QuotedPrintableDecoder()).push(body, true);
      const decoded = Buffer.concat(segments.map((s) => s.decoded));
      const r = new Reencoder(encoding, { eol: encoding === 'base64' ? '\n' : '\r\n', lineLength: 24 });
      r.addSegments(segments);
      let out = '';
      inPieces(random, decoded, (b, final) => (out += r.write(b, final, true)));
      expect(out).toBe(body.toString('latin1'));
    }
  });
});

describe('decodeQuotedPrintable (a whole body in one pass)', () => {
  const segmentwise = (body: Buffer): Buffer => Buffer.concat(new QuotedPrintableDecoder().push(body, true).map((s) => s.decoded));
  /** Bytes of what quoted-printable decoding turns on: "=", hex digits of either case, whitespace, every line ending. */
  const qpBytes = fc.array(fc.constantFrom('=', '=3D', '=3d', '=A', '=\r\n', '=\n', '=\r', '= \r\n', ' ', '\t', '\r\n', '\n', '\r', 'a', 'F', '0', 'e', '\u00e9', '\u0000', '<a href=3D"x">'), { maxLength: 80 }).map((a) => Buffer.from(a.join(''), 'latin1'));

  it('the same bytes as the segments of QuotedPrintableDecoder, concatenated (property)', () => {
    fc.assert(
      fc.property(qpBytes, (body) => {
        expect(decodeQuotedPrintable(body)!.equals(segmentwise(body))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('the same on arbitrary bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const body = Buffer.from(bytes);
        expect(decodeQuotedPrintable(body)!.equals(segmentwise(body))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('lines longer than its byte-by-byte look for a line ending (256 bytes): the same bytes, and its segment ends those of quotedPrintableSegments (property)', () => {
    const longLines = fc.array(fc.constantFrom('a'.repeat(100), 'b=3D'.repeat(30), '=4', ' ', '\t', '=', '\r\n', '\n', '\r', '=\r\n', '= \n'), { maxLength: 40 }).map((a) => Buffer.from(a.join(''), 'latin1'));
    fc.assert(
      fc.property(longLines, (body) => {
        const whole = decodeQuotedPrintableLines(body)!;
        expect(whole.decoded.equals(segmentwise(body))).toBe(true);
        const segments = quotedPrintableSegments(body)!;
        const ends: number[][] = [];
        let at = 0;
        let decodedAt = 0;
        for (const s of segments) ends.push([(at += s.encoded.length), (decodedAt += s.decoded.length), s.hardEnd ? 1 : 0]);
        expect(Array.from({ length: whole.count }, (_, k) => [whole.lines[3 * k], whole.lines[3 * k + 1], whole.lines[3 * k + 2]])).toEqual(ends);
      }),
      { numRuns: 1000 },
    );
  });

  it('long lines with LF endings only: linear (a search for CR per line would read to the end each time)', () => {
    const body = Buffer.from(`${'a'.repeat(300)}=\n`.repeat(20_000), 'latin1');
    decodeQuotedPrintable(Buffer.from('a', 'latin1')); // its warm-up done before the count
    const calls = vi.spyOn(Buffer.prototype, 'indexOf');
    try {
      expect(decodeQuotedPrintable(body)!.length).toBe(300 * 20_000);
      // One search for CR (none), one for LF per long line.
      expect(calls.mock.calls.length).toBeLessThanOrEqual(20_001 + 1);
    } finally {
      calls.mockRestore();
    }
  });

  it('quotedPrintableSegments: the segments of QuotedPrintableDecoder, made into one buffer (property)', () => {
    const plain = (segments: ReturnType<QuotedPrintableDecoder['push']>): unknown[] => segments.map((s) => ({ encoded: s.encoded.toString('latin1'), decoded: s.decoded.toString('latin1'), hardEnd: s.hardEnd, aligned: s.aligned }));
    fc.assert(
      fc.property(fc.oneof(qpBytes, fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b))), (body) => {
        expect(plain(quotedPrintableSegments(body)!)).toEqual(plain(new QuotedPrintableDecoder().push(body, true)));
      }),
      { numRuns: 3000 },
    );
    expect(quotedPrintableSegments(Buffer.from(`${'a'.repeat(MAX_SEGMENT_BYTES)}=\r\nb`, 'latin1'))).toBeNull();
  });

  it('a physical line longer than a segment: null (the segments, cut as qpSafeCut says, decide)', () => {
    const long = Buffer.from(`${'a'.repeat(MAX_SEGMENT_BYTES)}=\r\nb\r\n`, 'latin1');
    expect(decodeQuotedPrintable(long)).toBeNull();
    const atLimit = Buffer.from(`${'a'.repeat(MAX_SEGMENT_BYTES - 3)}=\r\nb`, 'latin1');
    expect(decodeQuotedPrintable(atLimit)!.equals(segmentwise(atLimit))).toBe(true);
  });
});

describe('reencodeQuotedPrintable (a whole body, segments as numbers)', () => {
  /** Bodies rich in line endings of every kind, soft line breaks, "=XX", whitespace before line ends. */
  const qpBody = fc.array(fc.constantFrom('=', '=3D', '=3d', '=A', '=\r\n', '=\n', '=\r', '= \r\n', ' ', '\t', '\r\n', '\n', '\r', 'a', 'F', 'From ', '--', '0', '\u00e9', '<a href=3D"x">', 'url(y)'), { maxLength: 60 }).map((a) => Buffer.from(a.join(''), 'latin1'));
  /** What a rewrite does to decoded text: replaces a few ranges by other bytes (longer, shorter, with line endings). */
  const edits = fc.array(fc.record({ at: fc.nat(), length: fc.nat({ max: 8 }), by: fc.constantFrom('', 'http://example.org/a', 'x', '\r\n', '\n', 'From x', '--', ' ', '=', '\u00e9\t') }), { maxLength: 4 });

  const apply = (decoded: Buffer, list: Array<{ at: number; length: number; by: string }>): Buffer => {
    let s = decoded.toString('latin1');
    for (const e of list) {
      const at = s.length === 0 ? 0 : e.at % (s.length + 1);
      s = s.slice(0, at) + e.by + s.slice(at + e.length);
    }
    return Buffer.from(s, 'latin1');
  };

  /** What encodeBody wrote before: the Reencoder over the segments of the whole original. */
  const bySegments = (original: Buffer, rewritten: Buffer): Buffer => {
    const segments = quotedPrintableSegments(original)!;
    const r = new Reencoder('quoted-printable', encodedStyleOf(segments));
    r.addSegments(segments);
    return r.writeBytes(rewritten, true, endsWithLineEnding(original));
  };

  it('writes what the Reencoder writes over the segments, for random bodies and rewrites (property)', () => {
    fc.assert(
      fc.property(fc.oneof(qpBody, fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b))), edits, (original, list) => {
        const lines = decodeQuotedPrintableLines(original)!;
        // Against the segment decoder (decodeQuotedPrintable is now this function's own .decoded).
        expect(lines.decoded.equals(Buffer.concat(quotedPrintableSegments(original)!.map((s) => s.decoded)))).toBe(true);
        const rewritten = apply(lines.decoded, list);
        const style = encodedStyleOf(quotedPrintableSegments(original)!);
        const ours = reencodeQuotedPrintable(lines, rewritten, style.eol, endsWithLineEnding(original));
        expect(ours.toString('latin1')).toBe(bySegments(original, rewritten).toString('latin1'));
      }),
      { numRuns: 5000 },
    );
  });

  it('the segment ends are those of quotedPrintableSegments (property)', () => {
    fc.assert(
      fc.property(fc.oneof(qpBody, fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b))), (body) => {
        const lines = decodeQuotedPrintableLines(body)!;
        const segments = quotedPrintableSegments(body)!;
        const ends: Array<[number, number, boolean]> = [];
        for (let k = 0; k < lines.count; k++) ends.push([lines.lines[3 * k]!, lines.lines[3 * k + 1]!, lines.lines[3 * k + 2] === 1]);
        let e = 0;
        let d = 0;
        expect(ends).toEqual(segments.map((s) => [(e += s.encoded.length), (d += s.decoded.length), s.hardEnd]));
      }),
      { numRuns: 3000 },
    );
  });

  it('long equal runs and an unchanged body: copied as they were', () => {
    const body = Buffer.from(`${'<p>x=3D1 y</p>=\r\n'.repeat(5000)}end\r\n`, 'latin1');
    const lines = decodeQuotedPrintableLines(body)!;
    expect(reencodeQuotedPrintable(lines, lines.decoded, '\r\n', true).equals(body)).toBe(true);
    const changed = Buffer.from(lines.decoded.toString('latin1').replace('end', 'END'), 'latin1');
    expect(reencodeQuotedPrintable(lines, changed, '\r\n', true).toString('latin1')).toBe(bySegments(body, changed).toString('latin1'));
  });
});
