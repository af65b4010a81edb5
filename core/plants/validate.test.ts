import { describe, it, expect } from 'vitest';
import { polygonAreaM2 } from '../geo/area.ts';
import type { Position } from '../geo/types.ts';
import { plantAreaM2, validatePlantCollection, validatePlantFeature } from './validate.ts';

const outline: Position[] = [[5, 52], [5.00002, 52], [5.00002, 52.00002], [5, 52.00002], [5, 52]];
const plant = (properties: unknown = {}, coordinates: unknown = [5.00001, 52.00001]) =>
  ({ type: 'Feature', geometry: { type: 'Point', coordinates }, properties });
const summary = (input: unknown, index = 0) => validatePlantFeature(input, index).problems.map((p) => [p.code, p.path]);

describe('validatePlantFeature: valid plants', () => {
  it('returns point, shape, info, parcel and crop', () => {
    const { plant: p, problems } = validatePlantFeature(
      plant({ shape: { type: 'Polygon', coordinates: [outline] }, info: { species: 'olive', height_m: 3.2 }, parcel: 12, crop: 4 }), 0);
    expect(problems).toEqual([]);
    expect(p).toEqual({ point: [5.00001, 52.00001], shape: [outline], info: { species: 'olive', height_m: 3.2 }, parcel: 12, crop: 4 });
  });

  it('defaults absent or null properties to no shape, no info and no references', () => {
    const expected = { point: [5.00001, 52.00001], shape: null, info: null, parcel: null, crop: null };
    expect(validatePlantFeature(plant(undefined), 0).plant).toEqual(expected);
    expect(validatePlantFeature(plant(null), 0).plant).toEqual(expected);
    expect(validatePlantFeature(plant({ shape: null, parcel: null, crop: null, info: null }), 0).plant).toEqual(expected);
  });

  it('accepts a 3D point and 3D shape positions', () => {
    const shape3d = outline.map(([x, y]) => [x!, y!, 1.5]);
    const { problems, plant: p } = validatePlantFeature(plant({ shape: { type: 'Polygon', coordinates: [shape3d] } }, [5, 52, 7]), 0);
    expect(problems).toEqual([]);
    expect(p!.point).toEqual([5, 52, 7]);
  });

  it('tolerates the read-only fields of an exported plant', () => {
    const exported = { ...plant({ area: '4.00', key: 'b4f1…', created: '2025-01-01T00:00:00Z', modified: '2025-01-01T00:00:00Z' }), id: 9 };
    expect(summary(exported)).toEqual([]);
  });

  it('accepts any JSON as info', () => {
    for (const info of ['note', 3, false, [1, { a: [null] }], { nested: { deep: true } }]) {
      expect(summary(plant({ info }))).toEqual([]);
    }
  });
});

describe('validatePlantFeature: problems', () => {
  it.each([null, 'plant', [1]])('reports not_feature for %j', (input) => {
    expect(summary(input, 3)).toEqual([['not_feature', 'features/3']]);
  });

  it('reports not_feature for a wrong type', () => {
    expect(summary({ ...plant(), type: 'Point' })).toEqual([['not_feature', 'features/0/type']]);
  });

  it.each([undefined, null, { type: 'Polygon', coordinates: [outline] }, { type: 'MultiPoint', coordinates: [[5, 52]] }])(
    'reports geometry_type for a geometry of %j', (geometry) => {
      expect(summary({ type: 'Feature', geometry, properties: {} })).toEqual([['geometry_type', 'features/0/geometry']]);
    });

  it.each([[[5]], [[5, 52, 1, 2]], [['5', '52']], [[5, Number.NaN]], ['5,52']])('reports position_invalid for the point %j', (coords) => {
    expect(summary(plant({}, coords))).toEqual([['position_invalid', 'features/0/geometry/coordinates']]);
  });

  it('reports longitude_out_of_range and latitude_out_of_range', () => {
    expect(summary(plant({}, [-180.5, 91]))).toEqual([
      ['longitude_out_of_range', 'features/0/geometry/coordinates'],
      ['latitude_out_of_range', 'features/0/geometry/coordinates'],
    ]);
  });

  it.each([
    ['not an object', 'square'],
    ['not a Polygon', { type: 'Point', coordinates: [5, 52] }],
    ['without coordinates', { type: 'Polygon' }],
  ])('reports shape_invalid for a shape %s', (_what, shape) => {
    expect(summary(plant({ shape }))).toEqual([['shape_invalid', 'features/0/properties/shape']]);
  });

  it('reports shape_invalid for a ring that is not an array', () => {
    expect(summary(plant({ shape: { type: 'Polygon', coordinates: [outline, 'hole'] } }))).toEqual([['shape_invalid', 'features/0/properties/shape/coordinates/1']]);
  });

  it('reports ring_too_short for fewer than 4 positions, and for no ring', () => {
    expect(summary(plant({ shape: { type: 'Polygon', coordinates: [[[5, 52], [5.1, 52], [5, 52]]] } })))
      .toEqual([['ring_too_short', 'features/0/properties/shape/coordinates/0']]);
    expect(summary(plant({ shape: { type: 'Polygon', coordinates: [] } })))
      .toEqual([['ring_too_short', 'features/0/properties/shape/coordinates']]);
  });

  it('reports ring_not_closed', () => {
    const open = [...outline.slice(0, 4), [5, 52.00001]];
    expect(summary(plant({ shape: { type: 'Polygon', coordinates: [open] } })))
      .toEqual([['ring_not_closed', 'features/0/properties/shape/coordinates/0']]);
  });

  it('reports bad shape positions with their paths', () => {
    const bad: unknown[] = [...outline];
    bad[2] = [5, 'x'];
    expect(summary(plant({ shape: { type: 'Polygon', coordinates: [bad] } })))
      .toEqual([['position_invalid', 'features/0/properties/shape/coordinates/0/2']]);
  });

  it('reports properties_invalid for properties that are not an object', () => {
    expect(summary(plant('olive'))).toEqual([['properties_invalid', 'features/0/properties']]);
  });

  it.each([0, -1, 1.5, '12', true, { id: 1 }])('reports parcel_invalid and crop_invalid for %j', (ref) => {
    expect(summary(plant({ parcel: ref, crop: ref }))).toEqual([
      ['parcel_invalid', 'features/0/properties/parcel'],
      ['crop_invalid', 'features/0/properties/crop'],
    ]);
  });

  it('reports info_invalid for values JSON cannot carry', () => {
    expect(summary(plant({ info: { h: Number.NaN } }))).toEqual([['info_invalid', 'features/0/properties/info']]);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(summary(plant({ info: deep }))).toEqual([['info_invalid', 'features/0/properties/info']]);
  });

  it('prefixes messages with the plant index', () => {
    expect(validatePlantFeature(plant({ parcel: -2 }), 6).problems[0]!.message).toMatch(/^Plant 6: parcel must be null or a positive integer id, got -2/);
  });
});

describe('validatePlantCollection', () => {
  it('returns every valid plant in order', () => {
    const { plants, problems } = validatePlantCollection({ type: 'FeatureCollection', features: [plant({ parcel: 1 }), plant({ parcel: 2 })] });
    expect(problems).toEqual([]);
    expect(plants.map((p) => p.parcel)).toEqual([1, 2]);
  });

  it('reports every problem of every feature with its index', () => {
    const { plants, problems } = validatePlantCollection({
      type: 'FeatureCollection',
      features: [plant(), plant({ crop: 0 }), 'x', plant({}, [200, 0])],
    });
    expect(plants).toHaveLength(1);
    expect(problems.map((p) => [p.index, p.code, p.path])).toEqual([
      [1, 'crop_invalid', 'features/1/properties/crop'],
      [2, 'not_feature', 'features/2'],
      [3, 'longitude_out_of_range', 'features/3/geometry/coordinates'],
    ]);
  });

  it.each([null, [], { type: 'Feature' }, { type: 'FeatureCollection' }, { type: 'FeatureCollection', features: {} }])(
    'reports not_collection for %j', (input) => {
      const { plants, problems } = validatePlantCollection(input);
      expect(plants).toEqual([]);
      expect(problems.map((p) => [p.code, p.path])).toEqual([['not_collection', '']]);
    });

  it('accepts an empty collection', () => {
    expect(validatePlantCollection({ type: 'FeatureCollection', features: [] })).toEqual({ plants: [], problems: [] });
  });
});

describe('plantAreaM2', () => {
  it('is the geodesic area of the shape', () => {
    expect(plantAreaM2([outline])).toBe(polygonAreaM2([outline]));
    // 0.00002° × 0.00002° at 52°N: about 2.2 m × 1.4 m.
    expect(plantAreaM2([outline])).toBeGreaterThan(2.5);
    expect(plantAreaM2([outline])).toBeLessThan(3.5);
  });

  it('is 0 without a shape', () => {
    expect(plantAreaM2(null)).toBe(0);
  });
});
