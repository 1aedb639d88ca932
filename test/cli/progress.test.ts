/**
 * Issue 21 item 4: progress and summaries as wget, curl and rsync show them, run as a user runs the CLI with
 * standard error on a terminal (a pseudo-terminal from python3's pty module) and not.
 *
 * A run must last over 2 s to show a progress line. No timing is asserted: the test makes the run long by not
 * reading its standard output for 2.5 s (the CLI waits on the full pipe), then reads everything.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.ts';
import { removeScratch, scratchDir } from '../batch/helpers.ts';

afterAll(removeScratch);
const scratch = (): string => scratchDir('absolutize-progress-');

/**
 * Runs the CLI with standard error on a pseudo-terminal of 200 columns and standard output on a pipe that is read
 * only after `stallSeconds`; returns what the terminal got (bytes as latin1) and the exit status.
 */
const PTY_RUNNER = String.raw`
import fcntl, json, os, pty, struct, subprocess, sys, termios, threading, time
args, cwd, stall = json.loads(sys.argv[1]), sys.argv[2], float(sys.argv[3])
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 50, 200, 0, 0))
attrs = termios.tcgetattr(slave)
attrs[1] &= ~termios.OPOST  # no LF -> CR LF: the bytes as the program wrote them
termios.tcsetattr(slave, termios.TCSANOW, attrs)
p = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
os.close(slave)
got = bytearray()
def read_terminal():
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            return
        if not chunk:
            return
        got.extend(chunk)
t = threading.Thread(target=read_terminal)
t.start()
time.sleep(stall)
out = p.stdout.read()
status = p.wait()
t.join()
print(json.dumps({'status': status, 'stderr': got.decode('latin1'), 'stdout': len(out)}))
`;

function onTerminal(args: readonly string[], cwd: string, stallSeconds: number): { status: number; stderr: string; stdout: number } {
  const r = spawnSync('python3', ['-c', PTY_RUNNER, JSON.stringify([process.execPath, CLI, ...args]), cwd, String(stallSeconds)], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`pty runner: ${r.stderr}`);
  return JSON.parse(r.stdout) as { status: number; stderr: string; stdout: number };
}

const ERASE = '\r\x1b[K';

/** What stays on the screen: each progress draw is erased by the ERASE that follows it. */
function screen(terminal: string): string {
  let out = '';
  let line = '';
  for (let i = 0; i < terminal.length; i++) {
    if (terminal.startsWith(ERASE, i)) {
      line = '';
      i += ERASE.length - 1;
    } else if (terminal[i] === '\n') {
      out += `${line}\n`;
      line = '';
    } else line += terminal[i];
  }
  return out + line;
}

function bigHtml(path: string, mib: number): void {
  const piece = '<p><a href="page.html">a link</a> and <img src="i.png"> some text to make it longer</p>\n';
  writeFileSync(path, piece.repeat(Math.ceil((mib * 1048576) / piece.length)));
}

describe('progress on a terminal', () => {
  it('one HTML file over 2 s: a line with bytes of the total, rate and ETA, erased at the end; no summary', () => {
    const root = scratch();
    bigHtml(join(root, 'big.html'), 8);
    const r = onTerminal(['big.html', '-u', 'https://example.com/'], root, 2.5);
    expect(r.status).toBe(0);
    expect(r.stdout).toBeGreaterThan(8 * 1048576);
    const draws = r.stderr.split(ERASE).filter((d) => d !== '');
    expect(draws.length).toBeGreaterThan(0);
    expect(draws[0]).toMatch(/^absolutize: \d+\.\d MB of 8\.\d MB \(\d+%\), \d+\.\d MB\/s, ETA \d+:\d\d$/);
    // Every draw is erased: the screen is left as it was.
    expect(r.stderr.endsWith(ERASE)).toBe(true);
    expect(screen(r.stderr)).toBe('');
  });

  it('an mbox: messages counted in the line; a summary line stays', () => {
    const root = scratch();
    let text = '';
    for (let i = 0; i < 4000; i++) text += `From a@example.com Mon Jan  1 00:00:00 2024\nSubject: m${i}\nContent-Type: text/html\n\n<a href="x${i}.html">x</a>${'<p>filler text</p>'.repeat(60)}\n\n`;
    writeFileSync(join(root, 'a.mbox'), text);
    const r = onTerminal(['a.mbox', '-b', 'https://example.com/'], root, 2.5);
    expect(r.status).toBe(0);
    const draws = r.stderr.split(/\r\x1b\[K|\n/).filter((d) => d.startsWith('absolutize: ') && /MB\/s/.test(d));
    expect(draws.length).toBeGreaterThan(0);
    expect(draws[0]).toMatch(/^absolutize: [\d,]+ messages, \d+\.\d MB of \d+\.\d MB \(\d+%\), \d+\.\d MB\/s, ETA \d+:\d\d$/);
    expect(screen(r.stderr)).toMatch(/^absolutize: 4,000 messages, 4,000 references rewritten, 0 warnings in \d+\.\d s\n$/);
  });

  it('a WARC: records counted, bytes of the file size; a summary line stays', () => {
    const root = scratch();
    const records: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const http = `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href="p${i}.html">p</a>${'<p>filler text</p>'.repeat(100)}`;
      records.push(`WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.com/d/${i}.html\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${Buffer.byteLength(http)}\r\n\r\n${http}\r\n\r\n`);
    }
    writeFileSync(join(root, 'c.warc'), records.join(''));
    // The WARC on standard output (read late): the run waits on it.
    const r = onTerminal(['c.warc'], root, 2.5);
    expect(r.status).toBe(0);
    expect(r.stdout).toBeGreaterThan(3000 * 1800);
    const draws = r.stderr.split(/\r\x1b\[K|\n/).filter((d) => /MB\/s/.test(d));
    expect(draws.length).toBeGreaterThan(0);
    expect(draws[0]).toMatch(/^absolutize: [\d,]+ records, \d+\.\d MB of \d+\.\d MB \(\d+%\), \d+\.\d MB\/s, ETA \d+:\d\d$/);
    expect(screen(r.stderr)).toMatch(/^absolutize: c\.warc: 3000 records, 3000 rewritten, /);
  });

  it('--quiet: nothing on the terminal', () => {
    const root = scratch();
    bigHtml(join(root, 'big.html'), 4);
    const r = onTerminal(['big.html', '-u', 'https://example.com/', '-q'], root, 2.5);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('a short run shows no progress line', () => {
    const root = scratch();
    writeFileSync(join(root, 'small.html'), '<a href="x">x</a>');
    const r = onTerminal(['small.html', '-u', 'https://example.com/'], root, 0);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('standard error not a terminal', () => {
  it('no progress line, whatever the length of the run; the summary line only', () => {
    const root = scratch();
    bigHtml(join(root, 'big.html'), 4);
    const html = runCli([join(root, 'big.html'), '-u', 'https://example.com/', '-o', join(root, 'o.html')]);
    expect(html.status).toBe(0);
    expect(html.stderr).toBe('');
    writeFileSync(join(root, 'two.mbox'), 'From a Mon Jan  1 00:00:00 2024\nSubject: a\n\nx\n\nFrom b Mon Jan  1 00:00:00 2024\nSubject: b\n\ny\n');
    const mbox = runCli([join(root, 'two.mbox'), '-o', join(root, 'o.mbox')]);
    expect(mbox.stderr).toMatch(/^absolutize: 2 messages, 0 references rewritten, 0 warnings in \d+\.\d s\n$/);
  });
});

describe('thousands separators without ICU', () => {
  it('writes integers as toLocaleString("en-US") does', async () => {
    const { thousands } = await import('../../src/cli/reporter.ts');
    for (const n of [0, 7, 999, 1000, 1204, 99_999, 100_000, 1_234_567, -1234, 2 ** 53 - 1]) expect(thousands(n)).toBe(n.toLocaleString('en-US'));
  });
});
