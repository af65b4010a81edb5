// The app's loopback server keeps the service's rules for slow clients (platform/node/connections.ts), over real
// sockets: a trickled request is cut at its limit (it was read for ~300 s), an idle HTTP connection is closed while a
// page's WebSocket stays open, and connections past the bound are answered 503.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { PROTOCOL, startBrowserServer, type BrowserServer } from './browser-server.ts';
import type { ConnectionLimits } from '../platform/node/connections.ts';

const LIMITS: ConnectionLimits = { headersTimeoutMs: 1000, requestTimeoutMs: 1500, idleTimeoutMs: 1500, maxConnections: 6, maxConnectionsPerAddress: 0 };
const token = randomBytes(32).toString('base64url');
let dir: string;
let server: BrowserServer;
const opened: Socket[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-host-limits-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Furrow</title>');
  server = await startBrowserServer({ port: 0, token, root: dir, onConnection: () => () => {}, limits: LIMITS });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const s of opened.splice(0)) s.destroy();
});

async function raw(): Promise<{ socket: Socket; text: () => string; closed: Promise<number> }> {
  const socket = connect(server.port, '127.0.0.1');
  opened.push(socket);
  let text = '';
  socket.on('data', (d: Buffer) => { text += d.toString('latin1'); });
  const closed = new Promise<number>((resolve) => {
    socket.once('error', () => undefined);
    socket.once('close', () => resolve(Date.now()));
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, text: () => text, closed };
}

function trickle(socket: Socket, bytes: string, everyMs: number): void {
  let i = 0;
  const t = setInterval(() => (socket.destroyed || i >= bytes.length ? clearInterval(t) : socket.write(bytes[i++]!)), everyMs);
}

describe("the app's loopback server", () => {
  it('cuts a request whose headers trickle in with 408', async () => {
    const c = await raw();
    const started = Date.now();
    trickle(c.socket, `GET / HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\nx-slow: `.padEnd(400, 'a'), 100);
    const closedAt = await c.closed;
    expect(closedAt - started).toBeLessThan(LIMITS.headersTimeoutMs + 2000);
    expect(c.text()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('does not read a trickled body for long', async () => {
    const c = await raw();
    const started = Date.now();
    c.socket.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\ncontent-length: 100000\r\n\r\n`);
    trickle(c.socket, 'x'.repeat(1000), 100);
    const closedAt = await c.closed;
    expect(closedAt - started).toBeLessThan(LIMITS.requestTimeoutMs + 2000);
    expect(c.text()).toMatch(/^HTTP\/1\.1 405 /);
  });

  it("closes an idle HTTP connection, and keeps a page's WebSocket open past the idle limit", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/`, [PROTOCOL, `furrow-token.${token}`], { origin: `http://127.0.0.1:${server.port}` });
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    const wsOpen = Date.now();
    // A connection that sends nothing is closed by whichever limit comes first: the headers' (1 s here, checked once a
    // second by Node, so anywhere from 1 s on: 1.007 s in a loaded CI) or the idle one (1.5 s). Timed from before the
    // connection is made: the server's clocks start when it accepts it, which a loaded machine may report late.
    const started = Date.now();
    const idle = await raw();
    const closedAt = await idle.closed;
    expect(closedAt - started).toBeGreaterThanOrEqual(Math.min(LIMITS.headersTimeoutMs, LIMITS.idleTimeoutMs) - 100);
    expect(closedAt - started).toBeLessThan(LIMITS.idleTimeoutMs + 2000);
    // The page's WebSocket, as quiet all along, is open past the idle limit.
    await new Promise((r) => setTimeout(r, Math.max(0, wsOpen + LIMITS.idleTimeoutMs + 500 - Date.now())));
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });

  it('answers a connection past its bound 503 with Retry-After', async () => {
    for (let i = 0; i < LIMITS.maxConnections; i++) await raw();
    const turned = await raw();
    await turned.closed;
    expect(turned.text()).toMatch(/^HTTP\/1\.1 503 /);
    expect(turned.text()).toMatch(/\r\nRetry-After: 2\r\n/);
  });
});
