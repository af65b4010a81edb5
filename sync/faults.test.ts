// The engine under the gateway's and the network's failures, against the real service with injected faults:
// a write whose outcome is unknown is reconciled from GET /api/farms/{id}/parcels/, never blindly resent.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT, syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { fakeClock, farmOnService, pendingFaults, posts, recordingEngine, refCounts, resetFaults, serviceParcels, type SentRequest } from '../test/helpers/engine.ts';
import type { FarmRow, ParcelRow } from '../db/types.ts';
import { summarizeRun } from '../cli/summary.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });
afterEach(async () => { await resetFaults(w); });


/** The service holds each of these parcels exactly once, under the id the mirror recorded, and nothing else. */
async function expectExactlyOnce(acc: string, farm: FarmRow, rows: readonly ParcelRow[]): Promise<void> {
  const remote = await serviceParcels(w, acc, farm.server_id!);
  const counts = refCounts(remote);
  expect(remote).toHaveLength(rows.length);
  for (const r of rows) {
    const now = w.mirror.read.parcel(r.local_id)!;
    expect(counts.get(r.local_id), r.name).toBe(1);
    const onService = remote.find((p) => p.properties.metadata.furrow_ref === r.local_id)!;
    expect(now.server_id).toBe(onService.id);
    expect(now.key).toBe(onService.properties.key);
  }
  expect(w.mirror.read.outbox(acc)).toEqual([]);
}

const listings = (log: readonly SentRequest[], farm: FarmRow) => log.filter((r) => r.method === 'GET' && r.path.split('?')[0] === `/api/farms/${farm.server_id}/parcels/`);

describe('a bulk create whose answer is lost', () => {
  it('504 after commit: reconciled from the farm listing, no duplicate, not resent', async () => {
    const { acc, farm } = await farmOnService(w, 'F504a');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(30, 'a504'));
    await w.fault('POST /api/parcels/', '504-after-commit');
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0, rejected: 0 });
    expect(await pendingFaults(w)).toEqual([]);
    const sent = posts(log, '/api/parcels/');
    expect(sent.map((s) => s.status)).toEqual([504]);
    expect(listings(log, farm).length).toBeGreaterThanOrEqual(1);
    await expectExactlyOnce(acc, farm, created);
  });

  it('504 before commit: an empty listing is not believed at once; after settling and a second empty listing the batch is resent, exactly one copy', async () => {
    const { acc, farm } = await farmOnService(w, 'F504b');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(20, 'b504'));
    await w.fault('POST /api/parcels/', '504-before-commit');
    const log: SentRequest[] = [];
    // The engine's own clock: its settle wait passes at once, and when it resent is read off that clock.
    const clock = fakeClock();
    const settleMs = 60_000;
    const r = await recordingEngine(w, log, { sync: { settleMs, maxWaitMs: 600_000, now: clock.now, sleep: clock.sleep } }).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    const sent = posts(log, '/api/parcels/');
    expect(sent.map((s) => s.status)).toEqual([504, 201]);
    // Two empty listings between the 504 and the resend, the resend only once the settle time had passed.
    const checks = listings(log, farm).filter((g) => g.seq > sent[0]!.seq && g.seq < sent[1]!.seq);
    expect(checks.map((c) => c.status)).toEqual([200, 200]);
    expect(checks[0]!.time - sent[0]!.time).toBeGreaterThanOrEqual(settleMs);
    expect(sent[1]!.time - sent[0]!.time).toBeGreaterThanOrEqual(settleMs);
    await expectExactlyOnce(acc, farm, created);
  });

  it('connection dropped after the commit: reconciled, no duplicate', async () => {
    const { acc, farm } = await farmOnService(w, 'Fdrop');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(25, 'drop'));
    await w.fault('POST /api/parcels/', 'drop-after-commit');
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    // Behind the deployment's HAProxy the client meets the balancer's 502 for the connection the process dropped.
    expect(posts(log, '/api/parcels/').map((s) => s.status)).toEqual([DEPLOYMENT ? 502 : 'network']);
    await expectExactlyOnce(acc, farm, created);
  });

  it('a response slower than the client timeout: uncertain, then reconciled without a duplicate', async () => {
    const { acc, farm } = await farmOnService(w, 'Fslow');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(10, 'slow'));
    // The service sleeps 1.5 s and then commits; the client gives up after 300 ms. Settling (2 s) outlasts the delay.
    await w.fault('POST /api/parcels/', 'delay', { ms: 1500 });
    const log: SentRequest[] = [];
    const states: string[] = [];
    const engine = recordingEngine(w, log, {
      timeoutMs: 300,
      sync: {
        settleMs: 2000,
        onProgress: (e) => {
          if (e.phase === 'reconcile') states.push(...w.mirror.read.outbox(acc).map((o) => o.state));
        },
      },
    });
    const r = await engine.sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    expect(posts(log, '/api/parcels/').map((s) => s.status)).toEqual(['network']);
    expect(states).toContain('uncertain');
    await expectExactlyOnce(acc, farm, created);
  });

  it('503 with Retry-After: refused before any work, retried after the wait, no duplicate', async () => {
    const { acc, farm } = await farmOnService(w, 'F503');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(12, 'e503'));
    await w.fault('POST /api/parcels/', 'error', { status: 503, retry_after: 30 });
    const log: SentRequest[] = [];
    const clock = fakeClock();
    const r = await recordingEngine(w, log, { sync: { maxWaitMs: 600_000, now: clock.now, sleep: clock.sleep } }).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    const sent = posts(log, '/api/parcels/');
    expect(sent.map((s) => s.status)).toEqual([503, 201]);
    // The engine waited what Retry-After asked (30 s of its clock), then sent again.
    expect(clock.slept).toEqual([30_000]);
    expect(sent[1]!.time - sent[0]!.time).toBe(30_000);
    // A refusal is not an uncertain send: no listing was needed before the retry.
    expect(listings(log, farm).filter((g) => g.seq < sent[1]!.seq)).toEqual([]);
    await expectExactlyOnce(acc, farm, created);
  });

  it('408 (the request did not arrive whole in time): nothing was done, sent again, never rejected', async () => {
    const { acc, farm } = await farmOnService(w, 'F408');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(6, 'e408'));
    await w.fault('POST /api/parcels/', 'error', { status: 408, count: 1 });
    const log: SentRequest[] = [];
    const clock = fakeClock();
    const r = await recordingEngine(w, log, { sync: { maxWaitMs: 600_000, now: clock.now, sleep: clock.sleep } }).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0, rejected: 0 });
    expect(posts(log, '/api/parcels/').map((s) => s.status)).toEqual([408, 201]);
    await expectExactlyOnce(acc, farm, created);
  });

  it("507, the service's disk full: a certain refusal, waited for (Retry-After) and sent again; the run says why if it ends first", async () => {
    const { acc, farm } = await farmOnService(w, 'F507');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(12, 'e507'));
    await w.fault('POST /api/parcels/', 'error', { status: 507, retry_after: 60, count: 1 });
    const log: SentRequest[] = [];
    const clock = fakeClock();
    const r = await recordingEngine(w, log, { sync: { maxWaitMs: 600_000, now: clock.now, sleep: clock.sleep } }).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0, rejected: 0 });
    const sent = posts(log, '/api/parcels/');
    expect(sent.map((s) => s.status)).toEqual([507, 201]);
    expect(clock.slept).toEqual([60_000]);
    // Not an uncertain outcome: nothing was listed to reconcile before the batch went again.
    expect(listings(log, farm).filter((g) => g.seq < sent[1]!.seq)).toEqual([]);
    await expectExactlyOnce(acc, farm, created);

    // Still full when the run's wait is over: every change waits, none refused or uncertain, and the run says why.
    const more = w.mirror.write.createParcels(farm.local_id, parcelInputs(5, 'f507')).created;
    await w.fault('POST /api/parcels/', 'error', { status: 507, retry_after: 60, count: 100 });
    const r2 = await recordingEngine(w, [], { sync: { maxWaitMs: 100_000, now: clock.now, sleep: clock.sleep } }).sync({ accounts: [acc], pull: false });
    expect(r2.accounts[0]).toMatchObject({ synced: false, left: 5, rejected: 0, error: null });
    // The service's own words (here the fault's; a real full disk says so: test/e2e/disk-full.test.ts).
    expect(r2.accounts[0]!.waitingWhy).toMatch(/Injected fault 507/);
    const ops = w.mirror.read.outbox(acc).filter((o) => more.some((p) => p.local_id === o.local_id));
    expect(ops.map((o) => o.state)).toEqual(['queued', 'queued', 'queued', 'queued', 'queued']);
    expect(summarizeRun(r2, w.mirror).out.join('\n')).toMatch(/5 changes still waiting, none lost \(.*Injected fault 507.*\)\./);
  });

  it('a farm create with a 504 after commit: the farm and its parcels are adopted, not created twice', async () => {
    const acc = await w.account();
    const local = w.mirror.write.createFarm(acc, 'Adopted');
    const { created } = w.mirror.write.createParcels(local.local_id, parcelInputs(8, 'farm504'));
    await w.fault('POST /api/farms/', '504-after-commit');
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    expect(posts(log, '/api/farms/').map((s) => s.status)).toEqual([504]);
    const farms = (await w.api('GET', '/api/farms/', undefined, { 'service-account': acc })).body as { id: number; name: string }[];
    expect(farms).toHaveLength(1);
    const farm = w.mirror.read.farm(local.local_id)!;
    expect(farm.server_id).toBe(farms[0]!.id);
    await expectExactlyOnce(acc, farm, created);
  });

  it('a farm create with a 504 before commit: after settling it is sent again, one farm on the service', async () => {
    const acc = await w.account();
    const local = w.mirror.write.createFarm(acc, 'Resent farm');
    const { created } = w.mirror.write.createParcels(local.local_id, parcelInputs(4, 'farm504b'));
    await w.fault('POST /api/farms/', '504-before-commit');
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    expect(posts(log, '/api/farms/').map((s) => s.status)).toEqual([504, 201]);
    const farms = (await w.api('GET', '/api/farms/', undefined, { 'service-account': acc })).body as { id: number }[];
    expect(farms).toHaveLength(1);
    const farm = w.mirror.read.farm(local.local_id)!;
    expect(farm.server_id).toBe(farms[0]!.id);
    await expectExactlyOnce(acc, farm, created);
  });
});

describe('waiting within one run', () => {
  it('a crop waiting for a parcel of an uncertain batch does not end the run: the batch settles and the crop follows', async () => {
    const { acc, farm } = await farmOnService(w, 'Crop waits');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(5, 'waits'));
    const crop = w.mirror.write.createCrop(acc, created[2]!.local_id, { name: 'Rye', campaign: '2025' });
    await w.fault('POST /api/parcels/', '504-after-commit');
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    expect(posts(log, '/api/parcels/').map((s) => s.status)).toEqual([504]);
    expect(posts(log, '/api/crops/').map((s) => s.status)).toEqual([201]);
    await expectExactlyOnce(acc, farm, created);
    expect(w.mirror.read.crop(crop.local_id)!.server_id).not.toBeNull();
  });
});

describe('a crop create whose answer is lost (no reference: found by its fields)', () => {
  async function cropsOn(acc: string, parcelServerId: number) {
    const r = await w.api('GET', `/api/parcels/${parcelServerId}/crops/`, undefined, { 'service-account': acc });
    return r.body as { id: number; name: string }[];
  }

  it('504 after commit: adopted, not created twice', async () => {
    const { acc, farm } = await farmOnService(w, 'Crop504a');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(1, 'c504a'));
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    const p = w.mirror.read.parcel(created[0]!.local_id)!;
    const crop = w.mirror.write.createCrop(acc, p.local_id, { name: 'Maize', campaign: '2025', sowing: '2025-04-01', area: 2.5, family_name: 'Poaceae' });
    await w.fault('POST /api/crops/', '504-after-commit');
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0, conflicts: 0 });
    expect(posts(log, '/api/crops/').map((s) => s.status)).toEqual([504]);
    const remote = await cropsOn(acc, p.server_id!);
    expect(remote.map((c) => c.name)).toEqual(['Maize']);
    expect(w.mirror.read.crop(crop.local_id)!.server_id).toBe(remote[0]!.id);
  });

  it('504 before commit: sent again once settled, exactly one crop', async () => {
    const { acc, farm } = await farmOnService(w, 'Crop504b');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(1, 'c504b'));
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    const p = w.mirror.read.parcel(created[0]!.local_id)!;
    const crop = w.mirror.write.createCrop(acc, p.local_id, { name: 'Oats', campaign: '2025', sowing: '2025-02-01' });
    await w.fault('POST /api/crops/', '504-before-commit');
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    expect(posts(log, '/api/crops/').map((s) => s.status)).toEqual([504, 201]);
    const remote = await cropsOn(acc, p.server_id!);
    expect(remote.map((c) => c.name)).toEqual(['Oats']);
    expect(w.mirror.read.crop(crop.local_id)!.server_id).toBe(remote[0]!.id);
  });
});

describe('a delete after an uncertain create', () => {
  it('the parcel the user deleted while its create was uncertain ends up nowhere, and is not created to be deleted', async () => {
    const { acc, farm } = await farmOnService(w, 'Deleted while uncertain');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(3, 'del-unc'));
    await w.fault('POST /api/parcels/', '504-before-commit');
    // The run gives up before settling: the batch stays uncertain.
    const first = await recordingEngine(w, [], { sync: { maxWaitMs: 0 } }).sync({ accounts: [acc], pull: false });
    expect(first.accounts[0]!.left).toBe(3);
    expect(w.mirror.read.status(acc).uncertain).toBe(3);
    const gone = created[0]!;
    w.mirror.write.deleteParcel(gone.local_id);

    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
    expect(w.mirror.read.parcel(gone.local_id)).toBeUndefined();
    const remote = await serviceParcels(w, acc, farm.server_id!);
    expect(refCounts(remote).has(gone.local_id)).toBe(false);
    expect(remote).toHaveLength(2);
    expect(posts(log, '/api/parcels/').map((p) => p.parcels)).toEqual([2]);
    expect(log.filter((l) => l.method === 'DELETE')).toEqual([]);
  });
});
