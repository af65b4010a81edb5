// DELETE /api/parcels/{id}/: 204 then 404, and the parcel's crops and plants go with it (spec: "Parcels").
import { describe, expect, it } from 'vitest';
import { orgScope, polygonParcel, storeCounts } from '../../../test/helpers/service.ts';
import { ApiError } from '../../errors.ts';
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
    // Gone from the spatial index as well (where the store keeps one beside the rows), and from a bbox search.
    const counts = await storeCounts(svc);
    if ('parcels_rtree' in counts) expect(counts.parcels_rtree).toBe(counts.parcels);
    const near = (await get(h, `/api/parcels/?bbox=-4.79,37.87,-4.77,37.89`)).json() as ParcelCollection;
    expect(near.features.map((f) => f.id)).not.toContain(p!.id);
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
    await svc.store.plants.import(org.organization_id, acc.id, {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.0, 40.0] }, properties: { info: 'in doomed' } },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.0001, 40.0001] }, properties: { info: 'in doomed too' } },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.1, 40.0] }, properties: { info: 'in neighbour' } },
      ],
    });
    // The plants the store lists on a parcel (none on one that is gone).
    const plantsOf = async (id: number) => {
      try {
        return (await svc.store.plants.list(orgScope(org), { parcel: id, limit: 100 })).rows.length;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return 0;
        throw err;
      }
    };
    expect(await plantsOf(p!.id)).toBe(2);
    const before = await storeCounts(svc);
    expect((await del(h, `/api/parcels/${p!.id}/`)).statusCode).toBe(204);
    const after = await storeCounts(svc);
    expect(after.parcels).toBe(before.parcels! - 1);
    expect(after.crops).toBe(before.crops! - 2);
    expect(after.plants).toBe(before.plants! - 2);
    for (const id of cropIds) expect((await get(h, `/api/crops/${id}/`)).statusCode).toBe(404);
    expect((await get(h, `/api/crops/${otherCrop.id}/`)).statusCode).toBe(200);
    expect(await plantsOf(p!.id)).toBe(0);
    expect(await plantsOf(other!.id)).toBe(1);
  });
});
