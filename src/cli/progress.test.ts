/** The batch progress line: drawn in place on a terminal only, and never mixed into other stderr lines. */
import { describe, expect, it } from 'vitest';
import type { CliIo } from './io.ts';
import { createProgress } from './progress.ts';

function fakeIo(isTTY: boolean): { io: CliIo; text: () => string } {
  let out = '';
  const stderr = { isTTY, columns: 40, write: (s: string) => ((out += s), true) };
  return { io: { stdin: process.stdin, stdout: process.stdout, stderr: stderr as unknown as NodeJS.WritableStream }, text: () => out };
}

describe('createProgress', () => {
  it('on a terminal: redraws in place, clears before a report line, redraws after it, and clears at the end', () => {
    const { io, text } = fakeIo(true);
    const p = createProgress(io, true);
    p.update('[1/3]');
    p.update('[2/3]');
    p.line('absolutize: error [X] bad');
    p.done();
    expect(text()).toBe('[1/3]\r\x1b[K[2/3]\r\x1b[Kabsolutize: error [X] bad\n[2/3]\r\x1b[K');
  });

  it('truncates to the terminal width', () => {
    const { io, text } = fakeIo(true);
    createProgress(io, true).update('x'.repeat(100));
    expect(text()).toBe(`${'x'.repeat(38)}…`);
  });

  it('not on a terminal (or not a batch): only the report lines', () => {
    for (const [tty, enabled] of [[false, true], [true, false]] as const) {
      const { io, text } = fakeIo(tty);
      const p = createProgress(io, enabled);
      p.update('[1/3]');
      p.line('absolutize: warning [Y] w');
      p.done();
      expect(text()).toBe('absolutize: warning [Y] w\n');
    }
  });
});
