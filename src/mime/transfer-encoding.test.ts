import { readdirSync, readFileSync, statSync } from 'node:fs';
import libqp from 'libqp';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { sharedPath } from '../../test/helpers/shared.ts';
import { decodeQuotedPrintableInto, decodeQuotedPrintableLines } from './transfer-encoding.ts';

/** Our decoding of `text`, written after some bytes already in the buffer (they must stay as they were). */
function ours(text: string): Buffer {
  const out = Buffer.alloc(text.length + 3, 0x2a);
  const end = decodeQuotedPrintableInto(`xy${text}z`, 2, text.length + 2, out, 3);
  expect(out.subarray(0, 3).toString('latin1')).toBe('***');
  return out.subarray(3, end);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => (statSync(`${dir}/${f}`).isDirectory() ? walk(`${dir}/${f}`) : [`${dir}/${f}`]));
}

describe('quoted-printable decoding: the same bytes as libqp.decode', () => {
  it('on the cases where its passes interact', () => {
    const cases = ['', '=', '==', '=\n', '=\r\n', '=\r', '= \n', '=\t \r\n', 'a \t', 'a \r\nb', 'a \rb', '==\n41', '=4=\n1', '=4=\r\n1', '= 41',
      '=41=3d=3D=g1=4', 'a=\nb=\r\nc= \n', 'x  =  \n', ' ', '\t\n', '=\n=\n41', '=0A=0d', 'caf=C3=A9 =E9\r\n', '\xe9\xff=FF'];
    for (const text of cases) expect(ours(text), JSON.stringify(text)).toEqual(Buffer.from(libqp.decode(text)));
  });

  it('on random text from the units that matter', () => {
    const units = ['=', '=', '=', '\r', '\n', '\r\n', ' ', '\t', 'A', 'f', '3', '0', 'g', 'Z', 'x', '\xe9', '\xff'];
    const random = seededRandom(1010);
    for (let n = 0; n < 5000; n++) {
      let text = '';
      const length = Math.floor(random() * 40);
      for (let i = 0; i < length; i++) text += units[Math.floor(random() * units.length)];
      expect(ours(text), JSON.stringify(text)).toEqual(Buffer.from(libqp.decode(text)));
    }
  });

  it('line by line in one buffer (each line decoded in place, behind the lines still to come)', () => {
    const random = seededRandom(1011);
    const units = ['=', '=\r\n', '=\n', ' \r\n', '\t\n', '\r', 'A', 'f', '3', 'g', '\xe9', '=3D', '=C3=A9'];
    const texts = Array.from({ length: 500 }, () => Array.from({ length: Math.floor(random() * 60) }, () => units[Math.floor(random() * units.length)]).join(''));
    for (const text of [...texts, ...walk(sharedPath('corpus/mail')).map((f) => readFileSync(f).toString('latin1'))]) {
      const { lines, decoded, all } = decodeQuotedPrintableLines(text);
      expect(lines.join('')).toBe(text);
      const expected = lines.map((line) => Buffer.from(libqp.decode(line)));
      expect(decoded.length).toBe(expected.length);
      for (const [k, line] of expected.entries()) expect(decoded[k]!.equals(line), JSON.stringify(lines[k])).toBe(true);
      expect(all.equals(Buffer.concat(expected))).toBe(true);
    }
  });

  it('on every file of the mail corpus, whole', () => {
    const files = walk(sharedPath('corpus/mail'));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const text = readFileSync(file).toString('latin1');
      expect(ours(text).equals(Buffer.from(libqp.decode(text))), file).toBe(true);
    }
  });
});
