// A real mirror host process in browser mode for tests of what a page reads over HTTP (backend/bytes-server.test.ts,
// backend/layer-files-server.test.ts, backend/layer-files-large.test.ts): its loopback server on a free port of
// 127.0.0.1 serving a stand-in page, the launch's token, plain HTTP requests as a page's libraries make them (Range
// and all, on a socket of their own), and pages: WebSocket sessions holding the token, as renderer/ws-port.ts opens
// them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { API, API_EVENTS, API_VERSION, type Api, type ApiEvents } from '../../core/api.ts';
import { createClient, type Client } from '../../core/rpc.ts';
import { launchHost, type Host } from '../../backend/launch.ts';
import { PROTOCOL } from '../../backend/browser-server.ts';
import { wsPort } from './ws-port.ts';
import { freePort } from './process.ts';

export interface Got { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }
export interface GetOptions { headers?: Record<string, string>; method?: string; host?: string }
/** A page: its API and a way to close it (its session ends with its socket). */
export interface Tab { api: Client<Api, ApiEvents>['api']; close(): Promise<void> }

export interface BrowserHost {
  /** The test's own folder (removed by close). */
  dir: string;
  /** The host's FURROW_HOME, inside `dir`. */
  home: string;
  host: Host;
  port: number;
  /** An HTTP request to the host's server (a GET unless told), the whole answer read. */
  get(path: string, opts?: GetOptions): Promise<Got>;
  /** A path as a URL on the host's origin (for fetch-based readers: pmtiles, geotiff.js). */
  url(path: string): string;
  /** A new page session. */
  tab(): Promise<Tab>;
  close(): Promise<void>;
}

export interface BrowserHostOptions {
  /** How long the host keeps an export's bytes (FURROW_BYTES_TTL_MS). */
  ttlMs: number;
  /** Before the host starts: what its home should hold (a mirror…), and the test's files in `dir`. */
  prepare?(home: string, dir: string): void | Promise<void>;
  env?: Record<string, string>;
}

export async function startBrowserHost(prefix: string, opts: BrowserHostOptions): Promise<BrowserHost> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'renderer'));
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>Furrow</title>');
  const home = join(dir, 'home');
  mkdirSync(home, { mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  let host: Host | undefined;
  try {
    await opts.prepare?.(home, dir);
    const port = await freePort();
    host = await launchHost({
      home, env: { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: join(dir, 'renderer'), FURROW_BYTES_TTL_MS: String(opts.ttlMs), ...opts.env }, secrets: { browserToken: token },
    });
    const get = (path: string, o: GetOptions = {}) => new Promise<Got>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: { host: o.host ?? `127.0.0.1:${port}`, ...o.headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    // The server listens a moment after the host answers its first call.
    for (let i = 0; i < 100 && !(await get('/').catch(() => null)); i++) await new Promise((r) => setTimeout(r, 50));
    const tab = async (): Promise<Tab> => {
      const ws = await new Promise<WebSocket>((resolve, reject) => {
        const s = new WebSocket(`ws://127.0.0.1:${port}/`, [PROTOCOL, `furrow-token.${token}`], { origin: `http://127.0.0.1:${port}` });
        s.once('open', () => resolve(s));
        s.once('error', reject);
      });
      const client = createClient(API, wsPort(ws), API_EVENTS);
      await client.api.hello({ apiVersion: API_VERSION });
      return { api: client.api, close: () => new Promise<void>((resolve) => { client.close(); ws.once('close', () => resolve()); ws.close(); }) };
    };
    const h = host;
    return {
      dir, home, host: h, port, get, tab, url: (path) => `http://127.0.0.1:${port}${path}`,
      close: async () => {
        await h.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
