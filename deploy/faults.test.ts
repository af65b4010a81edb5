// The deployment under its faults, with the real sync engine syncing through the balancer: a service process
// killed mid-sync, another killed inside a batch's transaction, PgBouncer restarted mid-sync, the primary killed and the standby promoted. Each time the engine
// ends with every parcel on the service exactly once; the killed process is taken out by HAProxy's health check.
// The tests run in order on one deployment (the failover last: it leaves no standby).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mirror } from '../db/mirror.ts';
import type { FarmRow } from '../db/types.ts';
import { SyncEngine, type SyncReport } from '../sync/engine.ts';
import { ServiceClient } from '../sync/http.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { failover, failoverWords } from './failover.ts';
import { serverStats } from './haproxy.ts';
import { alive, startBouncer, stopBouncer } from './pgbouncer.ts';
import { adminQuery, DATABASE } from './postgres.ts';
import { DEPLOY_SKIP, demoClient, useDeployment } from './test-deployment.ts';

describe.skipIf(DEPLOY_SKIP !== null)('the deployment under faults, synced through the balancer', () => {
  // Synchronous replication: a commit is acknowledged once the standby has it, what the failover test relies on.
  const deployment = useDeployment({ services: 3, synchronous: true, faults: true });
  let dir: string;
  let mirror: Mirror;
  let account: string;

  beforeAll(() => {
    if (DEPLOY_SKIP) return;
    dir = mkdtempSync(join(tmpdir(), 'furrow-deploy-mirror-'));
    mirror = Mirror.open(join(dir, 'mirror.db'));
    account = deployment().demo!.account_id!;
    mirror.write.addAccount({ id: account, service_url: deployment().url, mode: 'api_key' });
  });
  afterAll(() => {
    mirror?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const engine = () => new SyncEngine(mirror, (a) => new ServiceClient({
    baseUrl: a.service_url, accountId: a.id, timeoutMs: 10_000, credentials: { mode: 'api_key', apiKey: deployment().demo!.api_key! },
  }), { settleMs: 300, backoffBaseMs: 50, backoffCapMs: 500, maxWaitMs: 60_000 });

  /** A farm synced to the service, and `n` parcels in it in the mirror, not yet synced. */
  async function farmWithParcels(name: string, n: number): Promise<FarmRow> {
    const local = mirror.write.createFarm(account, name);
    expect((await engine().sync({ accounts: [account] })).accounts[0]).toMatchObject({ synced: true });
    mirror.write.createParcels(local.local_id, parcelInputs(n, name));
    return mirror.read.farm(local.local_id)!;
  }

  /**
   * The run synced everything, nothing refused. A run that ended with ops still waiting (the engine's retry budget
   * spent while the database was away) is followed by up to two more, as the app's next sync would: what is checked
   * is that nothing is lost, refused or duplicated, not that one run's budget covered the outage.
   */
  async function expectSynced(first: Promise<SyncReport>): Promise<void> {
    let report = (await first).accounts[0]!;
    const earlier: string[] = [];
    for (let run = 1; !report.synced && run < 3; run++) {
      expect(report, JSON.stringify(report)).toMatchObject({ blocked: null, rejected: 0 });
      earlier.push(JSON.stringify({ left: report.left, waitingWhy: report.waitingWhy, unreachable: report.unreachable, error: report.error }));
      const probe = await fetch(`${deployment().url}/api/farms/`, { headers: { 'x-api-key': deployment().demo!.api_key!, 'service-account': account } });
      earlier.push(`probe ${probe.status} ${(await probe.text()).slice(0, 300)} ${JSON.stringify(await serverStats(deployment().balancer))} alive: ${deployment().services.map((x) => alive(x.pid!)).join(',')}`);
      report = (await engine().sync({ accounts: [account], pull: false })).accounts[0]!;
    }
    if (earlier.length) console.log(`synced after ${earlier.length + 1} runs; before: ${earlier.join(' ')}`);
    expect(report, earlier.join('\n')).toMatchObject({ synced: true, left: 0, rejected: 0 });
  }

  /** The service holds each of the farm's mirrored parcels exactly once, under the id the mirror recorded. */
  async function expectExactlyOnce(farm: FarmRow, n: number): Promise<void> {
    // Read as a client reads: a 503 (the database out of reach for a moment, PgBouncer's server_login_retry right
    // after a failover) is tried again after its Retry-After; any other failure fails the test.
    let r = await demoClient(deployment())('GET', `/api/farms/${farm.server_id}/parcels/`);
    for (const deadline = Date.now() + 15_000; r.status === 503 && Date.now() < deadline;) {
      await new Promise((ok) => setTimeout(ok, Number(r.headers.get('retry-after') ?? 1) * 1000));
      r = await demoClient(deployment())('GET', `/api/farms/${farm.server_id}/parcels/`);
    }
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const features = r.json.features as { id: number; properties: { metadata: { furrow_ref?: string } } }[];
    expect(features).toHaveLength(n);
    expect(new Set(features.map((f) => f.properties.metadata.furrow_ref)).size).toBe(n);
    const local = mirror.read.parcels(farm.local_id);
    expect(local.map((p) => p.server_id).sort()).toEqual(features.map((f) => f.id).sort());
    expect(mirror.read.outbox(account)).toEqual([]);
  }

  /**
   * A fault rule, set through the balancer: the rules are in the database (service/store/postgres/faults.ts), so each
   * use is taken by whichever process meets the request.
   */
  async function fault(body: Record<string, unknown>): Promise<void> {
    const r = await fetch(`${deployment().url}/__faults__`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(r.status, await r.text()).toBeLessThan(300);
  }
  const pendingFaults = async (port: number) => ((await (await fetch(`http://127.0.0.1:${port}/__faults__`)).json()) as { faults: unknown[] }).faults;

  it('504s after commit on several processes, reconciled through the others: every batch once, every fault used', async () => {
    const farm = await farmWithParcels('gateway-timeout', 600);
    // Three of the twelve batches are answered 504 after committing, by whichever processes take them; the engine's
    // reconciling reads go round robin to the others (and to the standby once it has replayed the client's writes).
    await fault({ match: 'POST /api/parcels/', mode: '504-after-commit', count: 3 });
    await expectSynced(engine().sync({ accounts: [account], pull: false }));
    await expectExactlyOnce(farm, 600);
    // Every process sees the one list: all used.
    for (const s of deployment().services) expect(await pendingFaults(s.port)).toEqual([]);
    await fault({ mode: 'reset' });
  }, 120_000);

  it('a process killed mid-sync: HAProxy takes it out, reads are resent, the engine reconciles, nothing lost or duplicated', async () => {
    const d = deployment();
    const farm = await farmWithParcels('killed-process', 1500);
    // Readers all along: a GET whose process dies under it is resent by HAProxy to another, so none fails.
    let reading = true;
    const failedReads: number[] = [];
    const readers = Array.from({ length: 3 }, async () => {
      const call = demoClient(d);
      while (reading) {
        const r = await call('GET', '/api/farms/');
        if (r.status !== 200) failedReads.push(r.status);
      }
    });
    const sync = engine().sync({ accounts: [account], pull: false });
    await new Promise((ok) => setTimeout(ok, 300));
    const victim = d.services[0]!;
    process.kill(victim.pid!, 'SIGKILL');
    await expectSynced(sync);
    for (const deadline = Date.now() + 10_000; (await serverStats(d.balancer))[0]!.status.startsWith('UP');) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((ok) => setTimeout(ok, 100));
    }
    reading = false;
    await Promise.all(readers);
    expect(failedReads).toEqual([]);
    expect((await serverStats(d.balancer)).map((s) => s.status)).toEqual([expect.stringMatching(/^DOWN/), 'UP', 'UP']);
    await expectExactlyOnce(farm, 1500);
  }, 120_000);

  it('a process killed inside a batch\'s transaction while the others go on: the batch rolled back, reconciled and resent, every parcel once', async () => {
    const d = deployment();
    const farm = await farmWithParcels('killed-mid-batch', 300);
    const aliveBefore = d.services.filter((s) => alive(s.pid!)).length;
    // The process that takes the next batch kills itself after writing half its rows, before the commit.
    await fault({ match: 'POST /api/parcels/', mode: 'crash-mid-batch' });
    await expectSynced(engine().sync({ accounts: [account], pull: false }));
    await expectExactlyOnce(farm, 300);
    expect(d.services.filter((s) => alive(s.pid!)).length).toBe(aliveBefore - 1);
    const up = d.services.find((s) => alive(s.pid!))!;
    expect(await pendingFaults(up.port)).toEqual([]);
  }, 120_000);

  it('PgBouncer restarted mid-sync: the processes reconnect, the engine retries, nothing lost or duplicated', async () => {
    const d = deployment();
    const farm = await farmWithParcels('bouncer-restart', 1000);
    const sync = engine().sync({ accounts: [account], pull: false });
    await new Promise((ok) => setTimeout(ok, 300));
    await stopBouncer(d.bouncer);
    await new Promise((ok) => setTimeout(ok, 500));
    await startBouncer(d.bouncer);
    await expectSynced(sync);
    await expectExactlyOnce(farm, 1000);
  }, 120_000);

  it('the primary killed mid-sync and the standby promoted: every acknowledged batch is on the new primary (synchronous replication)', async () => {
    const d = deployment();
    expect(await adminQuery(d.primary, 'SELECT sync_state FROM pg_stat_replication')).toEqual([{ sync_state: 'sync' }]);
    const farm = await farmWithParcels('failover', 1500);
    const sync = engine().sync({ accounts: [account], pull: false });
    await new Promise((ok) => setTimeout(ok, 500));
    await failover(d);
    // The operator is told what runs now, that nothing acknowledged was lost (synchronous), and that no standby is left.
    expect(failoverWords(d)).toMatch(/is the primary now[\s\S]*synchronous: every commit the service acknowledged is on the new primary[\s\S]*There is no standby now/);
    expect(failoverWords({ ...d, options: { ...d.options, synchronous: false } })).toMatch(/asynchronous: commits the standby had not yet received .* are gone.*sync again/);
    // What the engine had acknowledged before the kill: parcels with a server id in the mirror.
    await expectSynced(sync);
    await expectExactlyOnce(farm, 1500);
    const onNew = await adminQuery<{ n: number }>(d.primary, 'SELECT COUNT(*)::int AS n FROM parcels WHERE farm_id = $1', [farm.server_id], DATABASE);
    expect(onNew).toEqual([{ n: 1500 }]);
  }, 120_000);
});
