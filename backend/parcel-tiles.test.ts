// The parcel tiles' cache on a real mirror, with the mirror's own change events (db/change-log.ts): a tile is cut
// once and served again, an edit drops the tiles that held the parcel and those where it lies now (and no other),
// a change too large to list drops the account's, and the cache keeps to its size.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import type { ChangeLog } from '../db/change-log.ts';
import { ParcelTiles } from './parcel-tiles.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { readTile } from '../test/helpers/mvt.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000002';
let dir: string;
let m: Mirror;
let log: ChangeLog;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-tile-cache-'));
  m = Mirror.open(join(dir, 'mirror.db'));
  m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
  log = m.changeLog();
});
afterEach(() => {
  log.close();
  m.close();
  rmSync(dir, { recursive: true, force: true });
});

function tileOf(lon: number, lat: number, z: number): string {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return `${z}-${Math.floor(((lon + 180) / 360) * n)}-${Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)}`;
}
const SEVILLA: [number, number] = [-5.99, 37.39];
const CORDOBA: [number, number] = [-4.78, 37.88];
const MADRID: [number, number] = [-3.7, 40.42];

describe('ParcelTiles', () => {
  it('cuts a tile once, and drops on an edit only the tiles where the parcel was and is', () => {
    const tiles = new ParcelTiles(m);
    const farm = m.write.createFarm(ACC, 'F');
    const { created } = m.write.createParcels(farm.local_id, [polygonParcel('s', ...SEVILLA, 200), polygonParcel('c', ...CORDOBA, 200)]);
    for (const e of log.drain()) tiles.changed(e);
    const read = (at: [number, number], z: number) => tiles.read(ACC, false, tileOf(at[0], at[1], z))!;
    const etags = () => [read(SEVILLA, 14).etag, read(CORDOBA, 14).etag, read(MADRID, 14).etag, read(SEVILLA, 5).etag];
    const first = etags();
    expect(etags()).toEqual(first);
    expect(tiles.size().tiles).toBe(4);
    expect(readTile(read(SEVILLA, 14).data).map((f) => f.props.state)).toEqual(['pending']);

    // Sevilla's parcel renamed: its z14 tile and the z5 tile over Spain are cut again; Córdoba's and Madrid's are not.
    m.write.updateParcel(created[0]!.local_id, { name: 's2' });
    m.syncDb.prepare("UPDATE outbox SET state = 'committed' WHERE local_id = ?").run(created[1]!.local_id);
    const events = log.drain();
    for (const e of events) tiles.changed(e);
    expect(events.flatMap((e) => e.parcels.upserted).sort()).toEqual(created.map((c) => c.local_id).sort());
    const second = etags();
    expect(second[0]).not.toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[2]).toBe(first[2]);
    expect(second[3]).not.toBe(first[3]);
    expect(readTile(read(CORDOBA, 14).data).map((f) => f.props.state)).toEqual(['synced']);

    // Moved to Madrid: Sevilla's tile (it was there) and Madrid's (it is there now) are cut again; it shows in Madrid's.
    m.write.updateParcel(created[0]!.local_id, { geom: polygonParcel('x', ...MADRID, 200).geom });
    for (const e of log.drain()) tiles.changed(e);
    const third = etags();
    expect(third[0]).not.toBe(second[0]);
    expect(third[1]).toBe(second[1]);
    expect(third[2]).not.toBe(second[2]);
    expect(readTile(read(SEVILLA, 14).data)).toEqual([]);
    expect(readTile(read(MADRID, 14).data).map((f) => f.props.id)).toEqual([created[0]!.local_id]);

    // Deleted: gone from its tile.
    m.write.deleteParcel(created[0]!.local_id);
    for (const e of log.drain()) tiles.changed(e);
    expect(readTile(read(MADRID, 14).data)).toEqual([]);
  });

  it("drops the account's tiles on a change too large to list, and the tiles with crops on a crop's change", () => {
    const tiles = new ParcelTiles(m);
    const farm = m.write.createFarm(ACC, 'F');
    const { created } = m.write.createParcels(farm.local_id, [polygonParcel('s', ...SEVILLA, 200)]);
    for (const e of log.drain()) tiles.changed(e);
    const name = tileOf(SEVILLA[0], SEVILLA[1], 14);
    const plain = tiles.read(ACC, false, name)!.etag;
    const withCrops = tiles.read(ACC, true, name)!.etag;
    m.write.createCrop(ACC, created[0]!.local_id, { name: 'Durum wheat', family_name: 'Cereals', is_active: true } as never);
    for (const e of log.drain()) tiles.changed(e);
    expect(tiles.read(ACC, false, name)!.etag).toBe(plain);
    expect(tiles.read(ACC, true, name)!.etag).not.toBe(withCrops);
    expect(readTile(tiles.read(ACC, true, name)!.data)[0]!.props.family).toBe('Cereals');

    tiles.changed({ account: ACC, farms: [], parcels: { upserted: [], removed: [] }, manyParcels: true, crops: [], plants: false });
    expect(tiles.size().tiles).toBe(0);
  });

  it('keeps to its size, the least recently used going first', () => {
    const farm = m.write.createFarm(ACC, 'F');
    m.write.createParcels(farm.local_id, [polygonParcel('s', ...SEVILLA, 200), polygonParcel('c', ...CORDOBA, 200), polygonParcel('m', ...MADRID, 200)]);
    const one = new ParcelTiles(m).tile(ACC, false, 14, ...(tileOf(...SEVILLA, 14).split('-').slice(1).map(Number) as [number, number])).data.byteLength;
    const tiles = new ParcelTiles(m, { cacheBytes: 2 * one + 100 });
    const s = tileOf(...SEVILLA, 14);
    const sTag = tiles.read(ACC, false, s)!.etag;
    const cTag = tiles.read(ACC, false, tileOf(...CORDOBA, 14))!.etag;
    expect(tiles.read(ACC, false, s)!.etag).toBe(sTag);
    tiles.read(ACC, false, tileOf(...MADRID, 14));
    // Córdoba's, the least recently used, went; Sevilla's stayed.
    expect(tiles.read(ACC, false, s)!.etag).toBe(sTag);
    expect(tiles.read(ACC, false, tileOf(...CORDOBA, 14))!.etag).not.toBe(cTag);
    expect(tiles.size().bytes).toBeLessThanOrEqual(2 * one + 100 + one);
  });

  it('cuts low zooms from the boxes in memory once built, the same tiles as from the R*Tree, kept in step with edits', async () => {
    const farm = m.write.createFarm(ACC, 'F');
    const parcels = [];
    // 2,000 parcels of 20 to 400 m over 1.2° × 0.6°: points, boxes and polygons at z5 to z10.
    for (let i = 0; i < 2000; i++) parcels.push(polygonParcel(`p${i}`, -5 + (i % 50) * 0.024, 37.5 + Math.floor(i / 50) * 0.015, 20 + (i * 37) % 380));
    const { created } = m.write.createParcels(farm.local_id, parcels);
    for (const e of log.drain()) void e;
    const fromTree = new ParcelTiles(m);
    const fromMemory = new ParcelTiles(m);
    await fromMemory.warm(ACC);
    const names = [5, 7, 9, 10].flatMap((z) => [tileOf(-4.5, 37.7, z), tileOf(-4.1, 37.95, z)]);
    const same = () => {
      for (const name of names) {
        const a = readTile(fromTree.read(ACC, false, name)!.data);
        const b = readTile(fromMemory.read(ACC, false, name)!.data);
        const key = (f: (typeof a)[number]) => JSON.stringify([f.type, f.coords, f.props.state, f.props.count ?? 1]);
        expect(b.map(key).sort(), name).toEqual(a.map(key).sort());
        expect(a.reduce((n, f) => n + ((f.props.count as number | undefined) ?? 1), 0)).toBeGreaterThan(0);
      }
    };
    same();
    expect(fromMemory.size().overviewBytes).toBeGreaterThan(2000 * 20);
    // Moved, deleted, created: both kept in step by the same events.
    m.write.updateParcel(created[0]!.local_id, { geom: polygonParcel('x', -4.1, 37.95, 300).geom });
    m.write.deleteParcel(created[1]!.local_id);
    m.write.createParcels(farm.local_id, [polygonParcel('new', -4.5, 37.7, 150)]);
    for (const e of log.drain()) { fromTree.changed(e); fromMemory.changed(e); }
    same();
  });

  it('cuts on its tile threads the same tiles as on the host\'s thread, the host\'s thread free meanwhile; a cut asked before a change is not kept', async () => {
    const farm = m.write.createFarm(ACC, 'F');
    const parcels = [];
    for (let i = 0; i < 1000; i++) parcels.push(polygonParcel(`p${i}`, -5 + (i % 40) * 0.024, 37.5 + Math.floor(i / 40) * 0.015, 20 + (i * 37) % 380));
    const { created } = m.write.createParcels(farm.local_id, parcels);
    for (const e of log.drain()) void e;
    const here = new ParcelTiles(m);
    const threaded = new ParcelTiles(m, { threads: 2 });
    try {
      const names = [5, 9, 12, 14].map((z) => tileOf(-4.6, 37.7, z));
      const key = (f: ReturnType<typeof readTile>[number]) => JSON.stringify([f.type, f.coords, f.props.state, f.props.count ?? 1, f.props.id ?? null]);
      // The host's thread turns while a tile is cut elsewhere: counted over a pass (the first tile waits for the thread
      // to start, and is cut cold); cut here, each tile would be answered at once, without a turn.
      let turns = 0;
      const same = async () => {
        let cut = false;
        const spin = () => { if (!cut) { turns++; setImmediate(spin); } };
        setImmediate(spin);
        for (const name of names) {
          const served = threaded.serve(ACC, false, name);
          expect(served, name).toBeInstanceOf(Promise);
          const b = (await served)!;
          const a = here.read(ACC, false, name)!;
          expect(readTile(b.data).map(key).sort(), name).toEqual(readTile(a.data).map(key).sort());
          // Then from the cache, at once.
          expect((threaded.serve(ACC, false, name) as { etag: string }).etag).toBe(b.etag);
        }
        cut = true;
      };
      await same();
      expect(turns).toBeGreaterThan(0);
      m.write.updateParcel(created[0]!.local_id, { geom: polygonParcel('x', -4.6, 37.7, 300).geom });
      m.write.deleteParcel(created[1]!.local_id);
      for (const e of log.drain()) { here.changed(e); threaded.changed(e); }
      await same();

      // Deeper tiles asked together are shared among the threads, cut side by side.
      const deep = [0, 1, 2, 3, 4, 5].map((i) => threaded.serve(ACC, false, tileOf(-4.95 + i * 0.05, 37.6, 15)));
      expect(threaded.size().waiting.every((n) => n > 0)).toBe(true);
      await Promise.all(deep);
      expect(threaded.size().waiting).toEqual([0, 0]);

      // A change while a tile is being cut: that cut answers its ask, but is not kept (it may not show the change).
      const name = tileOf(-3.7, 40.42, 14);
      const inFlight = threaded.serve(ACC, false, name) as Promise<{ etag: string }>;
      m.write.updateParcel(created[2]!.local_id, { name: 'renamed' });
      for (const e of log.drain()) threaded.changed(e);
      const first = await inFlight;
      expect((await threaded.serve(ACC, false, name))!.etag).not.toBe(first.etag);
    } finally {
      await threaded.close();
    }
  });

  it("builds the overview of the account's live parcels only: a deleted parcel and another account's never show in a low zoom's tile", async () => {
    const OTHER = 'acc-00000000-0000-4000-8000-000000000003';
    m.write.addAccount({ id: OTHER, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
    const farm = m.write.createFarm(ACC, 'F');
    const theirs = m.write.createFarm(OTHER, 'T');
    const mine = m.write.createParcels(farm.local_id, [0, 1, 2, 3].map((i) => polygonParcel(`m${i}`, -4.6 + i * 0.01, 37.7, 60))).created;
    m.write.createParcels(theirs.local_id, [0, 1, 2].map((i) => polygonParcel(`t${i}`, -4.6 + i * 0.01, 37.71, 60)));
    m.write.deleteParcel(mine[0]!.local_id);
    for (const e of log.drain()) void e;
    const tiles = new ParcelTiles(m);
    await tiles.warm(ACC);
    expect(tiles.size().overviewBytes).toBeGreaterThan(0);
    const count = (z: number) => readTile(tiles.read(ACC, false, tileOf(-4.59, 37.705, z))!.data).reduce((n, f) => n + ((f.props.count as number | undefined) ?? 1), 0);
    for (const z of [4, 7, 10]) expect(count(z), `z${z}`).toBe(3);
    // Undeleted, it is back in the overview (kept in step by the change, not built again).
    m.write.undo();
    for (const e of log.drain()) tiles.changed(e);
    for (const z of [4, 7, 10]) expect(count(z), `z${z}`).toBe(4);
  });

  it('answers no tile for a name that is none', () => {
    const tiles = new ParcelTiles(m);
    for (const name of ['14-1-2.pbf', '17-0-0', '3-8-0', '3-0-8', '../x', '']) expect(tiles.read(ACC, false, name)).toBeNull();
  });
});
