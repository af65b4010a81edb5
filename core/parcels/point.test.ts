import { describe, it, expect } from 'vitest';
import { ringAreaM2 } from '../geo/area.ts';
import { validateGeom } from './validate.ts';

const feature = (coordinates: unknown, properties: unknown) => ({ type: 'Feature', properties, geometry: { type: 'Point', coordinates } });
const at = (lon: number, lat: number, hectares: unknown) => feature([lon, lat], { metadata: { hectares } });
const check = (geom: unknown, maxHectares = 100) => validateGeom(geom, 4, 'parcels/4/geom', { maxHectares });
const summary = (geom: unknown, maxHectares = 100) => check(geom, maxHectares).problems.map((p) => [p.code, p.path]);
const COORDS = 'parcels/4/geom/geometry/coordinates';
const HECTARES = 'parcels/4/geom/properties/metadata/hectares';

describe('Point parcels', () => {
  it('become a square of the requested area centred on the point', () => {
    const { geom, problems } = check(at(-3.7, 40.4, 12));
    expect(problems).toEqual([]);
    expect(geom!.sourceType).toBe('Point');
    expect(geom!.point).toEqual([-3.7, 40.4]);
    expect(geom!.hectares).toBe(12);
    expect(geom!.center).toEqual([-3.7, 40.4]);
    const square = geom!.geometry.coordinates[0]!;
    expect(Math.abs(ringAreaM2(square) / 120_000 - 1)).toBeLessThan(1e-4);
    expect(geom!.bbox).toEqual([square[0]![0], square[0]![1], square[2]![0], square[2]![1]]);
  });

  it('accept a 3D point and keep only lon/lat as the point', () => {
    const { geom, problems } = check(feature([10, 50, 120], { metadata: { hectares: 1 } }));
    expect(problems).toEqual([]);
    expect(geom!.point).toEqual([10, 50]);
  });

  it.each([
    ['no properties', feature([5, 52], undefined)],
    ['null properties', feature([5, 52], null)],
    ['no metadata', feature([5, 52], {})],
    ['metadata not an object', feature([5, 52], { metadata: 'hectares=5' })],
    ['no hectares', at(5, 52, undefined)],
    ['hectares as a string', at(5, 52, '5')],
    ['zero hectares', at(5, 52, 0)],
    ['negative hectares', at(5, 52, -1)],
    ['infinite hectares', at(5, 52, Number.POSITIVE_INFINITY)],
  ])('report hectares_missing with %s', (_what, geom) => {
    const { problems } = check(geom);
    expect(problems).toEqual([expect.objectContaining({ index: 4, path: HECTARES, code: 'hectares_missing' })]);
    expect(problems[0]!.message).toContain('point parcels need geom.properties.metadata.hectares, a positive number');
  });

  it('ignore hectares in the parcel metadata: only geom.properties.metadata counts', () => {
    expect(summary(feature([5, 52], { hectares: 5 }))).toEqual([['hectares_missing', HECTARES]]);
  });

  it('report area_over_limit for hectares above the limit, naming both', () => {
    const { problems } = check(at(5, 52, 100.5));
    expect(problems).toEqual([expect.objectContaining({ path: HECTARES, code: 'area_over_limit' })]);
    expect(problems[0]!.message).toBe("Parcel 4: area 100.50 ha exceeds the account's limit of 100 ha");
    expect(summary(at(5, 52, 100))).toEqual([]);
    expect(summary(at(5, 52, 100.5), 250)).toEqual([]);
  });

  it('show enough decimals that an over-limit area never reads as equal to the limit', () => {
    expect(check(at(5, 52, 100.001)).problems[0]!.message).toContain('100.001 ha exceeds');
  });

  it.each([
    ['a string', '5,52'],
    ['one number', [5]],
    ['a nested array', [[5, 52]]],
    ['strings', ['5', '52']],
  ])('report position_invalid for coordinates given as %s', (_what, coordinates) => {
    expect(summary(feature(coordinates, { metadata: { hectares: 1 } }))).toEqual([['position_invalid', COORDS]]);
  });

  it('report longitude_out_of_range outside [-180, 180]', () => {
    expect(summary(at(-181, 52, 1))).toEqual([['longitude_out_of_range', COORDS]]);
  });

  it('report latitude_out_of_range beyond ±85, where the square would degenerate', () => {
    const { problems } = check(at(5, 85.5, 1));
    expect(problems.map((p) => [p.code, p.path])).toEqual([['latitude_out_of_range', COORDS]]);
    expect(problems[0]!.message).toContain('[-85, 85] allowed for point parcels');
    expect(summary(at(5, -85, 1))).toEqual([]);
  });

  it('report longitude_out_of_range when the square would cross the antimeridian', () => {
    const { problems } = check(at(179.9999, 10, 50));
    expect(problems.map((p) => [p.code, p.path])).toEqual([['longitude_out_of_range', COORDS]]);
    expect(problems[0]!.message).toContain('antimeridian');
    expect(summary(at(179.9, 10, 50))).toEqual([]);
  });

  it('report latitude_out_of_range when an account limit allows a square reaching the pole', () => {
    const { problems } = check(at(0, 84, 1e9), 1e10);
    expect(problems.map((p) => [p.code, p.path])).toEqual([['latitude_out_of_range', COORDS]]);
    expect(problems[0]!.message).toContain('pole');
  });

  it('report position and hectares problems together', () => {
    expect(summary(feature([5, 95], {}))).toEqual([['latitude_out_of_range', COORDS], ['hectares_missing', HECTARES]]);
  });
});
