// Reads from the standby (docs/deploy.md, "Reads from the standby"; docs/api.md, "Reads from a standby") against a
// real streaming standby whose replay the tests pause: a client that never wrote reads the standby, one that wrote
// reads its writes (from the primary while the standby has not replayed them), a standby past the lag bound or down
// is not used. The tests run in order on one deployment, each leaving the standby replaying.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Mirror } from '../db/mirror.ts';
import { readAfterState } from '../db/read-after.ts';
import { SyncEngine } from '../sync/engine.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { ServiceClient } from '../sync/http.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { READ_AFTER_HEADER, READ_FROM_HEADER, WRITE_LSN_HEADER } from '../core/read-after.ts';
import { type Deployment } from './deployment.ts';
import { adminQuery, nodePids, pgStart, pgStop, promote } from './postgres.ts';
import { DEPLOY_SKIP, demoClient, useDeployment } from './test-deployment.ts';

/** Wide enough that a read right after a write is within it on a loaded machine, short enough to wait past. */
const MAX_LAG_MS = 4_000;

describe.skipIf(DEPLOY_SKIP !== null)('reads from a lagging standby', () => {
  const deployment = useDeployment({ services: 2, readMaxLagMs: MAX_LAG_MS, faults: true });

  /** A GET through the balancer with the demo account's key, and the read-after header when given. */
  async function get(d: Deployment, path: string, readAfter?: string): Promise<{ status: number; from: string | null; json: unknown }> {
    const r = await demoClient(d)('GET', path, undefined, readAfter ? { [READ_AFTER_HEADER]: readAfter } : {});
    return { status: r.status, from: r.headers.get(READ_FROM_HEADER), json: r.json };
  }
  const client = (d: Deployment) => new ServiceClient({ baseUrl: d.url, accountId: d.demo!.account_id!, timeoutMs: 10_000, credentials: { mode: 'api_key', apiKey: d.demo!.api_key! } });
  const farmNames = (json: unknown) => (json as { name: string }[]).map((f) => f.name);

  /** Until a read without a header is served by `from` (every process polls on its own). */
  async function until(d: Deployment, from: 'standby' | 'primary', ms = 15_000): Promise<void> {
    for (const deadline = Date.now() + ms; (await get(d, '/api/farms/')).from !== from;) {
      expect(Date.now(), `reads served by the ${from} within ${ms} ms`).toBeLessThan(deadline);
      await new Promise((ok) => setTimeout(ok, 100));
    }
    // Both processes: the balancer alternates, so two more reads in a row meet each.
    for (let i = 0; i < 2; i++) if ((await get(d, '/api/farms/')).from !== from) return until(d, from, ms);
  }
  const pause = (d: Deployment) => adminQuery(d.standby, 'SELECT pg_wal_replay_pause()');
  const resume = (d: Deployment) => adminQuery(d.standby, 'SELECT pg_wal_replay_resume()');
  const faults = (d: Deployment, body: unknown) => Promise.all(d.services.map((s) => fetch(`http://127.0.0.1:${s.port}/__faults__`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })));

  /** Set by the last test, which leaves the standby promoted. */
  let promoted = false;
  // Whatever a failed test left: the next one starts with the standby running and replaying, and no fault set.
  afterEach(async () => {
    if (DEPLOY_SKIP) return;
    const d = deployment();
    if (!promoted) {
      try {
        await resume(d);
      } catch {
        pgStart(d.bin, d.standby);
      }
    }
    await faults(d, { mode: 'reset' });
  });

  it('a client that never wrote reads the standby; a write read right after it is read (from the primary) by its writer only', async () => {
    const d = deployment();
    await until(d, 'standby');
    await pause(d);
    const writer = client(d);
    const farm = await writer.send('POST', '/api/farms/', { farm: { name: 'Written while the standby waits' } });
    expect(farm.status).toBe(201);
    expect(farm.headers[WRITE_LSN_HEADER]).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    const id = (farm.body as { id: number }).id;
    // A reader that never wrote: the standby, within the bound, has not replayed the farm yet.
    const stranger = await get(d, '/api/farms/');
    expect(stranger.from).toBe('standby');
    expect(farmNames(stranger.json)).not.toContain('Written while the standby waits');
    // The writer, through either process: its reads carry the position, and come from the primary.
    for (let i = 0; i < 2; i++) {
      const own = await writer.send('GET', '/api/farms/');
      expect(own.headers[READ_FROM_HEADER]).toBe('primary');
      expect(farmNames(own.body)).toContain('Written while the standby waits');
      const parcels = await writer.send('GET', `/api/farms/${id}/parcels/`);
      expect(parcels.status).toBe(200);
    }
    // A header that is neither a position nor `primary`: refused, with a stable code.
    const junk = await get(d, '/api/farms/', 'yesterday');
    expect(junk.status).toBe(400);
    expect(junk.json).toMatchObject({ code: 'validation_failed', errors: [{ path: 'headers/furrow-read-after', code: 'invalid_lsn' }] });
    // The embedded map of a client that never wrote: the standby too.
    const embed = await fetch(`${d.demo!.embedded_url!.replace('/embed/?', '/embed/data/parcels?')}`);
    expect(embed.status).toBe(200);
    expect(embed.headers.get(READ_FROM_HEADER)).toBe('standby');
    await writer.close();
  }, 60_000);

  it('a batch answered 504 after commit is read back from the primary, while a stranger still reads the lagging standby', async () => {
    const d = deployment();
    await until(d, 'standby');
    const writer = client(d);
    const farm = await writer.send('POST', '/api/farms/', { farm: { name: 'Reconciled farm' } });
    const id = (farm.body as { id: number }).id;
    // The farm replayed on the standby before it stops, so that a stranger's listing of it is the standby's.
    for (let i = 0; (await get(d, `/api/parcels/?farm=${id}`, farm.headers[WRITE_LSN_HEADER] as string)).from !== 'standby'; i++) {
      expect(i, 'the standby replays the farm').toBeLessThan(100);
      await new Promise((ok) => setTimeout(ok, 100));
    }
    await pause(d);
    for (const r of await faults(d, { match: 'POST /api/parcels/', mode: '504-after-commit' })) expect(r.status).toBeLessThan(300);
    const batch = await writer.send('POST', '/api/parcels/', { farm: { id }, parcels: [polygonParcel('after a 504')] });
    expect(batch.status).toBe(504);
    // The engine's reconciling read: the position of a 504 is unknown, so it asks for the primary, which has the batch.
    const check = await writer.send('GET', `/api/farms/${id}/parcels/`);
    expect(check.headers[READ_FROM_HEADER]).toBe('primary');
    expect((check.body as { features: unknown[] }).features).toHaveLength(1);
    expect((await get(d, `/api/parcels/?farm=${id}`)).from).toBe('standby');
    await writer.close();
  }, 60_000);

  it('a pull in a new process right after a push reads after it: what its reads must come after is kept in the mirror', async () => {
    const d = deployment();
    const dir = mkdtempSync(join(tmpdir(), 'furrow-read-after-'));
    const mirror = Mirror.open(join(dir, 'mirror.db'));
    const account = d.demo!.account_id!;
    mirror.write.addAccount({ id: account, service_url: d.url, mode: 'api_key' });
    // The header on every GET the engine sends; each run's client is new, as in a new process: only the mirror is shared.
    const reads: (string | undefined)[] = [];
    const agent = new Agent().compose((dispatch) => (opts, handler) => {
      if (opts.method === 'GET') reads.push((opts.headers as Record<string, string>)[READ_AFTER_HEADER]);
      return dispatch(opts, handler);
    });
    const engine = () => new SyncEngine(mirror, (a) => new ServiceClient({ baseUrl: a.service_url, accountId: a.id, timeoutMs: 10_000, dispatcher: agent,
      credentials: { mode: 'api_key', apiKey: d.demo!.api_key! } }), { settleMs: 300, backoffBaseMs: 50, backoffCapMs: 500, maxWaitMs: 60_000 });
    try {
      await until(d, 'standby');
      await pause(d);
      const farm = mirror.write.createFarm(account, 'Pushed then pulled');
      mirror.write.createParcels(farm.local_id, parcelInputs(60, 'pushed'));
      expect((await engine().sync({ accounts: [account], pull: false })).accounts[0]).toMatchObject({ synced: true, left: 0 });
      const kept = JSON.parse(readAfterState(mirror.syncDb, account)!) as { lsn: string };
      expect(kept.lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      reads.length = 0;
      expect((await engine().sync({ accounts: [account], push: false })).accounts[0]).toMatchObject({ synced: true });
      // The new run's reads came after the push (the standby, paused, has not replayed it: the primary answered them).
      expect(reads.length).toBeGreaterThan(0);
      expect(new Set(reads)).toEqual(new Set([kept.lsn]));
      expect(mirror.read.parcels(farm.local_id)).toHaveLength(60);
    } finally {
      mirror.close();
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('a standby further behind than the bound is not read from, and is again once it has caught up', async () => {
    const d = deployment();
    await until(d, 'standby');
    await pause(d);
    const writer = client(d);
    expect((await writer.send('POST', '/api/farms/', { farm: { name: 'Past the bound' } })).status).toBe(201);
    const written = Date.now();
    await until(d, 'primary', MAX_LAG_MS + 10_000);
    // Not before the bound (less the poll's period): the standby was in use until its lag passed it.
    expect(Date.now() - written).toBeGreaterThanOrEqual(MAX_LAG_MS - 500);
    expect(farmNames((await get(d, '/api/farms/')).json)).toContain('Past the bound');
    await resume(d);
    await until(d, 'standby');
    expect(farmNames((await get(d, '/api/farms/')).json)).toContain('Past the bound');
    await writer.close();
  }, 60_000);

  it('a standby that stops answering (frozen, as when cut off by the network): the read in flight is done again on the primary', async () => {
    const d = deployment();
    await until(d, 'standby');
    // Every process of the standby stopped: its connections stay open and answer nothing, the poller's too.
    const pids = nodePids(d.standby);
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      // At once, within the poll's period: the process still takes the standby for well, and its read hangs there
      // until the client-side query timeout, then is done on the primary.
      const r = await get(d, '/api/farms/');
      expect(r.status).toBe(200);
      expect(r.from).toBe('primary');
      expect((await get(d, '/api/farms/')).from).toBe('primary');
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    await until(d, 'standby', 30_000);
  }, 90_000);

  it('a standby that is down: every read answered by the primary, the standby used again once it is back', async () => {
    const d = deployment();
    await until(d, 'standby');
    pgStop(d.bin, d.standby, 'immediate');
    // At once, before any poll has noticed: the reads that fail on the standby are done again on the primary.
    for (let i = 0; i < 10; i++) {
      const r = await get(d, '/api/farms/');
      expect(r.status).toBe(200);
    }
    expect((await get(d, '/api/farms/')).from).toBe('primary');
    pgStart(d.bin, d.standby);
    await until(d, 'standby', 30_000);
  }, 90_000);

  it('a standby promoted (no longer in recovery: it could take writes of its own) is not read from, even with no lag', async () => {
    const d = deployment();
    await until(d, 'standby');
    promoted = true;
    promote(d.bin, d.standby);
    // Nothing written since: measured by WAL position alone it is as fresh as the primary. Within a poll or two, and
    // long before any lag could pass the bound, every read is the primary's.
    const started = Date.now();
    await until(d, 'primary', MAX_LAG_MS / 2);
    expect(Date.now() - started).toBeLessThan(MAX_LAG_MS / 2);
  }, 60_000);
});
