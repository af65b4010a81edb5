// Browser mode's transport: a loopback HTTP server that serves the built renderer and a WebSocket that carries
// core/rpc.ts messages. It runs inside the mirror host itself, so a call makes one hop (browser → host), and each
// tab gets its own rpc server on the same handlers: a relay in another process would add a hop and have to rewrite
// call ids to share one IPC channel between tabs.
//
// Who may talk to it: any local program can reach a loopback port and any web page can make the browser try, so
// - the Host header must name this loopback address (a rebound DNS name of an attacker's page is refused);
// - a WebSocket's Origin must be this server's own (another site's page, or another local port, is refused);
// - the WebSocket must present the per-launch token (offered as a subprotocol, so it is in no URL or log line): the
//   user opens the printed URL with the token in its fragment, which never leaves the browser, and the page hands
//   it over on connecting. Static files hold no secret and need no token; every answer carries the app's page policy
//   (core/page-policy.ts, the same as Electron's window).
// It also serves the host's byte resources at /bytes/<session key>/<id>/<name> (backend/bytes.ts,
// core/bytes-protocol.ts): GET and HEAD, one range per request, streamed from the file.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { messageText, type Port } from '../core/rpc.ts';
import { browserShell, bytesPolicyHeaders, pageHeaders } from '../core/page-policy.ts';
import { BYTES_PREFIX, bytesHead, parseBytesPath } from '../core/bytes-protocol.ts';
import { closeBytes, readRange, SMALL_RANGE, type BytesSource } from './bytes.ts';
import { boundConnections, httpServerOptions, type ConnectionLimits } from '../platform/node/connections.ts';
import { offeredSecrets, PROOF_PATH, type PassFrame } from '../core/tab-pass.ts';
import type { TabPasses } from './tab-passes.ts';

/** The subprotocol the page asks for; the token rides in a second one, `furrow-token.<token>` (core/tab-pass.ts). */
export const PROTOCOL = 'furrow.v1';

export interface BrowserServerOptions {
  /** 0: any free port. */
  port: number;
  token: string;
  /** The built renderer (dist/renderer): index.html and its assets. */
  root: string;
  /** Each accepted tab: serve the contract on its port; returns the function that stops when the tab goes. */
  onConnection(port: Port): () => void;
  /** The host's byte resources, served at /bytes/…; none: every /bytes/ path is 404. */
  bytes?: BytesSource;
  /** Slow clients and connections (HOST_LIMITS unless a test sets shorter ones). */
  limits?: ConnectionLimits;
  /** Reconnect passes: a tab let in is handed one, and gets back in with it after a restart. None: the token only. */
  passes?: TabPasses;
}

export interface BrowserServer {
  port: number;
  /** The address to open, with the token in its fragment. */
  url: string;
  close(): Promise<void>;
}

/**
 * The service's rules for slow clients (platform/node/connections.ts), on the loopback: the page only GETs, so a
 * request has 30 s to arrive whole (a body trickled at the host was read for ~300 s before); an idle HTTP connection
 * is closed (a WebSocket, once upgraded, is not: ws takes its socket's timeout off); and the connections are bounded
 * in all, not per address (every tab comes from 127.0.0.1).
 */
export const HOST_LIMITS: ConnectionLimits = { headersTimeoutMs: 20_000, requestTimeoutMs: 30_000, idleTimeoutMs: 75_000, maxConnections: 256, maxConnectionsPerAddress: 0 };

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.map': 'application/json', '.woff2': 'font/woff2', '.ico': 'image/x-icon',
};

/** A header given once (Node joins most repeated ones; a list is none). */
const one = (v: string | string[] | undefined): string | null => (typeof v === 'string' ? v : null);

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startBrowserServer(opts: BrowserServerOptions): Promise<BrowserServer> {
  const root = resolve(opts.root);
  let port = opts.port;
  // The shell (its origins, its WebSocket's) is known once listening: the port may be any free one.
  const shell = () => browserShell(port);
  const hosts = () => new Set(shell().origins.map((o) => new URL(o).host));
  const origins = () => new Set(shell().origins);
  const headers = (type: string) => pageHeaders(shell(), type);
  const refuse = (res: ServerResponse, status: number, why: string) => {
    res.writeHead(status, headers('text/plain; charset=utf-8'));
    res.end(`${why}\n`);
  };

  /** A /bytes/ request (the raw path, still percent-encoded): the resource's answer, its body streamed from the file. */
  const bytes = async (req: IncomingMessage, res: ServerResponse, rawPath: string) => {
    const path = parseBytesPath(rawPath);
    const opened = path && opts.bytes ? await opts.bytes.open(path) : null;
    try {
      const head = bytesHead(opened?.meta ?? null, { method: req.method ?? '', range: req.headers.range, ifRange: one(req.headers['if-range']) });
      res.writeHead(head.status, { ...bytesPolicyHeaders(), ...head.headers });
      if (!head.body || !opened) {
        res.end();
        return;
      }
      if (opened.data) {
        res.end(opened.data.subarray(head.body.start, head.body.end + 1));
        return;
      }
      const { start, end } = head.body;
      if (opened.fd !== undefined && end - start < SMALL_RANGE) {
        res.end(readRange(opened.fd, start, end));
        return;
      }
      const stream = opened.fd !== undefined
        ? createReadStream('', { fd: opened.fd, start, end, autoClose: false })
        : opened.handle.createReadStream({ start, end, autoClose: false });
      // A client that goes away mid-way ends the stream; the file is closed below either way.
      await pipeline(stream, res).catch(() => undefined);
    } finally {
      await closeBytes(opened);
    }
  };

  const limits = opts.limits ?? HOST_LIMITS;
  const server = createServer(httpServerOptions(limits), (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (!hosts().has(req.headers.host ?? '')) return refuse(res, 421, 'Wrong Host: open the address the app printed');
      if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Method not allowed');
      const url = new URL(req.url ?? '/', 'http://x');
      const raw = url.pathname;
      if (raw === PROOF_PATH) return prove(res, url.searchParams);
      // A bytes path is parsed as it came, still percent-encoded (core/bytes-protocol.ts parseBytesPath).
      if (raw.startsWith(BYTES_PREFIX)) return bytes(req, res, raw);
      let path: string;
      try {
        path = decodeURIComponent(raw);
      } catch {
        return refuse(res, 400, 'Bad path');
      }
      const file = resolve(join(root, path === '/' ? 'index.html' : path));
      if (file !== root && !file.startsWith(root + sep)) return refuse(res, 404, 'Not found');
      let body: Buffer;
      try {
        body = await readFile(file);
      } catch {
        return refuse(res, 404, 'Not found');
      }
      res.writeHead(200, headers(TYPES[extname(file)] ?? 'application/octet-stream'));
      res.end(req.method === 'HEAD' ? undefined : body);
    })().catch(() => { if (!res.headersSent) refuse(res, 500, 'Internal error'); else res.destroy(); });
  });

  server.setTimeout(limits.idleTimeoutMs);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable && !(socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.write(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status.slice(4)}\n`);
    }
    socket.destroy();
  });
  boundConnections(server, limits, (socket) => {
    socket.write('HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 2\r\nConnection: close\r\n\r\nToo many connections: try again in a moment\n');
  });

  const wss = new WebSocketServer({
    noServer: true, maxPayload: 64 * 1024 * 1024,
    handleProtocols: (offered) => (offered.has(PROTOCOL) ? PROTOCOL : false),
  });
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {}); // a peer that resets the connection ends it, never the host
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
    const { token, pass } = offeredSecrets(offered);
    const place = !hosts().has(req.headers.host ?? '') ? 'wrong Host' : !origins().has(String(req.headers.origin ?? '')) ? 'wrong Origin' : null;
    // A pass offered is spent whether or not the token also lets the tab in: a tab holds only its latest. The pass
    // handed back keeps the lapse of the one taken (the chain ends when the first one does).
    const chain = !place && pass !== null ? opts.passes?.redeem(pass) ?? null : null;
    const byToken = sameSecret(token, opts.token);
    const why = place ?? (byToken || chain !== null ? null : 'wrong token');
    if (why) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${why}\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      handPass(ws, byToken ? undefined : chain ?? undefined);
      const stop = opts.onConnection(socketPort(ws));
      ws.once('close', () => { sockets.delete(ws); stop(); });
    });
  });

  /** The tab's pass for the next start, with its proof key, sent before anything else on its socket. */
  const handPass = (ws: WebSocket, lapses: number | undefined) => {
    if (!opts.passes) return;
    const { pass, proofKey } = opts.passes.issue(lapses);
    ws.send(JSON.stringify({ furrowPass: pass, proofKey } satisfies PassFrame));
  };

  /** PROOF_PATH: the host's proof to a tab that it is the app (core/tab-pass.ts); 404 for a pass it does not know. */
  const prove = (res: ServerResponse, query: URLSearchParams) => {
    const proof = opts.passes?.proof(query.get('claim') ?? '', query.get('nonce') ?? '') ?? null;
    if (!proof) return refuse(res, 404, 'Not found');
    res.writeHead(200, { ...headers('application/json'), 'cache-control': 'no-store' });
    res.end(JSON.stringify({ proof }));
  };

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port, '127.0.0.1', () => { server.off('error', fail); ok(); });
  });
  port = (server.address() as { port: number }).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/#token=${opts.token}`,
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** core/rpc.ts messages as JSON text frames on a WebSocket (the browser's side: renderer/ws-port.ts). */
function socketPort(ws: WebSocket): Port {
  return {
    postMessage: (m) => { if (ws.readyState === ws.OPEN) ws.send(messageText(m)); },
    onMessage(listener) {
      const on = (data: Buffer, isBinary: boolean) => {
        if (isBinary) return;
        let m: unknown;
        try {
          m = JSON.parse(data.toString('utf8'));
        } catch {
          return; // not ours: rpc ignores what it does not know, and so does this
        }
        listener(m);
      };
      ws.on('message', on);
      return () => ws.off('message', on);
    },
  };
}
