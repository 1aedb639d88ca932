/**
 * One gzip member (RFC 1952 §2.3) at the start of a buffer: its header is parsed here and its DEFLATE data
 * inflated by node:zlib (the thread's kept stream: zlib-stream.ts), which tells how many input bytes the DEFLATE
 * stream took, so the member's exact extent is known and it can be copied byte for byte.
 *
 * Why not a library: warcio.js exposes no raw member bytes (so nothing can be copied as it was), and Node's own
 * gunzip runs members together. A member is inflated in one call when the buffer holds all of it; the caller
 * offers more bytes (at least twice as many) while it does not.
 */
import { crc32 } from 'node:zlib';
import { inflateRawFrom } from './zlib-stream.ts';

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
  // Z_SYNC_FLUSH: a buffer that ends inside the stream gives what it has instead of an error.
  const r = inflateRawFrom(bytes, header, maxOutput, outputChunkSize(bytes, header, maxOutput));
  if ('tooLarge' in r) return { state: 'too-large' };
  if ('error' in r) return { state: 'corrupt', reason: r.error.message };
  let data = r.data;
  const used = r.used;
  // The DEFLATE stream ended inside the buffer only when bytes are left over; the 8-byte trailer follows it.
  const trailer = header + used;
  if (trailer + 8 > bytes.length) return { state: 'partial' };
  // RFC 1952 §2.3.1: CRC32 of the uncompressed data, then ISIZE (its length modulo 2^32).
  if (bytes.readUInt32LE(trailer) !== crc32(data) || bytes.readUInt32LE(trailer + 4) !== data.length % 0x100000000) {
    return { state: 'corrupt', reason: 'the gzip trailer (CRC-32 and length) does not match the data' };
  }
  // A chunk sized from a wrong guess (a gzip magic inside the DEFLATE data, its "ISIZE" up to MAX_SIZED_CHUNK) is
  // let go: the unit waits in the reader's window with its data, and a small record must not hold 4 MiB there.
  if (data.buffer.byteLength - data.length > DEFAULT_CHUNK) data = Buffer.from(data);
  return { state: 'complete', length: trailer + 8, data };
}

/**
 * The output chunk to inflate the member at the start of `bytes` into: its inflated size when the buffer shows
 * it, so that the data comes out in one piece instead of 16 KiB chunks joined by a copy (twice the bytes
 * allocated and one more copy of each inflated byte: the bench crawl's 80 MB inflated made 160 MB of Buffers on
 * the reader's thread, and Buffers bring its full collections nearer). The size is read where the member most
 * likely ends, before the next gzip magic: its trailer's ISIZE (RFC 1952 §2.3.1). A guess only, kept when
 * plausible for that many DEFLATE bytes (at most 1032:1, and not much less than they take stored): a wrong one
 * (a magic inside the DEFLATE data) changes the allocation, never the result, as zlib fills as many chunks as
 * it needs. The last member of the buffer (no magic after it) gets zlib's default. One byte more than the
 * size, so that zlib does not stop at a full chunk and allocate another.
 */
export function outputChunkSize(bytes: Buffer, header: number, maxOutput: number): number {
  const end = nextGzipMagic(bytes, header);
  // The smallest DEFLATE stream is 2 bytes, the trailer 8.
  const deflated = end - 8 - header;
  if (end === -1 || deflated < 2) return DEFAULT_CHUNK;
  return plausibleChunk(bytes.readUInt32LE(end - 4), deflated, maxOutput);
}

/**
 * Where the next gzip magic (1f 8b 08) starts at or after `from`, or -1: `bytes.indexOf(magic, from)`. Its first two
 * bytes are searched for and the third checked: Node's search for all three is ~3.5× slower over DEFLATE data
 * (a loop finding every magic of the bench crawl's 45 MB: 18 ms against 5), and this search runs over every
 * compressed byte of the input.
 */
export function nextGzipMagic(bytes: Buffer, from: number): number {
  let at = bytes.indexOf(GZIP_ID, from);
  while (at !== -1 && !isGzipMagic(bytes, at)) at = bytes.indexOf(GZIP_ID, at + 1);
  return at;
}

/**
 * The output chunk to gunzip a gzip-coded HTTP body into (`Content-Encoding: gzip`, one member as servers send
 * it): its trailer's ISIZE, as for a member above; zlib's default when the body is no such member.
 */
export function gzipChunkSize(body: Buffer, maxOutput: number): number {
  return body.length < 18 || !isGzipMagic(body) ? DEFAULT_CHUNK : plausibleChunk(body.readUInt32LE(body.length - 4), body.length - 18, maxOutput);
}

/**
 * The largest output chunk sized from a trailer. ISIZE is the input's word, read before anything is inflated: a
 * forged one (130 KiB of stored data claiming 128 MiB) would otherwise allocate up to the record limit, and a
 * member's data is a view that keeps its whole chunk alive. Past this, zlib's chunks are joined by a copy, as
 * they were before; the bench crawl's members are all far smaller.
 */
export const MAX_SIZED_CHUNK: number = 4 * 1024 * 1024;

/** ISIZE + 1 when `deflated` bytes of DEFLATE data may inflate to it, else zlib's default. */
function plausibleChunk(isize: number, deflated: number, maxOutput: number): number {
  if (isize + 1 < MIN_CHUNK || isize >= MAX_SIZED_CHUNK || isize > maxOutput || isize > 1032 * deflated || isize < (deflated - 1024) / 2) return DEFAULT_CHUNK;
  return isize + 1;
}

/** zlib's smallest output chunk (Z_MIN_CHUNK) and its default (Z_DEFAULT_CHUNK). */
const MIN_CHUNK = 64;
const DEFAULT_CHUNK = 16 * 1024;
/** ID1 and ID2 (RFC 1952 §2.3.1): what nextGzipMagic searches for before isGzipMagic checks CM 8 (deflate). */
const GZIP_ID = Buffer.from([0x1f, 0x8b]);
