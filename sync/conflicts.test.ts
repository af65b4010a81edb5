// Pull and three-way merge end to end, against the real service: edits on both sides merge per metadata key,
// overlapping edits and remote deletes of edited parcels become conflicts (nothing overwritten on either side)
// that keep mine / keep theirs settles, and remote-only changes, rotations and plants arrive in the mirror.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { serviceCli } from '../test/helpers/process.ts';
import { as, recordingEngine, refCounts, serviceParcels, type SentRequest, type ServiceParcel } from '../test/helpers/engine.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { resolveConflict } from './conflicts.ts';
import { parcelBase } from '../db/parcel-state.ts';
import type { FarmRow, ParcelRow } from '../db/types.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

interface Synced { acc: string; farm: FarmRow; rows: ParcelRow[] }

/** An account with a farm of n parcels, synced both ways. */
async function synced(name: string, n: number): Promise<Synced> {
  const acc = await w.account();
  const farm = w.mirror.write.createFarm(acc, name);
  const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(n, name).map((p, i) => ({ ...(p as object), metadata: { region: 'sur', crop_type: 'olive', i } })));
  const r = await w.engine().sync({ accounts: [acc] });
  expect(r.accounts[0]).toMatchObject({ synced: true });
  return { acc, farm: w.mirror.read.farm(farm.local_id)!, rows: created.map((c) => w.mirror.read.parcel(c.local_id)!) };
}

const meta = (row: ParcelRow) => JSON.parse(row.metadata) as Record<string, unknown>;
const local = (row: ParcelRow) => w.mirror.read.parcel(row.local_id)!;

async function remote(s: Synced, row: ParcelRow): Promise<ServiceParcel | undefined> {
  return (await serviceParcels(w, s.acc, s.farm.server_id!)).find((p) => p.id === row.server_id);
}

/** An edit made by someone else on the service (PATCH replaces the whole metadata: the reference is kept). */
async function remoteEdit(s: Synced, row: ParcelRow, patch: { name?: string; metadata?: Record<string, unknown> }): Promise<void> {
  const body: Record<string, unknown> = { ...patch };
  if (patch.metadata) body.metadata = { ...patch.metadata, furrow_ref: row.local_id };
  const r = await w.api('PATCH', `/api/parcels/${row.server_id}/`, body, as(s.acc));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

const openConflicts = (localId: string) => w.mirror.read.conflicts().filter((c) => c.local_id === localId);

async function sync(s: Synced, log: SentRequest[] = []) {
  return (await recordingEngine(w, log).sync({ accounts: [s.acc] })).accounts[0]!;
}

describe('three-way merge of parcel edits', () => {
  it('different metadata keys edited on each side: both kept on both sides, no conflict', async () => {
    const s = await synced('Merge keys', 2);
    const p = s.rows[0]!;
    w.mirror.write.updateParcel(p.local_id, { metadata: { ...meta(p), certification: 'organic' } });
    await remoteEdit(s, p, { metadata: { ...meta(p), contract_year: '2025' } });
    const r = await sync(s);
    expect(r).toMatchObject({ synced: true, conflicts: 0 });
    const expected = { ...meta(p), certification: 'organic', contract_year: '2025' };
    expect(meta(local(p))).toEqual(expected);
    expect((await remote(s, p))!.properties.metadata).toEqual({ ...expected, furrow_ref: p.local_id });
    expect(openConflicts(p.local_id)).toEqual([]);
  });

  it('the same key edited differently: a conflict, nothing overwritten on either side; keep mine then sync → both agree', async () => {
    const s = await synced('Merge clash mine', 2);
    const p = s.rows[0]!;
    w.mirror.write.updateParcel(p.local_id, { metadata: { ...meta(p), region: 'norte' } });
    await remoteEdit(s, p, { metadata: { ...meta(p), region: 'este' } });
    const log: SentRequest[] = [];
    const r = await sync(s, log);
    expect(r).toMatchObject({ synced: false });
    expect(log.filter((l) => l.method === 'PATCH')).toEqual([]);
    const [c, ...more] = openConflicts(p.local_id);
    expect(more).toEqual([]);
    expect(c).toMatchObject({ kind: 'edit', entity: 'parcel', account_id: s.acc });
    expect(JSON.parse(c!.fields)).toEqual(['metadata.region']);
    expect(meta(local(p)).region).toBe('norte');
    expect((await remote(s, p))!.properties.metadata.region).toBe('este');
    expect(w.mirror.read.outbox(s.acc).map((o) => o.state)).toEqual(['conflict']);

    // A second sync neither overwrites nor records the conflict twice.
    await sync(s);
    expect(openConflicts(p.local_id)).toHaveLength(1);
    expect(meta(local(p)).region).toBe('norte');
    expect((await remote(s, p))!.properties.metadata.region).toBe('este');

    resolveConflict(w.mirror.syncDb, c!.id, 'mine');
    const r2 = await sync(s);
    expect(r2).toMatchObject({ synced: true });
    expect(meta(local(p)).region).toBe('norte');
    expect((await remote(s, p))!.properties.metadata).toEqual({ ...meta(p), region: 'norte', furrow_ref: p.local_id });
    expect(openConflicts(p.local_id)).toEqual([]);
  });

  it('keep theirs: the service version replaces the local one and nothing is sent', async () => {
    const s = await synced('Merge clash theirs', 1);
    const p = s.rows[0]!;
    w.mirror.write.updateParcel(p.local_id, { name: 'local name', metadata: { ...meta(p), region: 'norte' } });
    await remoteEdit(s, p, { name: 'remote name', metadata: { ...meta(p), region: 'este' } });
    await sync(s);
    const [c] = openConflicts(p.local_id);
    expect(JSON.parse(c!.fields)).toEqual(['name', 'metadata.region']);
    resolveConflict(w.mirror.syncDb, c!.id, 'theirs');
    expect(local(p).name).toBe('remote name');
    const log: SentRequest[] = [];
    expect(await sync(s, log)).toMatchObject({ synced: true });
    expect(log.filter((l) => l.method !== 'GET')).toEqual([]);
    const theirs = (await remote(s, p))!;
    expect(theirs.properties.name).toBe('remote name');
    expect(meta(local(p))).toEqual({ ...meta(p), region: 'este' });
    expect(theirs.properties.metadata).toEqual({ ...meta(p), region: 'este', furrow_ref: p.local_id });
  });

  it('identical edits on both sides are not a conflict', async () => {
    const s = await synced('Merge same', 1);
    const p = s.rows[0]!;
    w.mirror.write.updateParcel(p.local_id, { metadata: { ...meta(p), region: 'oeste' } });
    await remoteEdit(s, p, { metadata: { ...meta(p), region: 'oeste' } });
    expect(await sync(s)).toMatchObject({ synced: true, conflicts: 0 });
    expect(openConflicts(p.local_id)).toEqual([]);
    expect(meta(local(p)).region).toBe('oeste');
    expect((await remote(s, p))!.properties.metadata.region).toBe('oeste');
  });

  it('a remote delete of a locally edited parcel is a remote_delete conflict; keep mine re-creates it, keep theirs lets it go', async () => {
    const s = await synced('Remote delete', 3);
    const [keep, drop] = [s.rows[0]!, s.rows[1]!];
    for (const p of [keep, drop]) {
      w.mirror.write.updateParcel(p.local_id, { metadata: { ...meta(p), region: 'edited' } });
      expect((await w.api('DELETE', `/api/parcels/${p.server_id}/`, undefined, as(s.acc))).status).toBe(204);
    }
    const r = await sync(s);
    expect(r.synced).toBe(false);
    for (const p of [keep, drop]) {
      const [c, ...more] = openConflicts(p.local_id);
      expect(more).toEqual([]);
      expect(c).toMatchObject({ kind: 'remote_delete' });
      expect(local(p)).toMatchObject({ deleted: 0, metadata: JSON.stringify({ ...meta(p), region: 'edited' }) });
    }
    resolveConflict(w.mirror.syncDb, openConflicts(keep.local_id)[0]!.id, 'mine');
    resolveConflict(w.mirror.syncDb, openConflicts(drop.local_id)[0]!.id, 'theirs');
    expect(await sync(s)).toMatchObject({ synced: true });
    const all = await serviceParcels(w, s.acc, s.farm.server_id!);
    const counts = refCounts(all);
    expect(counts.get(keep.local_id)).toBe(1);
    expect(counts.has(drop.local_id)).toBe(false);
    expect(all).toHaveLength(2);
    const back = all.find((p) => p.properties.metadata.furrow_ref === keep.local_id)!;
    expect(back.properties.metadata.region).toBe('edited');
    expect(local(keep).server_id).toBe(back.id);
    expect(w.mirror.read.parcel(drop.local_id)).toBeUndefined();
    expect(w.mirror.read.conflicts().filter((c) => c.account_id === s.acc)).toEqual([]);
  });
});

describe('merging on pull, before the edit is pushed', () => {
  it('a pending local edit is merged with remote edits per key; an overlap or a remote delete becomes a conflict; nothing is overwritten', async () => {
    const s = await synced('Pull merge', 3);
    const [keys, clash, gone] = [s.rows[0]!, s.rows[1]!, s.rows[2]!];
    w.mirror.write.updateParcel(keys.local_id, { metadata: { ...meta(keys), certification: 'organic' } });
    await remoteEdit(s, keys, { name: 'renamed there', metadata: { ...meta(keys), contract_year: '2026' } });
    w.mirror.write.updateParcel(clash.local_id, { metadata: { ...meta(clash), region: 'mine' } });
    await remoteEdit(s, clash, { metadata: { ...meta(clash), region: 'theirs' } });
    w.mirror.write.updateParcel(gone.local_id, { name: 'edited here' });
    expect((await w.api('DELETE', `/api/parcels/${gone.server_id}/`, undefined, as(s.acc))).status).toBe(204);

    const log: SentRequest[] = [];
    await recordingEngine(w, log).sync({ accounts: [s.acc], push: false });
    expect(log.filter((l) => l.method !== 'GET')).toEqual([]);
    // Both sides' keys in the mirror, the edit still to be sent.
    expect(local(keys)).toMatchObject({ name: 'renamed there' });
    expect(meta(local(keys))).toEqual({ ...meta(keys), certification: 'organic', contract_year: '2026' });
    expect(w.mirror.read.outbox(s.acc).filter((o) => o.local_id === keys.local_id).map((o) => `${o.op}:${o.state}`)).toEqual(['update:queued']);
    expect(openConflicts(keys.local_id)).toEqual([]);
    expect(openConflicts(clash.local_id).map((c) => [c.kind, JSON.parse(c.fields)])).toEqual([['edit', ['metadata.region']]]);
    expect(meta(local(clash)).region).toBe('mine');
    expect(openConflicts(gone.local_id).map((c) => c.kind)).toEqual(['remote_delete']);
    expect(local(gone)).toMatchObject({ name: 'edited here', deleted: 0 });

    // The push then sends the merged state; the conflicts wait for the user.
    const r = await sync(s);
    expect(r.synced).toBe(false);
    expect((await remote(s, keys))!.properties).toMatchObject({ name: 'renamed there', metadata: { ...meta(keys), certification: 'organic', contract_year: '2026', furrow_ref: keys.local_id } });
    expect((await remote(s, clash))!.properties.metadata.region).toBe('theirs');
    expect(meta(local(clash)).region).toBe('mine');
  });

  it('crop edits merge per field; the same field edited differently is a conflict', async () => {
    const s = await synced('Crop merge', 1);
    const p = s.rows[0]!;
    const c1 = w.mirror.write.createCrop(s.acc, p.local_id, { name: 'Wheat', campaign: '2025', area: 1 });
    const c2 = w.mirror.write.createCrop(s.acc, p.local_id, { name: 'Barley', campaign: '2024', area: 2 });
    expect(await sync(s)).toMatchObject({ synced: true });
    const [id1, id2] = [w.mirror.read.crop(c1.local_id)!.server_id!, w.mirror.read.crop(c2.local_id)!.server_id!];
    w.mirror.write.updateCrop(c1.local_id, { variety: 'Florence' });
    expect((await w.api('PATCH', `/api/crops/${id1}/`, { harvested_qty: 4.2 }, as(s.acc))).status).toBe(200);
    w.mirror.write.updateCrop(c2.local_id, { area: 2.5 });
    expect((await w.api('PATCH', `/api/crops/${id2}/`, { area: 3 }, as(s.acc))).status).toBe(200);
    await sync(s);
    expect(w.mirror.read.crop(c1.local_id)).toMatchObject({ variety: 'Florence', harvested_qty: 4.2 });
    expect((await w.api('GET', `/api/crops/${id1}/`, undefined, as(s.acc))).body).toMatchObject({ variety: 'Florence', harvested_qty: 4.2 });
    expect(openConflicts(c1.local_id)).toEqual([]);
    expect(openConflicts(c2.local_id).map((c) => JSON.parse(c.fields))).toEqual([['area']]);
    expect(w.mirror.read.crop(c2.local_id)!.area).toBe(2.5);
    expect((await w.api('GET', `/api/crops/${id2}/`, undefined, as(s.acc))).body).toMatchObject({ area: 3 });
  });
});

describe('pull', () => {
  it('remote-only changes arrive: a new parcel, a rename, a delete, a farm rename', async () => {
    const s = await synced('Pull remote', 3);
    const created = await w.api('POST', '/api/parcels/', { farm: { id: s.farm.server_id }, parcels: [polygonParcel('made elsewhere', -3.9, 37.9, 120, { origin: 'web' })] }, as(s.acc));
    expect(created.status).toBe(201);
    const newId = (created.body as { id: number }[])[0]!.id;
    await remoteEdit(s, s.rows[0]!, { name: 'renamed remotely' });
    expect((await w.api('DELETE', `/api/parcels/${s.rows[1]!.server_id}/`, undefined, as(s.acc))).status).toBe(204);
    expect((await w.api('PATCH', `/api/farms/${s.farm.server_id}/`, { name: 'Renamed farm' }, as(s.acc))).status).toBe(200);

    const log: SentRequest[] = [];
    expect(await sync(s, log)).toMatchObject({ synced: true, conflicts: 0 });
    expect(log.filter((l) => l.method !== 'GET')).toEqual([]);
    const rows = w.mirror.read.parcels(s.farm.local_id);
    expect(rows.map((r) => r.name).sort()).toEqual(['made elsewhere', 'renamed remotely', s.rows[2]!.name].sort());
    const fresh = rows.find((r) => r.server_id === newId)!;
    expect(meta(fresh)).toEqual({ origin: 'web' });
    expect(JSON.parse(parcelBase(fresh)!)).toMatchObject({ name: 'made elsewhere' });
    expect(local(s.rows[0]!).name).toBe('renamed remotely');
    expect(w.mirror.read.parcel(s.rows[1]!.local_id)).toBeUndefined();
    expect(w.mirror.read.farm(s.farm.local_id)!.name).toBe('Renamed farm');
    expect(w.mirror.read.outbox(s.acc)).toEqual([]);
    // What was pulled is found by the viewport and the search like local parcels.
    expect(w.mirror.read.search('elsewhere').map((h) => h.server_id)).toContain(newId);
  });

  it('the rotation history of a parcel and its plants are pulled', async () => {
    const s = await synced('Pull crops', 1);
    const p = s.rows[0]!;
    const crop = async (body: Record<string, unknown>) => {
      const r = await w.api('POST', '/api/crops/', { parcel: p.server_id, ...body }, as(s.acc));
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body as { id: number; family: { id: number; name: string } | null };
    };
    const old = await crop({ name: 'Sunflower', campaign: '2022', sowing: '2022-03-01', closure: '2022-09-01', is_active: false, family: { name: 'Asteraceae' } });
    const mid = await crop({ name: 'Wheat', campaign: '2023', sowing: '2022-11-01', closure: '2023-06-30', is_active: false, family: { name: 'Poaceae' } });
    const now = await crop({ name: 'Chickpea', campaign: '2024', sowing: '2024-02-01', area: 1.2, is_active: true, family: { name: 'Fabaceae' } });

    const plants = join(w.dir, 'plants.json');
    const [lon, lat] = [-4, 37];
    writeFileSync(plants, JSON.stringify({
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: { info: { species: 'olea' }, crop: now.id } },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [lon + 0.0001, lat + 0.0001] }, properties: { info: null } },
      ],
    }));
    const imported = serviceCli(join(w.dir, 'service'), ['import-plants', '--account', s.acc, '--file', plants, '--parcel', String(p.server_id)]);
    expect(imported.status, imported.stderr).toBe(0);

    expect(await sync(s)).toMatchObject({ synced: true, plantsChanged: 2 });
    const history = w.mirror.read.crops(p.local_id);
    expect(history.map((c) => [c.name, c.server_id, c.campaign, c.is_active, c.family_id, c.family_name])).toEqual([
      ['Chickpea', now.id, '2024', 1, now.family!.id, 'Fabaceae'],
      ['Wheat', mid.id, '2023', 0, mid.family!.id, 'Poaceae'],
      ['Sunflower', old.id, '2022', 0, old.family!.id, 'Asteraceae'],
    ]);
    expect(history[0]).toMatchObject({ area: 1.2, sowing: '2024-02-01', closure: null });
    expect(history.every((c) => c.base !== null)).toBe(true);

    const got = w.mirror.read.plants(s.acc, p.server_id!);
    expect(got).toHaveLength(2);
    expect(got.map((x) => JSON.parse(x.point))).toEqual([[lon, lat], [lon + 0.0001, lat + 0.0001]]);
    expect(JSON.parse(got[0]!.info!)).toEqual({ species: 'olea' });

    // A remote edit and a remote delete of rotation entries arrive too.
    expect((await w.api('PATCH', `/api/crops/${now.id}/`, { harvested_qty: 3.5, is_active: false }, as(s.acc))).status).toBe(200);
    expect((await w.api('DELETE', `/api/crops/${old.id}/`, undefined, as(s.acc))).status).toBe(204);
    // The plants did not change: the pull writes none of them (each keeps its row), and says so.
    const rowids = () => w.mirror.syncDb.prepare('SELECT server_id, rowid FROM plants WHERE account_id = ? ORDER BY server_id').all(s.acc);
    const before = rowids();
    // Every write to plants on this connection (the engine's) is counted.
    w.mirror.syncDb.exec(`CREATE TEMP TABLE plant_writes (op TEXT);
      CREATE TEMP TRIGGER plant_ins AFTER INSERT ON main.plants BEGIN INSERT INTO plant_writes VALUES ('insert'); END;
      CREATE TEMP TRIGGER plant_upd AFTER UPDATE ON main.plants BEGIN INSERT INTO plant_writes VALUES ('update'); END;
      CREATE TEMP TRIGGER plant_del AFTER DELETE ON main.plants BEGIN INSERT INTO plant_writes VALUES ('delete'); END;`);
    const writes = () => w.mirror.syncDb.prepare('SELECT op FROM plant_writes').pluck().all();
    expect(await sync(s)).toMatchObject({ synced: true, plantsChanged: 0 });
    expect(writes()).toEqual([]);
    expect(rowids()).toEqual(before);
    const after = w.mirror.read.crops(p.local_id);
    expect(after.map((c) => c.name)).toEqual(['Chickpea', 'Wheat']);
    expect(after[0]).toMatchObject({ harvested_qty: 3.5, is_active: 0 });
    // One more plant on the service: only it is written.
    writeFileSync(plants, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [lon + 0.0002, lat] }, properties: { info: null } }] }));
    expect(serviceCli(join(w.dir, 'service'), ['import-plants', '--account', s.acc, '--file', plants, '--parcel', String(p.server_id)]).status).toBe(0);
    expect(await sync(s)).toMatchObject({ synced: true, plantsChanged: 1 });
    expect(writes()).toEqual(['insert']);
    expect(rowids().slice(0, 2)).toEqual(before);
    w.mirror.syncDb.exec('DROP TABLE temp.plant_writes; DROP TRIGGER temp.plant_ins; DROP TRIGGER temp.plant_upd; DROP TRIGGER temp.plant_del;');
    expect(w.mirror.read.plants(s.acc, p.server_id!)).toHaveLength(3);
  });
});
