// The preview of an import (preview.ts) against the import itself (index.ts), on real files: a MultiPolygon with one
// bad part named by its part, a long file listed invalid-first within its cap, shapes for the map within theirs, and
// an import into a farm chosen by id that never lands in another account's farm.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { previewFile } from './preview.ts';
import { importFile } from './index.ts';
import { ACCOUNT, square, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';

let t: TempMirror;
beforeEach(() => { t = tempMirror(); });
afterEach(() => t.close());

const OPTS = { maxHectares: 100, maxListed: 5000, maxPositions: 200_000 };
const polygon = (lon: number, lat: number, name?: string) => ({ type: 'Feature', properties: name ? { name } : {}, geometry: { type: 'Polygon', coordinates: [square(lon, lat)] } });
const BOW_TIE = [[0, 0], [0.001, 0.001], [0.001, 0], [0, 0.001], [0, 0]];
const file = (name: string, features: unknown[]) => t.file(name, JSON.stringify({ type: 'FeatureCollection', features }));

describe('previewFile', () => {
  it("names a bad part of a MultiPolygon, and calls valid exactly what the import takes", async () => {
    const multi = { type: 'Feature', properties: { name: 'Huertas' }, geometry: { type: 'MultiPolygon', coordinates: [[square(-4, 37)], [BOW_TIE.map(([x, y]) => [x! - 4, y! + 37.01])]] } };
    const path = file('multi.geojson', [polygon(-4.01, 37, 'Good'), multi, polygon(-4.02, 37)]);
    const p = await previewFile(path, OPTS);
    expect(p.features.map((f) => [f.name, f.parcels, f.problems.map((x) => x.code)])).toEqual([['Good', 1, []], ['Huertas', 0, ['self_intersection']], [null, 1, []]]);
    expect(p.features[1]!.problems[0]!.message).toMatch(/^part 2 of 2: ring 0 \(outer\) crosses or touches itself/);
    const r = await importFile(t.mirror, path, { accountId: ACCOUNT, farmName: 'F', skipInvalid: true });
    expect([r.imported, new Set(r.skipped.map((s) => s.index))]).toEqual([p.parcels, new Set([1])]);
    expect(t.mirror.read.parcels(r.farm.local_id).reduce((s, x) => s + x.hectares, 0)).toBeCloseTo(p.hectares, 9);
  });

  it('lists every invalid feature first when a file has more than it lists, and draws shapes within its budget', async () => {
    const features = Array.from({ length: 10 }, (_, i) => (i % 4 === 3
      ? { type: 'Feature', properties: { name: `Bad ${i}` }, geometry: { type: 'LineString', coordinates: [[-4, 37], [-4.001, 37.001]] } }
      : polygon(-4 + i * 0.002, 37, `Good ${i}`)));
    const p = await previewFile(file('long.geojson', features), { ...OPTS, maxListed: 4, maxPositions: 3 });
    expect([p.total, p.valid, p.invalid, p.truncated]).toEqual([10, 8, 2, true]);
    expect(p.features.map((f) => f.index)).toEqual([0, 1, 3, 7]);
    // Two positions each: the second line's shape is over the budget of three.
    expect(p.features.filter((f) => f.geometry).map((f) => f.index)).toEqual([3]);
  });
});

describe('importFile into a farm chosen by id', () => {
  it("imports into that farm, and refuses another account's", async () => {
    t.mirror.write.addAccount({ id: 'acc-other', service_url: 'http://127.0.0.1:1', mode: 'api_key' });
    const theirs = t.mirror.write.createFarm('acc-other', 'Theirs');
    const path = file('one.geojson', [polygon(-4, 37, 'One')]);
    await expect(importFile(t.mirror, path, { accountId: ACCOUNT, farmName: 'Theirs', farmId: theirs.local_id })).rejects.toMatchObject({ code: 'no_farm' });
    expect(t.mirror.read.parcels(theirs.local_id)).toEqual([]);
    const mine = t.mirror.write.createFarm(ACCOUNT, 'Mine');
    const r = await importFile(t.mirror, path, { accountId: ACCOUNT, farmName: 'Mine', farmId: mine.local_id });
    expect([r.farm.local_id, r.imported]).toEqual([mine.local_id, 1]);
  });
});
