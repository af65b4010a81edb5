// The client against a hostile server on 127.0.0.1 (real sockets): every request ends by its deadline however the
// answer trickles, an answer past the size cap is cut, a redirect or a non-JSON 2xx is a transport failure (never
// a refusal of the edits), and Retry-After is capped and read in both forms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_RETRY_AFTER_MS, NetworkError, ServiceClient, parseRetryAfter } from './http.ts';
import { ServiceTokenProvider } from './tokens.ts';

const timers = new Set<NodeJS.Timeout>();
const behaviours: Record<string, (res: ServerResponse) => void> = {
  '/trickle': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const t = setInterval(() => res.write(' '), 100);
    timers.add(t);
    res.on('close', () => clearInterval(t));
  },
  '/never': () => { /* headers never come */ },
  '/huge': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => { while (res.write(chunk)) { /* until the socket pushes back */ } };
    res.on('drain', pump);
    pump();
  },
  '/redirect': (res) => { res.writeHead(302, { location: 'http://example.invalid/login' }); res.end(); },
  '/html': (res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html>Sign in to the Wi-Fi</html>'); },
  '/json': (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); },
  '/api/accounts/acc-1/token/': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const t = setInterval(() => res.write(' '), 100);
    timers.add(t);
    res.on('close', () => clearInterval(t));
  },
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const b = behaviours[req.url ?? ''];
    if (b) b(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const t of timers) clearInterval(t);
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const client = (o: { deadlineMs?: number; maxAnswerBytes?: number } = {}) =>
  new ServiceClient({ baseUrl: base, accountId: 'acc-1', timeoutMs: 60_000, credentials: { mode: 'api_key', apiKey: 'fk_secret_key' }, ...o });

async function failure(p: Promise<unknown>): Promise<NetworkError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(NetworkError);
  return err as NetworkError;
}

describe('the request deadline and the answer cap', () => {
  it('an answer trickling a byte every 100 ms ends at the deadline, as an uncertain transport failure', async () => {
    const c = client({ deadlineMs: 700 });
    const err = await failure(c.send('POST', '/trickle', { parcels: [] }));
    expect(err.message).toMatch(/no complete answer within 0\.7 s \(the request deadline\)/);
    expect(err.sent).toBe(true);
    expect(err.message).not.toContain('fk_secret_key');
    await c.close();
  });

  it('headers that never come end at the deadline too, although the idle timeout is a minute', async () => {
    const c = client({ deadlineMs: 500 });
    expect((await failure(c.send('GET', '/never'))).message).toMatch(/request deadline/);
    await c.close();
  });

  it('an answer past the size cap is cut, not read to its end', async () => {
    const c = client({ maxAnswerBytes: 1024 * 1024 });
    const err = await failure(c.send('GET', '/huge'));
    expect(err.message).toMatch(/passed 1048576 bytes and was cut/);
    await c.close();
  });

  it('the token request has a deadline of its own', async () => {
    const tokens = new ServiceTokenProvider(base, 'fk_secret_key', 600);
    const err = await tokens.token('acc-1', false).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/deadline/);
  });
});

describe('answers from something in between', () => {
  it('a redirect is a transport failure, not an answer', async () => {
    const c = client();
    expect((await failure(c.send('POST', '/redirect', {}))).message).toMatch(/redirected \(HTTP 302\)/);
    await c.close();
  });

  it('a 200 that is not JSON (a captive portal) is a transport failure, not a refusal', async () => {
    const c = client();
    expect((await failure(c.send('POST', '/html', {}))).message).toMatch(/not JSON/);
    expect((await c.send('GET', '/json')).body).toEqual({ ok: true });
    await c.close();
  });
});

describe('Retry-After', () => {
  it('is capped at a few minutes, in seconds or as an HTTP date; garbage is ignored', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    expect(parseRetryAfter('999999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter('Tue, 24 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 25 Nov 2026 12:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(MAX_RETRY_AFTER_MS).toBeLessThanOrEqual(5 * 60_000);
  });
});
