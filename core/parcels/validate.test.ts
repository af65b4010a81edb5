import { describe, it, expect } from 'vitest';
import { polygonHectares } from '../geo/area.ts';
import { squareBBox } from '../geo/square.ts';
import type { Position } from '../geo/types.ts';
import {
  DEFAULT_MAX_PARCEL_HECTARES, MAX_NAME_LENGTH, MAX_PARCELS_PER_REQUEST, MAX_POSITIONS_PER_PARCEL,
  validateParcel, validateParcels,
} from './validate.ts';
import type { ParcelProblemCode } from './validate.ts';

const opts = { maxHectares: DEFAULT_MAX_PARCEL_HECTARES };
// 0.005° square at 52°N: about 343 m × 556 m, 19 ha.
const cell = (lon = 5, lat = 52, d = 0.005): Position[] => [[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]];
const polygon = (coordinates: unknown, ...name: unknown[]) =>
  ({ name: name.length > 0 ? name[0] : 'North field', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates } } });
const point = (lon: number, lat: number, hectares: unknown) =>
  ({ name: 'Orchard', geom: { type: 'Feature', properties: { metadata: { hectares } }, geometry: { type: 'Point', coordinates: [lon, lat] } } });
const codes = (input: unknown, index = 0) => validateParcel(input, index, opts).problems.map((p) => p.code);

describe('limits', () => {
  it('match the API contract', () => {
    expect(DEFAULT_MAX_PARCEL_HECTARES).toBe(100);
    expect(MAX_PARCELS_PER_REQUEST).toBe(50);
    expect(MAX_POSITIONS_PER_PARCEL).toBe(10_000);
    expect(MAX_NAME_LENGTH).toBe(255);
  });
});

describe('validateParcel: valid input', () => {
  it('returns a polygon parcel with its geodesic hectares, bbox and centre', () => {
    const ring = cell();
    const { parcel, problems } = validateParcel({ ...polygon([ring], '  North field '), metadata: { region: 'Gelderland' } }, 0, opts);
    expect(problems).toEqual([]);
    expect(parcel).toEqual({
      name: 'North field',
      metadata: { region: 'Gelderland' },
      sourceType: 'Polygon',
      geometry: { type: 'Polygon', coordinates: [ring] },
      point: null,
      hectares: polygonHectares([ring]),
      bbox: [5, 52, 5.005, 52.005],
      center: [(5 + 5.005) / 2, (52 + 52.005) / 2],
    });
    expect(parcel!.hectares).toBeGreaterThan(18);
    expect(parcel!.hectares).toBeLessThan(20);
  });

  it('returns a point parcel as a generated square of the requested hectares', () => {
    const { parcel, problems } = validateParcel(point(4.9, 52.37, 2.5), 0, opts);
    expect(problems).toEqual([]);
    expect(parcel!.sourceType).toBe('Point');
    expect(parcel!.point).toEqual([4.9, 52.37]);
    expect(parcel!.hectares).toBe(2.5);
    expect(parcel!.center).toEqual([4.9, 52.37]);
    expect(parcel!.bbox).toEqual(squareBBox(4.9, 52.37, 2.5));
    expect(parcel!.geometry.type).toBe('Polygon');
    expect(parcel!.geometry.coordinates[0]).toHaveLength(5);
    expect(Math.abs(polygonHectares(parcel!.geometry.coordinates) / 2.5 - 1)).toBeLessThan(1e-4);
  });

  it('defaults metadata to {} and accepts a Feature without properties', () => {
    const input = { name: 'A', geom: { type: 'Feature', geometry: { type: 'Polygon', coordinates: [cell()] } } };
    expect(validateParcel(input, 0, opts).parcel!.metadata).toEqual({});
    const nullProps = { name: 'A', geom: { type: 'Feature', properties: null, geometry: { type: 'Polygon', coordinates: [cell()] } } };
    expect(validateParcel(nullProps, 0, opts).problems).toEqual([]);
  });
});

describe('validateParcel: the parcel object', () => {
  it.each([null, 'parcel', 42, [1, 2], true])('reports not_object for %j', (input) => {
    const { parcel, problems } = validateParcel(input, 2, opts);
    expect(parcel).toBeNull();
    expect(problems).toEqual([expect.objectContaining({ index: 2, path: 'parcels/2', code: 'not_object' })]);
    expect(problems[0]!.message).toMatch(/^Parcel 2: /);
  });

  it('reports unknown_field for each unexpected key, naming it', () => {
    const { problems } = validateParcel({ ...polygon([cell()]), colour: 'red', farm: 3 }, 0, opts);
    expect(problems.map((p) => [p.code, p.path])).toEqual([['unknown_field', 'parcels/0/colour'], ['unknown_field', 'parcels/0/farm']]);
    expect(problems[0]!.message).toContain('"colour"');
  });
});

describe('validateParcel: name', () => {
  it.each([undefined, '', '   \t', 42, null, ['a']])('reports name_missing for %j', (name) => {
    const { problems } = validateParcel(polygon([cell()], name), 0, opts);
    expect(problems).toEqual([expect.objectContaining({ path: 'parcels/0/name', code: 'name_missing' })]);
  });

  it('reports name_too_long past 255 characters, naming the limit', () => {
    const { problems } = validateParcel(polygon([cell()], 'x'.repeat(256)), 0, opts);
    expect(problems.map((p) => p.code)).toEqual(['name_too_long']);
    expect(problems[0]!.message).toContain('256');
    expect(problems[0]!.message).toContain('255');
  });

  it('counts characters, not UTF-16 units, and trims before measuring', () => {
    expect(codes(polygon([cell()], 'x'.repeat(255)))).toEqual([]);
    expect(codes(polygon([cell()], '🌾'.repeat(255)))).toEqual([]);
    expect(codes(polygon([cell()], `  ${'x'.repeat(255)}  `))).toEqual([]);
  });
});

describe('validateParcel: cheap checks gate the expensive ones', () => {
  it('skips the intersection test when a ring is not closed', () => {
    // A bow-tie that is also open: only the structural problem is reported.
    expect(codes(polygon([[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0.5]]]))).toEqual(['ring_not_closed']);
  });

  it('skips the area limit when a position is invalid', () => {
    const huge = [[0, 0], [10, 0], [10, 10], ['x', 10], [0, 0]];
    expect(codes(polygon([huge]))).toEqual(['position_invalid']);
  });
});

describe('validateParcels', () => {
  it('reports every problem of every parcel in index order, with the right indexes and paths', () => {
    const inputs = [
      polygon([cell()]),
      { name: '', metadata: [], geom: { type: 'Feature', properties: {}, geometry: { type: 'MultiPolygon', coordinates: [] } } },
      polygon([cell()]),
      point(200, 95, undefined),
      'not a parcel',
    ];
    const { problems } = validateParcels(inputs, opts);
    expect(problems.map((p) => [p.index, p.code, p.path])).toEqual([
      [1, 'name_missing', 'parcels/1/name'],
      [1, 'metadata_invalid', 'parcels/1/metadata'],
      [1, 'geometry_type', 'parcels/1/geom/geometry/type'],
      [3, 'longitude_out_of_range', 'parcels/3/geom/geometry/coordinates'],
      [3, 'latitude_out_of_range', 'parcels/3/geom/geometry/coordinates'],
      [3, 'hectares_missing', 'parcels/3/geom/properties/metadata/hectares'],
      [4, 'not_object', 'parcels/4'],
    ]);
    for (const p of problems) expect(p.message.startsWith(`Parcel ${p.index}: `)).toBe(true);
  });

  it('returns all parcels in request order when there is no problem', () => {
    const { parcels, problems } = validateParcels([polygon([cell()], 'A'), point(5, 52, 1), polygon([cell(6)], 'C')], opts);
    expect(problems).toEqual([]);
    expect(parcels.map((p) => [p.name, p.sourceType])).toEqual([['A', 'Polygon'], ['Orchard', 'Point'], ['C', 'Polygon']]);
  });

  it('uses pathPrefix for the paths', () => {
    const { problems } = validateParcels([polygon([cell()], '')], { maxHectares: 100, pathPrefix: 'farm_parcels' });
    expect(problems[0]!.path).toBe('farm_parcels/0/name');
  });

  it('applies the account\'s own limit', () => {
    const big = polygon([cell(5, 52, 0.02)]); // about 300 ha
    const codesAt = (maxHectares: number) => validateParcels([big], { maxHectares }).problems.map((p) => p.code);
    expect(codesAt(100)).toEqual(['area_over_limit']);
    expect(codesAt(500)).toEqual([]);
  });

  it('has a problem code for every rule (compile-time list kept honest)', () => {
    const all: ParcelProblemCode[] = [
      'not_object', 'unknown_field', 'name_missing', 'name_too_long', 'metadata_invalid', 'geom_not_feature',
      'geometry_type', 'ring_not_closed', 'ring_too_short', 'position_invalid', 'longitude_out_of_range',
      'latitude_out_of_range', 'self_intersection', 'hole_outside', 'area_not_positive', 'too_many_positions',
      'hectares_missing', 'area_over_limit', 'id_mismatch', 'empty_patch',
    ];
    expect(new Set(all).size).toBe(20);
  });
});
