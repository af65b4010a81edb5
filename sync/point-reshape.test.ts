// A hectare point's square modified in the app (renderer/features/edit/): the mirror and the service both take a
// Polygon for a point parcel's geometry, which then is a drawn polygon — its area the shape's, no longer the
// point's hectares — on both sides after the sync. What the app's Modify relies on for point parcels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncWorld, type SyncWorld } from '../test/helpers/sync.ts';
import { farmOnService, recordingEngine, serviceParcels } from '../test/helpers/engine.ts';
import { pointParcel } from '../test/helpers/service.ts';
import { polygonHectares } from '../core/geo/area.ts';
import type { ParcelRow } from '../db/types.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

describe('a point parcel reshaped', () => {
  it('becomes a polygon with the shape\'s hectares in the mirror and, after the sync, on the service', async () => {
    const { acc, farm } = await farmOnService(w, 'Reshape');
    const [p] = w.mirror.write.createParcels(farm.local_id, [pointParcel('Point field', 4)]).created as [ParcelRow];
    expect((await recordingEngine(w, []).sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    expect(p.source_type).toBe('Point');

    // Its square with one corner pulled out, as Modify saves it.
    const square = (JSON.parse(w.mirror.read.parcel(p.local_id)!.geometry) as { coordinates: number[][][] }).coordinates[0]!;
    const ring = square.map((c) => [...c]);
    ring[2] = [ring[2]![0]! + 0.001, ring[2]![1]! + 0.001];
    const hectares = polygonHectares([ring]);
    expect(hectares).toBeGreaterThan(4.5);
    const row = w.mirror.write.updateParcel(p.local_id, { geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } } });
    expect(row).toMatchObject({ source_type: 'Polygon', point: null });
    expect(row.hectares).toBeCloseTo(hectares, 9);

    const r = (await recordingEngine(w, []).sync({ accounts: [acc] })).accounts[0]!;
    expect(r).toMatchObject({ synced: true, rejected: 0, conflicts: 0 });
    const held = (await serviceParcels(w, acc, farm.server_id!)).filter((f) => f.properties.name === 'Point field');
    expect(held).toHaveLength(1);
    expect(held[0]!.geometry).toMatchObject({ type: 'Polygon' });
    expect(held[0]!.properties).toMatchObject({ source_type: 'Polygon', point: null });
    expect(held[0]!.properties.hectares).toBeCloseTo(hectares, 6);
    expect(w.mirror.read.parcel(p.local_id)).toMatchObject({ source_type: 'Polygon', point: null });
  }, 60_000);
});
