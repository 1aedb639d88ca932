/**
 * MIME and mbox in `npm run bench` (issue 10), each next to Python's `email` parsing and serializing the same
 * messages in the same run:
 * - the corpus (../shared/corpus/mail) as .eml files, each through the MIME rewriter with a base;
 * - the same messages as one mbox of BENCH_MBOX_MB (default 32) MiB (mboxrd-escaped, behind From_ lines),
 *   through the mbox rewriter with a base (target: ≥ 1.5× Python);
 * - one generated HTML part of BENCH_QP_MB (default 32) MiB as quoted-printable in a message, against the same
 *   HTML as a plain file (targets: < 300 MiB peak RSS, within 3× the time of the plain file).
 * Every run is a process of its own (its peak RSS is its own); a throughput is the best of `repeat` rounds.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import libqp from 'libqp';
import { sharedPath } from '../test/helpers/shared.ts';

interface Run {
  bytes: number;
  seconds: number;
  maxRssKiB: number;
  messages?: number;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${here}out/mime/`;
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const mbps = (r: Run): number => r.bytes / 1e6 / r.seconds;
const rss = (r: Run): string => `${(r.maxRssKiB / 1024).toFixed(0)} MiB`;

function run(cmd: string, args: string[]): Run {
  return JSON.parse(execFileSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 })) as Run;
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => (statSync(`${dir}/${f}`).isDirectory() ? walk(`${dir}/${f}`) : [`${dir}/${f}`]))
    .filter((f) => !/(CENSUS\.json|SHA256SUMS|SOURCES\.md)$/.test(f));
}

export async function mimeBench(say: (line: string) => void, repeat: number): Promise<void> {
  mkdirSync(out, { recursive: true });
  const files = walk(sharedPath('corpus/mail'));
  // 1. The corpus as .eml files.
  const ours = run(process.execPath, [`${here}mime-engine.ts`, String(repeat)]);
  const py = run(PYTHON, [`${here}mime_email.py`, 'eml', String(repeat), ...files]);
  say(`\nMIME (../shared/corpus/mail, ${files.length} messages, ${(ours.bytes / 1e6).toFixed(1)} MB, with a base)`);
  say(`  absolutize --type mime     ${mbps(ours).toFixed(1).padStart(6)} MB/s   peak RSS ${rss(ours)}`);
  say(`  Python email parse+write  ${mbps(py).toFixed(1).padStart(6)} MB/s   peak RSS ${rss(py)}   ratio ${(mbps(ours) / mbps(py)).toFixed(2)}x`);

  // 2. The same messages as one mbox.
  const mboxMb = Number(process.env['BENCH_MBOX_MB'] ?? 32);
  const mboxFile = `${out}corpus.mbox`;
  if (!existsSync(mboxFile) || statSync(mboxFile).size < mboxMb * 1024 * 1024) {
    const messages = files.map((f) => Buffer.from(`From bench@example.org Sun Nov 22 00:00:00 2026\n${readFileSync(f, 'latin1').replace(/^(>*From )/gm, '>$1')}\n`, 'latin1'));
    const parts: Buffer[] = [];
    let size = 0;
    for (let i = 0; size < mboxMb * 1024 * 1024; i++) {
      const m = messages[i % messages.length]!;
      parts.push(m);
      size += m.length;
    }
    writeFileSync(mboxFile, Buffer.concat(parts));
  }
  const mbox = run(process.execPath, ['--max-semi-space-size=4', `${here}mime-run.ts`, 'mbox', mboxFile, String(Math.min(repeat, 3))]);
  const pyMbox = run(PYTHON, [`${here}mime_email.py`, 'mbox', mboxFile, String(Math.min(repeat, 3))]);
  say(`mbox (those messages over and over, ${(mbox.bytes / 1e6).toFixed(0)} MB, ${mbox.messages} messages, with a base)`);
  say(`  absolutize --type mbox     ${mbps(mbox).toFixed(1).padStart(6)} MB/s   peak RSS ${rss(mbox)}`);
  say(`  Python email parse+write  ${mbps(pyMbox).toFixed(1).padStart(6)} MB/s   peak RSS ${rss(pyMbox)}   ratio ${(mbps(mbox) / mbps(pyMbox)).toFixed(2)}x (target ≥ 1.5x)`);

  // 3. One large quoted-printable HTML part against the same HTML as a file.
  const qpMb = Number(process.env['BENCH_QP_MB'] ?? 32);
  const htmlFile = `${out}large-${qpMb}.html`;
  const emlFile = `${out}large-${qpMb}-qp.eml`;
  if (!existsSync(emlFile)) {
    const para = '<p>Text with caf\u00e9 and a <a href="page/x.html?q=1">link</a>, an <img src="img/y.png"> and a = sign</p>\n';
    const html = Buffer.from(`<html><head><title>t</title></head><body>\n${para.repeat(Math.ceil((qpMb * 1024 * 1024) / Buffer.byteLength(para)))}</body></html>\n`);
    writeFileSync(htmlFile, html);
    writeFileSync(emlFile, Buffer.concat([Buffer.from('Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'), Buffer.from(libqp.wrap(libqp.encode(html), 76), 'latin1')]));
  }
  const plain = run(process.execPath, ['--max-semi-space-size=4', `${here}mime-run.ts`, 'html', htmlFile, '1']);
  const qp = run(process.execPath, ['--max-semi-space-size=4', `${here}mime-run.ts`, 'mime', emlFile, '1']);
  say(`one ${qpMb} MiB HTML part as quoted-printable: ${qp.seconds.toFixed(1)} s, peak RSS ${rss(qp)} (target < 300 MiB); the same HTML as a file: ${plain.seconds.toFixed(1)} s, peak RSS ${rss(plain)}; time ratio ${(qp.seconds / plain.seconds).toFixed(2)}x (target ≤ 3x)`);
}
