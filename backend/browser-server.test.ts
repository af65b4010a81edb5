// Browser mode's transport through a real mirror host process: only a page of this server's own origin, on its own
// loopback address, holding this launch's token, reaches the API; a call then round-trips over the WebSocket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { API, API_EVENTS, API_VERSION } from '../core/api.ts';
import { createClient, RpcCode } from '../core/rpc.ts';
import { wsPort } from '../test/helpers/ws-port.ts';
import { freePort } from '../test/helpers/process.ts';
import { launchHost, type Host } from './launch.ts';
import { PROTOCOL } from './browser-server.ts';
import { browserShell, pageHeaders } from '../core/page-policy.ts';
import { passOf } from '../core/tab-pass.ts';
import { hostProves } from '../renderer/host-proof.ts';

/** The first frame each socket received, listened for from its creation on (it may come with the upgrade's answer). */
const firstFrames = new WeakMap<WebSocket, Promise<string>>();
const nextMessage = (ws: WebSocket) => firstFrames.get(ws)!;

let dir: string;
let host: Host;
let port: number;
let token = randomBytes(32).toString('base64url');
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-browser-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Furrow</title>');
  port = await freePort();
  host = await launchHost({ home: join(dir, 'home'), env: { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: dir }, secrets: { browserToken: token } });
  // hello answers on the IPC channel as soon as the host runs; the browser server may take a moment more.
  for (let i = 0; i < 100 && !(await get('/').catch(() => null)); i++) await new Promise((r) => setTimeout(r, 50));
});
afterAll(async () => {
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function get(path: string, hostHeader = `127.0.0.1:${port}`): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: hostHeader } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a socket as a page would; resolves with it open, or with the status of the refusal. */
function open(opts: { token?: string; origin?: string; host?: string; pass?: string }): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, [PROTOCOL, `furrow-token.${opts.token ?? token}`, ...(opts.pass ? [`furrow-pass.${opts.pass}`] : [])], {
      origin: opts.origin ?? `http://127.0.0.1:${port}`, headers: opts.host ? { host: opts.host } : {},
    });
    firstFrames.set(ws, new Promise((r) => ws.once('message', (d: Buffer) => r(d.toString()))));
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode!));
    ws.once('error', reject);
  });
}


describe('browser mode', () => {
  it('serves the renderer to its own loopback address only, with a strict CSP', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Furrow</title>');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    // A basemap's tiles are images: https anywhere, http from this computer only; nothing else leaves 'self'.
    const directive = (name: string) => csp.split(';').map((d) => d.trim()).find((d) => d.startsWith(`${name} `)) ?? '';
    expect(directive('img-src').split(' ')).toEqual(['img-src', "'self'", 'data:', 'blob:', 'https:', 'http://127.0.0.1:*', 'http://localhost:*']);
    for (const d of ['script-src', 'style-src', 'font-src']) expect(directive(d)).toBe(`${d} 'self'`);
    expect(directive('default-src')).toBe("default-src 'none'");
    expect(directive('worker-src')).toBe('worker-src blob:');
    expect(directive('connect-src')).not.toMatch(/https?:/);
    // The app's one page policy (core/page-policy.ts), as Electron's window has it but for browser mode's WebSocket.
    expect(directive('connect-src')).toBe(`connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`);
    for (const [name, value] of Object.entries(pageHeaders(browserShell(port), 'text/html; charset=utf-8'))) expect(page.headers[name], name).toBe(value);
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    // A DNS name rebound to 127.0.0.1 by another site: refused.
    expect((await get('/', `evil.example:${port}`)).status).toBe(421);
    expect((await get('/../../etc/passwd')).status).toBe(404);
  });

  it('refuses a WebSocket with a wrong token, Origin or Host', async () => {
    expect(await open({ token: 'x'.repeat(token.length) })).toBe(403);
    expect(await open({ token: '' })).toBe(403);
    expect(await open({ origin: 'http://evil.example' })).toBe(403);
    expect(await open({ origin: `http://127.0.0.1:${port + 1}` })).toBe(403);
    expect(await open({ host: `evil.example:${port}` })).toBe(403);
  });

  it("hands each tab a pass that lets it back in after the app restarts, once, with another pass", async () => {
    const first = await open({});
    const frame = passOf(JSON.parse(String(await nextMessage(first as WebSocket))))!;
    const pass = frame.furrowPass;
    expect(pass).toMatch(/^[\w-]{43}$/);
    (first as WebSocket).close();
    // Only its digest is kept, readable by the user alone.
    const file = join(dir, 'home', 'tab-passes.json');
    expect(readFileSync(file, 'utf8')).not.toContain(pass);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);

    // The app restarts: a new launch token, the same port and home.
    await host.close();
    host = await launchHost({ home: join(dir, 'home'), env: { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: dir }, secrets: { browserToken: randomBytes(32).toString('base64url') } });
    for (let i = 0; i < 100 && !(await get('/').catch(() => null)); i++) await new Promise((r) => setTimeout(r, 50));
    // It proves to the tab that it is the app (the tab's own check, renderer/host-proof.ts), before any pass is offered.
    const base = `http://127.0.0.1:${port}`;
    expect(await hostProves({ pass, key: frame.proofKey }, base)).toBe(true);
    expect(await hostProves({ pass, key: randomBytes(32).toString('base64url') }, base)).toBe(false);
    expect(await hostProves({ pass: randomBytes(32).toString('base64url'), key: frame.proofKey }, base)).toBe(false);
    expect((await get('/furrow-proof?claim=zz&nonce=00')).status).toBe(404);
    // The old launch token alone no longer opens anything; a made-up pass neither.
    expect(await open({})).toBe(403);
    expect(await open({ pass: randomBytes(32).toString('base64url') })).toBe(403);
    // Another site's page with a stolen pass is still refused by its Origin, and the pass is not spent by it.
    expect(await open({ pass, origin: 'http://evil.example' })).toBe(403);
    const back = await open({ pass });
    expect(back).toBeInstanceOf(WebSocket);
    const next = passOf(JSON.parse(String(await nextMessage(back as WebSocket))))!;
    expect(next.furrowPass).toMatch(/^[\w-]{43}$/);
    expect(next.furrowPass).not.toBe(pass);
    const client = createClient(API, wsPort(back as WebSocket), API_EVENTS);
    expect(await client.api.hello({ apiVersion: API_VERSION })).toEqual({ apiVersion: API_VERSION, pid: host.pid });
    client.close();
    (back as WebSocket).close();
    // Spent: the same pass a second time (a copy of it) is refused, and proved no more.
    expect(await open({ pass })).toBe(403);
    expect(await hostProves({ pass, key: frame.proofKey }, base)).toBe(false);
    token = randomBytes(32).toString('base64url');
    await host.close();
    host = await launchHost({ home: join(dir, 'home'), env: { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: dir }, secrets: { browserToken: token } });
    for (let i = 0; i < 100 && !(await get('/').catch(() => null)); i++) await new Promise((r) => setTimeout(r, 50));
  });

  it('carries calls and their errors to the host and back', async () => {
    const ws = await open({});
    expect(ws).toBeInstanceOf(WebSocket);
    const socket = ws as WebSocket;
    expect(socket.protocol).toBe(PROTOCOL);
    const client = createClient(API, wsPort(socket), API_EVENTS);
    expect(await client.api.hello({ apiVersion: API_VERSION })).toEqual({ apiVersion: API_VERSION, pid: host.pid });
    expect(await client.api.accounts({})).toEqual([]);
    await expect(client.api.farms({ account: 'acc-nope' })).rejects.toMatchObject({ code: 'no_account' });
    await expect(client.api.viewport({ account: 'x', bbox: [0, 0, 200, 0] } as never)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    client.close();
    socket.close();
  });
});
