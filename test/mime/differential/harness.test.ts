/**
 * The differential harness's own test (it passes against any MIME layer, so it runs in `npm test`): the oracle
 * numbers sections as our parts report does, the expected base follows the header chain, probes are found where
 * they are URLs, and every check fails when a fault is planted in the stream under test.
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { absolutizeMime, createMimeRewriter } from '../../../src/mime/stream.ts';
import type { MimeRewriteOptions } from '../../../src/mime/rewriter.ts';
import { readFileSync } from 'node:fs';
import { sharedPath } from '../../helpers/shared.ts';
import { checkCases, expectedBases, headerBaseValue, probes, runOracle } from './harness.ts';
import type { CaseInput, CheckName, RewriterFactory } from './harness.ts';
import { generateCases } from './mutator.ts';

describe('differential harness', () => {
  it('header values: comments and ASCII whitespace go, U+00A0 stays, cid:/mid: are no base', () => {
    expect(headerBaseValue('(page) http://h/a\n b/ (saved)')).toBe('http://h/ab/');
    expect(headerBaseValue('http://h/a\u00a0b/')).toBe('http://h/a\u00a0b/');
    expect(headerBaseValue('"http://h/q/"')).toBe('http://h/q/');
    expect(headerBaseValue('cid:x@y')).toBeNull();
    expect(headerBaseValue('  ')).toBeNull();
    expect(headerBaseValue(undefined)).toBeNull();
  });

  it('probes: attributes and style url() in HTML, every url() in CSS, never text', () => {
    const html = '<a href="probe/1">x</a> url(probe-2.png) <p style="background: url(probe-3.png)"><style>b{background:url("probe-4.png")}</style><img src="other.png">';
    expect(probes(html, 'html')).toEqual(['probe/1', 'probe-3.png', 'probe-4.png']);
    expect(probes('a{background:url( probe-5.png )} <a href="probe/6">', 'css')).toEqual(['probe-5.png']);
  });

  it("the oracle numbers sections as our parts report does (RFC 3501 §6.4.5), nested messages included", async () => {
    const m =
      'Content-Type: multipart/mixed; boundary=a\n\n--a\nContent-Type: text/html\n\nx\n--a\nContent-Type: message/rfc822\n\nSubject: in\nContent-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/css\n\ny\n--b\nContent-Type: text/html\n\nz\n--b--\n' +
      '--a\nContent-Type: message/rfc822\n\nSubject: leaf\nContent-Type: text/html\n\nw\n--a--\n';
    const [py] = runOracle([Buffer.from(m)]);
    const leaves = py!.entities!.filter((e) => e.kind !== undefined).map((e) => `${e.path} ${e.type}`);
    expect(leaves).toEqual(['1 text/html', '2.1 text/css', '2.2 text/html', '3.1 text/html']);
    const ours = (await absolutizeMime(Buffer.from(m))).parts.filter((p) => !/^(multipart|message)\//.test(p.contentType)).map((p) => `${p.path} ${p.contentType}`);
    expect(ours).toEqual(leaves);
  });

  it('the expected base follows the Content-Base / Content-Location chain (RFC 2557 9.3, RFC 2110 4.2)', () => {
    const [a, b] = runOracle([readFileSync(sharedPath('conformance/rfc2557/rfc2557-9.3-outer-content-location.eml')), readFileSync(sharedPath('conformance/rfc2557/rfc2110-4.2-content-base.eml'))]);
    const at = (r: typeof a, path: string, retrieval: string | null): string | null => expectedBases(r!.entities!, retrieval)[r!.entities!.findIndex((e) => e.path === path)]!;
    expect(at(a, '1', null)).toBe('http://www.ietf.cnri.reston.va.us/');
    expect(at(a, '3', null)).toBe('http://www.ietf.cnri.reston.va.us/images/ietflogo2.gif');
    expect(at(b, '2', null)).toBe('http://www.ietf.cnri.reston.va.us/images/');
    expect(at(b, '1', 'http://r.example/')).toBe('http://www.ietf.cnir.reston.va.us/images/foo1.bar1');
  });

  describe('every check fails when a fault is planted', () => {
    const all = generateCases(1);
    const pick = (id: string): CaseInput => all.find((c) => c.id === id)!;
    const checksOf = async (c: CaseInput, factory: RewriterFactory, watchdogMs?: number): Promise<Set<CheckName>> => {
      const [o] = await checkCases([c], { randomRuns: 1, bytewiseMax: 0, seed: 1, deliberate: [], factory, ...(watchdogMs === undefined ? {} : { watchdogMs }) });
      return new Set(o!.failures.map((f) => f.check));
    };
    /** The real rewriter, its output bytes changed by `edit` once it has ended. */
    const editing =
      (edit: (out: Buffer, chunks: number) => Buffer, drop?: 'warnings'): RewriterFactory =>
      (options: MimeRewriteOptions) => {
        const inner = createMimeRewriter(drop === 'warnings' ? { ...options, onWarning: undefined } : options);
        const out: Buffer[] = [];
        let chunks = 0;
        inner.on('data', (c: Buffer) => out.push(c));
        return new Transform({
          transform(chunk: Buffer, _e, cb: TransformCallback) {
            chunks++;
            inner.write(chunk, () => cb());
          },
          flush(cb: TransformCallback) {
            inner.end();
            inner.on('end', () => cb(null, edit(Buffer.concat(out), chunks)));
          },
        });
      };
    const baseline = pick('baseline/mixed-crlf');

    it('the real rewriter passes the baseline (so what follows is the fault, not the case)', async () => {
      expect(await checksOf(baseline, createMimeRewriter)).toEqual(new Set());
    });
    it('a: one byte more', async () => {
      expect(await checksOf(baseline, editing((o) => Buffer.concat([o, Buffer.from(' ')])))).toContain('a');
    });
    it('b and d: nothing rewritten, nothing reported', async () => {
      const checks = await checksOf(baseline, () => new Transform({ transform: (c: Buffer, _e, cb: TransformCallback) => cb(null, c) }));
      expect([...checks].sort()).toEqual(['b', 'd']);
    });
    it('c: a probe in text/plain rewritten too', async () => {
      expect(await checksOf(baseline, editing((o) => Buffer.from(o.toString('latin1').replace('quotes HTML: <a href="probe/', 'quotes HTML: <a href="http://x/probe/'), 'latin1')))).toContain('c');
    });
    it('stream: output that depends on the chunking', async () => {
      expect(await checksOf(baseline, editing((o, chunks) => (chunks > 1 ? o.subarray(1) : o)))).toContain('stream');
    });
    it('warn: a defect reported by no warning', async () => {
      expect(await checksOf(pick('missing-close/mixed'), editing((o) => o, 'warnings'))).toContain('warn');
    });
    it('crash and hang', async () => {
      const crash = await checksOf(baseline, () => new Transform({ transform: (_c, _e, cb: TransformCallback) => cb(new Error('planted')) }));
      expect(crash).toContain('crash');
      const hang = await checksOf(baseline, () => new Transform({ transform: () => undefined }), 200);
      expect(hang).toContain('hang');
    });
  });
});
