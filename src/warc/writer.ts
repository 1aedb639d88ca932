/**
 * Writing WARC records (WARC 1.1 §4–§6): header fields, block, CRLF CRLF; digests as `sha1:` + RFC 4648 base32,
 * as every WARC tool writes them; one gzip member per record when the input was compressed (WARC 1.1 Annex D).
 */
import { createHash, randomUUID } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';
import { constants, gzipSync } from 'node:zlib';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 §6 base32 (with padding; a SHA-1 of 20 bytes needs none). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/** `sha1:BASE32` of the bytes (WARC 1.1 §5.8 labelled digest). */
export function sha1Digest(...parts: Uint8Array[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return `sha1:${base32(h.digest())}`;
}

export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/**
 * A record's bytes: version line, fields, a Content-Length for the block, the block and CRLF CRLF. The block may
 * come in pieces (a rewritten response's head and payload), joined here in the record's one copy. With
 * `inRoom`, the last piece lies in a buffer of its own with free bytes around it (transformWhole's `room`): when
 * they are enough, the rest of the record is written there and the record is a view of that buffer, the last
 * piece not copied (a rewritten payload: the bench crawl's 65 MB copied once less on the reader's thread).
 */
export function serializeRecord(version: string, fields: ReadonlyArray<readonly [string, string]>, block: Uint8Array | readonly Uint8Array[], inRoom = false): Buffer {
  const pieces = block instanceof Uint8Array ? [block] : block;
  let head = `${version}\r\n`;
  for (const [name, value] of fields) if (name.toLowerCase() !== 'content-length') head += `${name}: ${value}\r\n`;
  head += `Content-Length: ${pieces.reduce((n, p) => n + p.length, 0)}\r\n\r\n`;
  // Fields read from input are one character a byte (Latin-1): written back as the same bytes. Only a value of
  // our own beyond Latin-1 (a file name) makes the header UTF-8 (WARC 1.1 §4).
  const headBytes = Buffer.from(head, /[^\x00-\xff]/.test(head) ? 'utf8' : 'latin1');
  const last = pieces[pieces.length - 1];
  if (inRoom && last !== undefined) {
    let before = headBytes.length;
    for (let i = 0; i < pieces.length - 1; i++) before += pieces[i]!.length;
    if (last.byteOffset >= before && last.buffer.byteLength - last.byteOffset - last.length >= RECORD_END.length) {
      const record = Buffer.from(last.buffer, last.byteOffset - before, before + last.length + RECORD_END.length);
      record.set(headBytes, 0);
      let at = headBytes.length;
      for (let i = 0; i < pieces.length - 1; i++) {
        record.set(pieces[i]!, at);
        at += pieces[i]!.length;
      }
      record.set(RECORD_END, at + last.length);
      return record;
    }
  }
  return Buffer.concat([headBytes, ...pieces, RECORD_END]);
}

/** The CRLF CRLF after a record's block (WARC 1.1 §4). */
export const RECORD_END: Buffer = Buffer.from('\r\n\r\n');

/**
 * One gzip member per record, as the input had them. Written at zlib level 1 (`Z_BEST_SPEED`): about twice as
 * fast as the default level 6 on HTML for members about 13% larger; copied members keep their bytes anyway.
 * zlib's `memLevel` 9 (a hash table of 2^16 chains instead of 2^15, and a symbol buffer twice as long, so half
 * as many blocks to code): 0.92–0.94× the CPU of the default 8 over the bench crawl's HTML records, for the same
 * size within 0.1% (`node bench/deflate-options.ts`, medians of 9 alternating rounds, three runs).
 */
export function encodeUnit(bytes: Buffer, compressed: boolean): Buffer {
  // In a rewrite worker zlib's own chunks: joined, they are a buffer of their own, which goes back to the reader's
  // thread moved (rewrite-worker.ts); the one sized chunk is a view with room left, which would be copied.
  const chunkSize = isMainThread ? Math.max(DEFAULT_CHUNK, Math.ceil(bytes.length / 3) + 64) : DEFAULT_CHUNK;
  return compressed ? gzipSync(bytes, { level: constants.Z_BEST_SPEED, memLevel: constants.Z_MAX_MEMLEVEL, chunkSize }) : bytes;
}

/**
 * zlib's default output chunk (Z_DEFAULT_CHUNK). A member is deflated into one chunk of a third of the record
 * (HTML deflates to about a quarter at level 1) instead of 16 KiB chunks joined by a copy: the rewritten records
 * of the bench crawl are 65 MB, all deflated on the reader's thread. Only the allocation changes, never the bytes.
 */
const DEFAULT_CHUNK = 16 * 1024;

/** `application/warc-fields` (WARC 1.1 §6.1): one `name: value` line each. */
export function warcFields(entries: ReadonlyArray<readonly [string, string | number | null | undefined]>): Buffer {
  return Buffer.from(entries.filter(([, v]) => v !== null && v !== undefined).map(([n, v]) => `${n}: ${String(v).replace(/[\r\n]+/g, ' ')}\r\n`).join(''), 'utf8');
}

/** The current time as WARC-Date (W3C-ISO8601, seconds). */
export function warcDateNow(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}
