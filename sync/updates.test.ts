// An update whose PATCH landed on the service but whose answer was lost (a crash, a timeout), followed by another
// local edit of the same thing: the next sync must send the new edit, not report a conflict between the user's two
// edits. Found by the chaos test (a SIGKILL while a slow PATCH was out).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { as, eventually, recordingEngine, resetFaults, type SentRequest } from '../test/helpers/engine.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });
afterEach(async () => { await resetFaults(w); });

/** A sync whose PATCH goes out, lands 1.5 s later, and whose answer the engine never gets (it stops at once). */
async function patchLostAnswer(acc: string, match: string): Promise<void> {
  await w.fault(match, 'delay', { ms: 1500 });
  const log: SentRequest[] = [];
  const r = await recordingEngine(w, log, { timeoutMs: 300, sync: { retryBudget: 0 } }).sync({ accounts: [acc], pull: false });
  expect(r.accounts[0]!.error).toMatch(/retry budget/);
  expect(log.filter((l) => l.method === 'PATCH').map((l) => l.status)).toEqual(['network']);
}

async function synced(acc: string): Promise<void> {
  const r = await w.engine().sync({ accounts: [acc] });
  expect(r.accounts[0]).toMatchObject({ synced: true, conflicts: 0 });
  expect(w.mirror.read.conflicts().filter((c) => c.account_id === acc)).toEqual([]);
}

describe('an edit made after a PATCH whose answer was lost', () => {
  it('parcel: the second rename reaches the service, no conflict', async () => {
    const acc = await w.account();
    const farm = w.mirror.write.createFarm(acc, 'Lost answers');
    const [p] = w.mirror.write.createParcels(farm.local_id, parcelInputs(1, 'lost')).created;
    await synced(acc);
    const id = w.mirror.read.parcel(p!.local_id)!.server_id!;
    w.mirror.write.updateParcel(p!.local_id, { name: 'first rename' });
    await patchLostAnswer(acc, 'PATCH /api/parcels/*');
    await eventually(async () => (await w.api('GET', `/api/parcels/${id}/`, undefined, as(acc))).body.properties.name === 'first rename');
    w.mirror.write.updateParcel(p!.local_id, { name: 'second rename', metadata: { tag: 'lost', i: 0, note: 'again' } });
    await synced(acc);
    const remote = (await w.api('GET', `/api/parcels/${id}/`, undefined, as(acc))).body;
    expect([remote.properties.name, remote.properties.metadata.note]).toEqual(['second rename', 'again']);
  });

  it('farm: the second rename reaches the service, no conflict', async () => {
    const acc = await w.account();
    const farm = w.mirror.write.createFarm(acc, 'Farm before');
    await synced(acc);
    const id = w.mirror.read.farm(farm.local_id)!.server_id!;
    w.mirror.write.renameFarm(farm.local_id, 'Farm first');
    await patchLostAnswer(acc, 'PATCH /api/farms/*');
    await eventually(async () => (await w.api('GET', `/api/farms/${id}/`, undefined, as(acc))).body.name === 'Farm first');
    w.mirror.write.renameFarm(farm.local_id, 'Farm second');
    await synced(acc);
    expect((await w.api('GET', `/api/farms/${id}/`, undefined, as(acc))).body.name).toBe('Farm second');
  });

  it('crop: the second edit reaches the service, no conflict', async () => {
    const acc = await w.account();
    const farm = w.mirror.write.createFarm(acc, 'Crop farm');
    const [p] = w.mirror.write.createParcels(farm.local_id, parcelInputs(1, 'crop')).created;
    const crop = w.mirror.write.createCrop(acc, p!.local_id, { name: 'Wheat', campaign: '2025', area: 1 });
    await synced(acc);
    const id = w.mirror.read.crop(crop.local_id)!.server_id!;
    w.mirror.write.updateCrop(crop.local_id, { variety: 'Florence' });
    await patchLostAnswer(acc, 'PATCH /api/crops/*');
    await eventually(async () => (await w.api('GET', `/api/crops/${id}/`, undefined, as(acc))).body.variety === 'Florence');
    w.mirror.write.updateCrop(crop.local_id, { variety: 'Aurelio' });
    await synced(acc);
    expect((await w.api('GET', `/api/crops/${id}/`, undefined, as(acc))).body.variety).toBe('Aurelio');
  });
});

/** Starts a sync whose PATCH matching `match` waits 1.5 s on the service; resolves once that PATCH is out. */
async function syncWithSlowPatch(acc: string, match: string): Promise<Promise<unknown>> {
  await w.fault(match, 'delay', { ms: 1500 });
  const log: SentRequest[] = [];
  const engine = recordingEngine(w, log, { timeoutMs: 5_000 });
  const done = engine.sync({ accounts: [acc], pull: false });
  await eventually(async () => w.mirror.read.outbox(acc).some((o) => o.state === 'in_flight'));
  return done;
}

describe('an edit made while the PATCH is out', () => {
  it('farm: the update is marked in flight, the answer does not overwrite the newer name, which goes next', async () => {
    const acc = await w.account();
    const farm = w.mirror.write.createFarm(acc, 'Farm v0');
    await synced(acc);
    const id = w.mirror.read.farm(farm.local_id)!.server_id!;
    w.mirror.write.renameFarm(farm.local_id, 'Farm v1');
    const done = await syncWithSlowPatch(acc, 'PATCH /api/farms/*');
    w.mirror.write.renameFarm(farm.local_id, 'Farm v2');
    await done;
    expect(w.mirror.read.farm(farm.local_id)!.name).toBe('Farm v2');
    expect((await w.api('GET', `/api/farms/${id}/`, undefined, as(acc))).body.name).toBe('Farm v1');
    expect(w.mirror.read.outbox(acc).filter((o) => o.entity === 'farm' && o.op === 'update' && o.state === 'queued').length).toBeGreaterThan(0);
    await synced(acc);
    expect((await w.api('GET', `/api/farms/${id}/`, undefined, as(acc))).body.name).toBe('Farm v2');
  });

  it('crop: the update is marked in flight, the answer does not overwrite the newer variety, which goes next', async () => {
    const acc = await w.account();
    const farm = w.mirror.write.createFarm(acc, 'Crop race');
    const [p] = w.mirror.write.createParcels(farm.local_id, parcelInputs(1, 'race')).created;
    const crop = w.mirror.write.createCrop(acc, p!.local_id, { name: 'Barley', campaign: '2025', area: 1 });
    await synced(acc);
    const id = w.mirror.read.crop(crop.local_id)!.server_id!;
    w.mirror.write.updateCrop(crop.local_id, { variety: 'Planet' });
    const done = await syncWithSlowPatch(acc, 'PATCH /api/crops/*');
    w.mirror.write.updateCrop(crop.local_id, { variety: 'Laureate' });
    await done;
    expect(w.mirror.read.crop(crop.local_id)!.variety).toBe('Laureate');
    expect((await w.api('GET', `/api/crops/${id}/`, undefined, as(acc))).body.variety).toBe('Planet');
    await synced(acc);
    expect((await w.api('GET', `/api/crops/${id}/`, undefined, as(acc))).body.variety).toBe('Laureate');
  });
});

describe('a PATCH answered 404 (deleted on the service between the GET and the PATCH)', () => {
  it.each([
    ['farm', 'PATCH /api/farms/*'],
    ['crop', 'PATCH /api/crops/*'],
  ] as const)('%s: a remote_delete conflict keeping the local edit, not a rejection', async (entity, match) => {
    const acc = await w.account();
    const farm = w.mirror.write.createFarm(acc, `Gone ${entity}`);
    const [p] = w.mirror.write.createParcels(farm.local_id, parcelInputs(1, `gone-${entity}`)).created;
    const crop = w.mirror.write.createCrop(acc, p!.local_id, { name: 'Oats', campaign: '2025', area: 1 });
    await synced(acc);
    const localId = entity === 'farm' ? farm.local_id : crop.local_id;
    if (entity === 'farm') w.mirror.write.renameFarm(farm.local_id, 'Renamed here');
    else w.mirror.write.updateCrop(crop.local_id, { variety: 'Here' });
    await w.fault(match, 'error', { status: 404 });
    await w.engine().sync({ accounts: [acc], pull: false });
    const c = w.mirror.read.conflicts().filter((x) => x.account_id === acc);
    expect(c.map((x) => [x.entity, x.local_id, x.kind])).toEqual([[entity, localId, 'remote_delete']]);
    expect(w.mirror.read.outbox(acc).some((o) => o.state === 'rejected')).toBe(false);
    if (entity === 'farm') expect(w.mirror.read.farm(localId)!.name).toBe('Renamed here');
    else expect(w.mirror.read.crop(localId)!.variety).toBe('Here');
  });
});

describe('an edit made while a create was out', () => {
  it('a create whose answer was lost, then a rename: reconciled, the rename reaches the service and stays here', async () => {
    const acc = await w.account();
    const farm = w.mirror.write.createFarm(acc, 'Uncertain creates');
    await synced(acc);
    const [p] = w.mirror.write.createParcels(farm.local_id, parcelInputs(1, 'unc')).created;
    await synced(acc);
    // As if the 201 had been lost (a crash before it was booked): the create on the service, uncertain here.
    const db = w.mirror.syncDb;
    db.prepare('UPDATE parcels SET server_id = NULL, key = NULL WHERE local_id = ?').run(p!.local_id);
    db.prepare("UPDATE outbox SET state = 'uncertain', attempts = 1, uncertain_at = '2000-01-01T00:00:00.000Z', next_attempt_at = NULL WHERE local_id = ? AND op = 'create'").run(p!.local_id);
    w.mirror.write.updateParcel(p!.local_id, { name: 'renamed while uncertain' });
    await synced(acc);
    const row = w.mirror.read.parcel(p!.local_id)!;
    expect(row.name).toBe('renamed while uncertain');
    expect((await w.api('GET', `/api/parcels/${row.server_id}/`, undefined, as(acc))).body.properties.name).toBe('renamed while uncertain');
  });
});
