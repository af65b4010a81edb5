import { describe, it, expect } from 'vitest';
import type { Position } from '../geo/types.ts';
import { validateGeom } from './validate.ts';

const opts = { maxHectares: 100 };
const ring: Position[] = [[5, 52], [5.005, 52], [5.005, 52.005], [5, 52.005], [5, 52]];
const geometry = { type: 'Polygon', coordinates: [ring] };
const check = (geom: unknown) => validateGeom(geom, 1, 'parcels/1/geom', opts);
const summary = (geom: unknown) => check(geom).problems.map((p) => [p.code, p.path]);

describe('geom: the Feature envelope', () => {
  it.each([undefined, null, 'Feature', [geometry], 12])('reports geom_not_feature for a geom of %j', (geom) => {
    const { geom: result, problems } = check(geom);
    expect(result).toBeNull();
    expect(problems).toEqual([expect.objectContaining({ index: 1, path: 'parcels/1/geom', code: 'geom_not_feature' })]);
  });

  it('reports geom_not_feature for a type other than Feature, naming it', () => {
    const { problems } = check({ type: 'FeatureCollection', properties: {}, geometry });
    expect(problems.map((p) => [p.code, p.path])).toEqual([['geom_not_feature', 'parcels/1/geom/type']]);
    expect(problems[0]!.message).toContain('"FeatureCollection"');
  });

  it('reports geom_not_feature for a bare geometry sent as geom', () => {
    expect(summary(geometry)).toEqual([
      ['unknown_field', 'parcels/1/geom/coordinates'],
      ['geom_not_feature', 'parcels/1/geom/type'],
      ['geom_not_feature', 'parcels/1/geom/geometry'],
    ]);
  });

  it('reports geom_not_feature for properties that are not an object', () => {
    expect(summary({ type: 'Feature', properties: [1], geometry })).toEqual([['geom_not_feature', 'parcels/1/geom/properties']]);
    expect(summary({ type: 'Feature', properties: 'x', geometry })).toEqual([['geom_not_feature', 'parcels/1/geom/properties']]);
  });

  it('reports geom_not_feature for a missing or non-object geometry', () => {
    expect(summary({ type: 'Feature', properties: {} })).toEqual([['geom_not_feature', 'parcels/1/geom/geometry']]);
    expect(summary({ type: 'Feature', properties: {}, geometry: null })).toEqual([['geom_not_feature', 'parcels/1/geom/geometry']]);
  });

  it('allows id and bbox on the Feature and bbox on the geometry', () => {
    const geom = { type: 'Feature', id: 'f1', bbox: [5, 52, 5.005, 52.005], properties: { source: 'drone' }, geometry: { ...geometry, bbox: [5, 52, 5.005, 52.005] } };
    expect(check(geom).problems).toEqual([]);
  });

  it('reports unknown_field on the Feature and on the geometry, naming the key', () => {
    const { problems } = check({ type: 'Feature', properties: {}, crs: {}, geometry: { ...geometry, crs: 'EPSG:4326' } });
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['unknown_field', 'parcels/1/geom/crs'],
      ['unknown_field', 'parcels/1/geom/geometry/crs'],
    ]);
    expect(problems[1]!.message).toContain('"crs"');
  });

  it('escapes unknown keys in paths as JSON pointers do', () => {
    expect(summary({ type: 'Feature', properties: {}, geometry, 'a/b~c': 1 })).toEqual([['unknown_field', 'parcels/1/geom/a~1b~0c']]);
  });
});

describe('geom: geometry type', () => {
  it.each(['MultiPolygon', 'LineString', 'polygon', undefined, 3])('reports geometry_type for %j, naming what was sent', (type) => {
    const { problems } = check({ type: 'Feature', properties: {}, geometry: { type, coordinates: [[ring]] } });
    expect(problems.map((p) => [p.code, p.path])).toEqual([['geometry_type', 'parcels/1/geom/geometry/type']]);
    if (typeof type === 'string') expect(problems[0]!.message).toContain(`"${type}"`);
  });

  it('reports envelope and geometry problems together', () => {
    expect(summary({ type: 'feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring.slice(0, 3)] } })).toEqual([
      ['geom_not_feature', 'parcels/1/geom/type'],
      ['ring_too_short', 'parcels/1/geom/geometry/coordinates/0'],
      ['ring_not_closed', 'parcels/1/geom/geometry/coordinates/0'],
    ]);
  });

  it('returns a fresh Polygon geometry without the input\'s bbox', () => {
    const { geom } = check({ type: 'Feature', properties: {}, geometry: { ...geometry, bbox: [0, 0, 1, 1] } });
    expect(geom!.geometry).toEqual({ type: 'Polygon', coordinates: [ring] });
  });
});
