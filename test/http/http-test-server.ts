/**
 * A programmable loopback HTTP(S) server for the retrieval tests: 127.0.0.1, port 0, one handler per path.
 * Unlike test/helpers/server.ts it can stall, stream chunks, compress and redirect however a test needs.
 */
import type { FetchError } from '../../src/errors.ts';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, PROJECT_DIR } from '../helpers/cli.ts';
import type { CliResult } from '../helpers/cli.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse, server: TestServer) => void;

export interface TestServer {
  /** `http://127.0.0.1:<port>` (or https). */
  readonly origin: string;
  readonly routes: Map<string, Handler>;
  /** Every request: path and headers, in arrival order. */
  readonly requests: Array<{ path: string; headers: IncomingMessage['headers'] }>;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, port 0; resolves with the port given. */
async function listenOnLoopback(server: Server | NetServer): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

async function listen(server: Server, scheme: 'http' | 'https', routes: Map<string, Handler>, requests: TestServer['requests']): Promise<TestServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listenOnLoopback(server);
  const self: TestServer = {
    origin: `${scheme}://127.0.0.1:${port}`,
    routes,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers });
    const handler = routes.get(path.split('?')[0]!) ?? routes.get(path);
    if (handler === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<p>not found: <a href="/">home</a></p>');
      return;
    }
    handler(req, res, self);
  });
  return self;
}

export async function startTestServer(): Promise<TestServer> {
  const routes = new Map<string, Handler>();
  const requests: TestServer['requests'] = [];
  const server = createServer();
  server.keepAliveTimeout = 1;
  return listen(server, 'http', routes, requests);
}

/** An https server with a self-signed certificate made now (openssl): clients that verify must refuse it. */
export async function startSelfSignedHttpsServer(): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'abs-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) });
    const routes = new Map<string, Handler>();
    const requests: TestServer['requests'] = [];
    return await listen(server, 'https', routes, requests);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An HTML response. */
export function html(body: string | Buffer, contentType = 'text/html; charset=utf-8', extra: Record<string, string> = {}): Handler {
  return (_req, res) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length), ...extra });
    res.end(bytes);
  };
}

export function redirect(status: number, location: string, body = ''): Handler {
  return (_req, res) => {
    res.writeHead(status, { location, 'content-type': 'text/html', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };
}

/** Runs the built CLI without blocking this process (the test servers live in it). */
export function runCliAsync(args: readonly string[], options: { input?: string } = {}): Promise<CliResult & { stdoutBytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: PROJECT_DIR });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (status) => {
      const stdoutBytes = Buffer.concat(out);
      resolve({ status, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes });
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * A raw TCP server on 127.0.0.1 for responses no HTTP server library would send (status 000, escape sequences
 * in the reason phrase, 100 Continue, bodies that never end). `respond` gets each request's path and the
 * socket, and may answer several requests on one connection.
 */
export interface RawServer {
  readonly origin: string;
  /** Connections accepted, and requests read (path per request), in order. */
  readonly connections: number;
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startRawServer(respond: (path: string, socket: Socket) => void): Promise<RawServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = '';
    socket.on('data', (d: Buffer) => {
      pending += d.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.slice(0, end);
        pending = pending.slice(end + 4);
        const path = head.split(' ')[1] ?? '/';
        requests.push(path);
        respond(path, socket);
      }
    });
  });
  const port = await listenOnLoopback(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The error a promise rejects with (a test of a failure), or a test failure if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (err) {
    return err as FetchError;
  }
  throw new Error('expected a failure');
}
