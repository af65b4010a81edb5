// The sync engine against the real service (a child process on 127.0.0.1, FAULTS=1) and a real mirror file:
// the happy path, batching, server-side and local rejections, the 200-that-is-not-a-success, crash safety
// and undo of a delete. Faults, auth and merging have their own files (faults, auth, conflicts).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FEED, syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { serviceCli } from '../test/helpers/process.ts';
import { as, farmOnService, posts, recordingEngine, refCounts, resetFaults, serviceAccount, serviceFarms, serviceParcels, type Gate, type SentRequest } from '../test/helpers/engine.ts';
import { ACCOUNTS_AT_ONCE } from './engine.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { Mirror } from '../db/mirror.ts';
import { markInFlight } from '../db/op-transitions.ts';
import { parcelBase } from '../db/parcel-state.ts';
import type { FarmRow, OutboxRow, ParcelRow } from '../db/types.ts';
import { parcelInput, parcelStateOfRow } from './state.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });
afterEach(async () => { await resetFaults(w); });

const outboxOf = (account: string): OutboxRow[] => w.mirror.read.outbox(account);

describe('happy path', () => {
  it('a farm with 120 parcels and crops arrives exactly once, in batches of at most 50, ids in the mirror; a second sync sends nothing', async () => {
    const acc = await w.account();
    const farm = w.mirror.write.createFarm(acc, 'Cortijo Grande');
    const inputs = parcelInputs(120, 'hp').map((p, i) => ({ ...(p as object), metadata: { tag: 'hp', i, 'Supplier ID': `S-${i}`, region: i % 2 ? 'norte' : 'sur' } }));
    const { created } = w.mirror.write.createParcels(farm.local_id, inputs);
    expect(created).toHaveLength(120);
    const wheat = w.mirror.write.createCrop(acc, created[0]!.local_id, { name: 'Wheat', campaign: '2024', sowing: '2023-11-01', closure: '2024-06-30', is_active: false, family_name: 'Poaceae' });
    const barley = w.mirror.write.createCrop(acc, created[0]!.local_id, { name: 'Barley', campaign: '2025', sowing: '2024-11-01', area: 1.5, family_name: 'Mis Cereales' });

    const log: SentRequest[] = [];
    const report = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(report.accounts[0]).toMatchObject({ account: acc, synced: true, blocked: null, error: null, rejected: 0, conflicts: 0, left: 0 });

    // Every create carried at most 50 parcels: the farm with its first 50, then the rest in ≤ 50.
    const creates = [...posts(log, '/api/farms/'), ...posts(log, '/api/parcels/')];
    expect(creates.every((r) => r.parcels !== null && r.parcels <= 50)).toBe(true);
    expect(creates.reduce((s, r) => s + (r.parcels ?? 0), 0)).toBe(120);
    expect(posts(log, '/api/farms/')).toHaveLength(1);
    expect(creates).toHaveLength(3); // ⌈120 / 50⌉
    expect(posts(log, '/api/crops/')).toHaveLength(2);

    // The mirror has the service's ids, and nothing left to send.
    const f = w.mirror.read.farm(farm.local_id)!;
    expect(f.server_id).not.toBeNull();
    const rows = w.mirror.read.parcels(farm.local_id);
    expect(rows).toHaveLength(120);
    expect(rows.every((r) => r.server_id !== null && r.key !== null && parcelBase(r) !== null)).toBe(true);
    expect(new Set(rows.map((r) => r.server_id)).size).toBe(120);
    expect(outboxOf(acc)).toEqual([]);
    expect(w.mirror.read.status(acc)).toMatchObject({ pending: 0, in_flight: 0, uncertain: 0, rejected: 0, conflicts: 0, blocked: 0, synced: 1 + 120 + 2 });

    // The service holds exactly those parcels, field by field.
    expect((await serviceFarms(w, acc)).map((x) => ({ id: x.id, name: x.name }))).toEqual([{ id: f.server_id, name: 'Cortijo Grande' }]);
    const remote = await serviceParcels(w, acc, f.server_id!);
    expect(remote).toHaveLength(120);
    const byId = new Map(remote.map((p) => [p.id, p]));
    for (const r of rows) {
      const s = byId.get(r.server_id!)!;
      expect(s, r.name).toBeDefined();
      expect(s.properties.key).toBe(r.key);
      expect(s.properties.name).toBe(r.name);
      expect(s.properties.metadata).toEqual({ ...JSON.parse(r.metadata), furrow_ref: r.local_id });
      expect(s.properties.hectares).toBeCloseTo(r.hectares, 6);
      expect(s.geometry).toEqual(JSON.parse(r.geometry));
      expect(s.properties.source_type).toBe('Polygon');
    }
    expect([...refCounts(remote).values()].every((n) => n === 1)).toBe(true);

    // Crops with their family found (Poaceae, shared) or created (by name) on the service.
    const crops = await w.api('GET', `/api/parcels/${rows[0]!.server_id}/crops/`, undefined, as(acc));
    expect(crops.status).toBe(200);
    const byName = new Map((crops.body as { name: string; id: number; family: { name: string; id: number } | null; campaign: string; sowing: string; closure: string | null; is_active: boolean; area: number | null }[]).map((c) => [c.name, c]));
    expect(byName.size).toBe(2);
    expect(byName.get('Wheat')).toMatchObject({ family: { name: 'Poaceae' }, campaign: '2024', sowing: '2023-11-01', closure: '2024-06-30', is_active: false });
    expect(byName.get('Barley')).toMatchObject({ family: { name: 'Mis Cereales' }, campaign: '2025', sowing: '2024-11-01', area: 1.5, is_active: true });
    const wheatRow = w.mirror.read.crop(wheat.local_id)!;
    const barleyRow = w.mirror.read.crop(barley.local_id)!;
    expect(wheatRow.server_id).toBe(byName.get('Wheat')!.id);
    expect(wheatRow.family_id).toBe(byName.get('Wheat')!.family!.id);
    expect(barleyRow.server_id).toBe(byName.get('Barley')!.id);
    expect(barleyRow.family_id).toBe(byName.get('Barley')!.family!.id);

    // A second sync sends nothing (it only reads).
    const again: SentRequest[] = [];
    const r2 = await recordingEngine(w, again).sync({ accounts: [acc] });
    // Nothing changed on the service, nothing received: it listed the 120 parcels again, or with the change feed none.
    expect(r2.accounts[0]).toMatchObject({ synced: true, sent: 0, committed: 0, pulled: FEED ? 0 : 120, received: 0 });
    expect(again.filter((r) => r.path.startsWith('/api/farms/') && r.path.includes('/parcels/'))).toHaveLength(FEED ? 0 : 1);
    expect(again.filter((r) => r.method !== 'GET')).toEqual([]);
    const onService = await serviceParcels(w, acc, f.server_id!);
    expect(onService).toHaveLength(120);
    expect(w.mirror.read.parcels(farm.local_id)).toHaveLength(120);
    // One parcel renamed and one deleted on the service: the next pull received the one and removed the other.
    expect((await w.api('PATCH', `/api/parcels/${onService[0]!.id}/`, { name: 'Renamed there' }, as(acc))).status).toBe(200);
    expect((await w.api('DELETE', `/api/parcels/${onService[1]!.id}/`, undefined, as(acc))).status).toBe(204);
    expect((await recordingEngine(w, []).sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true, pulled: FEED ? 1 : 119, received: 1, removed: 1 });
  });
});


const opOf = (mirror: Mirror, localId: string): OutboxRow | undefined =>
  mirror.syncDb.prepare("SELECT * FROM outbox WHERE entity = 'parcel' AND local_id = ? ORDER BY id DESC LIMIT 1").get(localId) as OutboxRow | undefined;

describe('many accounts', () => {
  it(`syncs them side by side, never more than ACCOUNTS_AT_ONCE (${ACCOUNTS_AT_ONCE}) at a time, and every one of them`, async () => {
    const accs = await Promise.all(Array.from({ length: ACCOUNTS_AT_ONCE + 2 }, () => w.account()));
    for (const a of accs) w.mirror.write.createFarm(a, `Side by side ${a.slice(-6)}`);
    // Each farm's create is held at the door until ACCOUNTS_AT_ONCE are inside (or 5 s went by): the accounts inside
    // at once are the ones being synced. A fixed 200 ms hold once let them pass one by one on a loaded machine.
    const inside = new Set<string>();
    let most = 0;
    const gate: Gate = async (entry) => {
      if (entry.method !== 'POST' || entry.path !== '/api/farms/') return;
      inside.add(entry.account);
      most = Math.max(most, inside.size);
      for (const until = Date.now() + 5000; most < ACCOUNTS_AT_ONCE && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 50));
      inside.delete(entry.account);
    };
    const r = await recordingEngine(w, [], { gate }).sync({ accounts: accs });
    // Every one of them, once, in the mirror's order of accounts (the accounts above were made side by side, so in
    // whatever order their creation ended).
    expect(r.accounts.map((a) => a.account).sort()).toEqual([...accs].sort());
    expect(r.accounts.every((a) => a.synced)).toBe(true);
    expect(most).toBe(ACCOUNTS_AT_ONCE);
  });
});

describe('rejections', () => {
  it('a parcel only the service refuses (its agreed limit is 5 ha, the mirror believes 100): the other 49 commit, it is rejected with the reason', async () => {
    const { acc, farm } = await farmOnService(w, 'Limited');
    const limited = serviceCli(join(w.dir, 'service'), ['set-parcel-limit', '--account', acc, '--hectares', '5']);
    expect(limited.status, limited.stderr).toBe(0);
    const small = parcelInputs(49, 'lim');
    const big = polygonParcel('big-8ha', -4.5, 37.5, 283); // ≈ 8 ha: fine for the mirror, too big for the service
    const { created } = w.mirror.write.createParcels(farm.local_id, [...small.slice(0, 20), big, ...small.slice(20)]);
    const bigRow = created.find((r) => r.name === 'big-8ha')!;
    expect(bigRow.hectares).toBeGreaterThan(7.5);
    expect(bigRow.hectares).toBeLessThan(98);

    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: false, rejected: 1, committed: 49, error: null, blocked: null });
    // All 50 went together first (the client could not know), the 400 created nothing, the 49 went again.
    expect(posts(log, '/api/parcels/').map((p) => [p.parcels, p.status])).toEqual([[50, 400], [49, 201]]);
    const op = opOf(w.mirror, bigRow.local_id)!;
    expect(op.state).toBe('rejected');
    expect(op.last_error).toMatch(/exceeds the account's limit of 5 ha/);
    // Its place in the refused batch ("Parcel 20: …") means nothing once the reason is the parcel's own.
    expect(op.last_error).not.toMatch(/^Parcel \d+:/);
    expect(w.mirror.read.parcel(bigRow.local_id)!.server_id).toBeNull();

    const remote = await serviceParcels(w, acc, farm.server_id!);
    expect(remote).toHaveLength(49);
    const counts = refCounts(remote);
    expect(counts.has(bigRow.local_id)).toBe(false);
    for (const row of created.filter((c) => c !== bigRow)) {
      expect(counts.get(row.local_id)).toBe(1);
      expect(w.mirror.read.parcel(row.local_id)!.server_id).not.toBeNull();
    }
    expect(w.mirror.read.status(acc)).toMatchObject({ rejected: 1, pending: 0, uncertain: 0 });
  });

  it('a pull learns the agreed limit the service states, so the app checks drawings and imports against it', async () => {
    const { acc } = await farmOnService(w, 'LearnsLimit');
    expect(w.mirror.write.parcelLimit(acc)).toBe(100);
    const cli = (hectares: string) => serviceCli(join(w.dir, 'service'), ['set-parcel-limit', '--account', acc, '--hectares', hectares]);
    expect(cli('6').status).toBe(0);
    await recordingEngine(w, []).sync({ accounts: [acc] });
    expect(w.mirror.write.parcelLimit(acc)).toBe(6);
    // Raised above the default, then back to the default: the mirror follows each time.
    expect(cli('250').status).toBe(0);
    await recordingEngine(w, []).sync({ accounts: [acc] });
    expect(w.mirror.write.parcelLimit(acc)).toBe(250);
    expect(cli('default').status).toBe(0);
    await recordingEngine(w, []).sync({ accounts: [acc] });
    expect(w.mirror.write.parcelLimit(acc)).toBe(100);
  });

  it('a parcel invalid by the mirror\'s own rules is rejected locally and never sent', async () => {
    const { acc, farm } = await farmOnService(w, 'LocalRules');
    const { created } = w.mirror.write.createParcels(farm.local_id, [...parcelInputs(5, 'loc'), polygonParcel('loc-big', -4.4, 37.4, 283)]);
    const bigRow = created.find((r) => r.name === 'loc-big')!;
    // The agreed limit became known after the parcel was drawn: the push validates again.
    w.mirror.write.setParcelLimit(acc, 5);
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ rejected: 1, committed: 5 });
    expect(posts(log, '/api/parcels/').map((p) => [p.parcels, p.status])).toEqual([[5, 201]]);
    const op = opOf(w.mirror, bigRow.local_id)!;
    expect(op).toMatchObject({ state: 'rejected', attempts: 0 });
    expect(op.last_error).toMatch(/limit of 5 ha/);
    expect(refCounts(await serviceParcels(w, acc, farm.server_id!)).has(bigRow.local_id)).toBe(false);
    w.mirror.write.setParcelLimit(acc, null);
  });

  it("'Missing Farm ID' (a 200 that is not a success): nothing committed or created, reported; retry then sync succeeds", async () => {
    const { acc, farm } = await farmOnService(w, 'NoFarmId');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(7, 'mfi'));
    await w.fault('POST /api/parcels/', 'missing-farm-id');
    const r = await recordingEngine(w, []).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: false, committed: 0, rejected: 7 });
    for (const row of created) {
      expect(w.mirror.read.parcel(row.local_id)!.server_id).toBeNull();
      const op = opOf(w.mirror, row.local_id)!;
      expect(op.state).toBe('rejected');
      expect(op.last_error).toContain('Missing Farm ID');
    }
    expect(await serviceParcels(w, acc, farm.server_id!)).toEqual([]);
    expect(w.mirror.read.status(acc)).toMatchObject({ rejected: 7, synced: 1 });

    // `retry` (the CLI's statement) and sync again.
    w.mirror.syncDb.prepare("UPDATE outbox SET state = 'queued', attempts = 0, next_attempt_at = NULL, last_error = NULL WHERE state = 'rejected' AND account_id = ?").run(acc);
    const r2 = await recordingEngine(w, []).sync({ accounts: [acc] });
    expect(r2.accounts[0]).toMatchObject({ synced: true, committed: 7 });
    const remote = await serviceParcels(w, acc, farm.server_id!);
    expect(remote).toHaveLength(7);
    expect([...refCounts(remote).keys()].sort()).toEqual(created.map((c) => c.local_id).sort());
  });
});

describe('crash safety', () => {
  /** A second mirror file on the same service, so the world's mirror stays open for the other tests. */
  async function crashMirror(name: string): Promise<{ file: string; mirror: Mirror; acc: string; farm: FarmRow; rows: ParcelRow[] }> {
    const file = join(w.dir, `${name}.db`);
    const mirror = Mirror.open(file);
    const acc = await serviceAccount(w);
    mirror.write.addAccount({ id: acc, service_url: w.svc.url, mode: 'api_key' });
    const { farm } = await farmOnService(w, name, mirror, acc);
    const { created } = mirror.write.createParcels(farm.local_id, parcelInputs(10, name));
    return { file, mirror, acc, farm, rows: created };
  }

  /** What the engine does before a request: the ops in flight, committed to the file. Returns their ids. */
  function markSent(mirror: Mirror, rows: readonly ParcelRow[]): number[] {
    const ids = rows.map((r) => opOf(mirror, r.local_id)!.id);
    markInFlight(mirror.syncDb, ids, 'batch-before-crash');
    return ids;
  }

  it('in flight at a crash, committed on the service: uncertain on reopen, reconciled with the ids, never resent', async () => {
    const c = await crashMirror('crash-committed');
    const ids = markSent(c.mirror, c.rows);
    // The request reached the service and committed; the process died before writing the answer.
    const res = await w.api('POST', '/api/parcels/', { farm: { id: c.farm.server_id }, parcels: c.rows.map((r) => parcelInput(r.local_id, parcelStateOfRow(r))) }, as(c.acc));
    expect(res.status).toBe(201);
    c.mirror.close();

    const reopened = Mirror.open(c.file);
    try {
      const states = reopened.read.outbox(c.acc).filter((o) => ids.includes(o.id)).map((o) => o.state);
      expect(states).toEqual(ids.map(() => 'uncertain'));
      const log: SentRequest[] = [];
      const r = await recordingEngine(w, log, { mirror: reopened }).sync({ accounts: [c.acc] });
      expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
      expect(posts(log, '/api/parcels/')).toEqual([]);
      const remote = await serviceParcels(w, c.acc, c.farm.server_id!);
      expect(remote).toHaveLength(10);
      for (const row of c.rows) {
        const f = remote.find((p) => p.properties.metadata.furrow_ref === row.local_id)!;
        expect(reopened.read.parcel(row.local_id)!.server_id).toBe(f.id);
      }
      expect([...refCounts(remote).values()].every((n) => n === 1)).toBe(true);
    } finally {
      reopened.close();
    }
  });

  it('in flight at a crash, never reached the service: resent only after settling and a second empty listing, exactly once', async () => {
    const c = await crashMirror('crash-lost');
    markSent(c.mirror, c.rows);
    c.mirror.close();
    const reopened = Mirror.open(c.file);
    try {
      expect(reopened.read.status(c.acc)).toMatchObject({ uncertain: 10, pending: 0, in_flight: 0 });
      const log: SentRequest[] = [];
      const settleMs = 500;
      const r = await recordingEngine(w, log, { mirror: reopened, sync: { settleMs } }).sync({ accounts: [c.acc], pull: false });
      expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
      const sent = posts(log, '/api/parcels/');
      // The whole exchange in the message: a second POST here would be a resend, and how it came about matters.
      expect(sent.map((s) => s.status), JSON.stringify(log)).toEqual([201]);
      const before = log.filter((g) => g.method === 'GET' && g.path.split('?')[0] === `/api/farms/${c.farm.server_id}/parcels/` && g.seq < sent[0]!.seq);
      expect(before.length).toBeGreaterThanOrEqual(2);
      const remote = await serviceParcels(w, c.acc, c.farm.server_id!);
      expect(remote).toHaveLength(10);
      expect([...refCounts(remote).values()].every((n) => n === 1)).toBe(true);
    } finally {
      reopened.close();
    }
  });
});

describe('crash safety on a slow machine', () => {
  it('a batch of unknown outcome settles and is resent as the one batch it was, even when every clock reading is a millisecond later', async () => {
    const file = join(w.dir, 'slow-clock.db');
    const mirror = Mirror.open(file);
    const acc = await serviceAccount(w);
    mirror.write.addAccount({ id: acc, service_url: w.svc.url, mode: 'api_key' });
    const { farm } = await farmOnService(w, 'Slow clock', mirror, acc);
    const { created } = mirror.write.createParcels(farm.local_id, parcelInputs(10, 'slow'));
    markInFlight(mirror.syncDb, created.map((r) => opOf(mirror, r.local_id)!.id), 'batch-before-crash');
    mirror.close();
    const reopened = Mirror.open(file);
    try {
      // Each reading of the clock a millisecond later than the last (a busy machine), sleeping moves it on.
      let t = Date.now();
      const log: SentRequest[] = [];
      const r = await recordingEngine(w, log, { mirror: reopened, sync: { settleMs: 500, now: () => (t += 1), sleep: async (ms) => { t += ms; } } })
        .sync({ accounts: [acc], pull: false });
      expect(r.accounts[0]).toMatchObject({ synced: true, left: 0 });
      expect(posts(log, '/api/parcels/').map((x) => [x.status, x.parcels]), JSON.stringify(log)).toEqual([[201, 10]]);
    } finally {
      reopened.close();
    }
  });
});

describe('undo', () => {
  it('undoing the delete of a synced parcel before syncing deletes nothing on the service', async () => {
    const { acc, farm } = await farmOnService(w, 'Undo');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(3, 'undo'));
    expect((await recordingEngine(w, []).sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    const victim = created[1]!;
    w.mirror.write.deleteParcel(victim.local_id);
    expect(w.mirror.read.parcel(victim.local_id)!.deleted).toBe(1);
    expect(w.mirror.write.undo()).toBe('Delete parcel');
    expect(w.mirror.read.parcel(victim.local_id)!.deleted).toBe(0);

    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true });
    expect(log.filter((l) => l.method === 'DELETE')).toEqual([]);
    const remote = await serviceParcels(w, acc, farm.server_id!);
    expect(remote).toHaveLength(3);
    const mine = w.mirror.read.parcel(victim.local_id)!;
    expect(mine.deleted).toBe(0);
    expect(remote.find((p) => p.id === mine.server_id)?.properties.name).toBe(victim.name);
  });
});
