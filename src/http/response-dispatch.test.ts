import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import * as mime from '../mime/stream.ts';
import { AbsError } from '../errors.ts';
import { parseContentType } from './content-type.ts';
import type { FetchedDocument } from './fetch.ts';
import { dispatchResponse } from './response-dispatch.ts';
import { createResponseRewriter } from './response-rewriter.ts';

function document(contentType: string): FetchedDocument {
  return {
    url: 'https://example.org/a/',
    requestedUrl: 'https://example.org/a/',
    chain: [],
    retrieval: { url: 'https://example.org/a/' },
    status: 200,
    statusText: 'OK',
    headers: { 'content-type': contentType },
    contentType: parseContentType(contentType),
    contentCodings: [],
    body: Readable.from([]),
  };
}

async function rewrite(transform: NodeJS.ReadWriteStream, input: string): Promise<string> {
  const chunks: Buffer[] = [];
  transform.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve, reject) => transform.on('end', resolve).on('error', reject));
  transform.end(Buffer.from(input));
  await done;
  return Buffer.concat(chunks).toString('latin1');
}

const MESSAGE = 'Content-Type: text/html\r\nContent-Location: https://example.org/m/\r\n\r\n<a href="rel">r</a>';

describe('dispatchResponse (what the WARC worker rewrites through)', () => {
  test('needs no MIME rewriters for HTML, CSS and the other kinds', async () => {
    for (const type of ['text/html', 'text/css', 'image/svg+xml', 'application/json']) expect(dispatchResponse(document(type), {}, null).kind).not.toBe('mime');
    const html = dispatchResponse(document('text/html'), {}, null);
    expect(await rewrite(html.transform!, '<a href="b">b</a>')).toBe('<a href="https://example.org/a/b">b</a>');
  });

  test('a MIME response with the MIME rewriters given is rewritten as createResponseRewriter rewrites it', async () => {
    const given = dispatchResponse(document('message/rfc822'), {}, mime);
    const always = createResponseRewriter(document('message/rfc822'));
    expect(given.kind).toBe('mime');
    const out = await rewrite(given.transform!, MESSAGE);
    expect(out).toContain('href="https://example.org/m/rel"');
    expect(out).toBe(await rewrite(always.transform!, MESSAGE));
  });

  test('a MIME response without them is an internal error, not a pass-through', () => {
    for (const type of ['multipart/related; boundary=B', 'message/rfc822']) {
      let error: unknown = null;
      try {
        dispatchResponse(document(type), {}, null);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(AbsError);
      expect((error as AbsError).code).toBe('ABS_ERR_INTERNAL');
    }
  });
});
