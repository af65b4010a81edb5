// DELETE /api/parcels/{id}/: 204 then 404, and the parcel's crops and plants go with it (spec: "Parcels").
import { describe, expect, it } from 'vitest';
import { polygonParcel, storeCounts } from '../../../test/helpers/service.ts';
import { importPlants } from '../../store/sqlite/plants.ts';
import type { ParcelCollection } from '../../../core/schemas/parcels.ts';
import { acc, create, del, farmOf, get, h, org, patch, svc, useParcelService } from './parcels.test-helpers.ts';

useParcelService();

describe('DELETE /api/parcels/{id}/', () => {
  it('answers 204 with no body, then 404', async () => {
    const farm = await farmOf();
    const [p, keep] = await create(h, farm, [polygonParcel('Doomed'), polygonParcel('Kept', -4.7, 37.9)]);
    const res = await del(h, `/api/parcels/${p!.id}/`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await get(h, `/api/parcels/${p!.id}/`)).statusCode).toBe(404);
    expect((await del(h, `/api/parcels/${p!.id}/`)).statusCode).toBe(404);
    expect((await patch(h, p!.id, { name: 'ghost' })).statusCode).toBe(404);
    const listed = (await get(h, `/api/farms/${farm}/parcels/`)).json() as ParcelCollection;
    expect(listed.features.map((f) => f.id)).toEqual([keep!.id]);
    // Gone from the spatial index as well.
    expect((svc.db.prepare('SELECT COUNT(*) AS n FROM parcels_rtree WHERE id = ?').get(p!.id) as { n: number }).n).toBe(0);
  });

  it('deletes the parcel with its crops and plants', async () => {
    const farm = await farmOf();
    const [p, other] = await create(h, farm, [polygonParcel('With crops', 3.0, 40.0, 200), polygonParcel('Neighbour', 3.1, 40.0, 200)]);
    const cropIds: number[] = [];
    for (const name of ['Wheat', 'Barley']) {
      const c = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: h, payload: { name, parcel: p!.id } });
      expect(c.statusCode, c.body).toBe(201);
      cropIds.push((c.json() as { id: number }).id);
    }
    const otherCrop = (await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: h, payload: { name: 'Oats', parcel: other!.id } })).json() as { id: number };
    importPlants(svc.db, org.organization_id, acc.id, {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.0, 40.0] }, properties: { info: 'in doomed' } },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.0001, 40.0001] }, properties: { info: 'in doomed too' } },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.1, 40.0] }, properties: { info: 'in neighbour' } },
      ],
    });
    const plantsOf = (id: number) => (svc.db.prepare('SELECT COUNT(*) AS n FROM plants WHERE parcel_id = ?').get(id) as { n: number }).n;
    expect(plantsOf(p!.id)).toBe(2);
    const before = storeCounts(svc.db);
    expect((await del(h, `/api/parcels/${p!.id}/`)).statusCode).toBe(204);
    const after = storeCounts(svc.db);
    expect(after.parcels).toBe(before.parcels! - 1);
    expect(after.crops).toBe(before.crops! - 2);
    expect(after.plants).toBe(before.plants! - 2);
    for (const id of cropIds) expect((await get(h, `/api/crops/${id}/`)).statusCode).toBe(404);
    expect((await get(h, `/api/crops/${otherCrop.id}/`)).statusCode).toBe(200);
    expect(plantsOf(p!.id)).toBe(0);
    expect(plantsOf(other!.id)).toBe(1);
  });
});
