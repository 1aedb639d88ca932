/** `100 Continue` before the real response is dropped before undici's parser sees it, however it is split. */
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CHUNK_SEED, randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { skipContinue, skipInterimContinue } from './interim-responses.ts';

const FINAL = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi';

describe('skipContinue', () => {
  it.each([
    ['HTTP/1.1 100 Continue\r\n\r\n' + FINAL, FINAL],
    ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\nX-A: b\r\n\r\n' + FINAL, FINAL],
    ['HTTP/1.0 100\r\n\r\n' + FINAL, FINAL],
    ['HTTP/1.1 100 Continue\n\n' + FINAL, FINAL],
    [FINAL, FINAL],
    ['HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n' + FINAL, 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n' + FINAL], // undici reads 103 itself
    ['HTTP/1.1 1000 x\r\n\r\n', 'HTTP/1.1 1000 x\r\n\r\n'],
    ['HTTP/1.1 000 x\r\n\r\n', 'HTTP/1.1 000 x\r\n\r\n'],
  ])('%j → %j', (input, expected) => {
    const r = skipContinue(Buffer.from(input, 'latin1'));
    expect(r.held).toBeNull();
    expect(r.rest?.toString('latin1')).toBe(expected);
  });

  it('holds what may still become a 100 response', () => {
    expect(skipContinue(Buffer.from('HTTP/1.1 10')).held?.toString()).toBe('HTTP/1.1 10');
    expect(skipContinue(Buffer.from('HTTP/1.1 100 Continue\r\n')).held?.toString()).toBe('HTTP/1.1 100 Continue\r\n');
    expect(skipContinue(Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'))).toEqual({ rest: null, held: null });
    expect(skipContinue(Buffer.from('HTTP/1.1 2')).rest?.toString()).toBe('HTTP/1.1 2');
    expect(skipContinue(Buffer.from('<html>')).rest?.toString()).toBe('<html>');
  });
});

/** A stand-in socket: what is pushed into it is what undici would read; what is written goes nowhere. */
function fakeSocket(): Socket & Duplex {
  return new Duplex({ read() {}, write: (_c, _e, cb) => cb() }) as unknown as Socket & Duplex;
}

async function received(socket: Duplex): Promise<string> {
  const out: Buffer[] = [];
  for await (const c of socket) out.push(c as Buffer);
  return Buffer.concat(out).toString('latin1');
}

describe('skipInterimContinue on a connection', () => {
  const wire = `HTTP/1.1 100 Continue\r\n\r\n${FINAL}`;
  it.each([1, 2, 3, 7, 1000])('chunks of %i bytes', async (size) => {
    const socket = skipInterimContinue(fakeSocket()) as Socket & Duplex;
    socket.write('GET / HTTP/1.1\r\n\r\n');
    for (let i = 0; i < wire.length; i += size) socket.push(Buffer.from(wire.slice(i, i + size), 'latin1'));
    socket.push(null);
    expect(await received(socket)).toBe(FINAL);
  });

  it(`random chunks (CHUNK_SEED=${CHUNK_SEED}); a second response on the same connection after the next request`, async () => {
    const random = seededRandom(CHUNK_SEED);
    for (let run = 0; run < 20; run++) {
      const chunks = randomChunks(Buffer.from(wire, 'latin1'), random, 8);
      const socket = skipInterimContinue(fakeSocket()) as Socket & Duplex;
      for (const c of chunks) socket.push(c);
      socket.write('GET /next HTTP/1.1\r\n\r\n');
      for (const c of chunks) socket.push(c);
      socket.push(null);
      expect(await received(socket)).toBe(`${FINAL}${FINAL}`);
    }
  });

  it('a 100 inside a body is data', async () => {
    const socket = skipInterimContinue(fakeSocket()) as Socket & Duplex;
    const body = 'HTTP/1.1 200 OK\r\nContent-Length: 25\r\n\r\n';
    socket.push(Buffer.from(body));
    socket.push(Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'));
    socket.push(null);
    expect(await received(socket)).toBe(`${body}HTTP/1.1 100 Continue\r\n\r\n`);
  });
});
