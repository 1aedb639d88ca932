/**
 * Audit of the mail side against external truth (Python's `mailbox`/`email`, compat32, and mutt's mbox rule as
 * scripts/mbox-oracle.py ports it; WHATWG URL for the resolved references). Each case is a bug the differential
 * tables missed.
 *
 *   npm exec -- vitest run test/mime/audit.test.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import libqp from 'libqp';
import { afterAll, describe, expect, it } from 'vitest';
import { createMboxRewriter, createMimeRewriter } from '../../src/mime/stream.ts';
import { PYTHON } from './differential/harness.ts';

const ORACLE = fileURLToPath(new URL('../../scripts/mbox-oracle.py', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'absolutize-audit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const BASE = 'http://archive.example/base/';

/** How many messages Python's `mailbox.mbox` and mutt read from `mbox`. */
function counts(mbox: Buffer): { python: number; mutt: number } {
  const f = join(scratch, `m${Math.random().toString(36).slice(2)}.mbox`);
  writeFileSync(f, mbox);
  const r = JSON.parse(execFileSync(PYTHON, [ORACLE, f]).toString()) as { python: string[]; mutt: string[] };
  rmSync(f);
  return { python: r.python.length, mutt: r.mutt.length };
}

async function run(stream: NodeJS.ReadWriteStream, input: Buffer, chunk: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < input.length; i += chunk) chunks.push(input.subarray(i, i + chunk));
  const out: Buffer[] = [];
  for await (const c of Readable.from(chunks, { objectMode: false }).pipe(stream)) out.push(c as Buffer);
  return Buffer.concat(out);
}

const FROM_ = 'From MAILER-DAEMON Mon Jan  1 00:00:00 2001\n';
/** A quoted-printable HTML message whose body has a line that begins with "From " and one with "--" (mboxo: unquoted). */
function qpMessage(n: number): string {
  const html = `<html><body>\n<a href="a${n}.html">a</a>\nFrom the start <a href="x${n}.html">x</a>\n-- sig <a href="y${n}.html">y</a>\n>From quoted <a href="z${n}.html">z</a>\n</body></html>\n`;
  // libqp leaves "From " and "--" line starts as they are (so do most producers); every line is short.
  const body = libqp.encode(Buffer.from(html, 'latin1'));
  expect(body).toMatch(/^From the start/m);
  return `${FROM_}From: a@example.org\nSubject: m${n}\nMIME-Version: 1.0\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n${body}\n\n`;
}

/** `input` with each relative `name` replaced by its WHATWG resolution against BASE (and QP's `=3D` kept). */
function expectedRewrite(input: string, names: readonly string[]): string {
  let out = input;
  for (const name of names) out = out.split(`"${name}"`).join(`"${new URL(name, BASE).href}"`);
  return out;
}

describe('quoted-printable lines that began with "From " or "--" stay so when re-encoded', () => {
  for (const eol of ['\n', '\r\n'] as const) {
    it(`mbox, ${eol === '\n' ? 'LF' : 'CRLF'}: Python's mailbox and mutt read as many messages from the output as from the input`, async () => {
      const input = Buffer.from((qpMessage(1) + qpMessage(2)).replace(/\n/g, eol), 'latin1');
      const before = counts(input);
      // Python's mailbox splits at every "From " line (4 messages); mutt only at From_ lines (2).
      expect(before).toEqual({ python: 4, mutt: 2 });
      for (const chunk of [input.length, 7]) {
        const output = await run(createMboxRewriter({ fallback: BASE }), input, chunk);
        expect(counts(output), `chunk ${chunk}`).toEqual(before);
        const names = [1, 2].flatMap((n) => [`a${n}.html`, `x${n}.html`, `y${n}.html`, `z${n}.html`]);
        // Every byte but the references is as it was: no "=46rom " or "=2D-" where "From " and "--" were.
        expect(output.toString('latin1'), `chunk ${chunk}`).toBe(expectedRewrite(input.toString('latin1').replace(/href=3D"/g, 'href="'), names).replace(/href="/g, 'href=3D"'));
      }
    });
  }

  it('a message: a "--" line of quoted-printable HTML keeps its bytes', async () => {
    const html = '<p>\n-- <a href="x.html">x</a>\n--\n</p>\n';
    const msg = `MIME-Version: 1.0\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n${html.replace(/=/g, '=3D')}`;
    const output = await run(createMimeRewriter({ fallback: BASE }), Buffer.from(msg, 'latin1'), 5);
    expect(output.toString('latin1')).toBe(msg.replace('"x.html"', `"${new URL('x.html', BASE).href}"`));
  });

  it('a line that did not begin with "From " is still never made to begin with it', async () => {
    // The rewrite lengthens the first physical line so that the soft line break falls right before "From ".
    const pad = 'p'.repeat(76 - 1 - '<a href="x.html">'.length);
    const html = `<a href="x.html">${pad}From here\n`;
    const msg = `MIME-Version: 1.0\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n${html.replace(/=/g, '=3D')}`;
    const output = (await run(createMimeRewriter({ fallback: BASE }), Buffer.from(msg, 'latin1'), 1 << 20)).toString('latin1');
    expect(output).not.toMatch(/^From /m);
    expect(output).not.toMatch(/^--/m);
  });
});

describe('a quoted-printable body whose first line ends in a lone CR (a CRLF file converted to CRLF again: "=\\r\\r\\n")', () => {
  // The soft line break of the first line ends in a bare CR; every other line ends in CRLF, as the header's do.
  const body = '<html><body><p>Some long line of text that goes on and on =\r\r\nwraps here</p>\r\n--\r\nSignature line\r\n<a href=3D"rel/x.html">x</a>\r\n-- \r\nFrom me\r\n</body></html>\r\n';
  const msg = `MIME-Version: 1.0\r\nContent-Type: text/html; charset=us-ascii\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${body}`;
  const expected = msg.replace('"rel/x.html"', `"${new URL('rel/x.html', BASE).href}"`);

  for (const chunk of [1 << 20, 7, 1]) {
    it(`a message, in writes of ${chunk} bytes: lines written afresh end in CRLF, every byte but the reference as it was`, async () => {
      const output = await run(createMimeRewriter({ fallback: BASE }), Buffer.from(msg, 'latin1'), chunk);
      expect(output.toString('latin1')).toBe(expected);
    });
  }

  it('an mbox of two such messages: the same, and Python and mutt read as many messages', async () => {
    const input = Buffer.from(`${FROM_.replace('\n', '\r\n')}${msg}\r\n${FROM_.replace('\n', '\r\n')}${msg}\r\n`, 'latin1');
    for (const chunk of [input.length, 7]) {
      const output = await run(createMboxRewriter({ fallback: BASE }), input, chunk);
      expect(output.toString('latin1'), `chunk ${chunk}`).toBe(input.toString('latin1').split('"rel/x.html"').join(`"${new URL('rel/x.html', BASE).href}"`));
      expect(counts(output)).toEqual(counts(input));
    }
  });
});
