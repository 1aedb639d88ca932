/**
 * A block larger than Buffer's pool, alone in its gzip member, is lent to the worker thread (moved, not copied).
 * A record rewritten there keeps its block in the worker: its records are built on the reader's thread from the
 * head and digest kept before lending (record-job.ts KeptOriginal). With a worker and without, the same bytes.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect, test } from 'vitest';
import { base32 } from '../../src/warc/writer.ts';
import { runWarc } from './helpers.ts';

function response(i: number, body: string, digest: boolean): { member: Buffer; block: Buffer } {
  const block = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const sha1 = `sha1:${base32(createHash('sha1').update(block).digest())}`;
  const head = ['WARC/1.0', 'WARC-Type: response', `WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000000${i}>`, 'WARC-Date: 2024-01-01T00:00:00Z', `WARC-Target-URI: https://example.com/dir${i}/page.html`, 'Content-Type: application/http; msgtype=response', ...(digest ? [`WARC-Block-Digest: ${sha1}`] : []), `Content-Length: ${block.length}`, '', ''].join('\r\n');
  return { member: gzipSync(Buffer.concat([Buffer.from(head), block, Buffer.from('\r\n\r\n')])), block };
}

test('large blocks lent to a worker: rewritten (with and without a block digest) and copied records come out as without a worker', async () => {
  const links = '<p><a href="x/y.html">a link</a> <img src="../img/z.png"></p>\n'.repeat(2000);
  const records = [response(1, links, false), response(2, links, true), response(3, '<p>no references at all</p>\n'.repeat(4000), false), response(4, links.replace(/x\/y/g, 'q'), false)];
  expect(records.every((r) => r.block.length > 64 * 1024)).toBe(true);
  const input = Buffer.concat(records.map((r) => r.member));
  const inline = await runWarc([input], { warcinfo: false, threads: 0 });
  const worker = await runWarc([input], { warcinfo: false, threads: 1 });
  expect(worker.summary.rewritten).toBe(3);
  expect(worker.output.equals(inline.output)).toBe(true);
  // The metadata records name the original blocks' digests, computed or as the record gave it.
  const text = gunzipSync(worker.output).toString('latin1');
  const named = [...text.matchAll(/absolutize-original-block-digest: (\S+)/g)].map((m) => m[1]);
  const sha1 = (b: Buffer): string => `sha1:${base32(createHash('sha1').update(b).digest())}`;
  expect(named).toEqual([sha1(records[0]!.block), sha1(records[1]!.block), sha1(records[3]!.block)]);
});
