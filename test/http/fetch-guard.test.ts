/**
 * Issue 11: no uncaught exception reaches the user from the URL path. A fault nobody foresaw (here: the
 * rewriter factory throwing a TypeError) is one line with a code, and the other URLs of a batch still run.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/run.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { html, startTestServer } from './http-test-server.ts';
import type { TestServer } from './http-test-server.ts';

vi.mock('../../src/http/response-rewriter.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/http/response-rewriter.ts')>();
  return {
    ...original,
    createResponseRewriter: (document: { url: string }, options: unknown) => {
      if (document.url.endsWith('/bug')) throw new TypeError('Cannot read properties of undefined (reading \'x\')');
      return original.createResponseRewriter(document as never, options as never);
    },
  };
});

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  server.route('/bug', html('<a href="x">'));
  server.route('/fine', html('<a href="x">'));
});
afterAll(() => server.close());

function capture(): { io: CliIo; out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]): NodeJS.WritableStream => new Writable({ write: (c: Buffer, _e, cb) => (into.push(c.toString()), cb()) }) as NodeJS.WritableStream;
  return { io: { stdin: process.stdin, stdout: sink(out), stderr: sink(err) }, out: () => out.join(''), err: () => err.join('') };
}

describe('an unforeseen fault on the URL path', () => {
  it('is one line with a code; the batch goes on', async () => {
    const c = capture();
    const status = await run([`${server.origin}/bug`, `${server.origin}/fine`, '--links', '-'], c.io);
    expect(status).toBe(1);
    // The line, then the batch's summary line.
    expect(c.err()).toMatch(new RegExp(`^absolutize: error \\[ABS_ERR_INPUT\\] ${server.origin}/bug: Cannot read properties of undefined \\(reading 'x'\\)\\nabsolutize: 1 rewritten, 0 unchanged, 0 copied, 1 failed, 0 warnings in \\d+\\.\\d s\\n$`));
    const report = c.out().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(report.find((l) => l['error'] !== undefined)).toMatchObject({ document: `${server.origin}/bug`, error: 'ABS_ERR_INPUT' });
    expect(report.some((l) => l['document'] === `${server.origin}/fine` && l['resolved'] === `${server.origin}/x`)).toBe(true);
  });
});
