/**
 * MIME and mbox in `npm run bench` (issues 10 and 23), each next to the job a Python user writes instead: Python's
 * `email` parsing and serializing the same messages, under policy compat32 (what `message_from_bytes` and
 * `mailbox` use by default, and its fastest) and policy.default, both printed, each as a ratio.
 * - the corpus (../shared/corpus/mail) as .eml files, each through the MIME rewriter with a base;
 * - the same messages as one mbox of BENCH_MBOX_MB (default 32) MiB (mboxrd-escaped, behind From_ lines), through
 *   the command line as a user runs it (`npm run absolutize -- corpus.mbox --url … -o out.mbox`; target ≥ 1.5×
 *   Python compat32);
 * - one generated message of BENCH_MIME_PARTS (default 100,000) tiny parts — plain text, quoted-printable HTML with
 *   a link, CSS with a url(), a base64 image, in turn — through the command line (target: at most 2× the time of
 *   Python compat32);
 * - one generated HTML part of BENCH_QP_MB (default 32) MiB as quoted-printable in a message, against the same
 *   HTML as a plain file (targets: < 300 MiB peak RSS, within 3× the time of the plain file).
 * Each job is a process of its own, measured whole (`mime_email.py measure`: user + system CPU of all its threads
 * from wait4, wall time, peak RSS); the engines run in alternating rounds, BENCH_REPEAT of them (at least 5), and a
 * ratio is the median of the rounds' paired ratios (Python's time over ours). BENCH_MAIL_BASELINE=path/to/main.js
 * adds a second build of the command (the code before a change) to the same rounds.
 *   node bench/mime.ts [REPEAT]          # this part of the bench alone
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

/** One whole process, as `mime_email.py measure` reports it. */
interface Usage {
  user: number;
  sys: number;
  cpu: number;
  wall: number;
  maxRssKiB: number;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${here}out/mime/`;
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const BASE = 'http://example.org/archive/';
const mbps = (r: Run): number => r.bytes / 1e6 / r.seconds;
const rss = (kib: number): string => `${(kib / 1024).toFixed(0)} MiB`;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function run(cmd: string, args: string[]): Run {
  return JSON.parse(execFileSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 })) as Run;
}

function measure(cmd: string[]): Usage {
  return JSON.parse(execFileSync(PYTHON, [`${here}mime_email.py`, 'measure', ...cmd], { cwd: root, encoding: 'utf8' })) as Usage;
}

/** Our command line as `npm run absolutize` runs it (package.json), on one input, written to a file. */
function cli(main: string, input: string, output: string): string[] {
  return [process.execPath, '--max-semi-space-size=4', main, input, '--url', BASE, '-o', output];
}

/**
 * The engines in alternating rounds; for each, the median CPU, wall and peak RSS, and the median of the rounds'
 * paired ratios of each other engine's CPU and wall over the first one's.
 */
function rounds(engines: Array<[string, string[]]>, n: number): Array<{ name: string; cpu: number; wall: number; maxRssKiB: number; cpuRatio: number; wallRatio: number }> {
  const runs: Usage[][] = engines.map(() => []);
  for (let r = 0; r < n; r++) {
    // Alternating, and the order turned every round, so that neither side always follows the other.
    const order = engines.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) runs[i]!.push(measure(engines[i]![1]));
  }
  const ours = runs[0]!;
  return engines.map(([name], i) => ({
    name,
    cpu: median(runs[i]!.map((u) => u.cpu)),
    wall: median(runs[i]!.map((u) => u.wall)),
    maxRssKiB: Math.max(...runs[i]!.map((u) => u.maxRssKiB)),
    cpuRatio: median(runs[i]!.map((u, k) => u.cpu / ours[k]!.cpu)),
    wallRatio: median(runs[i]!.map((u, k) => u.wall / ours[k]!.wall)),
  }));
}

function report(say: (line: string) => void, title: string, results: ReturnType<typeof rounds>, target: string): void {
  say(title);
  say(`  ${''.padEnd(34)} CPU s   wall s   peak RSS   ratio (its time / ours): CPU, wall`);
  for (const r of results) {
    const ratio = r === results[0] ? '' : `   ${r.cpuRatio.toFixed(2)}x, ${r.wallRatio.toFixed(2)}x${r.name.includes('compat32') && target !== '' ? ` (target ${target})` : ''}`;
    say(`  ${r.name.padEnd(34)} ${r.cpu.toFixed(2).padStart(5)}   ${r.wall.toFixed(2).padStart(6)}   ${rss(r.maxRssKiB).padStart(8)}${ratio}`);
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => (statSync(`${dir}/${f}`).isDirectory() ? walk(`${dir}/${f}`) : [`${dir}/${f}`]))
    .filter((f) => !/(CENSUS\.json|SHA256SUMS|SOURCES\.md)$/.test(f));
}

/** One message of `n` tiny parts, four kinds in turn (text, QP HTML with a relative link, CSS with a url(), a base64 GIF). */
function manyParts(n: number): Buffer {
  const parts: string[] = ['From: bench@example.org\r\nSubject: many parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="=_b"\r\n\r\n'];
  const gif = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
  for (let i = 0; i < n; i++) {
    switch (i % 4) {
      case 0:
        parts.push(`--=_b\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\npart ${i}\r\n`);
        break;
      case 1:
        parts.push(`--=_b\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p><a href=3D"p/${i}.html">part ${i}</a></p>\r\n`);
        break;
      case 2:
        parts.push(`--=_b\r\nContent-Type: text/css\r\nContent-Location: s/${i}.css\r\n\r\np { background: url(i/${i}.png) }\r\n`);
        break;
      default:
        parts.push(`--=_b\r\nContent-Type: image/gif\r\nContent-Transfer-Encoding: base64\r\n\r\n${gif}\r\n`);
    }
  }
  parts.push('--=_b--\r\n');
  return Buffer.from(parts.join(''), 'latin1');
}

export async function mimeBench(say: (line: string) => void, repeat: number): Promise<void> {
  mkdirSync(out, { recursive: true });
  const n = Math.max(repeat, 5);
  const main = `${root}bin/absolutize.js`;
  const baseline = process.env['BENCH_MAIL_BASELINE'];
  const files = walk(sharedPath('corpus/mail'));
  const bytes = files.reduce((s, f) => s + statSync(f).size, 0);
  const python = (policy: string, job: string[]): string[] => [PYTHON, `${here}mime_email.py`, job[0]!, policy, ...job.slice(1)];

  // 1. The corpus as .eml files: the MIME rewriter (library, bench/mime-engine.ts), one pass a process.
  const emlJob = (policy: string): string[] => python(policy, ['eml', `${out}py.eml`, ...files]);
  report(
    say,
    `\nMIME (../shared/corpus/mail, ${files.length} messages, ${(bytes / 1e6).toFixed(1)} MB, with a base; whole process, median of ${n} alternating rounds)`,
    rounds(
      [
        ['absolutize (createMimeRewriter)', [process.execPath, `${here}mime-engine.ts`, '1']],
        ['Python email, compat32', emlJob('compat32')],
        ['Python email, policy.default', emlJob('default')],
      ],
      n,
    ),
    '',
  );

  // 2. The same messages as one mbox, through the command line.
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
  const mboxEngines: Array<[string, string[]]> = [
    ['absolutize (command line)', cli(main, mboxFile, `${out}out.mbox`)],
    ['Python email, compat32', python('compat32', ['mbox', mboxFile, `${out}py.mbox`])],
    ['Python email, policy.default', python('default', ['mbox', mboxFile, `${out}py.mbox`])],
  ];
  if (baseline !== undefined) mboxEngines.push(['absolutize, baseline build', cli(baseline, mboxFile, `${out}out-baseline.mbox`)]);
  report(say, `mbox (those messages over and over, ${(statSync(mboxFile).size / 1e6).toFixed(0)} MB, with a base; whole process, median of ${n} alternating rounds)`, rounds(mboxEngines, n), '≥ 1.5x');

  // 3. One message of many tiny parts: what a part costs.
  const partCount = Number(process.env['BENCH_MIME_PARTS'] ?? 100_000);
  const partsFile = `${out}parts-${partCount}.eml`;
  if (!existsSync(partsFile)) writeFileSync(partsFile, manyParts(partCount));
  const partEngines: Array<[string, string[]]> = [
    ['absolutize (command line)', cli(main, partsFile, `${out}out-parts.eml`)],
    ['Python email, compat32', python('compat32', ['eml', `${out}py.eml`, partsFile])],
    ['Python email, policy.default', python('default', ['eml', `${out}py.eml`, partsFile])],
  ];
  if (baseline !== undefined) partEngines.push(['absolutize, baseline build', cli(baseline, partsFile, `${out}out-parts-baseline.eml`)]);
  report(say, `one message of ${partCount.toLocaleString('en-US')} tiny parts (${(statSync(partsFile).size / 1e6).toFixed(1)} MB; whole process, median of ${n} alternating rounds)`, rounds(partEngines, n), '≥ 0.5x');

  // 4. One large quoted-printable HTML part against the same HTML as a file.
  const qpMb = Number(process.env['BENCH_QP_MB'] ?? 32);
  if (qpMb <= 0) return;
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
  say(`one ${qpMb} MiB HTML part as quoted-printable: ${qp.seconds.toFixed(1)} s, peak RSS ${rss(qp.maxRssKiB)} (target < 300 MiB); the same HTML as a file: ${plain.seconds.toFixed(1)} s, peak RSS ${rss(plain.maxRssKiB)}; time ratio ${(qp.seconds / plain.seconds).toFixed(2)}x (target ≤ 3x); ${mbps(qp).toFixed(1)} MB/s`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await mimeBench((line) => process.stdout.write(`${line}\n`), Number(process.argv[2] ?? process.env['BENCH_REPEAT'] ?? 5));
}
