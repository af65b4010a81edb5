// A real HTTP proxy on 127.0.0.1 in front of the real service, for tests of what the engine does with answers a
// faulty service or proxy could give: each request may have its path rewritten on the way in and its JSON answer
// replaced on the way out. The service's own URLs in answers (absolute `next` links) are rewritten to the proxy's,
// as a reverse proxy with the right public URL would give them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange { method: string; path: string }

export interface Rewrite {
  /** The path sent upstream instead (query included). */
  path?: (x: Exchange) => string | undefined;
  /** A status answered at once, the request not forwarded (404 on /api/changes/: a service without the change feed). */
  refuse?: (x: Exchange) => number | undefined;
  /** The JSON answer given instead of the service's (undefined: the service's, untouched). */
  body?: (x: Exchange, status: number, json: unknown) => unknown;
}

export interface RewriteProxy { url: string; seen: Exchange[]; close(): Promise<void> }

export async function rewriteProxy(upstream: string, rewrite: Rewrite): Promise<RewriteProxy> {
  const seen: Exchange[] = [];
  let self = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const x: Exchange = { method: req.method ?? 'GET', path: req.url ?? '/' };
        seen.push(x);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const refused = rewrite.refuse?.(x);
        if (refused !== undefined) {
          res.writeHead(refused, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: 'not_found', message: 'Not found', detail: 'Not found' }));
          return;
        }
        const up = await fetch(`${upstream}${rewrite.path?.(x) ?? x.path}`, { method: x.method, headers, body });
        const text = (await up.text()).split(upstream).join(self);
        let out = text;
        const json = text && (up.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) as unknown : undefined;
        const replaced = json === undefined ? undefined : rewrite.body?.(x, up.status, json);
        if (replaced !== undefined) out = JSON.stringify(replaced);
        res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
        res.end(out);
      })().catch((err: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self, seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
