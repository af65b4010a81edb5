import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import geodesic from 'geographiclib-geodesic';
import { geodesicS12 } from './geodesic-s12.ts';

// geodesicS12 is the library's Inverse(…, AREA | LONG_UNROLL).S12 without its allocations: it must give the very
// same double (Object.is: -0 and NaN included) for every edge, short or long, near the poles, on the equator, on a
// meridian, nearly antipodal, across the antimeridian.
const G = geodesic.Geodesic;
const reference = (lat1: number, lon1: number, lat2: number, lon2: number) => G.WGS84.Inverse(lat1, lon1, lat2, lon2, G.AREA | G.LONG_UNROLL).S12!;
const same = (lat1: number, lon1: number, lat2: number, lon2: number) => {
  const got = geodesicS12(lat1, lon1, lat2, lon2);
  const want = reference(lat1, lon1, lat2, lon2);
  if (!Object.is(got, want)) expect({ edge: [lat1, lon1, lat2, lon2], got }).toEqual({ edge: [lat1, lon1, lat2, lon2], got: want });
};

describe('geodesicS12 is GeographicLib\'s Inverse S12, bit for bit', () => {
  const lat = fc.double({ min: -90, max: 90, noNaN: true });
  const lon = fc.double({ min: -540, max: 540, noNaN: true });

  it('for any two points', () => {
    fc.assert(fc.property(lat, lon, lat, lon, (a, b, c, d) => same(a, b, c, d)), { numRuns: 20_000 });
  });

  it('for edges from a millimetre to a hemisphere long', () => {
    const step = fc.constantFrom(1e-9, 1e-7, 1e-5, 1e-3, 0.1, 1, 10, 90, 179);
    fc.assert(fc.property(lat, lon, step, fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), (a, b, s, dy, dx) =>
      same(a, b, Math.max(-90, Math.min(90, a + dy * s)), b + dx * s)), { numRuns: 20_000 });
  });

  it('for nearly antipodal points (the astroid start, the bisection fallback)', () => {
    fc.assert(fc.property(fc.double({ min: -3, max: 3, noNaN: true }), lon, fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }),
      (a, b, dy, dx) => same(a, b, -a + dy * 0.5, b + 180 + dx * 0.5)), { numRuns: 5_000 });
  });

  it('on the special values: poles, equator, meridians, ±0, ±180, 45° and 30° (exact sines)', () => {
    const lats = [0, -0, 90, -90, 45, -45, 30, -30, 1e-300, -1e-300, 89.99999999, 1e-10];
    const lons = [0, -0, 180, -180, 360, -360, 90, 45, 30, 1e-300, 179.9999999, -179.9999999, 0.5];
    for (const a of lats) for (const b of lons) for (const c of lats) for (const d of lons) same(a, b, c, d);
  });

  it('gives NaN where the library does (a latitude beyond ±90)', () => {
    same(91, 0, 10, 10);
    same(10, 0, -90.5, 10);
    expect(geodesicS12(91, 0, 10, 10)).toBeNaN();
  });
});
