/**
 * The archive differential test of issue 20: an mbox comes out as sound as it went in. For every corpus mbox
 * (../shared/corpus/mbox) and for generated ones (mboxo, mboxrd, mboxcl, mboxcl2; HTML bodies in 7bit,
 * quoted-printable and base64, multipart too; body lines that begin with "From " and "--boundary"; rewrites that
 * make URLs longer and shorter, and re-wrap quoted-printable lines), Python's `mailbox.mbox` and a port of mutt's
 * mbox rule (scripts/mbox-oracle.py) read as many messages from the output as from the input; every message that
 * is not rewritten is byte for byte the same; a rewritten one has the same MIME structure (Python's walk) and the
 * same headers but its Content-Length and Lines. Whole and in random chunks.
 *
 *   npm exec -- vitest run test/mime/differential/archive.test.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import libqp from 'libqp';
import { afterAll, describe, expect, it } from 'vitest';
import { createMboxRewriter } from '../../../src/mime/stream.ts';
import { CHUNK_SEED, randomChunks, seededRandom } from '../../helpers/chunks.ts';
import { sharedPath } from '../../helpers/shared.ts';
import { PYTHON } from './harness.ts';

const ORACLE = fileURLToPath(new URL('../../../scripts/mbox-oracle.py', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'absolutize-archive-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Split {
  python: string[];
  mutt: string[];
  structure: string[][];
}

/** Python's and mutt's reading of each mbox (one Python process for all). */
function oracle(mboxes: readonly Buffer[]): Split[] {
  const files = mboxes.map((m, k) => {
    const f = join(scratch, `m${k}-${Math.random().toString(36).slice(2)}.mbox`);
    writeFileSync(f, m);
    return f;
  });
  const out = execFileSync(PYTHON, [ORACLE, ...files], { maxBuffer: 1 << 28 }).toString().trim().split('\n');
  for (const f of files) rmSync(f);
  return out.map((l) => JSON.parse(l) as Split);
}

async function rewrite(input: Buffer, chunks: readonly Buffer[]): Promise<{ output: Buffer; rewritten: number }> {
  const stream = createMboxRewriter({ fallback: 'http://archive.example/base/' });
  const out: Buffer[] = [];
  for await (const c of Readable.from(chunks, { objectMode: false }).pipe(stream)) out.push(c as Buffer);
  void input;
  return { output: Buffer.concat(out), rewritten: stream.stats.rewrittenParts };
}

/** Header lines of a message, but Content-Length and Lines (which a rewrite changes), and its body. */
function withoutLengths(message: Buffer): string {
  const text = message.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const head = (end === -1 ? text : text.slice(0, end)).split(/\r?\n/).filter((l) => !/^(content-length|lines):/i.test(l));
  return head.join('\n');
}

/** The checks of the module comment, for one input and its output. */
function compare(name: string, input: Split, output: Split, rewrittenParts: number): void {
  expect(output.python.length, `${name}: Python mailbox messages`).toBe(input.python.length);
  expect(output.mutt.length, `${name}: mutt messages`).toBe(input.mutt.length);
  let changed = 0;
  for (const [k, raw] of input.python.entries()) {
    const a = Buffer.from(raw, 'base64');
    const b = Buffer.from(output.python[k]!, 'base64');
    if (a.equals(b)) continue;
    // A piece of a body that a reader split off (Python's mailbox ignores mboxcl2's Content-Length) has no header.
    if (!/^From \S+ +\w{3} \w{3} /.test(a.toString('latin1'))) continue;
    changed++;
    expect(output.structure[k], `${name}: message ${k + 1}'s structure`).toEqual(input.structure[k]);
    expect(withoutLengths(b), `${name}: message ${k + 1}'s header`).toBe(withoutLengths(a));
  }
  for (const [k, raw] of input.mutt.entries()) {
    const a = Buffer.from(raw, 'base64');
    const b = Buffer.from(output.mutt[k]!, 'base64');
    if (!a.equals(b)) expect(withoutLengths(b), `${name}: mutt message ${k + 1}'s header`).toBe(withoutLengths(a));
  }
  // Only rewritten messages changed.
  expect(changed, `${name}: changed messages`).toBeLessThanOrEqual(Math.max(rewrittenParts, 0));
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => (statSync(`${dir}/${f}`).isDirectory() ? walk(`${dir}/${f}`) : [`${dir}/${f}`]));
}

const CORPUS = sharedPath('corpus/mbox');
const corpus = walk(CORPUS).filter((f) => /\.(mbox|mbx|mbox\.txt)$/.test(f));

// ---- the generator -------------------------------------------------------------------------------------

type Flavour = 'mboxo' | 'mboxrd' | 'mboxcl' | 'mboxcl2';
const FLAVOURS: readonly Flavour[] = ['mboxo', 'mboxrd', 'mboxcl', 'mboxcl2'];

/** HTML whose links grow (relative to absolute) or shrink (long relative paths), with lines that begin "From " and "--B". */
function html(random: () => number, boundary: string): string {
  const lines: string[] = ['<html><body>'];
  const n = 3 + Math.floor(random() * 8);
  for (let i = 0; i < n; i++) {
    const pad = 'x'.repeat(Math.floor(random() * 70));
    const link = random() < 0.5 ? `p/${i}.html` : `${'./'.repeat(20 + Math.floor(random() * 20))}s${i}.html`;
    // After the link, text that a re-wrap may bring to the start of a line: "From " and a delimiter.
    const tail = random() < 0.5 ? 'From the archive, said he' : `--${boundary} and --${boundary}--`;
    lines.push(`<p>${pad}<a href="${link}">l${i}</a> ${'y'.repeat(Math.floor(random() * 40))} ${tail}</p>`);
    if (random() < 0.3) lines.push('From here on, a line of text');
  }
  lines.push('</body></html>');
  return `${lines.join('\n')}\n`;
}

function encode(text: string, cte: '7bit' | 'quoted-printable' | 'base64'): string {
  if (cte === '7bit') return text;
  if (cte === 'base64') return `${Buffer.from(text).toString('base64').match(/.{1,76}/g)!.join('\n')}\n`;
  // libqp writes CRLF soft breaks; the mbox is LF. "From " at a line start as producers write it: =46rom.
  return libqp.wrap(libqp.encode(Buffer.from(text)), 76).replace(/\r\n/g, '\n').replace(/^From /gm, '=46rom ');
}

function message(random: () => number, k: number): string {
  const boundary = `B${k}x`;
  const head = `From: s${k}@example.org\nSubject: message ${k}\nDate: Mon, 23 Nov 2026 10:00:0${k % 10} +0000\nMIME-Version: 1.0\n${random() < 0.5 ? 'Content-Base: http://h.example/dir/\n' : ''}`;
  const ctes = ['7bit', 'quoted-printable', 'base64'] as const;
  const cte = ctes[Math.floor(random() * 3)]!;
  const kind = random();
  if (kind < 0.5) return `${head}Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: ${cte}\n\n${encode(html(random, boundary), cte)}`;
  if (kind < 0.65) return `${head}Content-Type: text/plain\n\nNo links here.\nFrom the desk of nobody\n`;
  const parts = [
    `Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\n${encode('Plain text\nFrom a line\n--not a delimiter\n', 'quoted-printable')}`,
    `Content-Type: text/html\nContent-Transfer-Encoding: ${cte}\n\n${encode(html(random, boundary), cte)}`,
    `Content-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n${encode(html(random, boundary), 'quoted-printable')}`,
    `Content-Type: image/png\nContent-Transfer-Encoding: base64\n\n${encode('\u0089PNG not really', 'base64')}`,
  ];
  return `${head}Content-Type: multipart/mixed; boundary="${boundary}"\n\npreamble\n${parts.map((p) => `--${boundary}\n${p}`).join('')}--${boundary}--\n`;
}

/** An mbox of `count` messages in a flavour: its escaping of body lines and its Content-Length. */
function mbox(random: () => number, flavour: Flavour, count: number): Buffer {
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    const m = message(random, k);
    const split = m.indexOf('\n\n') + 2;
    let head = m.slice(0, split - 1);
    let body = m.slice(split);
    if (flavour === 'mboxo' || flavour === 'mboxcl') body = body.replace(/^From /gm, '>From ');
    if (flavour === 'mboxrd') body = body.replace(/^(>*From )/gm, '>$1');
    if (flavour === 'mboxcl' || flavour === 'mboxcl2') head += `Content-Length: ${Buffer.byteLength(body)}\nLines: ${body.split('\n').length - 1}\n`;
    out.push(`From s${k}@example.org Mon Nov 23 10:00:0${k % 10} 2026\n${head}\n${body}\n`);
  }
  return Buffer.from(out.join(''), 'utf8');
}

describe('mbox archives come out as sound as they went in (Python mailbox, mutt)', () => {
  it.each(corpus.map((f) => [f.slice(CORPUS.length + 1), f] as const))('corpus %s', async (_name, file) => {
    const input = readFileSync(file);
    const whole = await rewrite(input, [input]);
    const chunked = await rewrite(input, randomChunks(input, seededRandom(CHUNK_SEED), 997));
    expect(chunked.output.equals(whole.output)).toBe(true);
    const [a, b] = oracle([input, whole.output]);
    compare(file, a!, b!, whole.rewritten);
  });

  for (const flavour of FLAVOURS) {
    it(`generated ${flavour}: 25 archives, each read alike before and after`, async () => {
      const random = seededRandom(CHUNK_SEED + FLAVOURS.indexOf(flavour));
      const inputs: Buffer[] = [];
      const outputs: Buffer[] = [];
      const counts: number[] = [];
      for (let n = 0; n < 25; n++) {
        const input = mbox(random, flavour, 2 + Math.floor(random() * 5));
        const whole = await rewrite(input, [input]);
        const chunked = await rewrite(input, randomChunks(input, random, 61));
        expect(chunked.output.toString('latin1'), `archive ${n}: chunked`).toBe(whole.output.toString('latin1'));
        inputs.push(input);
        outputs.push(whole.output);
        counts.push(whole.rewritten);
      }
      const splits = oracle([...inputs, ...outputs]);
      let rewritten = 0;
      for (let n = 0; n < inputs.length; n++) {
        compare(`${flavour} archive ${n}`, splits[n]!, splits[n + inputs.length]!, counts[n]!);
        // mutt's count is the count of messages written (and Python's too, but in mboxcl2, which it reads without
        // Content-Length): no body line reads as a separator, before or after.
        const written = inputs[n]!.toString('latin1').match(/^From s\d+@/gm)!.length;
        expect(splits[n + inputs.length]!.mutt.length, `${flavour} archive ${n}: mutt`).toBe(written);
        if (flavour !== 'mboxcl2') expect(splits[n + inputs.length]!.python.length, `${flavour} archive ${n}: Python`).toBe(written);
        rewritten += counts[n]!;
      }
      expect(rewritten).toBeGreaterThan(25);
    });
  }
});
