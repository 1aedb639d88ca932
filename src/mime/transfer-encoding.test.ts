import { readdirSync, readFileSync, statSync } from 'node:fs';
import libqp from 'libqp';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/helpers/random.ts';
import { sharedPath } from '../../test/helpers/shared.ts';
import { decodeQuotedPrintableInto } from './transfer-encoding.ts';

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

  it('on every file of the mail corpus, whole', () => {
    const files = walk(sharedPath('corpus/mail'));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const text = readFileSync(file).toString('latin1');
      expect(ours(text).equals(Buffer.from(libqp.decode(text))), file).toBe(true);
    }
  });
});
