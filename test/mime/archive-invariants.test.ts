/**
 * Issue 20: mail that comes out as sound as it went in. Each case the issue names, as a user meets it: header
 * values as Python's `email` reads them (duplicate parameters, RFC 2231 beside plain, `<URL>` and comments in
 * Content-Location), header blocks read in linear time, quoted-printable and base64 re-encoded without making
 * structure (`From ` lines, delimiter lines) and with soft line breaks in the original's line-end style, and
 * Content-Length kept true. Whole, byte by byte and in random chunks. The archive-level differential test (Python
 * `mailbox`, mutt's rule) is test/mime/differential/archive.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import libqp from 'libqp';
import { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { resolveLimits } from '../../src/limits.ts';
import type { MimeRewriteOptions } from '../../src/mime/rewriter.ts';
import { createMboxRewriter, createMimeRewriter } from '../../src/mime/stream.ts';
import { parseFields } from '../../src/mime/headers.ts';
import { CHUNK_SEED, randomChunks, seededRandom } from '../helpers/chunks.ts';
import { PYTHON } from './differential/harness.ts';

async function collect(stream: Transform, chunks: readonly Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of Readable.from(chunks, { objectMode: false }).pipe(stream)) out.push(c as Buffer);
  return Buffer.concat(out);
}

interface Run {
  output: Buffer;
  refs: string[];
  codes: string[];
  bases: string[];
}

/** A message rewritten whole, byte by byte (small ones) and in random chunks: all must agree. */
async function run(text: string | Buffer, options: MimeRewriteOptions = { fallback: 'http://fallback.example/' }): Promise<Run> {
  const input = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  const chunkings = [[input], randomChunks(input, seededRandom(CHUNK_SEED), 17)];
  if (input.length < 20000) chunkings.push(Array.from(input, (_b, k) => input.subarray(k, k + 1)));
  const runs: Run[] = [];
  for (const chunks of chunkings) {
    const refs: string[] = [];
    const codes: string[] = [];
    const bases: string[] = [];
    const output = await collect(
      createMimeRewriter({ ...options, onPart: (p) => bases.push(`${p.path} ${p.base.url ?? ''}`), onReference: (r, part) => refs.push(`${part} ${r.resolved ?? r.raw}`), onWarning: (w) => codes.push(w.code) }),
      chunks,
    );
    runs.push({ output, refs, codes, bases });
  }
  for (const r of runs.slice(1)) {
    expect(r.output.toString('latin1')).toBe(runs[0]!.output.toString('latin1'));
    expect(r.refs).toEqual(runs[0]!.refs);
  }
  return runs[0]!;
}

/** What Python's email finds: the text/html parts' decoded bodies (str), in walk order. */
function pythonHtml(message: Buffer): string[] {
  const script = String.raw`
import email, email.policy, sys, json
m = email.message_from_bytes(sys.stdin.buffer.read(), policy=email.policy.compat32)
out = []
for p in m.walk():
    if p.get_content_type() == 'text/html':
        out.append(p.get_payload(decode=True).decode('latin-1'))
print(json.dumps(out))
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: message }).toString()) as string[];
}

describe('header values as Python email reads them', () => {
  const body = (b: string): string => `\n--${b}\nContent-Type: text/html\n\n<a href="x.html">x</a>\n--${b}--\n`;

  it('two boundary parameters: the first is read (Python), with a warning', async () => {
    const input = `Content-Type: multipart/mixed; boundary="FIRST"; boundary="SECOND"\nContent-Location: http://h.example/d/\n${body('FIRST')}`;
    const r = await run(input);
    expect(r.refs).toEqual(['1 http://h.example/d/x.html']);
    expect(r.codes).toContain('mime-duplicate-parameter');
    expect(pythonHtml(r.output)).toEqual(['<a href="http://h.example/d/x.html">x</a>']);
  });

  it('boundary and boundary* together: the plain one is read, whichever comes first', async () => {
    for (const ct of [`multipart/mixed; boundary*=utf-8''OTHER; boundary="PLAIN"`, `multipart/mixed; boundary="PLAIN"; boundary*=utf-8''OTHER`, `multipart/mixed; boundary*0="OT"; boundary*1="HER"; boundary=PLAIN`]) {
      const input = `Content-Type: ${ct}\nContent-Location: http://h.example/d/\n${body('PLAIN')}`;
      const r = await run(input);
      expect(r.refs, ct).toEqual(['1 http://h.example/d/x.html']);
      expect(r.codes, ct).toContain('mime-duplicate-parameter');
      expect(pythonHtml(r.output), ct).toEqual(['<a href="http://h.example/d/x.html">x</a>']);
    }
  });

  it('boundary* alone (RFC 2231, with continuations) is read, with no warning', async () => {
    const input = `Content-Type: multipart/mixed; boundary*0="PL"; boundary*1="AIN"\nContent-Location: http://h.example/d/\n${body('PLAIN')}`;
    const r = await run(input);
    expect(r.refs).toEqual(['1 http://h.example/d/x.html']);
    expect(r.codes).toEqual([]);
  });

  it('two charset parameters: the first is read (the query of a URL is encoded in it)', async () => {
    const html = Buffer.from('<a href="x.html?q=caf\u00e9">x</a>\n', 'latin1');
    const input = Buffer.concat([Buffer.from('Content-Type: text/html; charset=iso-8859-1; charset=utf-8\nContent-Location: http://h.example/\n\n'), html]);
    const r = await run(input);
    expect(r.refs).toEqual(['1 http://h.example/x.html?q=caf%E9']);
    expect(r.codes).toContain('mime-duplicate-parameter');
  });

  it('Content-Location <http://…> (angle brackets) and comment-wrapped values are the URL inside, with no warning', async () => {
    for (const value of ['<http://h.example/d/>', ' <http://h.example/d/> ', '(saved from) <http://h.example/d/> (comment (nested))', '(c) http://h.example/d/', '<http://h.example/d/>(c)']) {
      for (const name of ['Content-Location', 'Content-Base']) {
        const r = await run(`Content-Type: text/html\n${name}: ${value}\n\n<a href="x.html">x</a>\n`);
        expect(r.refs, `${name}: ${value}`).toEqual(['1 http://h.example/d/x.html']);
        expect(r.codes, `${name}: ${value}`).toEqual([]);
      }
    }
  });

  it('a URL that ends in parentheses keeps them', async () => {
    const r = await run('Content-Type: text/html\nContent-Location: http://h.example/wiki/A_(b)\n\n<a href="x.html">x</a>\n');
    expect(r.refs).toEqual(['1 http://h.example/wiki/x.html']);
  });
});

describe('header blocks are read in time linear in their size', () => {
  /**
   * Counts the bytes Buffer#indexOf walks (from its start to what it finds, or to the end): linear reading walks
   * each byte a bounded number of times; the quadratic reading (every line searching to the end of the block for
   * a CR that LF-only mail never has) walked ~n²/line bytes. A count, not a time: no timing threshold.
   */
  function walkedBytes(f: () => void): number {
    const original = Buffer.prototype.indexOf;
    let walked = 0;
    Buffer.prototype.indexOf = function (this: Buffer, value: string | number | Uint8Array, byteOffset?: number | BufferEncoding, encoding?: BufferEncoding): number {
      const r = original.call(this, value, byteOffset as number, encoding);
      const from = typeof byteOffset === 'number' ? (byteOffset < 0 ? Math.max(0, this.length + byteOffset) : byteOffset) : 0;
      walked += (r === -1 ? this.length : r) - from;
      return r;
    };
    try {
      f();
    } finally {
      Buffer.prototype.indexOf = original;
    }
    return walked;
  }

  for (const eol of ['\n', '\r\n', '\r']) {
    it(`parseFields over 1 MiB of short ${JSON.stringify(eol)} lines walks each byte a few times`, () => {
      const lines: string[] = [];
      for (let i = 0; i < 100000; i++) lines.push(i % 3 === 2 ? ' continued' : `X-H${i}: v`);
      const block = Buffer.from(lines.join(eol) + eol + eol);
      let fields = 0;
      const walked = walkedBytes(() => {
        fields = parseFields(block).length;
      });
      expect(fields).toBe(66667);
      expect(walked).toBeLessThan(4 * block.length);
    });
  }

  it('a message whose header block is just over maxMimeHeaderBytes, in short lines, passes through whole with one warning', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 110000; i++) lines.push(`X-H${i}: v`);
    const input = Buffer.from(`Content-Type: text/html\n${lines.join('\n')}\n\n<a href="x">x</a>\n`);
    const refs: string[] = [];
    const codes: string[] = [];
    const out = await collect(createMimeRewriter({ fallback: 'http://e/', onReference: (r) => refs.push(r.raw), onWarning: (w) => codes.push(w.code) }), randomChunks(input, seededRandom(CHUNK_SEED), 64));
    expect(out.equals(input)).toBe(true);
    expect(codes).toEqual(['mime-structure-error']);
  });

  it('a header block just under maxMimeHeaderBytes, in short lines, is read and its part rewritten', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 75000; i++) lines.push(`X-H${i}: v`);
    const input = Buffer.from(`Content-Type: text/html\r\n${lines.join('\r\n')}\r\n\r\n<a href="x">x</a>\r\n`);
    const out = await collect(createMimeRewriter({ fallback: 'http://e/' }), randomChunks(input, seededRandom(CHUNK_SEED), 64));
    expect(out.toString().endsWith('<a href="http://e/x">x</a>\r\n')).toBe(true);
  });
});


/** Python's reading of a quoted-printable body (quopri, as email's get_payload(decode=True) uses it). */
function pythonQp(body: Buffer): Buffer {
  return execFileSync(PYTHON, ['-c', 'import quopri, sys; sys.stdout.buffer.write(quopri.decodestring(sys.stdin.buffer.read()))'], { input: body });
}

/** How many messages Python's mailbox.mbox reads. */
function pythonMboxCount(mbox: Buffer): number {
  const script = 'import mailbox, sys, tempfile\nf = tempfile.NamedTemporaryFile(delete=False)\nf.write(sys.stdin.buffer.read()); f.close()\nprint(len(mailbox.mbox(f.name)))';
  return Number(execFileSync(PYTHON, ['-c', script], { input: mbox }).toString().trim());
}

async function rewriteMbox(input: Buffer): Promise<Buffer> {
  const chunkings = [[input], randomChunks(input, seededRandom(CHUNK_SEED), 7)];
  const outs: Buffer[] = [];
  for (const chunks of chunkings) outs.push(await collect(createMboxRewriter({ fallback: 'http://fallback.example/' }), chunks));
  expect(outs[1]!.toString('latin1')).toBe(outs[0]!.toString('latin1'));
  return outs[0]!;
}

describe('re-encoding never makes structure', () => {
  it('mbox, quoted-printable: a rewritten line that was =46rom keeps its escape (Python mailbox reads 2 messages, not 3)', async () => {
    const mbox = Buffer.from(
      'From a@example.org Mon Nov 23 10:00:00 2026\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\nContent-Base: http://h.example/d/\n\n' +
        '=46rom <a href=3D"x.html">the archive</a>\n\nFrom b@example.org Mon Nov 23 10:01:00 2026\nSubject: 2\n\nsecond\n',
    );
    expect(pythonMboxCount(mbox)).toBe(2);
    const out = await rewriteMbox(mbox);
    expect(out.toString()).toContain('=46rom <a href=3D"http://h.example/d/x.html">the archive</a>\n');
    expect(pythonMboxCount(out)).toBe(2);
  });

  it('a re-wrapped quoted-printable line never begins with "From " nor "--": whatever the wrap point, in a multipart in an mbox', async () => {
    for (let pad = 0; pad < 90; pad++) {
      const text = `<p>${'w'.repeat(pad)}<a href="x.html">x</a> From the archive --BOUND-- and --BOUND\n`;
      const qp = libqp.wrap(libqp.encode(Buffer.from(text)), 76).replace(/\r\n/g, '\n').replace(/^From /gm, '=46rom ').replace(/^-/gm, '=2D');
      const message = `Content-Type: multipart/mixed; boundary="BOUND"\nContent-Base: http://h.example/d/\n\n--BOUND\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n${qp}--BOUND--\n`;
      const mbox = Buffer.from(`From a@example.org Mon Nov 23 10:00:00 2026\n${message}\nFrom b@example.org Mon Nov 23 10:01:00 2026\nSubject: 2\n\nsecond\n`);
      const out = await rewriteMbox(mbox);
      const part = out.toString('latin1').split('Content-Transfer-Encoding: quoted-printable\n\n')[1]!.split('\n--BOUND--\n')[0]!;
      expect(part.split('\n').filter((l) => l.startsWith('From ') || l.startsWith('--')), `pad ${pad}`).toEqual([]);
      expect(pythonQp(Buffer.from(part, 'latin1')).toString(), `pad ${pad}`).toBe(text.replace('x.html', 'http://h.example/d/x.html').slice(0, -1));
      expect(pythonMboxCount(out), `pad ${pad}`).toBe(2);
      expect(pythonHtml(out.subarray(0, out.indexOf('\nFrom b@'))).length, `pad ${pad}`).toBe(1);
    }
  });

  for (const eol of ['\r\n', '\n', '\r']) {
    it(`quoted-printable soft line breaks keep their line ending (${JSON.stringify(eol)}): "=" at a line end is never re-encoded as "=3D"`, async () => {
      const head = `Content-Type: text/html${eol}Content-Transfer-Encoding: quoted-printable${eol}Content-Base: http://h.example/d/${eol}${eol}`;
      const body = `<p>one long line of text that is wrapped by a soft line break here =${eol}and goes on <a href=3D"x.html">x</a> to its end</p>${eol}<p>=${eol}two</p>${eol}`;
      const r = await run(head + body);
      const out = r.output.toString('latin1').slice(head.length);
      expect(out).not.toContain('=3D' + eol);
      expect(out).not.toMatch(/=3D(\r|\n|$)/);
      // Decoded with soft breaks in that line-end style, it is the rewritten text, and nothing else.
      const decoded = out.replaceAll(`=${eol}`, '').replaceAll('=3D', '=');
      expect(decoded).toBe(`<p>one long line of text that is wrapped by a soft line break here and goes on <a href="http://h.example/d/x.html">x</a> to its end</p>${eol}<p>two</p>${eol}`);
      // The unchanged lines are kept as they were, soft breaks and all.
      expect(out.endsWith(`<p>=${eol}two</p>${eol}`)).toBe(true);
      expect(out.split(eol).every((l) => l.length <= 76)).toBe(true);
    });
  }
});

describe('Content-Length is kept true', () => {
  it('mboxcl2: a message whose body grows gets its new Content-Length and Lines (mutt reads 2 messages, not 3)', async () => {
    const body = '<a href="x.html">x</a>\n\nFrom c@example.org Mon Nov 23 10:05:00 2026\nnot a message: the Content-Length says so\n';
    const mbox = Buffer.from(`From a@example.org Mon Nov 23 10:00:00 2026\nContent-Type: text/html\nContent-Length: ${Buffer.byteLength(body)}\nLines: 4\n\n${body}\nFrom b@example.org Mon Nov 23 10:01:00 2026\nSubject: 2\n\nsecond\n`);
    const out = await rewriteMbox(mbox);
    const newBody = body.replace('x.html', 'http://fallback.example/x.html');
    expect(out.toString()).toContain(`Content-Length: ${Buffer.byteLength(newBody)}\nLines: 4\n\n${newBody}\nFrom b@`);
    const oracle = fileURLToPath(new URL('../../scripts/mbox-oracle.py', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'absolutize-cl-'));
    try {
      writeFileSync(join(dir, 'in'), mbox);
      writeFileSync(join(dir, 'out'), out);
      const [a, b] = execFileSync(PYTHON, [oracle, join(dir, 'in'), join(dir, 'out')]).toString().trim().split('\n').map((l) => JSON.parse(l) as { mutt: string[] });
      expect(a!.mutt).toHaveLength(2);
      expect(b!.mutt).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('mboxcl2: a message whose body shrinks too', async () => {
    const body = `<a href="${'./'.repeat(40)}x.html">x</a>\nFrom c@example.org Mon Nov 23 10:05:00 2026\n`;
    const mbox = Buffer.from(`From a@example.org Mon Nov 23 10:00:00 2026\nContent-Type: text/html\nContent-Length: ${Buffer.byteLength(body)}\n\n${body}\nFrom b@example.org Mon Nov 23 10:01:00 2026\nSubject: 2\n\nsecond\n`);
    const out = await rewriteMbox(mbox);
    expect(out.toString()).toContain(`Content-Length: ${Buffer.byteLength('<a href="http://fallback.example/x.html">x</a>\nFrom c@example.org Mon Nov 23 10:05:00 2026\n')}\n`);
  });

  it('a rewritten MIME part with its own Content-Length gets the new body length, held or streamed', async () => {
    const body = '<a href="x.html">x</a>\r\n'.repeat(100);
    const message = `Content-Type: multipart/related; boundary="B"\r\nContent-Location: http://h.example/d/\r\n\r\n--B\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n\r\n${body}\r\n--B--\r\n`;
    for (const limits of [undefined, resolveLimits({ maxMimePartBytes: 500 })]) {
      const r = await run(message, { fallback: 'http://fallback.example/', ...(limits === undefined ? {} : { limits }) });
      const newBody = body.replaceAll('x.html', 'http://h.example/d/x.html');
      expect(r.output.toString()).toContain(`Content-Length: ${newBody.length}\r\n\r\n${newBody}\r\n--B--`);
    }
  });

  it('the same for a quoted-printable part (its new body written in pieces: copied lines and lines encoded afresh)', async () => {
    const body = '<a href=3D"x.html">x</a>\r\n'.repeat(100);
    const message = `Content-Type: multipart/related; boundary="B"\r\nContent-Location: http://h.example/d/\r\n\r\n--B\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Length: ${body.length}\r\n\r\n${body}\r\n--B--\r\n`;
    const r = await run(message, { fallback: 'http://fallback.example/' });
    const newBody = body.replaceAll('x.html', 'http://h.example/d/x.html');
    expect(r.output.toString()).toContain(`Content-Length: ${newBody.length}\r\n\r\n${newBody}\r\n--B--`);
  });
});

describe('parts of any size are rewritten in bounded pieces', () => {
  it('one logical line of quoted-printable (minified HTML), streamed: unchanged physical lines before the first change are copied, the rest decodes right', async () => {
    const html = Array.from({ length: 400 }, (_, i) => `<div>${'z'.repeat(i % 50)}<a href="p${i}.html">p</a></div>`).join('');
    const qp = libqp.wrap(libqp.encode(Buffer.from(html)), 76);
    const input = `Content-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Base: http://h.example/d/\r\n\r\n${qp}\r\n`;
    const held = await run(input);
    const streamed = await run(input, { fallback: 'http://fallback.example/', limits: resolveLimits({ maxMimePartBytes: 2000 }) });
    expect(streamed.output.toString('latin1')).toBe(held.output.toString('latin1'));
    const out = streamed.output.toString('latin1');
    const body = out.slice(out.indexOf('\r\n\r\n') + 4);
    expect(pythonQp(Buffer.from(body, 'latin1')).toString()).toBe(`${html.replace(/href="p/g, 'href="http://h.example/d/p')}\r\n`);
    expect(body.split('\r\n').every((l) => l.length <= 76)).toBe(true);
  });
});
