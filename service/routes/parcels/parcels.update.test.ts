// PATCH /api/parcels/{id}/: metadata replaced whole, name and geometry revalidated, modified advanced (spec: "Parcels", "Errors").
import { describe, expect, it } from 'vitest';
import { pointParcel, polygonParcel, square } from '../../../test/helpers/service.ts';
import { polygonHectares } from '../../../core/geo/area.ts';
import { hectareSquare } from '../../../core/geo/square.ts';
import type { ParcelCollection, ParcelFeature } from '../../../core/schemas/parcels.ts';
import { create, farmOf, get, h, patch, useParcelService, type ErrorJson } from './parcels.test-helpers.ts';
import { useManualClock } from '../../../test/helpers/clock.ts';

useParcelService();

describe('PATCH /api/parcels/{id}/', () => {
  async function fresh(metadata: Record<string, string | number | boolean> = { a: '1', b: '2' }): Promise<ParcelFeature> {
    const farm = await farmOf();
    const [f] = await create(h, farm, [polygonParcel('Patchable', -4.78, 37.88, 100, metadata)]);
    return f!;
  }
  const read = async (id: number) => (await get(h, `/api/parcels/${id}/`)).json() as ParcelFeature;

  it('replaces the whole metadata object: a key not sent is gone', async () => {
    const p = await fresh({ a: '1', b: '2', 'Supplier ID': 'S-1' });
    const res = await patch(h, p.id, { id: p.id, metadata: { a: 'x', c: 3 } });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as ParcelFeature).properties.metadata).toEqual({ a: 'x', c: 3 });
    const after = await read(p.id);
    expect(after.properties.metadata).toEqual({ a: 'x', c: 3 });
    expect(after.properties.name).toBe('Patchable');
    expect(after.geometry).toEqual(p.geometry);
    // An empty object clears it.
    expect((await patch(h, p.id, { metadata: {} })).statusCode).toBe(200);
    expect((await read(p.id)).properties.metadata).toEqual({});
    // The metadata filter follows the replacement.
    const filtered = (await get(h, '/api/parcels/?metadata%5BSupplier+ID%5D=S-1')).json() as ParcelCollection;
    expect(filtered.features.map((f) => f.id)).not.toContain(p.id);
  });

  it('patches the name alone and leaves metadata untouched', async () => {
    const p = await fresh();
    const res = await patch(h, p.id, { name: 'Renamed' });
    expect(res.statusCode).toBe(200);
    const after = await read(p.id);
    expect(after.properties.name).toBe('Renamed');
    expect(after.properties.metadata).toEqual({ a: '1', b: '2' });
    expect(after.properties.key).toBe(p.properties.key);
  });

  it('patches the geometry: hectares and bbox are recomputed', async () => {
    const p = await fresh();
    const coords = square(6.1, 46.2, 250);
    const res = await patch(h, p.id, { geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: coords } } });
    expect(res.statusCode, res.body).toBe(200);
    const after = await read(p.id);
    expect(after.geometry.coordinates).toEqual(coords);
    expect(Math.abs(after.properties.hectares - polygonHectares(coords)) / polygonHectares(coords)).toBeLessThan(1e-9);
    expect(after.properties.hectares).toBeGreaterThan(6);
    expect(after.bbox[0]).toBeCloseTo(coords[0]![0]![0]!, 12);
    // The spatial index follows the new place.
    const near = (await get(h, '/api/parcels/?bbox=6.09,46.19,6.11,46.21')).json() as ParcelCollection;
    expect(near.features.map((f) => f.id)).toContain(p.id);
    const old = (await get(h, '/api/parcels/?bbox=-4.79,37.87,-4.77,37.89')).json() as ParcelCollection;
    expect(old.features.map((f) => f.id)).not.toContain(p.id);
    // A point with hectares becomes a square there.
    const pt = await patch(h, p.id, { geom: pointParcel('x', 7, 6.2, 46.3).geom });
    expect(pt.statusCode).toBe(200);
    const asPoint = pt.json() as ParcelFeature;
    expect(asPoint.properties.hectares).toBe(7);
    expect(asPoint.properties.source_type).toBe('Point');
    expect(asPoint.properties.point).toEqual([6.2, 46.3]);
  });

  it('revalidates the geometry: over the limit or invalid → 400 and nothing changes', async () => {
    const p = await fresh();
    const before = await read(p.id);
    const cases: unknown[] = [
      { geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: hectareSquare(-4.78, 37.88, 100.5) } } },
      { geom: pointParcel('x', 120).geom },
      { geom: pointParcel('x', undefined).geom },
      { geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [square(-4.78, 37.88)[0]!.slice(0, 4)] } } },
      { name: 'Ok name', geom: { type: 'Feature', properties: {}, geometry: { type: 'MultiPolygon', coordinates: [] } } },
      { name: '' },
      { metadata: { a: null } },
    ];
    const expectedCodes = ['area_over_limit', 'area_over_limit', 'hectares_missing', 'ring_not_closed', 'geometry_type', 'name_missing', 'metadata_invalid'];
    for (let i = 0; i < cases.length; i++) {
      const res = await patch(h, p.id, cases[i]);
      expect(res.statusCode, res.body).toBe(400);
      const b = res.json() as ErrorJson;
      expect(b.errors?.map((e) => e.code), JSON.stringify(b)).toContain(expectedCodes[i]);
    }
    expect(await read(p.id)).toEqual(before);
  });

  it('rejects a body id different from the path id, an unknown field and an empty body', async () => {
    const p = await fresh();
    const before = await read(p.id);
    const mismatch = await patch(h, p.id, { id: p.id + 1, metadata: { z: '1' } });
    expect(mismatch.statusCode).toBe(400);
    expect((mismatch.json() as ErrorJson).errors?.map((e) => e.code)).toContain('id_mismatch');
    expect((await patch(h, p.id, { id: String(p.id), metadata: { z: '1' } })).statusCode).toBe(400);
    const unknown = await patch(h, p.id, { metadata: { z: '1' }, hectares: 5 });
    expect(unknown.statusCode).toBe(400);
    expect((unknown.json() as ErrorJson).errors?.map((e) => e.code)).toContain('unknown_field');
    const empty = await patch(h, p.id, {});
    expect(empty.statusCode).toBe(400);
    expect((empty.json() as ErrorJson).errors?.map((e) => e.code)).toContain('empty_patch');
    expect((await patch(h, p.id, { id: p.id })).statusCode).toBe(400);
    expect((await patch(h, p.id, [])).statusCode).toBe(400);
    expect(await read(p.id)).toEqual(before);
    // The matching id is accepted.
    expect((await patch(h, p.id, { id: p.id, name: 'Same id' })).statusCode).toBe(200);
  });

  it('advances modified on every patch and keeps created', async () => {
    const clock = useManualClock('2026-03-01T08:00:00.000Z');
    const p = await fresh();
    expect(p.properties).toMatchObject({ created: '2026-03-01T08:00:00.000Z', modified: '2026-03-01T08:00:00.000Z' });
    clock.advance(1);
    const a = (await patch(h, p.id, { name: 'Later' })).json() as ParcelFeature;
    expect(a.properties.created).toBe('2026-03-01T08:00:00.000Z');
    expect(a.properties.modified).toBe('2026-03-01T08:00:00.001Z');
    clock.advance(60_000);
    const b = (await patch(h, p.id, { metadata: { n: 1 } })).json() as ParcelFeature;
    expect(b.properties.modified).toBe('2026-03-01T08:01:00.001Z');
    expect((await read(p.id)).properties).toMatchObject({ created: '2026-03-01T08:00:00.000Z', modified: '2026-03-01T08:01:00.001Z' });
  });

  it('returns 404 for an unknown parcel', async () => {
    expect((await patch(h, 99999999, { name: 'x' })).statusCode).toBe(404);
  });
});
