import { describe, it, expect } from 'vitest';
import { polygonHectares } from '../geo/area.ts';
import type { Position } from '../geo/types.ts';
import { MAX_POSITION_PROBLEMS_PER_PARCEL, MAX_POSITIONS_PER_PARCEL, validateGeom } from './validate.ts';

const opts = { maxHectares: 100 };
const cell = (lon = 5, lat = 52, d = 0.005): Position[] => [[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]];
const feature = (coordinates: unknown) => ({ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates } });
const check = (coordinates: unknown, maxHectares = 100) => validateGeom(feature(coordinates), 3, 'parcels/3/geom', { maxHectares });
const codes = (coordinates: unknown) => check(coordinates).problems.map((p) => p.code);
const C = 'parcels/3/geom/geometry/coordinates';

function circle(n: number, lon: number, lat: number, r: number): Position[] {
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) ring.push([lon + r * Math.cos((2 * Math.PI * i) / n), lat + r * Math.sin((2 * Math.PI * i) / n)]);
  ring.push([...ring[0]!]);
  return ring;
}

describe('Polygon: structure', () => {
  it('reports ring_too_short for a ring of 3 positions and for no ring at all', () => {
    const { problems } = check([[[5, 52], [5.01, 52], [5, 52]]]);
    expect(problems).toEqual([expect.objectContaining({ index: 3, path: `${C}/0`, code: 'ring_too_short' })]);
    expect(problems[0]!.message).toMatch(/^Parcel 3: ring 0 has 3 positions; a ring needs at least 4/);
    expect(codes([])).toEqual(['ring_too_short']);
  });

  it('reports ring_not_closed when the last position differs from the first', () => {
    const ring = cell();
    ring[4] = [5, 52.0001];
    const { problems } = check([ring]);
    expect(problems).toEqual([expect.objectContaining({ path: `${C}/0`, code: 'ring_not_closed' })]);
    expect(problems[0]!.message).toContain('[5,52]');
  });

  it('reports ring_not_closed when only z differs between the ends', () => {
    const ring = cell().map(([lon, lat]) => [lon!, lat!, 10]);
    ring[4] = [5, 52, 11];
    expect(codes([ring])).toEqual(['ring_not_closed']);
  });

  it('accepts 3D positions', () => {
    const ring = cell().map(([lon, lat]) => [lon!, lat!, 12.5]);
    const { geom, problems } = check([ring]);
    expect(problems).toEqual([]);
    expect(geom!.hectares).toBeCloseTo(polygonHectares([cell()]), 9);
  });

  it.each([
    ['a string position', ['5', 52]],
    ['a single number', [5]],
    ['four numbers', [5, 52, 0, 1]],
    ['a non-finite number', [Number.NaN, 52]],
    ['null', null],
  ])('reports position_invalid for %s, with the position\'s path', (_what, bad) => {
    const ring: unknown[] = cell();
    ring[2] = bad;
    const { problems } = check([ring]);
    expect(problems).toEqual([expect.objectContaining({ path: `${C}/0/2`, code: 'position_invalid' })]);
    expect(problems[0]!.message).toContain('ring 0 position 2');
  });

  it('reports position_invalid when coordinates or a ring are not arrays', () => {
    expect(check('nope').problems).toEqual([expect.objectContaining({ path: C, code: 'position_invalid' })]);
    expect(check([cell(), 7]).problems).toEqual([expect.objectContaining({ path: `${C}/1`, code: 'position_invalid' })]);
  });

  it('reports longitude_out_of_range and latitude_out_of_range, naming the value', () => {
    const ring = cell();
    ring[1] = [180.5, 52];
    ring[2] = [5, -90.25];
    const { problems } = check([ring]);
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['longitude_out_of_range', `${C}/0/1`],
      ['latitude_out_of_range', `${C}/0/2`],
    ]);
    expect(problems[0]!.message).toContain('180.5');
    expect(problems[1]!.message).toContain('-90.25');
  });

  it('accepts the extreme valid coordinates', () => {
    const { problems } = check([[[-180, -90], [180, -90], [180, 90], [-180, -90]]]);
    expect(problems.filter((p) => p.code.endsWith('_out_of_range'))).toEqual([]);
  });

  it('hints at swapped coordinates', () => {
    const ring = cell().map(([lon, lat]) => [lat!, lon!]).map(([a, b]) => [a!, b! + 90]);
    expect(check([ring]).problems[0]!.message).toContain('were they swapped?');
  });

  it('reports every bad position up to the cap, then counts the rest', () => {
    const ring = circle(60, 5, 52, 0.001).map(([lon, lat], i) => (i > 0 && i < 60 ? [lon!, lat! + 200] : [lon!, lat!]));
    const { problems } = check([ring]);
    expect(problems).toHaveLength(MAX_POSITION_PROBLEMS_PER_PARCEL);
    expect(problems.every((p) => p.code === 'latitude_out_of_range')).toBe(true);
    expect(problems.at(-1)!.message).toContain(`and ${59 - MAX_POSITION_PROBLEMS_PER_PARCEL} more position problems`);
  });

  it('reports too_many_positions past 10,000 positions in all rings, without inspecting each', () => {
    const outer = circle(MAX_POSITIONS_PER_PARCEL - 11, 5, 52, 0.005); // 9,990 positions, closing one included
    const hole = circle(10, 5, 52, 0.001).reverse(); // 11
    const { problems } = check([outer, hole]);
    expect(problems).toEqual([expect.objectContaining({ path: C, code: 'too_many_positions' })]);
    expect(problems[0]!.message).toContain('10001');
    expect(problems[0]!.message).toContain('10000');
  });

  it('accepts exactly 10,000 positions', () => {
    const { problems, geom } = check([circle(MAX_POSITIONS_PER_PARCEL - 1, 5, 52, 0.003)]);
    expect(problems).toEqual([]);
    expect(geom!.hectares).toBeGreaterThan(0);
  });

  it('reports several structural problems at once', () => {
    const open = cell().slice(0, 4);
    const short = [[5, 52], [5.001, 52], [5, 52]];
    expect(codes([open, short, [[5, 52], ['x'], [5.001, 52.001], [5, 52]]])).toEqual(['ring_not_closed', 'ring_too_short', 'position_invalid']);
  });
});

describe('Polygon: topology and area', () => {
  it('reports self_intersection for a bow-tie, with ring, segments and point', () => {
    const { problems } = check([[[5, 52], [5.01, 52.01], [5.01, 52], [5, 52.01], [5, 52]]]);
    expect(problems).toEqual([expect.objectContaining({ path: `${C}/0/0`, code: 'self_intersection' })]);
    expect(problems[0]!.message).toMatch(/ring 0 \(outer\) crosses or touches itself: segment 0 meets segment 2 at \[5\.00(49+\d*|50*\d*), 52\.00(49+\d*|50*\d*)\]/);
  });

  it('reports self_intersection for a hole crossing the outer ring', () => {
    const { problems } = check([cell(), cell(5.004, 52.001, 0.002)]);
    expect(problems.map((p) => p.code)).toEqual(['self_intersection']);
    expect(problems[0]!.message).toMatch(/ring 0 \(outer\) segment \d+ meets ring 1 \(hole\) segment \d+/);
  });

  it('reports self_intersection for two crossing holes', () => {
    const { problems } = check([cell(5, 52, 0.01), cell(5.002, 52.002, 0.003), cell(5.004, 52.004, 0.003)]);
    expect(problems.map((p) => p.code)).toEqual(['self_intersection']);
    expect(problems[0]!.path).toMatch(new RegExp(`^${C}/1/\\d+$`));
  });

  it('accepts a hole strictly inside and subtracts it', () => {
    const outer = cell(5, 52, 0.005);
    const hole = cell(5.001, 52.001, 0.002).reverse();
    const { geom, problems } = check([outer, hole]);
    expect(problems).toEqual([]);
    expect(geom!.hectares).toBeCloseTo(polygonHectares([outer]) - polygonHectares([hole]), 9);
    expect(geom!.hectares).toBeLessThan(polygonHectares([outer]));
  });

  it('reports hole_outside for a hole outside its shell', () => {
    const { problems } = check([cell(), cell(5.01, 52.01, 0.001)]);
    expect(problems).toEqual([expect.objectContaining({ path: `${C}/1`, code: 'hole_outside' })]);
    expect(problems[0]!.message).toContain('ring 1 (hole) lies outside the outer ring');
  });

  it('reports hole_outside for a hole inside another hole', () => {
    const { problems } = check([cell(5, 52, 0.01), cell(5.002, 52.002, 0.005), cell(5.003, 52.003, 0.001)]);
    expect(problems).toEqual([expect.objectContaining({ path: `${C}/2`, code: 'hole_outside' })]);
    expect(problems[0]!.message).toContain('inside ring 1');
  });

  it('reports area_not_positive for a ring whose positions are all the same point', () => {
    const { problems } = check([[[5, 52], [5, 52], [5, 52], [5, 52]]]);
    expect(problems).toEqual([expect.objectContaining({ path: C, code: 'area_not_positive' })]);
  });

  it('reports area_over_limit with the area and the limit', () => {
    // 0.0125° × 0.0125° at 52°N is about 120 ha.
    const ring = cell(5, 52, 0.0125);
    const ha = polygonHectares([ring]);
    expect(ha).toBeGreaterThan(100);
    const { problems } = check([ring]);
    expect(problems).toEqual([expect.objectContaining({ path: C, code: 'area_over_limit' })]);
    expect(problems[0]!.message).toBe(`Parcel 3: area ${ha.toFixed(2)} ha exceeds the account's limit of 100 ha`);
  });

  it('accepts a parcel exactly under the limit and rejects it just above', () => {
    const ring = cell(5, 52, 0.0125);
    const ha = polygonHectares([ring]);
    expect(check([ring], ha).problems).toEqual([]);
    expect(check([ring], ha * (1 - 1e-12)).problems.map((p) => p.code)).toEqual(['area_over_limit']);
  });

  it('returns bbox and centre of the outer ring', () => {
    const { geom } = check([cell(5, 52, 0.004)]);
    expect(geom!.bbox).toEqual([5, 52, 5.004, 52.004]);
    expect(geom!.center[0]).toBeCloseTo(5.002, 12);
    expect(geom!.center[1]).toBeCloseTo(52.002, 12);
    expect(geom!.point).toBeNull();
    expect(geom!.sourceType).toBe('Polygon');
  });

  it('passes option maxHectares through validateGeom', () => {
    expect(validateGeom(feature([cell(5, 52, 0.005)]), 0, 'geom', opts).problems).toEqual([]);
    expect(validateGeom(feature([cell(5, 52, 0.005)]), 0, 'geom', { maxHectares: 10 }).problems.map((p) => p.path)).toEqual(['geom/geometry/coordinates']);
  });
});
