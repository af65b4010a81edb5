// The service under a small limit of open files (prlimit --nofile=256, a real process): by default it keeps a reserve
// of descriptors for itself, so a flood of idle connections is turned away (503) while a client already connected
// still gets a streamed farm listing (which opens a database connection of its own); and when the bound is set past
// what the limit allows, running out is answered 503 service_busy, said once in the log, never 500.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'undici';
import { serviceCli, spawnService, type ServiceProcess } from '../test/helpers/process.ts';
import { TEST_STORE } from '../test/helpers/store.ts';
import { defaultMaxConnections } from '../platform/node/connections.ts';

const NOFILE = 256;
let dir: string;
let org: { api_key: string };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-nofile-'));
  org = serviceCli(join(dir, 'svc'), ['create-org', '--name', 'Few files']).json as { api_key: string };
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const flood: Socket[] = [];
afterEach(() => {
  for (const s of flood.splice(0)) s.destroy();
});

/** Opens `n` idle connections; resolves with how many the service answered 503 (and closed) and how many it kept. */
async function openMany(port: number, n: number): Promise<{ turnedAway: number; kept: number }> {
  const results = await Promise.all(Array.from({ length: n }, () => new Promise<'kept' | 'away'>((resolve) => {
    const s = connect(port, '127.0.0.1');
    flood.push(s);
    let text = '';
    s.on('data', (d: Buffer) => { text += d.toString('latin1'); });
    s.on('error', () => undefined);
    s.once('close', () => resolve(/^HTTP\/1\.1 503 /.test(text) ? 'away' : 'kept'));
    // Still open after a moment: kept.
    setTimeout(() => resolve('kept'), 1500);
  })));
  return { turnedAway: results.filter((r) => r === 'away').length, kept: results.filter((r) => r === 'kept').length };
}

// The service's own process, on either store.
describe(`the service at ulimit -n ${NOFILE}`, () => {
  let svc: ServiceProcess | undefined;
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
  });

  async function start(env: Record<string, string>): Promise<{ svc: ServiceProcess; client: Client; headers: Record<string, string>; farm: number }> {
    svc = await spawnService(join(dir, 'svc'), { MAX_CONNECTIONS_PER_ADDRESS: '0', LOG_LEVEL: 'error', ...env }, ['serve'], ['prlimit', `--nofile=${NOFILE}:${NOFILE}`]);
    const client = new Client(svc.url, { keepAliveTimeout: 60_000 });
    const acc = await (await client.request({ method: 'POST', path: '/api/accounts/', headers: { 'x-api-key': org.api_key, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: `f${Date.now()}@example.com` }) })).body.json() as { id: string };
    const headers = { 'x-api-key': org.api_key, 'service-account': acc.id };
    const farm = await (await client.request({ method: 'POST', path: '/api/farms/', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ farm: { name: 'Few files' }, parcels: [] }) })).body.json() as { id: number };
    return { svc, client, headers, farm: farm.id };
  }

  it('keeps descriptors for itself: a flood is turned away with 503 while a connected client is served, listing included', async () => {
    const s = await start({});
    try {
      const bound = defaultMaxConnections(NOFILE);
      expect(bound).toBe(128);
      const { turnedAway, kept } = await openMany(s.svc.port, 220);
      expect(turnedAway).toBeGreaterThanOrEqual(220 - bound);
      expect(kept).toBeLessThan(bound);
      const listing = await s.client.request({ method: 'GET', path: `/api/farms/${s.farm}/parcels/`, headers: s.headers });
      expect(listing.statusCode).toBe(200);
      await listing.body.json();
    } finally {
      await s.client.close();
    }
  }, 60_000);

  it('answers 503 service_busy, never 500, when the bound is set past what the limit allows, says so once, and recovers', async () => {
    const s = await start({ MAX_CONNECTIONS: '1000' });
    try {
      await openMany(s.svc.port, 260);
      const answers: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await s.client.request({ method: 'GET', path: `/api/farms/${s.farm}/parcels/`, headers: s.headers });
        answers.push(res.statusCode);
        const body = await res.body.json() as { code?: string };
        if (res.statusCode !== 200) {
          expect(res.statusCode, s.svc.stdout().slice(-1500)).toBe(503);
          expect(body.code).toBe('service_busy');
          expect(res.headers['retry-after']).toBe('5');
        }
      }
      // Never 500. The SQLite store's listing opens a connection of its own, so it runs out; the PostgreSQL store's uses
      // the pool's, opened already, and is served.
      expect(answers.every((a) => a === 200 || a === 503)).toBe(true);
      if (TEST_STORE === 'sqlite') {
        expect(answers).toContain(503);
        expect(s.svc.stdout().match(/as many files open as it may/g)).toHaveLength(1);
      }
      for (const f of flood.splice(0)) f.destroy();
      await expect.poll(async () => (await s.client.request({ method: 'GET', path: `/api/farms/${s.farm}/parcels/`, headers: s.headers }).then(async (r) => { await r.body.dump(); return r.statusCode; })), { timeout: 10_000 }).toBe(200);
    } finally {
      await s.client.close();
    }
  }, 60_000);
});
