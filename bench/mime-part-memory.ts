/**
 * Peak memory of one huge rewritten MIME part (issue 20): a base64 text/html part of N MiB (default 1024) and a
 * quoted-printable one whose HTML is one logical line (minified HTML in 76-column QP) of M MiB (default 200),
 * each generated into a temporary file, streamed file → createMimeRewriter → file in a child process of its own,
 * and its peak RSS (`process.resourceUsage().maxRSS`) printed with the time and the rewritten references. The
 * output is checked: it decodes (Python-compatibly: base64 lines of the original length, QP soft breaks) to the
 * input HTML with every `href` made absolute. Inputs and outputs are removed afterwards. Not a timed test.
 *   npm run build && node bench/mime-part-memory.ts [base64MiB=1024] [qpMiB=200]
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

const BASE = 'http://bench.example/dir/';
/** About 600 bytes of minified HTML with one relative link (a link-dense page: one link per 600 bytes). */
const UNIT = `<div class="c"><a href="p/0000.html">x</a><p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(9)}</p></div>`;

async function writeInput(file: string, kind: 'base64' | 'qp', mib: number): Promise<number> {
  const out = createWriteStream(file);
  const write = (s: string): Promise<void> => new Promise((resolve) => (out.write(s, 'latin1') ? resolve() : out.once('drain', resolve)));
  await write(`From: bench@example.org\r\nSubject: ${kind}\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: ${kind === 'qp' ? 'quoted-printable' : 'base64'}\r\n\r\n`);
  const total = mib * 1024 * 1024;
  let written = 0;
  let units = 0;
  /** HTML not yet encoded (base64 is encoded in whole 57-byte lines, so no padding comes before the end). */
  let rest = '';
  while (written < total) {
    // 1 MiB or so of HTML at a time, links numbered.
    const html: string[] = [];
    for (let k = 0; k < 1700; k++) html.push(UNIT.replace('0000', String(units++ % 10000).padStart(4, '0')));
    let text = rest + html.join('');
    let encoded: string;
    if (kind === 'base64') {
      const whole = text.length - (text.length % 57);
      rest = text.slice(whole);
      text = text.slice(0, whole);
      encoded = `${Buffer.from(text, 'latin1').toString('base64').match(/.{1,76}/g)!.join('\r\n')}\r\n`;
    } else {
      // One logical line: 76-column lines joined by soft line breaks, never a hard line break.
      const qp = text.replace(/=/g, '=3D');
      const lines: string[] = [];
      for (let at = 0; at < qp.length; ) {
        let end = Math.min(at + 75, qp.length);
        if (qp[end - 1] === '=') end -= 1;
        else if (qp[end - 2] === '=') end -= 2;
        lines.push(qp.slice(at, end));
        at = end;
      }
      encoded = `${lines.join('=\r\n')}=\r\n`;
    }
    await write(encoded);
    written += encoded.length;
  }
  if (rest !== '') await write(`${Buffer.from(rest, 'latin1').toString('base64')}\r\n`);
  await new Promise<void>((resolve) => out.end(resolve));
  return units;
}

async function child(input: string, output: string): Promise<void> {
  const { createMimeRewriter } = (await import(new URL('../dist/mime/stream.js', import.meta.url).href)) as typeof import('../src/mime/stream.ts');
  let refs = 0;
  const t0 = performance.now();
  let outBytes = 0;
  const counter = new Writable({
    write(chunk: Buffer, _e, cb) {
      outBytes += chunk.length;
      file.write(chunk) ? cb() : file.once('drain', cb);
    },
    final(cb) {
      file.end(cb);
    },
  });
  const file = createWriteStream(output);
  await pipeline(createReadStream(input, { highWaterMark: 1 << 16 }), createMimeRewriter({ fallback: BASE, onReference: () => refs++ }), counter);
  process.stdout.write(JSON.stringify({ inputBytes: statSync(input).size, outputBytes: outBytes, seconds: +((performance.now() - t0) / 1000).toFixed(1), maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), references: refs }));
}

/**
 * Checks the output with Python's stdlib, streaming (a 1 GiB part is not read whole): both bodies decoded line by
 * line (binascii.a2b_base64, quopri.decode), the input's with every `href="p/` made absolute, compared piece by
 * piece.
 */
function check(input: string, output: string, kind: 'base64' | 'qp'): string {
  const script = String.raw`
import binascii, io, quopri, sys, tempfile
def decoded(path, kind, out):
    with open(path, 'rb') as f:
        for line in f:
            if line in (b'\r\n', b'\n'):
                break
        if kind == 'qp':
            quopri.decode(f, out)
        else:
            for line in f:
                out.write(binascii.a2b_base64(line))
    out.seek(0)
with tempfile.TemporaryFile() as a, tempfile.TemporaryFile() as b:
    decoded(sys.argv[1], sys.argv[3], a)
    decoded(sys.argv[2], sys.argv[3], b)
    rest = b''
    n = 0
    while True:
        block = a.read(1 << 22)
        text = rest + block
        cut = len(text) if not block else text.rfind(b'>') + 1
        rest = text[cut:]
        expected = text[:cut].replace(b'href="p/', b'href="${BASE}p/')
        got = b.read(len(expected))
        if got != expected:
            print('MISMATCH near decoded byte', n)
            sys.exit()
        n += cut
        if not block:
            break
    print('ok' if b.read(1) == b'' else 'MISMATCH: output longer')
`;
  const r = spawnSync('python3', ['-c', script, input, output, kind], { maxBuffer: 1 << 20 });
  return r.stdout.toString().trim() || r.stderr.toString().trim().split('\n').pop()!;
}

if (process.argv[2] === "--gen") {
  await writeInput(process.argv[3]!, process.argv[4] as "base64", Number(process.argv[5]));
} else if (process.argv[2] === "--child") {
  await child(process.argv[3]!, process.argv[4]!);
} else {
  const sizes = { base64: Number(process.argv[2] ?? 1024), qp: Number(process.argv[3] ?? 200) };
  const dir = mkdtempSync(join(tmpdir(), 'absolutize-bench-'));
  try {
    for (const kind of ['base64', 'qp'] as const) {
      const input = join(dir, `${kind}.eml`);
      const output = join(dir, `${kind}.out.eml`);
      await writeInput(input, kind, sizes[kind]);
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', input, output], { stdio: ['ignore', 'pipe', 'inherit'] });
      const result = JSON.parse(r.stdout.toString()) as Record<string, unknown>;
      process.stdout.write(`${JSON.stringify({ kind, partMiB: sizes[kind], ...result, python: check(input, output, kind) })}\n`);
      if (process.env['KEEP'] === undefined) {
        rmSync(input);
        rmSync(output);
      }
    }
  } finally {
    if (process.env['KEEP'] === undefined) rmSync(dir, { recursive: true, force: true });
  }
}
