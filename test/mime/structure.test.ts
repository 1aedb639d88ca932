/**
 * The MIME structure scanner and the mbox splitter (issue 10): each malformation the issue names, read as
 * Python's email reads it, every byte kept; whole, byte by byte and in random chunks. The full differential
 * test against Python is test/mime/differential.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { resolveLimits } from '../../src/limits.ts';
import { isFromLine } from '../../src/mime/mbox.ts';
import type { MimeRewriteOptions } from '../../src/mime/rewriter.ts';
import { createMboxRewriter, createMimeRewriter } from '../../src/mime/stream.ts';
import { CHUNK_SEED, randomChunks, seededRandom } from '../helpers/chunks.ts';
import { sharedPath } from '../helpers/shared.ts';

async function collect(stream: Transform, chunks: readonly Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of Readable.from(chunks, { objectMode: false }).pipe(stream)) out.push(c as Buffer);
  return Buffer.concat(out);
}

interface Run {
  output: string;
  parts: string[];
  refs: string[];
  codes: string[];
}

/** Runs a message whole, byte by byte and in random chunks; all three must agree. */
async function run(text: string | Buffer, options: MimeRewriteOptions = { fallback: 'http://b.example/d/' }): Promise<Run> {
  const input = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const runs: Run[] = [];
  for (const chunks of [[input], Array.from(input, (_b, k) => input.subarray(k, k + 1)), randomChunks(input, seededRandom(CHUNK_SEED), 17)]) {
    const parts: string[] = [];
    const refs: string[] = [];
    const codes: string[] = [];
    const out = await collect(
      createMimeRewriter({ ...options, onPart: (p) => parts.push(`${p.path} ${p.contentType}`), onReference: (r, part) => refs.push(`${part} ${r.resolved ?? r.raw}`), onWarning: (w) => codes.push(w.code) }),
      chunks,
    );
    runs.push({ output: out.toString('latin1'), parts, refs, codes });
  }
  expect(runs[1]).toEqual(runs[0]);
  expect(runs[2]).toEqual(runs[0]);
  return runs[0]!;
}

const abs = (s: string): string => s.replace(/href="([a-z0-9]+\.html)"/g, 'href="http://b.example/d/$1"');

describe('structure as Python reads it, every byte kept', () => {
  it('a header block that runs into the next delimiter: the part is headers only, nothing lost or doubled', async () => {
    const input = 'Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n--B\nContent-Type: text/html\n\n<a href="x.html">x</a>\n--B--\n';
    const r = await run(input);
    expect(r.parts).toEqual(['0 multipart/mixed', '1 text/plain', '2 text/html']);
    expect(r.codes).toContain('mime-missing-header-separator');
    expect(r.output).toBe(abs(input));
  });

  it('a header block that runs into a body line: that line starts the body (MissingHeaderBodySeparatorDefect)', async () => {
    const input = 'Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/html\n<a href="x.html">x</a>\n--B--\n';
    const r = await run(input);
    expect(r.parts).toEqual(['0 multipart/mixed', '1 text/html']);
    expect(r.codes).toEqual(['mime-missing-header-separator']);
    expect(r.output).toBe(abs(input));
  });

  it("a leaf's boundary parameter means nothing: --X lines in a text/html body are its text (CPython msg_40 shape)", async () => {
    const input = 'Content-Type: text/html; boundary="X"\n\n--X\nContent-Type: text/plain\n\n<a href="a.html">a</a>\n--X\n<a href="b.html">b</a>\n--X--\n';
    const r = await run(input);
    expect(r.parts).toEqual(['1 text/html']);
    expect(r.output).toBe(abs(input));
  });

  it('an inner multipart that never closes ends at the enclosing delimiter; its sibling is still read; text/plain is never rewritten', async () => {
    const input =
      'Content-Type: multipart/mixed; boundary=OUT\n\n--OUT\nContent-Type: multipart/alternative; boundary=IN\n\n--IN\nContent-Type: text/plain\n\n<a href="p.html">plain</a>\n' +
      '--OUT\nContent-Type: text/html\n\n<a href="h.html">h</a>\n--OUT--\n';
    const r = await run(input);
    expect(r.parts).toEqual(['0 multipart/mixed', '1 multipart/alternative', '1.1 text/plain', '2 text/html']);
    expect(r.codes).toContain('mime-missing-close-delimiter');
    expect(r.output).toBe(input.replace('"h.html"', '"http://b.example/d/h.html"'));
  });

  it('text after the close delimiter is epilogue: never parsed, never rewritten', async () => {
    const input = 'Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nx\n--B--\n--B\nContent-Type: text/html\n\n<a href="e.html">e</a>\n';
    const r = await run(input);
    expect(r.parts).toEqual(['0 multipart/mixed', '1 text/plain']);
    expect(r.output).toBe(input);
  });

  it('no Content-Type is text/plain, whatever the file name says (RFC 2045 §5.2)', async () => {
    const input = 'Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Disposition: attachment; filename="page.html"\n\n<a href="f.html">f</a>\n--B--\n';
    const r = await run(input);
    expect(r.parts).toEqual(['0 multipart/mixed', '1 text/plain']);
    expect(r.output).toBe(input);
  });

  it.each([
    ['transport padding after the delimiter', 'Content-Type: multipart/mixed; boundary=B\n\n--B \t\nContent-Type: text/html\n\n<a href="x.html">x</a>\n--B--  \n', '1'],
    ['a comment after the boundary', 'Content-Type: multipart/mixed; boundary="B" (comment)\n\n--B\nContent-Type: text/html\n\n<a href="x.html">x</a>\n--B--\n', '1'],
    ['an RFC 2231 boundary*=', "Content-Type: multipart/mixed; boundary*=us-ascii''B%20C\n\n--B C\nContent-Type: text/html\n\n<a href=\"x.html\">x</a>\n--B C--\n", '1'],
    ['multipart/digest (children are message/rfc822)', 'Content-Type: multipart/digest; boundary=B\n\n--B\n\nContent-Type: text/html\n\n<a href="x.html">x</a>\n--B--\n', '1.1'],
    ['message/global (RFC 6532)', 'Content-Type: message/global\n\nContent-Type: text/html\n\n<a href="x.html">x</a>\n', '1.1'],
    ['bare CR line endings', 'Content-Type: multipart/mixed; boundary=B\r\r--B\rContent-Type: text/html\r\r<a href="x.html">x</a>\r--B--\r', '1'],
    ['mixed line endings', 'Content-Type: multipart/mixed; boundary=B\r\n\n--B\rContent-Type: text/html\n\r\n<a href="x.html">x</a>\r\n--B--\r', '1'],
  ])('finds the HTML part: %s', async (_name, input, path) => {
    const r = await run(input);
    expect(r.refs).toEqual([`${path} http://b.example/d/x.html`]);
    expect(r.output).toBe(abs(input));
  });

  it('a nested multipart that reuses its parent\'s boundary ends at it (Python\'s eof stack: outermost first)', async () => {
    const input = 'Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: multipart/alternative; boundary=B\n\n--B\nContent-Type: text/html\n\n<a href="x.html">x</a>\n--B--\n';
    const r = await run(input);
    expect(r.parts).toEqual(['0 multipart/mixed', '1 multipart/alternative', '2 text/html']);
    expect(r.codes).toContain('mime-missing-start-delimiter');
  });
});

describe('base-giving header values, decoded once', () => {
  it('raw UTF-8 in Content-Location is read as UTF-8 once (é → %C3%A9, not %C3%83%C2%A9)', async () => {
    const r = await run(Buffer.from('Content-Type: text/html\nContent-Location: http://h.example/caf\u00e9/\n\n<a href="x.html">x</a>\n', 'utf8'), {});
    expect(r.refs).toEqual(['1 http://h.example/caf%C3%A9/x.html']);
  });

  it('an RFC 2047 encoded Content-Location is decoded', async () => {
    const r = await run('Content-Type: text/html\nContent-Location: =?utf-8?q?http://h.example/caf=C3=A9/?=\n\n<a href="x.html">x</a>\n', {});
    expect(r.refs).toEqual(['1 http://h.example/caf%C3%A9/x.html']);
  });

  it('a value that is not a URL is a warning, for a CSS part and a multipart too', async () => {
    const r = await run('Content-Type: multipart/related; boundary=B\nContent-Location: http://[bad\n\n--B\nContent-Type: text/css\nContent-Location: http://[worse\n\na { background: url(x.png) }\n--B--\n');
    expect(r.codes.filter((c) => c === 'invalid-base-layer')).toHaveLength(2);
    expect(r.refs).toEqual(['1 http://b.example/d/x.png']);
  });

  it('a 0xA0 byte is part of the value, not whitespace to strip', async () => {
    const r = await run(Buffer.concat([Buffer.from('Content-Type: text/html\nContent-Location: http://h.example/a'), Buffer.from([0xa0]), Buffer.from('/\n\n<a href="x.html">x</a>\n')]), {});
    expect(r.refs).toEqual(['1 http://h.example/a%C2%A0/x.html']);
  });
});

describe('parts too large to hold are rewritten in pieces', () => {
  it('quoted-printable HTML over maxMimePartBytes: the same bytes as held whole, in any chunking', async () => {
    const html = `<html><body>\n${Array.from({ length: 200 }, (_, i) => `<p>caf\u00e9 = ${'w'.repeat(i % 90)} <a href="p${i}.html">p</a></p>\n`).join('')}</body></html>\n`;
    const qp = (await import('libqp')).default;
    const body = qp.wrap(qp.encode(Buffer.from(html)), 76);
    for (const tail of ['\r\n', '=\r\n', '']) {
      const input = Buffer.from(`Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${body}${tail}`, 'latin1');
      const held = await run(input);
      const streamed = await run(input, { fallback: 'http://b.example/d/', limits: resolveLimits({ maxMimePartBytes: 1000 }) });
      expect(streamed.output).toBe(held.output);
      expect(streamed.refs).toEqual(held.refs);
      expect(held.refs).toHaveLength(200);
    }
  });

  it('base64 over maxMimePartBytes is rewritten in pieces (no size passes through unrewritten), in lines of the original length', async () => {
    const html = '<a href="x.html">x</a>'.repeat(100);
    for (const lineLength of [76, 64, 74]) {
      const lines = Buffer.from(html).toString('base64').match(new RegExp(`.{1,${lineLength}}`, 'g'))!;
      const input = `Content-Type: text/html\nContent-Transfer-Encoding: base64\n\n${lines.join('\n')}\n`;
      const held = await run(input, { fallback: 'http://b.example/d/' });
      const r = await run(input, { fallback: 'http://b.example/d/', limits: resolveLimits({ maxMimePartBytes: 1000, maxMimeBase64PartBytes: 2000 }) });
      expect(r.codes).toEqual([]);
      expect(r.refs).toHaveLength(100);
      expect(r.output).toBe(held.output);
      const out = r.output.slice(r.output.indexOf('\n\n') + 2);
      expect(Buffer.from(out, 'base64').toString()).toBe(html.replaceAll('x.html', 'http://b.example/d/x.html'));
      const outLines = out.split('\n');
      expect(outLines.slice(0, -2).every((l) => l.length === lineLength)).toBe(true);
      expect(outLines.at(-1)).toBe('');
    }
  });

  it('a streamed base64 part in which nothing changed comes out as it came, even when its layout is not canonical', async () => {
    const b64 = Buffer.from('<p>no links here</p>'.repeat(200)).toString('base64');
    const input = `Content-Type: text/html\nContent-Transfer-Encoding: base64\n\n${b64.slice(0, 70)}\n${b64.slice(70, 75)}\n${b64.slice(75).match(/.{1,60}/g)!.join('\r\n')}\n`;
    const r = await run(input, { fallback: 'http://b.example/d/', limits: resolveLimits({ maxMimePartBytes: 1000 }) });
    expect(r.output).toBe(input);
  });
});

async function mbox(input: Buffer, chunks: readonly Buffer[] = [input]): Promise<{ output: Buffer; messages: number }> {
  const stream = createMboxRewriter();
  const output = await collect(stream, chunks);
  return { output, messages: stream.messages };
}

describe('mbox', () => {
  it("every corpus mbox reads as many messages as its producer's tests say (MimeKit, GMime, Mailpile)", async () => {
    const expected: Record<string, number> = {
      // MimeKit: content-length-summary.txt (29 "From -" blocks), issue1189-summary.txt, TestUnmungedFromLines (4).
      'mimekit/content-length.mbox.txt': 29,
      'mimekit/issue1189.mbox.txt': 4,
      'mimekit/simple.mbox.txt': 3,
      'mimekit/unmunged.mbox.txt': 4,
      'gmime/substring.mbox': 3,
      'mailpile/tests.mbx': 9,
    };
    const summary = readFileSync(sharedPath('corpus/mbox/mimekit/content-length-summary.txt'), 'latin1');
    expect(summary.match(/^From /gm)).toHaveLength(expected['mimekit/content-length.mbox.txt']!);
    for (const [file, count] of Object.entries(expected)) {
      const input = readFileSync(sharedPath(`corpus/mbox/${file}`));
      for (const chunks of [[input], randomChunks(input, seededRandom(CHUNK_SEED), 997)]) {
        const r = await mbox(input, chunks);
        expect(r.messages, file).toBe(count);
        expect(r.output.equals(input), file).toBe(true);
      }
    }
  });

  it("mutt's is_from: a sender and a ctime date, or a date alone", () => {
    for (const yes of ['From a@b Sat Nov 21 10:00:00 2026', 'From - Mon Jun  3 12:50:27 1996', 'From "a b"@c Mon Jan 1 00:00 1990', 'From x@y Wed Aug  2 00:39:12 MET DST 1995', 'From me at host.org Fri Jan 10 15:32:16 2014', 'From Mon Jan 1 00:00:00 2000']) {
      expect(isFromLine(yes), yes).toBe(true);
    }
    for (const no of ['From here on, a line', 'From - ', 'From Russia with love', 'From: a@b', 'From a@b Sat Nov 21 2026']) expect(isFromLine(no), no).toBe(false);
  });

  it('a From_ line with no empty line before it starts a message; a body line "From here" does not; Content-Length spans a From_ line', async () => {
    const body = '<p>x</p>\n\nFrom c@d Sat Nov 21 10:05:00 2026\n';
    const input = Buffer.from(
      'From a@b Sat Nov 21 10:00:00 2026\nSubject: 1\n\ntext\nFrom here on, text\n' +
        'From a@b Sat Nov 21 10:01:00 2026\nSubject: 2\nContent-Length: ' + Buffer.byteLength(body) + '\n\n' + body +
        'From - \nSubject: 3\n\nthree\n',
    );
    for (const chunks of [[input], Array.from(input, (_b, k) => input.subarray(k, k + 1)), randomChunks(input, seededRandom(CHUNK_SEED), 9)]) {
      const r = await mbox(input, chunks);
      expect(r.messages).toBe(3);
      expect(r.output.equals(input)).toBe(true);
    }
  });

  it('random mboxes of From-ish lines, Content-Lengths right and wrong, CRLF and LF: every byte kept in any chunking', async () => {
    const random = seededRandom(CHUNK_SEED + 7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const lines = ['From a@b Sat Nov 21 10:00:00 2026', 'From - ', 'From here', '>From a@b Sat Nov 21 10:00:00 2026', '', 'Subject: s', 'Content-Length: 12', 'Content-Length: 0', 'text', 'From', 'F', '--B', 'Content-Type: multipart/mixed; boundary=B'];
    for (let k = 0; k < 60; k++) {
      const eol = pick(['\n', '\r\n']);
      const input = Buffer.from(Array.from({ length: 5 + Math.floor(random() * 40) }, () => pick(lines)).join(eol) + (random() < 0.5 ? eol : ''), 'latin1');
      const whole = await mbox(input);
      expect(whole.output.equals(input)).toBe(true);
      for (const max of [1, 3, 11]) {
        const r = await mbox(input, randomChunks(input, random, max));
        expect(r.output.equals(input)).toBe(true);
        expect(r.messages).toBe(whole.messages);
      }
    }
  });
});
