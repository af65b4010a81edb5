// Settling an edit conflict field by field: the pure merge, and end to end against the real service — the row takes
// the fields chosen, the next sync sends only what was kept from mine, and both sides then agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { as, recordingEngine, serviceParcels, type SentRequest } from '../test/helpers/engine.ts';
import { resolveConflict } from './conflicts.ts';
import { FieldChoiceError, chooseCropFields, chooseParcelFields } from './conflict-fields.ts';
import type { CropState, FarmRow, ParcelRow, ParcelState } from '../db/types.ts';

const square = (d: number): ParcelState['geometry'] => ({ type: 'Polygon', coordinates: [[[-3, 40], [-3 + d, 40], [-3 + d, 40 + d], [-3, 40 + d], [-3, 40]]] });
const mine: ParcelState = { name: 'Mine', metadata: { furrow_ref: 'r1', region: 'norte', crop: 'olive', only_mine: 1 }, geometry: square(0.001), source_type: 'Polygon', point: null, hectares: 1.1 };
const theirs: ParcelState = { name: 'Theirs', metadata: { furrow_ref: 'r1', region: 'este', crop: 'olive', only_theirs: true }, geometry: square(0.002), source_type: 'Polygon', point: null, hectares: 4.4 };

describe('merging two sides of a parcel, field by field', () => {
  it('takes each named field from its side and the rest from `rest`; a key the chosen side lacks is removed', () => {
    const m = chooseParcelFields(mine, theirs, { name: 'theirs', 'metadata.region': 'mine', 'metadata.only_theirs': 'mine' }, 'mine');
    expect(m.name).toBe('Theirs');
    expect(m.metadata).toEqual({ furrow_ref: 'r1', region: 'norte', crop: 'olive', only_mine: 1 });
    expect(m.geometry).toBe(mine.geometry);
    const t = chooseParcelFields(mine, theirs, { 'metadata.only_mine': 'mine' }, 'theirs');
    expect(t.metadata).toEqual({ furrow_ref: 'r1', region: 'este', crop: 'olive', only_mine: 1, only_theirs: true });
  });

  it('moves the shape as one field: geometry with its hectares, source type and point', () => {
    const m = chooseParcelFields(mine, { ...theirs, source_type: 'Point', point: [-3, 40] }, { geometry: 'theirs' }, 'mine');
    expect([m.geometry, m.hectares, m.source_type, m.point]).toEqual([theirs.geometry, 4.4, 'Point', [-3, 40]]);
    expect(m.name).toBe('Mine');
  });

  it('refuses a field the parcel does not have, and keeps the client reference whatever the choices', () => {
    expect(() => chooseParcelFields(mine, theirs, { 'metadata.nope': 'mine' }, 'mine')).toThrow(FieldChoiceError);
    expect(() => chooseParcelFields(mine, theirs, { hectares: 'mine' }, 'mine')).toThrow(/not a field/);
    expect(() => chooseParcelFields(mine, theirs, { 'metadata.furrow_ref': 'theirs' }, 'mine')).toThrow(FieldChoiceError);
    expect(chooseParcelFields(mine, { ...theirs, metadata: { region: 'x' } }, {}, 'theirs').metadata).toEqual({ furrow_ref: 'r1', region: 'x' });
  });

  it('a crop by its columns', () => {
    const a: CropState = { name: 'Wheat', campaign: '2025/26', area: 3, variety: 'A', harvested_qty: null, sowing: '2025-10-01', closure: null, is_active: true, family_id: 1 };
    const b: CropState = { ...a, variety: 'B', harvested_qty: 12, closure: '2026-07-01', is_active: false };
    expect(chooseCropFields(a, b, { variety: 'mine' }, 'theirs')).toEqual({ ...b, variety: 'A' });
    expect(chooseCropFields(a, b, { harvested_qty: 'theirs', closure: 'theirs' }, 'mine')).toEqual({ ...a, harvested_qty: 12, closure: '2026-07-01' });
    expect(() => chooseCropFields(a, b, { colour: 'mine' }, 'mine')).toThrow(FieldChoiceError);
  });
});

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

interface Synced { acc: string; farm: FarmRow; row: ParcelRow }
async function conflicted(name: string): Promise<Synced & { conflict: number }> {
  const acc = await w.account();
  const farm = w.mirror.write.createFarm(acc, name);
  const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(1, name).map((p) => ({ ...(p as object), name: 'Original', metadata: { region: 'sur', crop: 'olive' } })));
  expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
  const row = w.mirror.read.parcel(created[0]!.local_id)!;
  // Both sides edit the name and the region; only I edit the crop, only they add a contract year.
  w.mirror.write.updateParcel(row.local_id, { name: 'Mine', metadata: { region: 'norte', crop: 'almond' } });
  const r = await w.api('PATCH', `/api/parcels/${row.server_id}/`, { name: 'Theirs', metadata: { region: 'este', crop: 'olive', contract: '2026', furrow_ref: row.local_id } }, as(acc));
  expect(r.status).toBe(200);
  expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: false });
  const c = w.mirror.read.conflicts().find((x) => x.local_id === row.local_id)!;
  expect(c.kind).toBe('edit');
  return { acc, farm: w.mirror.read.farm(farm.local_id)!, row, conflict: c.id };
}

const onService = async (s: Synced) => (await serviceParcels(w, s.acc, s.farm.server_id!)).find((p) => p.id === s.row.server_id)!;

describe('an edit conflict settled field by field', () => {
  it('their name, my region, the rest mine: the next sync sends that, and both sides then hold it', async () => {
    const s = await conflicted('Fields mixed');
    resolveConflict(w.mirror.syncDb, s.conflict, 'mine', { name: 'theirs', 'metadata.region': 'mine' });
    const here = w.mirror.read.parcel(s.row.local_id)!;
    expect(here.name).toBe('Theirs');
    // 'contract' exists only on theirs and the rest is mine: it goes.
    expect(JSON.parse(here.metadata)).toEqual({ region: 'norte', crop: 'almond' });
    const log: SentRequest[] = [];
    const r = (await recordingEngine(w, log).sync({ accounts: [s.acc] })).accounts[0]!;
    expect(r).toMatchObject({ synced: true, conflicts: 0 });
    expect(log.filter((l) => l.method === 'PATCH')).toHaveLength(1);
    const remote = await onService(s);
    expect(remote.properties.name).toBe('Theirs');
    expect(remote.properties.metadata).toEqual({ region: 'norte', crop: 'almond', furrow_ref: s.row.local_id });
    expect(w.mirror.read.conflicts().filter((c) => c.local_id === s.row.local_id)).toEqual([]);
  });

  it('every differing field taken from the service is keep theirs: nothing is sent', async () => {
    const s = await conflicted('Fields theirs');
    resolveConflict(w.mirror.syncDb, s.conflict, 'theirs', { name: 'theirs', 'metadata.region': 'theirs' });
    const log: SentRequest[] = [];
    const r = (await recordingEngine(w, log).sync({ accounts: [s.acc] })).accounts[0]!;
    expect(r).toMatchObject({ synced: true });
    expect(log.filter((l) => l.method === 'PATCH')).toEqual([]);
    const { furrow_ref: _ref, ...kept } = JSON.parse(w.mirror.read.parcel(s.row.local_id)!.metadata) as Record<string, unknown>;
    expect(kept).toEqual({ region: 'este', crop: 'olive', contract: '2026' });
    expect(w.mirror.read.parcel(s.row.local_id)!.name).toBe('Theirs');
  });

  it('a field the parcel does not have is refused and changes nothing: the conflict stays open', async () => {
    const s = await conflicted('Fields refused');
    const before = w.mirror.read.parcel(s.row.local_id)!;
    expect(() => resolveConflict(w.mirror.syncDb, s.conflict, 'mine', { 'metadata.colour': 'theirs' })).toThrow(FieldChoiceError);
    expect(w.mirror.read.parcel(s.row.local_id)).toEqual(before);
    expect(w.mirror.read.conflicts().map((c) => c.id)).toContain(s.conflict);
  });
});
