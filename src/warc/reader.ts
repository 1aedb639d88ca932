/**
 * The WARC/ARC reader: bytes in (an async iterable of chunks, as a Node Readable is), units out. A unit is what
 * is copied as one piece: a gzip member (RFC 1952), or one record of an uncompressed file, or a gap of bytes that
 * are neither (copied too, with a warning). The format is decided by the first bytes, never by the file name.
 *
 * Hand-written on node:zlib, on purpose: warcio.js (the maintained JavaScript reader) exposes no raw member
 * bytes, so nothing could be copied as it was; it loops forever on a truncated record and on an LF-only ARC,
 * decodes `br` silently to nothing, drops the first byte of some bodies with `keepHeadersCase`, and reads at
 * 21–24 MB/s where this member walker reads ~70 MB/s; node-warc loses records. Tests read our output back
 * with warcio as an independent second reader.
 *
 * Memory: one unit (a member, or a record) at a time, at most `maxWarcRecordBytes` compressed and inflated.
 * Damage is never a wait for bytes that will not come, and never loses what came before: an input cut short
 * ends with a `gap` item marked `truncated` (for a gzip member cut short, the records it still holds whole come
 * first, then the rest of what it inflates to). A file whose first record or member is no WARC or ARC is refused
 * (ABS_ERR_WARC_FORMAT), whatever its name.
 */
import { AbsError, LimitExceededError } from '../errors.ts';
import type { WarcLimits } from '../limits.ts';
import { constants, inflateRawSync } from 'node:zlib';
import { gzipHeaderLength, inflateMember, isGzipMagic, nextGzipMagic } from './gzip-member.ts';
import { parseStep, sniffRecordFormat } from './record.ts';
import type { ParseState, WarcHeader, WarcItem } from './record.ts';

export interface WarcUnit {
  /** Byte offset of the unit in the input (of the gzip member, for a compressed file). */
  readonly offset: number;
  /** The unit's bytes exactly as in the input. */
  readonly raw: Buffer;
  /** Whether `raw` is a gzip member. */
  readonly compressed: boolean;
  /** Its records and gaps, uncompressed. A member normally holds exactly one record. */
  readonly items: readonly WarcItem[];
  /**
   * Where each item starts: `offset` for a unit of one item; for a member holding several (a whole-file gzip),
   * the item's offset in the inflated stream (the bytes of every member so far, inflated).
   */
  readonly itemOffsets?: readonly number[];
}

export interface WarcReaderInfo {
  /** `warc` or `arc`, known after the first unit. */
  format: 'warc' | 'arc' | null;
  compressed: boolean | null;
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);

/**
 * Accumulates chunks; joins them only when a step needs at least `need` bytes (no quadratic copying). The
 * input's chunks are not copied as they come: a chunk becomes the window as it is, and only a unit that runs
 * from one chunk into the next is copied, with as many bytes of the next as the step needs (a bridge). Once
 * the bridge is read past its own bytes, the window is the next chunk again, from where the bridge's copy of
 * it was read to. Joining each new chunk to the bytes left of the last copied every byte of the input once:
 * the bench crawl's 45 MB in 1 MiB pieces on the reader's thread, each MB of which (external memory) brings
 * V8's next full collection nearer.
 */
class Window {
  /** Chunks after `buf`; the first `shared` bytes of chunks[0] are also the last bytes of `buf` (a bridge). */
  private chunks: Buffer[] = [];
  /** Bytes of `chunks` not in `buf`. */
  private pending = 0;
  private shared = 0;
  buf: Buffer = Buffer.alloc(0);
  /** Input offset of buf[0]. */
  offset = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.pending += chunk.length;
  }

  get available(): number {
    return this.buf.length + this.pending;
  }

  /** Makes `buf` hold at least `need` bytes, or everything received if fewer (Infinity: everything). */
  join(need: number): void {
    if (this.pending === 0 || this.buf.length >= need) return;
    const own = this.buf.length - this.shared;
    const first = this.chunks[0]!;
    if (own === 0 && need <= first.length) {
      this.buf = first;
      this.chunks.shift();
      this.pending -= first.length;
      return;
    }
    if (own > 0 && need - own <= first.length) {
      // A bridge: the bytes left and as much of the next chunk as the step needs.
      const take = need - own;
      this.buf = Buffer.concat([this.buf.subarray(0, own), first.subarray(0, take)]);
      this.pending -= take - this.shared;
      this.shared = take;
      return;
    }
    this.buf = own === 0 && this.chunks.length === 1 ? first : Buffer.concat([this.buf.subarray(0, own), ...this.chunks]);
    this.chunks = [];
    this.pending = 0;
    this.shared = 0;
  }

  consume(n: number): void {
    this.buf = this.buf.subarray(n);
    this.offset += n;
    if (this.shared > 0 && this.buf.length <= this.shared) {
      // Read past the bridge's own bytes: the rest is the next chunk's, read from the chunk itself.
      const chunk = this.chunks.shift()!;
      this.pending -= chunk.length - this.shared;
      this.buf = chunk.subarray(this.shared - this.buf.length);
      this.shared = 0;
    }
  }
}

export async function* readWarc(source: AsyncIterable<Buffer | string>, limits: WarcLimits, info: WarcReaderInfo = { format: null, compressed: null }): AsyncGenerator<WarcUnit> {
  const win = new Window();
  const state: ParseState = { arcVersion: 1, maxHeaderBytes: limits.maxWarcHeaderBytes };
  const iterator = source[Symbol.asyncIterator]();
  let eof = false;
  /** Reads until `need` bytes are available or the input ends; makes win.buf hold them (at least). */
  const fill = async (need: number): Promise<void> => {
    while (!eof && win.available < need) {
      const r = await iterator.next();
      if (r.done === true) eof = true;
      else if (r.value.length > 0) win.push(typeof r.value === 'string' ? Buffer.from(r.value, 'latin1') : r.value);
    }
    // At the end of the input, everything: the steps then read what is left as a whole.
    win.join(eof ? Infinity : need);
  };

  /** Yields the next `length` bytes of the input as units of their own (the first names the record), then the line ends after them. */
  const passThrough = async function* (length: number, header: WarcHeader): AsyncGenerator<WarcUnit> {
    let left = length;
    let first = true;
    for (;;) {
      const take = Math.min(left, win.buf.length);
      const raw = Buffer.from(win.buf.subarray(0, take));
      const offset = win.offset;
      win.consume(take);
      left -= take;
      yield { offset, raw, compressed: false, items: first ? [{ kind: 'oversize', header, bytes: raw, length }] : [] };
      first = false;
      if (left === 0) break;
      if (eof) {
        // Its first bytes are already out: what is missing is reported (the output ends inside this record).
        yield { offset: win.offset, raw: Buffer.alloc(0), compressed: false, items: [{ kind: 'gap', bytes: Buffer.alloc(0), reason: `a WARC record larger than maxWarcRecordBytes, copied through as it came, is cut short: ${left} bytes of its block are missing`, truncated: true }] };
        return;
      }
      await fill(Math.min(left, 1 << 20));
    }
    // The CRLF CRLF after the block belongs to it.
    for (;;) {
      await fill(1);
      let n = 0;
      while (n < win.buf.length && (win.buf[n] === 0x0d || win.buf[n] === 0x0a)) n++;
      if (n > 0) {
        const offset = win.offset;
        const raw = Buffer.from(win.buf.subarray(0, n));
        win.consume(n);
        yield { offset, raw, compressed: false, items: [] };
      }
      if (n < win.buf.length || eof) return;
    }
  };

  await fill(GZIP_MAGIC.length);
  if (win.buf.length === 0) return;
  const compressed = isGzipMagic(win.buf);
  info.compressed = compressed;
  if (!compressed) {
    await fill(16);
    const format = sniffRecordFormat(win.buf);
    if (format === null) throw new AbsError('not a WARC or ARC file: it starts with neither "WARC/", "filedesc://" nor a gzip member', 'ABS_ERR_WARC_FORMAT');
    info.format = format;
    for (;;) {
      const step = parseStep(win.buf, 0, eof, format, state);
      if (step === null) return;
      if ('need' in step) {
        if (eof) throw new AbsError('the WARC input ends inside a record', 'ABS_ERR_INTERNAL');
        if (step.need > limits.maxWarcRecordBytes + limits.maxWarcHeaderBytes) {
          if (step.header === undefined || step.blockEnd === undefined || format === 'arc') throw new LimitExceededError('maxWarcRecordBytes', limits.maxWarcRecordBytes, 'bytes');
          // A record too large to hold: copied through in pieces as they come, never held whole.
          yield* passThrough(step.blockEnd, step.header);
          continue;
        }
        await fill(step.need);
        continue;
      }
      const offset = win.offset;
      // The bytes are copied out of the window: a unit outlives the window's buffer.
      const raw = Buffer.from(win.buf.subarray(0, step.length));
      win.consume(step.length);
      const item = rebase(step.item, raw);
      // Over the limit but already in hand (a large read): copied all the same, as if it had come in pieces.
      const big = item.kind === 'record' && item.format === 'warc' && item.block.length > limits.maxWarcRecordBytes;
      yield { offset, raw, compressed: false, items: [big && item.kind === 'record' ? { kind: 'oversize', header: item.header, bytes: raw, length: raw.length } : item] };
    }
  }

  /**
   * Where a gap of bytes that are no gzip member ends: at the next gzip magic from `from`, or after at most
   * `maxWarcHeaderBytes` (gaps longer than that are copied in pieces of that length), or at the end of input.
   * The ends depend on the bytes alone, never on how they were chunked.
   */
  const gapEnd = async (from: number): Promise<number> => {
    const piece = Math.max(from, limits.maxWarcHeaderBytes);
    for (;;) {
      const next = nextGzipMagic(win.buf, from);
      if (next !== -1 && next <= piece) return next;
      // No magic starts at or before `piece` once the bytes up to where one starting there would end are in hand.
      if (win.buf.length >= piece + GZIP_MAGIC.length) return piece;
      if (eof) return win.buf.length;
      await fill(piece + GZIP_MAGIC.length);
    }
  };

  // Gzip: one member at a time.
  let tried = 0;
  /** Bytes of every member so far, inflated: the offsets of the records of a member that holds several. */
  let inflated = 0;
  const decideFormat = (data: Buffer): 'warc' | 'arc' => {
    if (info.format !== null) return info.format;
    // A first member cut short before it says what it holds: read as WARC (its bytes become the damaged tail).
    const format = sniffRecordFormat(data) ?? (Buffer.from('WARC/').subarray(0, data.length).equals(data) ? 'warc' : null);
    // gzip of something else (an HTML page named .warc.gz): refused, whatever the name.
    if (format === null) throw new AbsError('not a WARC or ARC file: its first gzip member holds neither "WARC/" nor "filedesc://"', 'ABS_ERR_WARC_FORMAT');
    info.format = format;
    return format;
  };
  const memberUnit = (offset: number, raw: Buffer, data: Buffer, cut: string | null): WarcUnit => {
    // In a whole member, a record cut short is a member's damage, not the input's end.
    const items = parseMember(data, decideFormat(data), state).map((i) => (cut === null && i.kind === 'gap' && i.truncated === true ? { ...i, truncated: false } : i));
    if (cut !== null) {
      // The member is cut short: its last item (a record or header that did not end) is the damaged tail.
      const last = items[items.length - 1];
      if (last !== undefined && last.kind === 'gap') items[items.length - 1] = { ...last, reason: `${cut}; ${last.reason}`, truncated: true };
      else items.push({ kind: 'gap', bytes: Buffer.alloc(0), reason: cut, truncated: true });
    }
    const itemOffsets = items.length === 1 ? [offset] : items.map((_, i) => inflated + items.slice(0, i).reduce((n, it) => n + it.bytes.length, 0));
    inflated += data.length;
    return { offset, raw, compressed: true, items, itemOffsets };
  };
  for (;;) {
    if (win.buf.length < GZIP_MAGIC.length && !eof) {
      await fill(Math.max(GZIP_MAGIC.length, 64 * 1024));
      continue;
    }
    if (win.buf.length === 0) {
      if (info.format === null) throw new AbsError('not a WARC or ARC file: no gzip member in it could be read', 'ABS_ERR_WARC_FORMAT');
      return;
    }
    if (!isGzipMagic(win.buf)) {
      // Bytes between members that are not a member: copied as they are, up to the next gzip magic.
      const next = await gapEnd(1);
      const raw = Buffer.from(win.buf.subarray(0, next));
      const offset = win.offset;
      win.consume(next);
      yield { offset, raw, compressed: false, items: [{ kind: 'gap', bytes: raw, reason: 'bytes between gzip members that are not a gzip member' }] };
      continue;
    }
    const r = inflateMember(win.buf, limits.maxWarcRecordBytes);
    if (r.state === 'partial') {
      if (eof) {
        // Cut short inside this member: what it inflates to so far is read (records whole in it are kept).
        const offset = win.offset;
        const raw = Buffer.from(win.buf);
        win.consume(win.buf.length);
        yield memberUnit(offset, raw, inflatePartial(raw, limits.maxWarcRecordBytes), `the input ends inside the gzip member at offset ${offset} (${raw.length} bytes of it)`);
        return;
      }
      if (win.buf.length > limits.maxWarcRecordBytes) throw new LimitExceededError('maxWarcRecordBytes', limits.maxWarcRecordBytes, 'bytes');
      // At least twice the bytes of the last try: each member is inflated O(1) times over.
      tried = Math.max(win.buf.length, tried);
      await fill(Math.max(tried * 2, win.buf.length + 64 * 1024));
      continue;
    }
    tried = 0;
    if (r.state === 'too-large') throw new LimitExceededError('maxWarcRecordBytes', limits.maxWarcRecordBytes, 'bytes');
    const offset = win.offset;
    if (r.state === 'corrupt') {
      // Copied as it is up to the next gzip magic, and reading goes on from there.
      const end = await gapEnd(Math.max(1, gzipHeaderLength(win.buf) ?? 1));
      const raw = Buffer.from(win.buf.subarray(0, end));
      win.consume(end);
      yield { offset, raw, compressed: false, items: [{ kind: 'gap', bytes: raw, reason: `a gzip member zlib cannot read (${r.reason})` }] };
      continue;
    }
    // A view, not a copy: the window's buffers are never written to (join makes new ones), and a copy a member
    // was 45 MB of the reader thread's allocations on the bench crawl, each MB of which brings V8's next
    // full collection nearer (external memory).
    const raw = win.buf.subarray(0, r.length);
    win.consume(r.length);
    yield memberUnit(offset, raw, r.data, null);
  }
}

/** What the start of a member cut short inflates to (nothing when even its header is cut or its data corrupt). */
function inflatePartial(member: Buffer, max: number): Buffer {
  const header = gzipHeaderLength(member);
  if (header === null) return Buffer.alloc(0);
  try {
    return inflateRawSync(member.subarray(header), { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: max });
  } catch {
    return Buffer.alloc(0);
  }
}

/** Every record and gap of one member's data (normally one record). */
function parseMember(data: Buffer, format: 'warc' | 'arc', state: ParseState): WarcItem[] {
  const items: WarcItem[] = [];
  // The member is held whole already (maxWarcRecordBytes bounds it), so a header as long as the member costs no
  // memory more: maxWarcHeaderBytes, which bounds what a stream holds while it looks for a header's end, does not
  // cut a header inside one (a 70 KB Target-URI, which warcio reads, made the record a gap). One byte more than
  // the member: a header that does not end in it is a header the member ends inside, not one over a limit.
  const whole: ParseState = { arcVersion: state.arcVersion, maxHeaderBytes: Math.max(state.maxHeaderBytes, data.length + 1) };
  let at = 0;
  try {
    for (;;) {
      let step;
      try {
        step = parseStep(data, at, true, format, whole);
      } catch (err) {
        // A record cut short inside a whole member: the member is intact, so it is copied as it is.
        if ((err as AbsError).code !== 'ABS_ERR_WARC_TRUNCATED') throw err;
        items.push({ kind: 'gap', bytes: data.subarray(at), reason: (err as Error).message });
        return items;
      }
      if (step === null || 'need' in step) return items;
      items.push(step.item);
      at += step.length;
    }
  } finally {
    state.arcVersion = whole.arcVersion;
  }
}

/** The item with its byte views moved onto `raw` (a copy of the same bytes). */
function rebase(item: WarcItem, raw: Buffer): WarcItem {
  if (item.kind !== 'record') return { ...item, bytes: raw };
  const blockStart = item.block.byteOffset - item.bytes.byteOffset;
  return { ...item, bytes: raw, block: raw.subarray(blockStart, blockStart + item.block.length) };
}
