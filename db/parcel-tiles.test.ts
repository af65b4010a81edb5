// The parcel tile cutter on a real mirror file, read back by OpenLayers' MVT reader: polygons with their id and
// state at field zooms, every parcel a point (merged by pixel) when smaller than a pixel, the account's live parcels
// only, simplified for the zoom, with the active crop when asked.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from './mirror.ts';
import { bufferedTileBox, cutParcelTile, LIVE_BOXES_SQL, parcelLooks, SMALL_FEATURES_PER_TILE, TILE_ROWS_SQL } from './parcel-tiles.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { readTile } from '../test/helpers/mvt.ts';
import { closeTestMirror, openTestMirror } from '../test/helpers/test-mirror.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000002';
const OTHER = 'acc-00000000-0000-4000-8000-000000000003';
let dir: string;
let m: Mirror;

beforeEach(() => { ({ m, dir } = openTestMirror('furrow-tiles-', [ACC, OTHER])); });
afterEach(() => closeTestMirror({ m, dir }));

/** XYZ tile of [lon, lat] at z. */
function tileOf(lon: number, lat: number, z: number): [number, number] {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return [Math.floor(((lon + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)];
}
const looks = (crops = false) => parcelLooks(m.syncDb, (ids) => m.read.parcelStates(ids), ACC, crops);
const cut = (lon: number, lat: number, z: number, crops = false) => {
  const [x, y] = tileOf(lon, lat, z);
  return readTile(cutParcelTile(m.syncDb, ACC, z, x, y, looks(crops)).data);
};
const synced = () => m.syncDb.prepare("UPDATE outbox SET state = 'committed'").run();

describe('cutParcelTile', () => {
  it('draws a parcel a pixel or more across as its polygon, with its local id and sync state', () => {
    const farm = m.write.createFarm(ACC, 'F');
    const { created } = m.write.createParcels(farm.local_id, [polygonParcel('a', -4.78, 37.88, 200)]);
    const fs = cut(-4.78, 37.88, 16);
    expect(fs).toHaveLength(1);
    expect(fs[0]!.type).toBe('Polygon');
    expect(fs[0]!.props).toMatchObject({ id: created[0]!.local_id, state: 'pending' });
    // 200 m at z16, where a tile is 611 m × cos(37.88°) = 482 m across: about 1,700 of its 4,096 units.
    const xs = fs[0]!.coords.filter((_, i) => i % 2 === 0);
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(1600);
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(1800);
    synced();
    expect(cut(-4.78, 37.88, 16)[0]!.props.state).toBe('synced');
  });

  it('draws every parcel at every zoom: below a pixel as points, those of one pixel that look alike merged and counted', () => {
    const farm = m.write.createFarm(ACC, 'F');
    // 300 parcels of 50 m on a grid of 100 m, and two far away (Madrid, Sevilla), all in one z4 tile (Spain).
    const grid = [];
    for (let i = 0; i < 300; i++) grid.push(polygonParcel(`g${i}`, -4.5 + (i % 20) * 0.0011, 37.5 + Math.floor(i / 20) * 0.0009, 50));
    m.write.createParcels(farm.local_id, [...grid, polygonParcel('madrid', -3.7, 40.42, 50), polygonParcel('sevilla', -5.99, 37.39, 50)]);
    synced();
    for (const [z, all] of [[4, 302], [7, 300], [10, 300]] as const) {
      const fs = cut(-4.49, 37.505, z);
      expect(fs.every((f) => f.type === 'Point')).toBe(true);
      expect(fs.reduce((n, f) => n + (f.props.count as number), 0)).toBe(all);
      expect(fs.every((f) => f.props.state === 'synced')).toBe(true);
    }
    // At z4 (a pixel is 0.044°) the grid (0.021° across) is a few pixels: a few points of many parcels, and Madrid
    // and Sevilla points of their own. A point names no parcel (its row is not read: the R*Tree alone says where it
    // is; a click asks the host for the exact parcel).
    const z4 = cut(-4.5, 38.5, 4);
    expect(z4.length).toBeLessThanOrEqual(6);
    expect(z4.filter((f) => f.props.count === 1)).toHaveLength(2);
    expect(z4.every((f) => f.props.id === undefined)).toBe(true);
    // A parcel not synced keeps its own point: its look differs from its pixel's others.
    const one = m.read.viewport([-4.5, 37.5, -4.499, 37.5005], 1, ACC)[0]!;
    m.write.updateParcel(one.local_id, { name: 'renamed' });
    const again = cut(-4.5, 38.5, 4);
    expect(again.filter((f) => f.props.state === 'pending').map((f) => f.props.count)).toEqual([1]);
    expect(again.filter((f) => f.props.state === 'synced').reduce((n, f) => n + (f.props.count as number), 0)).toBe(301);
    // At z15 the grid's parcels are polygons.
    expect(cut(-4.5, 37.5, 15).some((f) => f.type === 'Polygon')).toBe(true);
  });

  it("holds only the account's live parcels", () => {
    const farm = m.write.createFarm(ACC, 'F');
    const other = m.write.createFarm(OTHER, 'O');
    const { created } = m.write.createParcels(farm.local_id, [polygonParcel('a', -4.78, 37.88, 200), polygonParcel('b', -4.775, 37.88, 200)]);
    m.write.createParcels(other.local_id, [polygonParcel('theirs', -4.77, 37.88, 200)]);
    expect(cut(-4.78, 37.88, 14).map((f) => f.props.id).sort()).toEqual(created.map((c) => c.local_id).sort());
    m.write.deleteParcel(created[0]!.local_id);
    expect(cut(-4.78, 37.88, 14).map((f) => f.props.id)).toEqual([created[1]!.local_id]);
  });

  it("holds only the account's live parcels where no row is read (points and boxes): the R*Tree's account and deleted flag", () => {
    const farm = m.write.createFarm(ACC, 'F');
    const other = m.write.createFarm(OTHER, 'O');
    const mine = m.write.createParcels(farm.local_id, [0, 1, 2].map((i) => polygonParcel(`m${i}`, -4.78 + i * 0.01, 37.88, 50))).created;
    m.write.createParcels(other.local_id, [0, 1].map((i) => polygonParcel(`t${i}`, -4.78 + i * 0.01, 37.89, 50)));
    const count = (z: number) => cut(-4.77, 37.885, z).reduce((n, f) => n + ((f.props.count as number | undefined) ?? 1), 0);
    for (const z of [4, 8, 11]) expect(count(z)).toBe(3);
    m.write.deleteParcel(mine[0]!.local_id);
    for (const z of [4, 8, 11]) expect(count(z)).toBe(2);
    // Undone, it is live again: the trigger keeps the flag in step both ways.
    m.write.undo();
    for (const z of [4, 8, 11]) expect(count(z)).toBe(3);
  });

  it('finds a tile\'s parcels in the R*Tree alone: neither the cut, the overview\'s build (eachLiveParcelBox) nor the view\'s count reads the parcels table', () => {
    const plan = (sql: string, ...args: unknown[]) => (m.syncDb.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
    // Nor does the map's count of a view (db/reader.ts viewportCount), which says whether it reads the view exactly.
    const counted: string[] = [];
    const prepare = m.syncDb.prepare.bind(m.syncDb);
    m.syncDb.prepare = ((sql: string) => { counted.push(sql); return prepare(sql); }) as typeof m.syncDb.prepare;
    m.read.viewportCount([0, 0, 1, 1], 10, ACC);
    m.syncDb.prepare = prepare;
    expect(counted).toHaveLength(1);
    // Its subquery's one table, under SQLite's own steps around it (the co-routine and the scan of its rows).
    const countPlan = plan(counted[0]!, 0, 1, 0, 1, ACC, 10).filter((d) => !/^(CO-ROUTINE|SCAN \(subquery)/.test(d));
    for (const steps of [plan(TILE_ROWS_SQL, 0, 1, 0, 1, ACC), plan(LIVE_BOXES_SQL, ACC), countPlan]) {
      expect(steps).toHaveLength(1);
      expect(steps[0]).toMatch(/^SCAN parcels_rtree VIRTUAL TABLE INDEX/);
    }
    // The box's four constraints go to the R*Tree's search (maxx >=, minx <=, maxy >=, miny <=), not a filter after a scan.
    expect(plan(TILE_ROWS_SQL, 0, 1, 0, 1, ACC)[0]).toMatch(/INDEX 2:(?:[A-F][0-3]){4}$/);
  });

  it('simplifies an outline for the zoom: vertices within half a pixel of it are left out', () => {
    const farm = m.write.createFarm(ACC, 'F');
    // A 300 m square whose edges carry 100 vertices each, its first edge zigzagging 0.1 m off the line.
    const ring: number[][] = [];
    const [x0, y0, d] = [-4.78, 37.88, 0.0034];
    for (let i = 0; i < 100; i++) ring.push([x0 + (d * i) / 100, y0 + (i % 2) * 1e-6]);
    for (let i = 0; i < 100; i++) ring.push([x0 + d, y0 + (d * 0.79 * i) / 100]);
    for (let i = 0; i < 100; i++) ring.push([x0 + d - (d * i) / 100, y0 + d * 0.79]);
    for (let i = 0; i < 100; i++) ring.push([x0, y0 + d * 0.79 - (d * 0.79 * i) / 100]);
    ring.push(ring[0]!);
    m.write.createParcels(farm.local_id, [{ name: 'fine', metadata: {}, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } } }]);
    // At z12 (a pixel is 15 m) and at z16 (a pixel is 0.9 m) the zigzag is under half a pixel: of 400 vertices, the
    // four corners remain (and the closing vertex OpenLayers adds).
    for (const z of [12, 16]) {
      const f = cut(-4.7783, 37.8813, z)[0]!;
      expect(f.type).toBe('Polygon');
      expect(f.coords.length / 2).toBe(5);
    }
  });

  it('draws a parcel of 1 to 4 pixels as its box, neither its geometry nor its id read; from 4 pixels its shape, with its id', () => {
    const farm = m.write.createFarm(ACC, 'F');
    // A triangle about 250 m across: about 2 px at z9 (a pixel is 120 m there), about 34 px at z13.
    const tri = [[-4.78, 37.88], [-4.7772, 37.88], [-4.7786, 37.8822], [-4.78, 37.88]];
    const { created } = m.write.createParcels(farm.local_id, [{ name: 'tri', metadata: {}, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [tri] } } }]);
    const at9 = cut(-4.779, 37.881, 9);
    expect(at9.map((f) => [f.type, f.coords.length / 2, f.props.id])).toEqual([['Polygon', 5, undefined]]);
    const at13 = cut(-4.779, 37.881, 13);
    expect(at13.map((f) => [f.type, f.coords.length / 2, f.props.id])).toEqual([['Polygon', 4, created[0]!.local_id]]);
  });

  it('merges the small parcels of a crowded tile on a coarser grid, every one still counted', () => {
    const farm = m.write.createFarm(ACC, 'F');
    // 7,000 parcels of 20 m every 35 m: each its own pixel at z12 (15 m a pixel), more than a tile gets features for.
    const grid = [];
    for (let i = 0; i < 7000; i++) grid.push(polygonParcel(`g${i}`, -4.79 + (i % 100) * 0.0004, 37.81 + Math.floor(i / 100) * 0.0003, 20));
    m.write.createParcels(farm.local_id, grid);
    const [x, y] = tileOf(-4.77, 37.82, 12);
    const inTile = m.read.viewportCount(bufferedTileBox(12, x, y), 10_000, ACC);
    expect(inTile).toBeGreaterThan(SMALL_FEATURES_PER_TILE);
    const fs = cut(-4.77, 37.82, 12);
    expect(fs.reduce((n, f) => n + ((f.props.count as number | undefined) ?? 1), 0)).toBe(inTile);
    expect(fs.length).toBeLessThanOrEqual(SMALL_FEATURES_PER_TILE);
    expect(fs.every((f) => f.type === 'Point')).toBe(true);
  });

  it('carries the active crop and its family when asked', () => {
    const farm = m.write.createFarm(ACC, 'F');
    const { created } = m.write.createParcels(farm.local_id, [polygonParcel('a', -4.78, 37.88, 200), polygonParcel('b', -4.775, 37.88, 200)]);
    m.write.createCrop(ACC, created[0]!.local_id, { name: 'Durum wheat', family_name: 'Cereals', is_active: true, sowing: '2026-10-01' } as never);
    const fs = cut(-4.78, 37.88, 14, true);
    const a = fs.find((f) => f.props.id === created[0]!.local_id)!;
    expect(a.props).toMatchObject({ cropName: 'Durum wheat', family: 'Cereals' });
    expect(fs.find((f) => f.props.id === created[1]!.local_id)!.props.family).toBeUndefined();
    expect(cut(-4.78, 37.88, 14, false).find((f) => f.props.id === created[0]!.local_id)!.props.family).toBeUndefined();
  });
});
