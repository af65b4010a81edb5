// A real HTTP proxy on 127.0.0.1 in front of the real service that turns hostile on request: for the requests an
// attack matches it answers slowly, never, endlessly, too much, in the wrong shape, with a captive portal's page,
// a redirect or an absurd Retry-After — optionally after letting the request reach the service (so the service has
// committed what the client will not hear about). Everything else is forwarded untouched, with the service's own
// URLs in answers rewritten to the proxy's, as a reverse proxy with the right public URL gives them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type AttackKind = 'trickle' | 'never' | 'endless' | 'oversized' | 'wrong-shape' | 'html200' | 'redirect' | 'retry-after';

export interface Attack {
  kind: AttackKind;
  /** Which requests it hits. */
  match: (method: string, path: string) => boolean;
  /** Let the request reach the service first (it commits), then answer with the attack. */
  forward?: boolean;
  /** wrong-shape: the JSON answered instead of the service's (given the service's, when forwarded). */
  shape?: (json: unknown) => unknown;
  /** oversized: bytes of the answer. */
  bytes?: number;
}

export interface HostileProxy {
  url: string;
  attack: Attack | null;
  /** Requests the current attack has hit. */
  hits: number;
  close(): Promise<void>;
}

export async function hostileProxy(upstream: string): Promise<HostileProxy> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let self = '';
  const proxy: HostileProxy = { url: '', attack: null, hits: 0, close: async () => {} };

  const forward = async (req: IncomingMessage, body: ReturnType<typeof Buffer.concat> | undefined): Promise<{ status: number; type: string; text: string }> => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v;
    const up = await fetch(`${upstream}${req.url ?? '/'}`, { method: req.method, headers, body, redirect: 'manual' });
    return { status: up.status, type: up.headers.get('content-type') ?? 'application/json', text: (await up.text()).split(upstream).join(self) };
  };

  /** Writes `chunk` every `ms` until the client goes away. */
  const drip = (res: ServerResponse, chunk: () => string, ms: number) => {
    const t = setInterval(() => {
      if (res.destroyed || res.writableEnded) {
        clearInterval(t);
        timers.delete(t);
        return;
      }
      res.write(chunk());
    }, ms);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
    });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const a = proxy.attack;
        if (!a || !a.match(req.method ?? 'GET', req.url ?? '/')) {
          const up = await forward(req, body);
          res.writeHead(up.status, { 'content-type': up.type });
          res.end(up.text);
          return;
        }
        proxy.hits++;
        const up = a.forward ? await forward(req, body) : null;
        switch (a.kind) {
          case 'trickle': // a valid beginning, one byte at a time, never finishing in time
            res.writeHead(200, { 'content-type': 'application/json' });
            drip(res, () => ' ', 200);
            return;
          case 'never':
            return; // read, and left without an answer
          case 'endless':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.write('[');
            drip(res, () => '{"id":1,"type":"Feature","properties":{"name":"x"}},'.repeat(200), 5);
            return;
          case 'oversized': {
            const text = `[${'{"id":1,"type":"Feature","properties":{"name":"x"}},'.repeat(Math.ceil((a.bytes ?? 1 << 20) / 52))}{"id":1}]`;
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
            res.end(text);
            return;
          }
          case 'wrong-shape': {
            const json = up && up.text ? JSON.parse(up.text) as unknown : null;
            res.writeHead(up?.status ?? 200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(a.shape ? a.shape(json) : { unexpected: true }));
            return;
          }
          case 'html200':
            res.writeHead(200, { 'content-type': 'text/html' });
            res.end('<!doctype html><html><body><form action="/login">Sign in to the hotel Wi-Fi</form></body></html>');
            return;
          case 'redirect':
            res.writeHead(302, { location: 'http://127.0.0.1:9/login?next=/api/' });
            res.end();
            return;
          case 'retry-after':
            res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '999999999' });
            res.end('{"detail":"Request was throttled."}');
            return;
        }
      })().catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.url = self;
  proxy.close = () => new Promise<void>((resolve) => {
    for (const t of timers) clearInterval(t);
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  });
  return proxy;
}
