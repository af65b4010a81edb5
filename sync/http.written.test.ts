// ServiceClient.written(): once it resolves, every request handed to the client is on its socket — undici writes a
// request on a kept-alive socket only in a later turn of the event loop, and the push holds the thread for
// milliseconds right after it hands one over. Real HTTP on 127.0.0.1, undici's own diagnostics channel as the witness.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import dc from 'node:diagnostics_channel';
import { Pool } from 'undici';
import { pendingOf, ServiceClient } from './http.ts';

let server: Server;
let client: ServiceClient;
/** Paths whose request headers undici has written to a socket, in order. */
let written: string[];
const onHeaders = (m: unknown) => { written.push((m as { request: { path: string } }).request.path); };

beforeEach(async () => {
  written = [];
  dc.subscribe('undici:client:sendHeaders', onHeaders);
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  client = new ServiceClient({ baseUrl: `http://127.0.0.1:${port}`, accountId: 'acc-w', credentials: { mode: 'api_key', apiKey: 'k' } });
  // A kept-alive connection, as in a push: its next requests are written only in a later turn.
  await client.send('GET', '/warm');
});
afterEach(async () => {
  dc.unsubscribe('undici:client:sendHeaders', onHeaders);
  await client.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('ServiceClient.written', () => {
  it('resolves only once a request just handed over is on its socket', async () => {
    const a = client.send('POST', '/a', { n: 1 });
    await client.written();
    expect(written).toEqual(['/warm', '/a']);
    await a;
  });

  it('also for a request sent on the answer of the one before, on the socket that answer freed', async () => {
    await client.send('POST', '/a', { n: 1 });
    // As the push does: the next request as soon as an answer is in, then a long synchronous step.
    const b = client.send('POST', '/b', { n: 2 });
    await client.written();
    expect(written).toEqual(['/warm', '/a', '/b']);
    await b;
  });

  it('tells the caller an answer is in before reading it: a request sent from there is written first (the push)', async () => {
    const order: string[] = [];
    let b: Promise<unknown> | undefined;
    await client.send('POST', '/a', { n: 1 }, () => { order.push('read /a'); return undefined; }, async (status) => {
      order.push(`answered ${status}`);
      b = client.send('POST', '/b', { n: 2 });
      await client.written();
      order.push(`written ${written.join(' ')}`);
    });
    expect(order).toEqual(['answered 200', 'written /warm /a /b', 'read /a']);
    await b;
  });

  it('counts the requests not yet written as the pool\'s stats do, without building them', async () => {
    const { port } = server.address() as { port: number };
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
    const stats = () => pool.stats.pending;
    const seen: [number, number][] = [];
    const probe = () => {
      const viaStats = stats();
      // With its stats unreadable, the count must still come (from the pool's own getter, not the fallback).
      Object.defineProperty(pool, 'stats', { configurable: true, get() { throw new Error('stats read'); } });
      try {
        seen.push([pendingOf(pool), viaStats]);
      } finally {
        delete (pool as unknown as { stats?: unknown }).stats;
      }
    };
    probe();
    const requests = [1, 2, 3].map((n) => pool.request({ method: 'POST', path: `/p${n}`, body: '{}' }).then((r) => r.body.text()));
    probe();
    await new Promise((r) => setImmediate(r));
    probe();
    await Promise.all(requests);
    probe();
    await pool.close();
    expect(seen.map(([a, b]) => a - b)).toEqual([0, 0, 0, 0]);
    expect(seen.some(([a]) => a > 0)).toBe(true);
  });
});
