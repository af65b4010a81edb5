// Slow clients and too many connections, over real sockets on 127.0.0.1 (service/connections.ts): a trickled body or
// header is cut with 408 at its limit, an idle connection is closed, and a connection past the bounds is answered 503
// with Retry-After before any of its request is read. Before, a trickled body stayed open for good.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { asAccount, newAccount, newOrg, startService, type Account, type Org, type TestService } from '../test/helpers/service.ts';
import { configFromEnv } from './config.ts';
import type { ConnectionLimits } from './connections.ts';
import { defaultMaxConnections, openFilesLimit } from '../platform/node/connections.ts';

interface Conn { socket: Socket; text: () => string; closed: Promise<number> }

const LIMITS: ConnectionLimits = { headersTimeoutMs: 1500, requestTimeoutMs: 2500, idleTimeoutMs: 2000, maxConnections: 0, maxConnectionsPerAddress: 0 };

async function serve(limits: Partial<ConnectionLimits>): Promise<{ svc: TestService; port: number }> {
  const svc = await startService({ connections: { ...LIMITS, ...limits } });
  await svc.app.listen({ host: '127.0.0.1', port: 0 });
  return { svc, port: (svc.app.server.address() as { port: number }).port };
}

const opened: Socket[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.destroy();
});

/** A raw connection from `from` (any 127.x.y.z is this machine), recording what arrives and when it closes. */
async function open(port: number, from = '127.0.0.1'): Promise<Conn> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  opened.push(socket);
  let received = '';
  socket.on('data', (d: Buffer) => { received += d.toString('latin1'); });
  const closed = new Promise<number>((resolve) => {
    socket.once('error', () => undefined);
    socket.once('close', () => resolve(Date.now()));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, text: () => received, closed };
}

const status = (c: Conn) => Number(/^HTTP\/1\.1 (\d{3})/.exec(c.text())?.[1] ?? 0);
const body = (c: Conn) => JSON.parse(c.text().slice(c.text().indexOf('\r\n\r\n') + 4)) as { code: string; message: string };

/** Sends `bytes` a byte at a time, one every `everyMs`, until the socket closes. */
function trickle(c: Conn, bytes: string, everyMs: number): void {
  let i = 0;
  const t = setInterval(() => {
    if (c.socket.destroyed || i >= bytes.length) return clearInterval(t);
    c.socket.write(bytes[i++]!);
  }, everyMs);
  void c.closed.then(() => clearInterval(t));
}

describe('slow clients', () => {
  let svc: TestService;
  let port: number;
  let org: Org;
  let acc: Account;
  beforeAll(async () => {
    ({ svc, port } = await serve({}));
    org = await newOrg(svc);
    acc = await newAccount(svc, org);
  });
  afterAll(async () => {
    await svc.close();
  });

  const head = (path: string, length: number, credentials: boolean) => {
    const headers = { ...(credentials ? asAccount(org, acc) : {}), 'content-type': 'application/json', 'content-length': String(length), host: '127.0.0.1' };
    return `POST ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
  };

  it.each([
    ['an authenticated bulk create', '/api/parcels/', true],
    ['a path with no route', '/nowhere', false],
    ["the admin panel's sign-in form", '/admin/login', false],
  ])('cuts %s whose body trickles in with 408 at REQUEST_TIMEOUT_MS', async (_what, path, credentials) => {
    const c = await open(port);
    const started = Date.now();
    c.socket.write(head(path, 100_000, credentials));
    trickle(c, '{"farm":{"id":1},"parcels":['.padEnd(2000, ' '), 200);
    const closedAt = await c.closed;
    // Node checks every second: cut between the limit and a second and a half past it.
    expect(closedAt - started).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 100);
    expect(closedAt - started).toBeLessThan(LIMITS.requestTimeoutMs + 2500);
    if (path === '/api/parcels/') {
      expect(status(c)).toBe(408);
      expect(body(c).code).toBe('request_timeout');
      expect(c.text()).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    }
  });

  it('refuses an upload without credentials at once, before reading its body, and does not wait for the rest for long', async () => {
    const c = await open(port);
    const started = Date.now();
    c.socket.write(head('/api/parcels/', 100_000, false));
    trickle(c, ' '.repeat(2000), 200);
    await expect.poll(() => status(c), { timeout: 1000 }).toBe(401);
    expect(body(c).code).toBe('not_authenticated');
    const closedAt = await c.closed;
    expect(closedAt - started).toBeLessThan(LIMITS.requestTimeoutMs + 2500);
  });

  it('cuts headers that trickle in with 408 at HEADERS_TIMEOUT_MS', async () => {
    const c = await open(port);
    const started = Date.now();
    trickle(c, 'GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: '.padEnd(500, 'a'), 100);
    const closedAt = await c.closed;
    expect(closedAt - started).toBeLessThan(LIMITS.headersTimeoutMs + 2500);
    expect(status(c)).toBe(408);
    expect(body(c).code).toBe('request_timeout');
  });

  it('closes a connection on which nothing moves for IDLE_TIMEOUT_MS, and serves one that keeps talking', async () => {
    // Before the connection opens: the service's idle timer starts when it accepts it, which under load can be a
    // hundred milliseconds before this side hears it is open (it once closed "1890 ms" after that).
    const started = Date.now();
    const idle = await open(port);
    const busy = await open(port);
    const ask = () => busy.socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    const t = setInterval(ask, 500);
    const closedAt = await idle.closed;
    clearInterval(t);
    expect(closedAt - started).toBeGreaterThanOrEqual(LIMITS.idleTimeoutMs - 100);
    expect(busy.socket.destroyed).toBe(false);
    expect(busy.text().match(/HTTP\/1\.1 200 /g)?.length).toBeGreaterThanOrEqual(3);
  });
});

describe('bounds on connections', () => {
  it('turns away a connection past MAX_CONNECTIONS_PER_ADDRESS with 503 and Retry-After, and serves other addresses meanwhile', async () => {
    const { svc, port } = await serve({ maxConnectionsPerAddress: 3, idleTimeoutMs: 60_000 });
    try {
      const held = [await open(port, '127.0.0.2'), await open(port, '127.0.0.2'), await open(port, '127.0.0.2')];
      const turned = await open(port, '127.0.0.2');
      await turned.closed;
      expect(status(turned)).toBe(503);
      expect(turned.text()).toMatch(/\r\nRetry-After: 2\r\n/);
      expect(body(turned)).toMatchObject({ code: 'too_many_connections' });
      expect(body(turned).message).toContain('MAX_CONNECTIONS_PER_ADDRESS');
      // Another address is served as usual.
      const other = await open(port, '127.0.0.1');
      other.socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      await expect.poll(() => status(other)).toBe(200);
      // One of the address's connections closes: it may open another.
      held[0]!.socket.destroy();
      await held[0]!.closed;
      const again = await open(port, '127.0.0.2');
      again.socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      await expect.poll(() => status(again)).toBe(200);
    } finally {
      await svc.close();
    }
  });

  it('turns away a connection past MAX_CONNECTIONS, whatever its address', async () => {
    const { svc, port } = await serve({ maxConnections: 2, idleTimeoutMs: 60_000 });
    try {
      await open(port, '127.0.0.3');
      await open(port, '127.0.0.4');
      const turned = await open(port, '127.0.0.5');
      await turned.closed;
      expect(status(turned)).toBe(503);
      expect(body(turned)).toMatchObject({ code: 'too_many_connections' });
      expect(body(turned).message).toContain('MAX_CONNECTIONS');
    } finally {
      await svc.close();
    }
  });
});

describe('the limits from the environment', () => {
  it('has defaults, reads each variable, and refuses an idle timeout that would cut a request still at work', () => {
    expect(configFromEnv({}).connections).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 120_000, idleTimeoutMs: 75_000, maxConnections: defaultMaxConnections(openFilesLimit()), maxConnectionsPerAddress: 100 });
    expect(configFromEnv({ REQUEST_TIMEOUT_MS: '5000', MAX_CONNECTIONS_PER_ADDRESS: '0' }).connections).toMatchObject({ requestTimeoutMs: 5000, maxConnectionsPerAddress: 0 });
    expect(() => configFromEnv({ GATEWAY_TIMEOUT_MS: '30000', IDLE_TIMEOUT_MS: '30000' })).toThrow(/IDLE_TIMEOUT_MS .* must be longer than GATEWAY_TIMEOUT_MS/);
    expect(() => configFromEnv({ MAX_CONNECTIONS: '-1' })).toThrow(/MAX_CONNECTIONS must be a non-negative integer/);
  });
});
