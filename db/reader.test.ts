// MirrorReader on a real mirror file: the viewport (R*Tree), full-text search (FTS5) and the status counts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from './mirror.ts';
import { markInFlight, setOpState } from './op-transitions.ts';
import type { OutboxRow } from './types.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { closeTestMirror, openTestMirror } from '../test/helpers/test-mirror.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000002';
const OTHER = 'acc-00000000-0000-4000-8000-000000000003';
let dir: string;
let m: Mirror;

beforeEach(() => { ({ m, dir } = openTestMirror('furrow-reader-', [ACC, OTHER])); });
afterEach(() => closeTestMirror({ m, dir }));

const names = (hits: { name: string }[]) => hits.map((h) => h.name).sort();
const opsOf = (localId: string) => m.syncDb.prepare('SELECT * FROM outbox WHERE local_id = ? ORDER BY id').all(localId) as OutboxRow[];

describe('viewport', () => {
  it('finds the parcels whose box meets the view, follows edits and deletes', () => {
    const farm = m.write.createFarm(ACC, 'Map');
    const { created } = m.write.createParcels(farm.local_id, [
      polygonParcel('sevilla', -5.99, 37.39), polygonParcel('cordoba', -4.78, 37.88), polygonParcel('madrid', -3.7, 40.42),
    ]);
    expect(names(m.read.viewport([-6.5, 37, -4.5, 38]))).toEqual(['cordoba', 'sevilla']);
    expect(names(m.read.viewport([-3.71, 40.41, -3.69, 40.43]))).toEqual(['madrid']);
    // A view touching only a corner of the box still finds it; a view beside it does not.
    const c = m.read.parcel(created[1]!.local_id)!;
    expect(names(m.read.viewport([c.maxx, c.maxy, c.maxx + 1, c.maxy + 1]))).toEqual(['cordoba']);
    expect(m.read.viewport([c.maxx + 0.0001, c.miny, c.maxx + 1, c.maxy])).toEqual([]);
    expect(m.read.viewport([0, 0, 1, 1])).toEqual([]);

    // Moving a parcel moves it in the index; a deleted one disappears.
    m.write.updateParcel(created[0]!.local_id, { geom: polygonParcel('x', 2.17, 41.38).geom });
    expect(names(m.read.viewport([-6.5, 37, -4.5, 38]))).toEqual(['cordoba']);
    expect(names(m.read.viewport([2, 41, 2.5, 41.5]))).toEqual(['sevilla']);
    m.write.deleteParcel(created[1]!.local_id);
    expect(m.read.viewport([-6.5, 37, -4.5, 38])).toEqual([]);
    expect(m.read.viewport([-180, -90, 180, 90], 2)).toHaveLength(2);
  });
});

describe('search', () => {
  it('matches names and metadata values as typed (whole words, the last one a prefix), ignoring case and diacritics', () => {
    const farm = m.write.createFarm(ACC, 'Text');
    m.write.createParcels(farm.local_id, [
      polygonParcel('Olivar de Jaén', -3.78, 37.77, 100, { 'Supplier ID': 'SUP-0042', certification: 'ecológico' }),
      polygonParcel('Viña Alta', -3.6, 37.2, 100, { region: 'Ribera del Duero' }),
      polygonParcel('Campo Norte', -4.1, 38.1, 100, { crop_type: 'olive' }),
    ]);
    expect(names(m.read.search('oliv'))).toEqual(['Campo Norte', 'Olivar de Jaén']);
    expect(names(m.read.search('jaen'))).toEqual(['Olivar de Jaén']);
    expect(names(m.read.search('JAÉN'))).toEqual(['Olivar de Jaén']);
    expect(names(m.read.search('vina'))).toEqual(['Viña Alta']);
    expect(names(m.read.search('ecologico'))).toEqual(['Olivar de Jaén']);
    expect(names(m.read.search('ribera duero'))).toEqual(['Viña Alta']);
    expect(names(m.read.search('SUP-0042'))).toEqual(['Olivar de Jaén']);
    expect(names(m.read.search('campo olive'))).toEqual(['Campo Norte']);
    expect(m.read.search('ribera jaen')).toEqual([]);
    // Words before the last are whole words: the one being typed is the only prefix.
    expect(names(m.read.search('olivar de ja'))).toEqual(['Olivar de Jaén']);
    expect(names(m.read.search('ribera del d'))).toEqual(['Viña Alta']);
    expect(m.read.search('oliv de jaen')).toEqual([]);
    expect(m.read.search('rib duero')).toEqual([]);
    // A space or punctuation after the last word completes it too.
    expect(names(m.read.search('olivar de jaén '))).toEqual(['Olivar de Jaén']);
    expect(m.read.search('olivar de ja ')).toEqual([]);
    expect(m.read.search('ecolog.')).toEqual([]);
    expect(m.read.search('"*()')).toEqual([]);
    expect(m.read.search('   ')).toEqual([]);
    // Name matches first, then metadata matches; the limit applies to the whole list.
    expect(m.read.search('oliv').map((h) => h.name)).toEqual(['Olivar de Jaén', 'Campo Norte']);
    expect(m.read.search('oliv', 1).map((h) => h.name)).toEqual(['Olivar de Jaén']);
  });

  it('follows renames, metadata edits and deletes', () => {
    const farm = m.write.createFarm(ACC, 'Text2');
    const { created } = m.write.createParcels(farm.local_id, [polygonParcel('Huerta Vieja', -3, 37, 100, { region: 'sur' })]);
    const p = created[0]!;
    m.write.updateParcel(p.local_id, { name: 'Huerta Nueva', metadata: { region: 'levante' } });
    expect(m.read.search('vieja')).toEqual([]);
    expect(m.read.search('sur')).toEqual([]);
    expect(names(m.read.search('nueva levante'))).toEqual(['Huerta Nueva']);
    m.write.deleteParcel(p.local_id);
    expect(m.read.search('huerta')).toEqual([]);
  });
});

describe('status', () => {
  it('counts pending, in flight, uncertain, synced, rejected, conflicts and blocked, per account', () => {
    const farm = m.write.createFarm(ACC, 'S');
    const { created } = m.write.createParcels(farm.local_id, Array.from({ length: 7 }, (_, i) => polygonParcel(`s${i}`, -4 + i * 0.01, 37)));
    const other = m.write.createFarm(OTHER, 'O');
    expect(m.read.status(ACC)).toEqual({ pending: 8, in_flight: 0, uncertain: 0, synced: 0, rejected: 0, conflicts: 0, blocked: 0 });

    const op = (i: number) => opsOf(created[i]!.local_id)[0]!.id;
    // The farm and two parcels synced.
    m.syncDb.prepare('UPDATE farms SET server_id = 1 WHERE local_id = ?').run(farm.local_id);
    setOpState(m.syncDb, [opsOf(farm.local_id)[0]!.id, op(0), op(1)], 'committed');
    // hectares named, unchanged: a server id written alone is not counted in farm_totals by the trigger (migration 015).
    m.syncDb.prepare('UPDATE parcels SET server_id = 100 + rowid, hectares = hectares WHERE local_id IN (?, ?)').run(created[0]!.local_id, created[1]!.local_id);
    markInFlight(m.syncDb, [op(2)], 'b');
    markInFlight(m.syncDb, [op(3)], 'b');
    setOpState(m.syncDb, [op(3)], 'uncertain');
    setOpState(m.syncDb, [op(4)], 'rejected', { last_error: 'no' });
    setOpState(m.syncDb, [op(5)], 'blocked', { last_error: 'Account not found' });
    // A synced parcel with a pending edit is not synced.
    m.write.updateParcel(created[1]!.local_id, { name: 'edited' });

    expect(m.read.status(ACC)).toEqual({ pending: 2, in_flight: 1, uncertain: 1, synced: 2, rejected: 1, conflicts: 0, blocked: 1 });
    expect(m.read.status(OTHER)).toEqual({ pending: 1, in_flight: 0, uncertain: 0, synced: 0, rejected: 0, conflicts: 0, blocked: 0 });
    expect(m.read.status()).toMatchObject({ pending: 3, synced: 2 });

    m.syncDb.prepare("INSERT INTO conflicts (account_id, entity, local_id, kind, fields, created) VALUES (?, 'parcel', ?, 'edit', '[]', 'now')").run(ACC, created[1]!.local_id);
    setOpState(m.syncDb, opsOf(created[1]!.local_id).filter((o) => o.op === 'update').map((o) => o.id), 'conflict');
    expect(m.read.status(ACC)).toMatchObject({ pending: 1, conflicts: 1, synced: 2 });
    expect(m.read.status(OTHER).conflicts).toBe(0);
    expect(m.read.farms(OTHER).map((f) => f.local_id)).toEqual([other.local_id]);
  });
});
