/**
 * Differential test of the MIME layer against Python's `email` on real mail (issue 10, "Done when"):
 * ../shared/corpus/mail (messages and MHTML by other software) and the RFC 2557 / RFC 2110 examples, each checked
 * the four ways of issue 10 (see harness.ts), whole, byte by byte (small messages) and in random chunks; RFC 2557
 * §9.6 as printed; every corpus mbox read as many messages as its producer's tests say; and mbox separators,
 * `>From ` escapes and mboxcl2 Content-Length.
 *
 *   npm exec -- vitest run test/mime/differential   (part of npm test)
 *   MIME_DIFF_SWEEP=1 …    more random chunkings, byte by byte up to 64 KiB (minutes)
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createMboxRewriter } from '../../../src/mime/stream.ts';
import type { MboxRewriteOptions } from '../../../src/mime/stream.ts';
import { CHUNK_SEED, randomChunks, seededRandom } from '../../helpers/chunks.ts';
import { sharedPath } from '../../helpers/shared.ts';
import { COMPAT32, DELIBERATE } from './deliberate.ts';
import { checkCases, describeGroups, firstDifference, runOracle, runOurs, WATCHDOG_MS } from './harness.ts';
import type { CaseOutcome } from './harness.ts';
import { FAMILY, ofFamily } from './mutator.ts';

const SWEEP = process.env['MIME_DIFF_SWEEP'] === '1';

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => (statSync(`${dir}/${f}`).isDirectory() ? walk(`${dir}/${f}`) : [`${dir}/${f}`]))
    .filter((f) => !/(CENSUS\.json|SHA256SUMS|SOURCES\.md)$/.test(f) && !/\/\.[^/]*$/.test(f)); // not .gitattributes
}

const MAIL = sharedPath('corpus/mail');
const RFC = sharedPath('conformance/rfc2557');
const corpus = [
  ...walk(MAIL).map((file) => ({ group: `corpus/${file.slice(MAIL.length + 1).split('/')[0]!}`, id: file.slice(MAIL.length + 1), file })),
  ...walk(RFC)
    .filter((f) => f.endsWith('.eml'))
    .map((file) => ({ group: 'rfc2557-examples', id: file.slice(RFC.length + 1), file })),
];
const groups = [...new Set(corpus.map((c) => c.group))];
const outcomes = new Map<string, CaseOutcome[]>();
const results = checkCases(
  corpus.map((c) => ({ id: c.id, input: readFileSync(c.file), warn: null })),
  { randomRuns: SWEEP ? 8 : 2, bytewiseMax: SWEEP ? 1 << 16 : 2048, seed: CHUNK_SEED, deliberate: DELIBERATE, compat32: COMPAT32 },
).then((all) => {
  all.forEach((o, k) => {
    const group = corpus[k]!.group;
    outcomes.set(group, [...(outcomes.get(group) ?? []), o]);
  });
});

describeGroups(`MIME differential, corpus and RFC examples (${corpus.length} messages, CHUNK_SEED=${CHUNK_SEED})`, 'messages', groups, results, outcomes);

describe('RFC 2557 §9.6 as printed (no empty line after the nested multiparts\' headings)', () => {
  const input = readFileSync(sharedPath('conformance/rfc2557/rfc2557-9.6-nested-verbatim.eml'));

  it("Python reads the nested headings as its authors meant, with a MissingHeaderBodySeparatorDefect (the oracle's view)", () => {
    const [py] = runOracle([input]);
    const entities = py!.entities!;
    expect(entities.map((e) => `${e.path} ${e.type}`)).toEqual(['0 multipart/related', '1 text/html', '2 image/gif', '3 multipart/related', '3.1 text/html', '3.2 image/gif', '4 multipart/related', '4.1 text/html', '4.2 image/gif']);
    expect(entities.filter((e) => e.defects.includes('MissingHeaderBodySeparatorDefect')).map((e) => e.path)).toEqual(['3', '4']);
  });

  it('the nested HTML parts get their intended bases, whole and in chunks, with a warning', async () => {
    const random = seededRandom(CHUNK_SEED);
    const chunkings: Array<[string, Buffer[]]> = [['whole', [input]], ['byte by byte', Array.from(input, (_b, k) => input.subarray(k, k + 1))], ['random chunks', randomChunks(input, random, 97)]];
    const outputs: Buffer[] = [];
    for (const [how, chunks] of chunkings) {
      const run = await runOurs(chunks, {});
      const resolved = run.references.filter((r) => r.part !== '1').map((r) => [r.part, r.raw, r.resolved]);
      // §9.6: "will be resolved with the image in the surrounding multipart/related above" / "inside the current
      // nested multipart/related": each nested HTML part is based at its multipart's Content-Location.
      expect(resolved, how).toEqual([
        ['3.1', 'images/ietflogo.gif', 'http://www.ietf.cnri.reston.va.us/images/ietflogo.gif'],
        ['3.1', 'images/ietflogo2e.gif"', 'http://www.ietf.cnri.reston.va.us/images/ietflogo2e.gif%22'],
        ['4.1', 'images/ietflogo2d.gif"', 'http://www.ietf.cnri.reston.va.us/images/ietflogo2d.gif%22'],
        ['4.1', 'images/ietflogo2e.gif"', 'http://www.ietf.cnri.reston.va.us/images/ietflogo2e.gif%22'],
      ]);
      expect(run.parts.filter((p) => p.contentType === 'text/html').map((p) => [p.path, p.base.url]), how).toEqual([
        ['1', null],
        ['3.1', 'http://www.ietf.cnri.reston.va.us/more-info'],
        ['4.1', 'http://www.ietf.cnri.reston.va.us/even-more-info'],
      ]);
      // One warning for each of the two headings (Python records the defect on parts 3 and 4).
      expect(run.warnings.filter((w) => ofFamily(w.code, FAMILY.separator)).length, how).toBeGreaterThanOrEqual(2);
      outputs.push(run.output);
    }
    // Python reads the output as it read the input: same parts and headers, same images, part 1 (no base) as it
    // was, and the nested HTML parts with their references absolute.
    const [before, ...after] = runOracle([input, ...outputs]);
    for (const [k, view] of after.entries()) {
      const how = chunkings[k]![0];
      expect(view!.entities!.map((e) => [e.path, e.type, e.headers, e.sha256 ?? null]), how).toEqual(before!.entities!.map((e) => [e.path, e.type, e.headers, e.sha256 ?? null]));
      const text = (path: string): string => view!.entities!.find((e) => e.path === path)!.text!;
      expect(text('1'), how).toBe(before!.entities!.find((e) => e.path === '1')!.text);
      expect(text('3.1'), how).toContain('http://www.ietf.cnri.reston.va.us/images/ietflogo.gif');
      expect(text('4.1'), how).toContain('http://www.ietf.cnri.reston.va.us/images/ietflogo2d.gif');
    }
  });
});

/** Feeds an mbox through createMboxRewriter; returns the output and the number of messages it read. */
async function runMbox(chunks: readonly Buffer[], options: MboxRewriteOptions = {}): Promise<{ output: Buffer; messages: number; refs: Array<[number, string, string | null]> }> {
  const refs: Array<[number, string, string | null]> = [];
  const stream = createMboxRewriter({ ...options, onReference: (r, part, message) => refs.push([message, r.raw, r.resolved]) });
  const out: Buffer[] = [];
  let timer: NodeJS.Timeout | undefined;
  const work = (async (): Promise<void> => {
    for await (const c of Readable.from(chunks, { objectMode: false }).pipe(stream)) out.push(c as Buffer);
  })();
  try {
    await Promise.race([work, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`mbox: no end after ${WATCHDOG_MS} ms`)), WATCHDOG_MS)))]);
  } finally {
    clearTimeout(timer);
  }
  return { output: Buffer.concat(out), messages: stream.messages, refs };
}

describe('mbox: as many messages as the producers\' own tests say', () => {
  // MimeKit: content-length-summary.txt (29 "From -" blocks) and issue1189-summary.txt (4); TestUnmungedFromLines
  // expects 4 in unmunged.mbox.txt (it starts with a UTF-8 BOM; "From Russia with love" after an empty line is a
  // separator there); TestSimpleMbox walks simple.mbox.txt's 3. GMime: substring.mbox's expected output has 3.
  // Mailpile: tests.mbx, 9 messages (9 From_ lines with sender and date).
  const expected: Array<[string, number]> = [
    ['mimekit/content-length.mbox.txt', 29],
    ['mimekit/issue1189.mbox.txt', 4],
    ['mimekit/unmunged.mbox.txt', 4],
    ['mimekit/simple.mbox.txt', 3],
    ['gmime/substring.mbox', 3],
    ['mailpile/tests.mbx', 9],
  ];
  it.each(expected)('%s: %i messages, byte for byte, whole and in chunks', async (file, count) => {
    const input = readFileSync(sharedPath(`corpus/mbox/${file}`));
    for (const [how, chunks] of [['whole', [input]], ['random chunks', randomChunks(input, seededRandom(CHUNK_SEED), 997)]] as const) {
      const r = await runMbox(chunks);
      expect(r.output.equals(input), `${how}: ${firstDifference(input, r.output)}`).toBe(true);
      expect(r.messages, how).toBe(count);
    }
  });
});

describe('mbox separators, escapes and Content-Length', () => {
  const msg = (n: number, extra = '', body = ''): string => `From: s${n}@example.org\nSubject: ${n}\n${extra}Content-Type: text/html\n\n<a href="probe/${n}">${n}</a>\n${body}`;
  const from = (n: number): string => `From sender${n}@example.org Mon Nov 23 10:0${n}:00 2026\n`;
  const cases: Array<{ name: string; mbox: string; messages: number; note: string; rewritten?: string }> = [
    { name: 'blank-line-separated', mbox: `${from(1)}${msg(1)}\n${from(2)}${msg(2)}\n${from(3)}${msg(3)}`, messages: 3, note: 'mboxo, an empty line before each From_ line' },
    { name: 'no-blank-before-from', mbox: `${from(1)}${msg(1)}${from(2)}${msg(2)}${from(3)}${msg(3)}`, messages: 3, note: 'From_ lines (sender and ctime date) not preceded by an empty line' },
    { name: 'crlf', mbox: `${from(1)}${msg(1)}\n${from(2)}${msg(2)}`.replace(/\n/g, '\r\n'), messages: 2, note: 'CRLF line endings' },
    { name: 'escaped-from', mbox: `${from(1)}${msg(1, '', '>From sender9@example.org Mon Nov 23 10:09:00 2026\n>>From nested\n\n')}${from(2)}${msg(2)}`, messages: 2, note: '>From lines (mboxrd escapes) are body text' },
    { name: 'from-text-in-body', mbox: `${from(1)}${msg(1, '', 'From here on, a line that is no From_ line\n\n')}${from(2)}${msg(2)}`, messages: 2, note: 'a body line beginning "From " with no sender and date does not split (issue 10: is_from)' },
    {
      name: 'mboxcl2-content-length',
      mbox: (() => {
        const body = `<a href="probe/1">1</a>\n\n${from(8)}not a message: Content-Length says so\n`;
        return `${from(1)}From: a@example.org\nContent-Type: text/html\nContent-Length: ${Buffer.byteLength(body)}\n\n${body}${from(2)}${msg(2)}`;
      })(),
      // The body grew: its Content-Length says so (issue 20), or the From_ line inside it would split the output.
      rewritten: (() => {
        const body = `<a href="http://mbox.example/a/probe/1">1</a>\n\n${from(8)}not a message: Content-Length says so\n`;
        return `${from(1)}From: a@example.org\nContent-Type: text/html\nContent-Length: ${Buffer.byteLength(body)}\n\n${body}${from(2)}${msg(2).replace('probe/2', 'http://mbox.example/a/probe/2')}`;
      })(),
      messages: 2,
      note: 'mboxcl2: Content-Length lands exactly on the next From_ line, so the From_ line inside the body does not split',
    },
    {
      name: 'mboxcl2-wrong-length',
      mbox: (() => {
        const body = `<a href="probe/1">1</a>\n\n${from(8)}Content-Type: text/html\n\n<a href="probe/8">8</a>\n\n`;
        return `${from(1)}From: a@example.org\nContent-Type: text/html\nContent-Length: 7\n\n${body}${from(2)}${msg(2)}`;
      })(),
      messages: 3,
      note: 'a Content-Length that does not land on a From_ line is not honoured: the From_ line after the empty line splits',
    },
  ];
  it.each(cases)('$name: $messages messages ($note)', async ({ mbox, messages, rewritten }) => {
    const input = Buffer.from(mbox, 'utf8');
    const random = seededRandom(CHUNK_SEED);
    const chunkings: Array<[string, Buffer[]]> = [['whole', [input]], ['byte by byte', Array.from(input, (_b, k) => input.subarray(k, k + 1))], ['random chunks', randomChunks(input, random, 13)]];
    for (const [how, chunks] of chunkings) {
      const plain = await runMbox(chunks);
      expect(plain.output.equals(input), `${how}: ${firstDifference(input, plain.output)}`).toBe(true);
      expect(plain.messages, how).toBe(messages);
      const based = await runMbox(chunks, { fallback: 'http://mbox.example/a/' });
      // Every probe of every message is rewritten, each in its own message, and nothing else changes.
      const probes = [...mbox.matchAll(/href="(probe\/\d+)"/g)].map((m) => m[1]!);
      expect(based.refs.map((r) => r[2]), how).toEqual(probes.map((p) => `http://mbox.example/a/${p}`));
      expect(based.output.toString('utf8'), how).toBe(rewritten ?? mbox.replace(/href="(probe\/\d+)"/g, 'href="http://mbox.example/a/$1"'));
    }
  });
});
