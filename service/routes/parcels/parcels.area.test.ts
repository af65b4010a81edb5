// POST /api/parcels/: geodesic area, points turned into squares, and the 100 ha limit with its per-account overrides
// (spec: "Parcels", "Limits").
import { describe, expect, it } from 'vitest';
import { asAccount, newAccount, pointParcel, polygonParcel, square } from '../../../test/helpers/service.ts';
import { polygonHectares } from '../../../core/geo/area.ts';
import { hectareSquare } from '../../../core/geo/square.ts';
import { codesAt, create, farmOf, h, org, rejected, sizedPolygon, svc, useParcelService } from './parcels.test-helpers.ts';

useParcelService();

describe('POST /api/parcels/ — area', () => {
  it('computes a polygon area geodesically (same as polygonHectares) and a ~100 m square is about 1 ha', async () => {
    const farm = await farmOf();
    const shapes = [square(-4.78, 37.88, 100), square(10, 60, 300), square(-60, -35, 250)];
    const arr = await create(h, farm, shapes.map((c, i) => ({ name: `Geo ${i}`, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: c } } })));
    for (let i = 0; i < shapes.length; i++) {
      const expected = polygonHectares(shapes[i]!);
      expect(Math.abs(arr[i]!.properties.hectares - expected) / expected).toBeLessThan(1e-9);
    }
    expect(arr[0]!.properties.hectares).toBeGreaterThan(0.99);
    expect(arr[0]!.properties.hectares).toBeLessThan(1.01);
    expect(arr[1]!.properties.hectares).toBeGreaterThan(8.9);
    expect(arr[1]!.properties.hectares).toBeLessThan(9.1);
  });

  it('subtracts holes from a polygon area', async () => {
    const farm = await farmOf();
    const outer = hectareSquare(-4.78, 37.88, 4)[0]!;
    const hole = [...hectareSquare(-4.78, 37.88, 1)[0]!].reverse();
    const [f] = await create(h, farm, [{ name: 'Holed', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [outer, hole] } } }]);
    expect(f!.properties.hectares).toBeCloseTo(3, 6);
  });

  it('turns a point with hectares into a square of that area centred on the point', async () => {
    const farm = await farmOf();
    const cases: Array<[number, number, number]> = [[2.5, -4.78, 37.88], [0.3, 5.2, 51.9], [42, -70.1, -33.4]];
    const arr = await create(h, farm, cases.map(([ha, lon, lat], i) => pointParcel(`Pt ${i}`, ha, lon, lat)));
    for (let i = 0; i < cases.length; i++) {
      const [ha, lon, lat] = cases[i]!;
      const f = arr[i]!;
      expect(f.geometry.type).toBe('Polygon');
      const ring = f.geometry.coordinates[0]!;
      expect(ring).toHaveLength(5);
      expect(ring[0]).toEqual(ring[4]);
      expect(Math.abs(polygonHectares(f.geometry.coordinates) - ha) / ha).toBeLessThan(1e-4);
      expect(f.properties.hectares).toBe(ha);
      expect(f.properties.source_type).toBe('Point');
      expect(f.properties.point).toEqual([lon, lat]);
      const [minx, miny, maxx, maxy] = f.bbox;
      expect((minx! + maxx!) / 2).toBeCloseTo(lon, 9);
      expect((miny! + maxy!) / 2).toBeCloseTo(lat, 9);
      // A square, not a thin rectangle: its sides are of (nearly) equal ground length.
      const widthM = (maxx! - minx!) * 111_320 * Math.cos((lat * Math.PI) / 180);
      const heightM = (maxy! - miny!) * 110_574;
      expect(widthM / heightM).toBeGreaterThan(0.98);
      expect(widthM / heightM).toBeLessThan(1.02);
    }
    // A polygon parcel says so.
    const [poly] = await create(h, farm, [polygonParcel('Poly')]);
    expect(poly!.properties.source_type).toBe('Polygon');
    expect(poly!.properties.point).toBeNull();
  });

  it('rejects the whole batch when a point has no hectares', async () => {
    const farm = await farmOf();
    const b = await rejected(h, { farm: { id: farm }, parcels: [polygonParcel('fine'), pointParcel('no ha', undefined)] });
    expect(b.code).toBe('invalid_parcels');
    expect(codesAt(b, 1)).toContain('hectares_missing');
    for (const bad of [0, -1, '3']) {
      const p = pointParcel('bad ha', 1);
      (p.geom.properties.metadata as Record<string, unknown>)['hectares'] = bad;
      const b2 = await rejected(h, { farm: { id: farm }, parcels: [p] });
      expect(codesAt(b2, 0)).toContain('hectares_missing');
    }
    // hectares at the parcel's metadata instead of geom.properties.metadata does not count.
    const misplaced = { ...pointParcel('misplaced', undefined), metadata: { hectares: 3 } };
    expect(codesAt(await rejected(h, { farm: { id: farm }, parcels: [misplaced] }), 0)).toContain('hectares_missing');
  });
});

describe('POST /api/parcels/ — 100 ha limit and account overrides', () => {
  it('accepts 99.9 ha and rejects 100.5 ha, for polygons and points', async () => {
    const farm = await farmOf();
    const ok = await create(h, farm, [sizedPolygon('Poly 99.9', 99.9), pointParcel('Point 99.9', 99.9, -4.7, 37.8), pointParcel('Point 100', 100, -4.6, 37.8)]);
    expect(ok[0]!.properties.hectares).toBeCloseTo(99.9, 6);
    expect(ok[1]!.properties.hectares).toBe(99.9);
    expect(ok[2]!.properties.hectares).toBe(100);
    const poly = await rejected(h, { farm: { id: farm }, parcels: [sizedPolygon('Poly 100.5', 100.5)] });
    expect(codesAt(poly, 0)).toContain('area_over_limit');
    const point = await rejected(h, { farm: { id: farm }, parcels: [pointParcel('Point 100.5', 100.5)] });
    expect(codesAt(point, 0)).toContain('area_over_limit');
  });

  it("applies a limit agreed for the account (raised to 200: 150 ok, 250 rejected; lowered to 50: 60 rejected)", async () => {
    const special = await newAccount(svc, org);
    const sh = asAccount(org, special);
    const farm = await farmOf(special);
    await svc.store.accounts.setParcelLimit(special.id, 200);
    const big = await create(sh, farm, [sizedPolygon('150 poly', 150), pointParcel('150 point', 150, -4.6, 37.8)]);
    expect(big.map((f) => Math.round(f.properties.hectares))).toEqual([150, 150]);
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [sizedPolygon('250 poly', 250)] }), 0)).toContain('area_over_limit');
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [pointParcel('250 point', 250)] }), 0)).toContain('area_over_limit');
    // The organization key acting on that farm gets the account's limit too.
    await create({ 'x-api-key': org.api_key }, farm, [pointParcel('150 by org', 150, -4.5, 37.8)]);
    // The shared account still has the default.
    const farm2 = await farmOf();
    expect(codesAt(await rejected(h, { farm: { id: farm2 }, parcels: [sizedPolygon('150 elsewhere', 150)] }), 0)).toContain('area_over_limit');

    await svc.store.accounts.setParcelLimit(special.id, 50);
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [sizedPolygon('60 poly', 60)] }), 0)).toContain('area_over_limit');
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [pointParcel('60 point', 60)] }), 0)).toContain('area_over_limit');
    await create(sh, farm, [sizedPolygon('40 poly', 40, -4.4, 37.8)]);
    await svc.store.accounts.setParcelLimit(special.id, null);
    await create(sh, farm, [pointParcel('back to default', 99, -4.3, 37.8)]);
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [pointParcel('101', 101)] }), 0)).toContain('area_over_limit');
  });
});
