// Requests that get no HTTP answer: only one that provably never left (nothing connected) is a certain failure —
// queued again with exponential backoff and full jitter, nothing to settle; one that may have reached the service
// (the socket closed after it was written, no answer in time) leaves a write uncertain. Real sockets throughout:
// a closed port, servers that accept and then hang up, the real service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { freePort } from '../test/helpers/process.ts';
import { fakeClock, farmOnService, posts, recordingEngine, refCounts, serviceParcels, type SentRequest } from '../test/helpers/engine.ts';
import { NetworkError, ServiceClient } from './http.ts';
import { ServiceTokenProvider } from './tokens.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

/** A TCP server on 127.0.0.1 doing `onSocket` with each connection; counts them. */
async function tcpServer(onSocket: (s: Socket) => void): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    n++;
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
    onSocket(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`, connections: () => n,
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}

/** Reads the request, then hangs up without a word: the request reached whoever was listening. */
const hangUpAfterRequest = (s: Socket) => s.once('data', () => s.destroy());

async function failure(baseUrl: string, timeoutMs = 5_000): Promise<NetworkError> {
  const client = new ServiceClient({ baseUrl, accountId: 'acc-x', timeoutMs, credentials: { mode: 'api_key', apiKey: 'k' } });
  try {
    await client.send('POST', '/api/parcels/', { parcels: [] });
  } catch (err) {
    if (err instanceof NetworkError) return err;
    throw err;
  } finally {
    await client.close();
  }
  throw new Error('expected a network error');
}

describe('a request without an answer', () => {
  it('never left when the connection was refused or TLS could not be set up; may have reached the service otherwise', async () => {
    const refused = await failure(`http://127.0.0.1:${await freePort()}`);
    expect(refused).toMatchObject({ sent: false, unreachable: true, reason: 'connection refused' });

    const hangUp = await tcpServer(hangUpAfterRequest);
    const silent = await tcpServer(() => {});
    const garbage = await tcpServer((s) => s.once('data', () => s.write('not TLS\r\n\r\n')));
    try {
      expect(await failure(hangUp.url)).toMatchObject({ sent: true, unreachable: false, reason: 'connection closed before the answer' });
      expect(await failure(silent.url, 200)).toMatchObject({ sent: true, unreachable: false, reason: 'no answer in time' });
      // The handshake failed: not one byte of the request was written.
      const tls = await failure(garbage.url.replace('http:', 'https:'));
      expect(tls).toMatchObject({ sent: false, unreachable: true });
      expect(tls.reason).toMatch(/^TLS or connect failure/);
    } finally {
      await Promise.all([hangUp.close(), silent.close(), garbage.close()]);
    }
  });
});

describe('the engine', () => {
  it('with bearer tokens, a refused connection leaves the edits queued (not uncertain), sends nothing, and the next sync needs no settling', async () => {
    const { acc, farm } = await farmOnService(w, 'Bearer offline');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(3, 'offline'));
    const closed = `http://127.0.0.1:${await freePort()}`;
    w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(closed, acc);
    // Organization mode: the token comes from the service itself, so the token request is what meets the closed port.
    const bearer = { credentials: (a: { service_url: string }) => ({ mode: 'bearer' as const, tokens: new ServiceTokenProvider(a.service_url, w.apiKey) }) };
    const clock = fakeClock();
    const offline = await recordingEngine(w, [], { ...bearer, sync: { maxWaitMs: 5_000, now: clock.now, sleep: clock.sleep } }).sync({ accounts: [acc], pull: false });
    expect(offline.accounts[0]).toMatchObject({ sent: 0, committed: 0, blocked: null, left: 3 });
    expect(offline.accounts[0]!.unreachable).toMatch(new RegExp(`^could not reach ${closed}: connection refused \\(\\d attempts over \\d+ s\\)$`));
    expect(w.mirror.read.status(acc)).toMatchObject({ pending: 3, uncertain: 0, in_flight: 0, blocked: 0 });
    for (const o of w.mirror.read.outbox(acc)) expect(o).toMatchObject({ state: 'queued', attempts: 0 });

    w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(w.svc.url, acc);
    const log: SentRequest[] = [];
    const back = fakeClock();
    // An hour of settling would be waited (on the engine's clock) before any uncertain create could be resent.
    const r = await recordingEngine(w, log, { ...bearer, sync: { settleMs: 3_600_000, now: back.now, sleep: back.sleep } }).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, sent: 3, committed: 3, unreachable: null });
    expect(back.slept).toEqual([]);
    expect(log.map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual(['POST /api/parcels/ 201']);
    expect(refCounts(await serviceParcels(w, acc, farm.server_id!))).toEqual(new Map(created.map((c) => [c.local_id, 1])));
  });

  it('gives up on a service that refuses every connection after 4 tries, within seconds, whatever the time left; nothing uncertain', async () => {
    const acc = await w.account();
    const local = w.mirror.write.createFarm(acc, 'Backoff');
    w.mirror.write.createParcels(local.local_id, parcelInputs(2, 'backoff'));
    const closed = `http://127.0.0.1:${await freePort()}`;
    w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(closed, acc);
    const log: SentRequest[] = [];
    const clock = fakeClock();
    const waits: string[] = [];
    const r = await recordingEngine(w, log, {
      sync: { maxWaitMs: 3_600_000, backoffCapMs: 30_000, random: () => 0.5, now: clock.now, sleep: clock.sleep, onProgress: (e) => { if (e.phase === 'waiting') waits.push(e.message!); } },
    }).sync({ accounts: [acc] });
    // Four tries (the first and three retries), the waits between them half fixed, half drawn: 1 s, 2 s, 4 s × (0.5 + 0.5 × 0.5).
    expect(log.map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual(Array(4).fill('POST /api/farms/ network'));
    expect(clock.slept).toEqual([750, 1500, 3000]);
    expect(waits).toEqual([1, 2, 3].map((n, i) => `could not reach the service (connection refused; attempt ${n} of 4 failed), retrying in ${[1, 2, 3][i]} s`));
    expect(r.accounts[0]).toMatchObject({
      sent: 0, committed: 0, left: 3, unreachable: `could not reach ${closed}: connection refused (4 attempts over 5 s)`, pullNotDone: `could not reach ${closed}: connection refused (4 attempts over 5 s)`,
    });
    // The pull was not even tried: the run had given up on the service.
    expect(log).toHaveLength(4);
    // Nothing was sent, so nothing is uncertain, and the next run tries at once.
    expect(w.mirror.read.status(acc)).toMatchObject({ pending: 3, uncertain: 0, in_flight: 0 });
    for (const o of w.mirror.read.outbox(acc)) expect(o).toMatchObject({ state: 'queued', attempts: 0 });
  });

  it('two batches refused together are one attempt; a service back within the tries gets everything in the same run, exactly once', async () => {
    const { acc, farm } = await farmOnService(w, 'Restarting');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(80, 'restart'));
    // A port that refuses until the third connection attempt, then forwards to the service (as a restarted one would).
    const port = await freePort();
    let forwarder: Server | null = null;
    const gate = async (e: SentRequest, log: readonly SentRequest[]) => {
      const posts = new Set(log.filter((l) => l.method === 'POST').map((l) => l.time));
      if (forwarder || e.method !== 'POST' || posts.size < 3) return;
      forwarder = createServer((s) => {
        const upstream = connect(w.svc.port, '127.0.0.1');
        s.on('error', () => {});
        upstream.on('error', () => {});
        s.pipe(upstream).pipe(s);
      });
      await new Promise<void>((r) => forwarder!.listen(port, '127.0.0.1', r));
    };
    w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(`http://127.0.0.1:${port}`, acc);
    try {
      const log: SentRequest[] = [];
      const clock = fakeClock();
      const r = await recordingEngine(w, log, { gate, sync: { backoffCapMs: 30_000, random: () => 0.5, now: clock.now, sleep: clock.sleep } }).sync({ accounts: [acc], pull: false });
      // Two batches (50 + 30) in flight at once, both refused: one failed attempt, one wait. Twice; then both go through.
      const byTime = new Map<number, string[]>();
      for (const l of log) byTime.set(l.time, [...(byTime.get(l.time) ?? []), String(l.status)]);
      expect([...byTime.values()]).toEqual([['network', 'network'], ['network', 'network'], ['201', '201']]);
      expect(clock.slept).toEqual([750, 1500]);
      expect(r.accounts[0]).toMatchObject({ synced: true, sent: 80, committed: 80, unreachable: null });
      expect(refCounts(await serviceParcels(w, acc, farm.server_id!))).toEqual(new Map(created.map((c) => [c.local_id, 1])));
    } finally {
      w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(w.svc.url, acc);
      await new Promise<void>((r) => (forwarder ? forwarder.close(() => r()) : r()));
    }
  });

  it('a service that answers 503 is not "plainly down": retried past 4 tries, within the retry budget', async () => {
    const { acc, farm } = await farmOnService(w, 'Unavailable');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(2, 'unavailable'));
    await w.fault('POST /api/parcels/', 'error', { status: 503, count: 6 });
    const log: SentRequest[] = [];
    const clock = fakeClock();
    const r = await recordingEngine(w, log, { sync: { now: clock.now, sleep: clock.sleep } }).sync({ accounts: [acc], pull: false });
    expect(posts(log, '/api/parcels/').map((p) => p.status)).toEqual([503, 503, 503, 503, 503, 503, 201]);
    expect(r.accounts[0]).toMatchObject({ synced: true, committed: 2, unreachable: null });
    expect(refCounts(await serviceParcels(w, acc, farm.server_id!))).toEqual(new Map(created.map((c) => [c.local_id, 1])));
  });

  it('a create whose connection closed after it was written is uncertain, and not counted as sent; with bearer tokens, a token request cut off leaves it queued', async () => {
    const acc = await w.account();
    const local = w.mirror.write.createFarm(acc, 'Hung up');
    w.mirror.write.createParcels(local.local_id, parcelInputs(2, 'hangup'));
    const server = await tcpServer(hangUpAfterRequest);
    try {
      w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(server.url, acc);
      const bearer = { credentials: (a: { service_url: string }) => ({ mode: 'bearer' as const, tokens: new ServiceTokenProvider(a.service_url, w.apiKey) }) };
      const viaToken = await recordingEngine(w, [], { ...bearer, sync: { retryBudget: 0, maxWaitMs: 0 } }).sync({ accounts: [acc], pull: false });
      expect(viaToken.accounts[0]).toMatchObject({ sent: 0, committed: 0, unreachable: null });
      expect(w.mirror.read.status(acc)).toMatchObject({ pending: 3, uncertain: 0, in_flight: 0 });

      const log: SentRequest[] = [];
      const r = await recordingEngine(w, log, { sync: { maxWaitMs: 0 } }).sync({ accounts: [acc], pull: false });
      expect(posts(log, '/api/farms/').map((p) => p.status)).toEqual(['network']);
      expect(r.accounts[0]).toMatchObject({ sent: 0, committed: 0, unreachable: null, left: 3 });
      // The farm and its first parcels went out together: whether they were created is unknown until reconciled.
      expect(w.mirror.read.status(acc)).toMatchObject({ uncertain: 3, pending: 0 });
      expect(server.connections()).toBe(2);
    } finally {
      await server.close();
    }
  });
});

describe('what a request sent', () => {
  it('is counted in bytes on the wire (UTF-8), not in characters', async () => {
    const client = new ServiceClient({ baseUrl: w.svc.url, accountId: 'acc-x', timeoutMs: 5_000, credentials: { mode: 'api_key', apiKey: w.apiKey } });
    try {
      const body = { account_email: `ñandú-campo-señor-${Math.random().toString(36).slice(2)}@example.com` };
      const res = await client.send('POST', '/api/accounts/', body);
      expect(res.sentBytes).toBe(Buffer.byteLength(JSON.stringify(body)));
      expect(res.sentBytes).toBeGreaterThan(JSON.stringify(body).length);
    } finally {
      await client.close();
    }
  });
});
