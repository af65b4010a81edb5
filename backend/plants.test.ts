// Plants through core/api.ts, as the app will use them: a real mirror host process, a real local service whose
// plants arrive as detections do, through its admin command (import-plants).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { as } from '../test/helpers/engine.ts';
import { square } from '../test/helpers/service.ts';
import { serviceCli } from '../test/helpers/process.ts';
import { hostWorld, type HostWorld } from '../test/helpers/host.ts';

let hw: HostWorld;
beforeAll(async () => { hw = await hostWorld(); });
afterAll(async () => { await hw?.close(); });

const LON = -3.7;
const LAT = 40.4;
/** A crown: a square of `r` degrees around the tree. */
const crown = (lon: number, lat: number, r: number) => ({ type: 'Polygon', coordinates: [[[lon - r, lat - r], [lon + r, lat - r], [lon + r, lat + r], [lon - r, lat + r], [lon - r, lat - r]]] });

/** A farm with one 200 m parcel around (lon, lat) on the service, for an account: the parcel's server id. */
async function orchard(acc: string, lon: number, lat: number): Promise<number> {
  const r = await hw.w.api('POST', '/api/farms/', { farm: { name: 'Orchard' }, parcels: [{ name: 'Almonds', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: square(lon, lat, 200) } } }] }, as(acc));
  expect(r.status).toBe(201);
  return r.body.parcels[0].id as number;
}

/** Plants detected on the service, imported as the service's operators do. */
function detect(acc: string, parcel: number, plants: { lon: number; lat: number; crown?: number; info?: unknown }[]): void {
  const file = join(hw.w.dir, `plants-${acc}.geojson`);
  writeFileSync(file, JSON.stringify({
    type: 'FeatureCollection',
    features: plants.map((p) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [p.lon, p.lat] }, properties: { shape: p.crown ? crown(p.lon, p.lat, p.crown) : null, info: p.info ?? null } })),
  }));
  const r = serviceCli(join(hw.w.dir, 'service'), ['import-plants', '--account', acc, '--file', file, '--parcel', String(parcel)]);
  expect(r.status, r.stderr).toBe(0);
}

describe('plants through the mirror host', () => {
  it('finds the plants in view by point or crown (R*Tree), within the account, typed, and a parcel\'s plants with their count', async () => {
    const { h, acc } = await hw.connected();
    const parcelServer = await orchard(acc, LON, LAT);
    detect(acc, parcelServer, [
      { lon: LON - 0.0005, lat: LAT, crown: 0.00003, info: { species: 'Prunus dulcis', height_m: 3.1 } },
      { lon: LON, lat: LAT, crown: 0.00002 },
      { lon: LON + 0.0005, lat: LAT, info: 'no crown detected' },
    ]);
    // Another account's tree on the very same spot is not this account's.
    const { h: other, acc: otherAcc } = await hw.connected();
    detect(otherAcc, await orchard(otherAcc, LON, LAT), [{ lon: LON, lat: LAT, crown: 0.00002 }]);
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, plantsChanged: 3 });
    expect((await other.api.sync({ account: otherAcc }))[0]).toMatchObject({ synced: true, plantsChanged: 1 });

    const parcel = (await h.api.search({ account: acc, text: 'Almonds' }))[0]!.id;
    const all = await h.api.plantsInView({ account: acc, bbox: [LON - 0.001, LAT - 0.001, LON + 0.001, LAT + 0.001] });
    expect(all.truncated).toBe(false);
    const byLon = [...all.features].sort((a, b) => a.geometry.coordinates[0]! - b.geometry.coordinates[0]!);
    expect(byLon.map((f) => f.geometry)).toEqual([-0.0005, 0, 0.0005].map((d) => ({ type: 'Point', coordinates: [LON + d, LAT] })));
    const [tree, , bare] = byLon;
    expect(tree!.properties).toMatchObject({ crown: crown(LON - 0.0005, LAT, 0.00003), info: { species: 'Prunus dulcis', height_m: 3.1 }, parcel, crop: null });
    // The crown's geodesic area in m², as a number: about 5.1 m × 6.7 m here.
    expect(tree!.properties.area).toBeGreaterThan(30);
    expect(tree!.properties.area).toBeLessThan(40);
    expect(bare!.properties).toMatchObject({ crown: null, area: 0, info: 'no crown detected', parcel });

    // A view that meets only the edge of a crown still finds its tree; one beside it finds nothing.
    const edge = await h.api.plantsInView({ account: acc, bbox: [LON - 0.0005 + 0.00002, LAT + 0.00002, LON - 0.0004, LAT + 0.0001] });
    expect(edge.features.map((f) => f.id)).toEqual([tree!.id]);
    expect((await h.api.plantsInView({ account: acc, bbox: [LON - 0.0005 + 0.00004, LAT + 0.00004, LON - 0.0004, LAT + 0.0001] })).features).toEqual([]);
    // At most `limit`, and it says there is more.
    const two = await h.api.plantsInView({ account: acc, bbox: [LON - 0.001, LAT - 0.001, LON + 0.001, LAT + 0.001], limit: 2 });
    expect([two.features.length, two.truncated]).toEqual([2, true]);
    const others = await other.api.plantsInView({ account: otherAcc, bbox: [LON - 0.001, LAT - 0.001, LON + 0.001, LAT + 0.001] });
    expect(others.features).toHaveLength(1);
    expect(all.features.map((f) => f.id)).not.toContain(others.features[0]!.id);

    const onParcel = await h.api.plants({ parcel });
    expect(Object.keys(onParcel)[0]).toBe('count');
    expect(onParcel).toMatchObject({ count: 3, truncated: false });
    expect(onParcel.features.map((f) => f.id)).toEqual(all.features.map((f) => f.id).sort((a, b) => a - b));
    expect(await h.api.plants({ parcel, limit: 1 })).toMatchObject({ count: 3, truncated: true, features: [{ id: onParcel.features[0]!.id }] });
    await expect(h.api.plants({ parcel: 'no-such-parcel' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.api.plantsInView({ account: 'acc-nope', bbox: [0, 0, 1, 1] })).rejects.toMatchObject({ code: 'no_account' });

    // A parcel the service does not have yet has no plants.
    const farm = (await h.api.farms({ account: acc }))[0]!;
    const drawn = await h.api.createParcel({ farm: farm.id, name: 'Drawn', geometry: { type: 'Polygon', coordinates: square(LON + 0.01, LAT, 100) } });
    expect(await h.api.plants({ parcel: drawn.id })).toEqual({ count: 0, truncated: false, features: [] });

    // The parcel deleted on the service takes its plants with it: the next pull removes them from the view.
    expect((await hw.w.api('DELETE', `/api/parcels/${parcelServer}/`, undefined, as(acc))).status).toBe(204);
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, plantsChanged: 3 });
    expect((await h.api.plantsInView({ account: acc, bbox: [LON - 0.001, LAT - 0.001, LON + 0.001, LAT + 0.001] })).features).toEqual([]);
  }, 120_000); // each import-plants starts the service's CLI: seconds on a busy machine
});
