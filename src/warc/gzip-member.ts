/**
 * One gzip member (RFC 1952 §2.3) at the start of a buffer: its header is parsed here and its DEFLATE data
 * inflated by node:zlib, which reports how many input bytes the stream took (`engine.bytesWritten`), so the
 * member's exact extent is known and it can be copied byte for byte.
 *
 * Why not a library: warcio.js exposes no raw member bytes (so nothing can be copied as it was), and Node's own
 * gunzip runs members together. A member is inflated in one call when the buffer holds all of it; the caller
 * offers more bytes (at least twice as many) while it does not.
 */
import { constants, crc32, inflateRawSync } from 'node:zlib';

const FTEXT_FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;

export function isGzipMagic(bytes: Buffer, at = 0): boolean {
  return bytes[at] === 0x1f && bytes[at + 1] === 0x8b && bytes[at + 2] === 0x08;
}

/** The length of the member header at the start of `bytes` (RFC 1952 §2.3.1), or null when more bytes are needed. */
export function gzipHeaderLength(bytes: Buffer): number | null {
  if (bytes.length < 10) return null;
  const flg = bytes[3]!;
  let i = 10;
  if (flg & FEXTRA) {
    if (bytes.length < i + 2) return null;
    i += 2 + bytes.readUInt16LE(i);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (flg & flag) {
      const nul = bytes.indexOf(0, i);
      if (nul === -1) return null;
      i = nul + 1;
    }
  }
  if (flg & FTEXT_FHCRC) i += 2;
  return i <= bytes.length ? i : null;
}

export type MemberResult =
  | { readonly state: 'complete'; readonly length: number; readonly data: Buffer }
  /** The buffer ends inside the member. */
  | { readonly state: 'partial' }
  /** Corrupt DEFLATE data, a bad CRC-32 or length in the trailer: not a member zlib can read. */
  | { readonly state: 'corrupt'; readonly reason: string }
  /** Inflates to more than `maxOutput` bytes. */
  | { readonly state: 'too-large' };

/** Inflates the member at the start of `bytes` (which starts with the gzip magic). */
export function inflateMember(bytes: Buffer, maxOutput: number): MemberResult {
  const header = gzipHeaderLength(bytes);
  if (header === null) return { state: 'partial' };
  let data: Buffer;
  let used: number;
  try {
    // Z_SYNC_FLUSH: a buffer that ends inside the stream gives what it has instead of an error.
    const r = inflateRawSync(bytes.subarray(header), { info: true, finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: maxOutput }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    data = r.buffer;
    used = r.engine.bytesWritten;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { state: 'too-large' };
    return { state: 'corrupt', reason: (err as Error).message };
  }
  // The DEFLATE stream ended inside the buffer only when bytes are left over; the 8-byte trailer follows it.
  const trailer = header + used;
  if (trailer + 8 > bytes.length) return { state: 'partial' };
  // RFC 1952 §2.3.1: CRC32 of the uncompressed data, then ISIZE (its length modulo 2^32).
  if (bytes.readUInt32LE(trailer) !== crc32(data) || bytes.readUInt32LE(trailer + 4) !== data.length % 0x100000000) {
    return { state: 'corrupt', reason: 'the gzip trailer (CRC-32 and length) does not match the data' };
  }
  return { state: 'complete', length: trailer + 8, data };
}
