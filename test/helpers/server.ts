/**
 * Loopback HTTP server for the Chromium agreement harness.
 *
 * Serves a mutable map of files on 127.0.0.1 (port 0). Keys are URL paths exactly as they appear in the
 * request line (percent-encoded, starting with "/"). Two redirect routes sit in front of every file:
 *
 *   GET /r/<path>   → 302 Location: /<path>            (one hop)
 *   GET /rr/<path>  → 301 Location: /r/<path> → /<path> (two hops)
 *
 * Anything else answers 404 with an empty body. Every request path is recorded in `requests`.
 * Start a second instance to get a "different origin" (different port).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedFile {
  body: Buffer;
  /** Full Content-Type header value, e.g. `text/html; charset=windows-1252` or just `text/html`. */
  contentType: string;
}

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  /** The served files; may be changed while the server runs. */
  files: Map<string, ServedFile>;
  /** Request targets (path + query) in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startServer(files: Map<string, ServedFile> = new Map()): Promise<LoopbackServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const target = req.url ?? '/';
    requests.push(target);
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = queryAt === -1 ? '' : target.slice(queryAt);
    if (path.startsWith('/rr/')) {
      res.writeHead(301, { location: '/r/' + path.slice(4) + query, 'content-length': '0' });
      res.end();
      return;
    }
    if (path.startsWith('/r/')) {
      res.writeHead(302, { location: '/' + path.slice(3) + query, 'content-length': '0' });
      res.end();
      return;
    }
    const file = req.method === 'GET' || req.method === 'HEAD' ? files.get(path) : undefined;
    if (file === undefined) {
      res.writeHead(404, { 'content-length': '0', 'cache-control': 'no-store' });
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': file.contentType,
      'content-length': String(file.body.length),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  });
  // Keep-alive sockets would hold close() open.
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    files,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
