import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import geodesic from 'geographiclib-geodesic';
import { polygonAreaM2, polygonHectares, ringAreaM2 } from './area.ts';
import type { Position } from './types.ts';

// WGS84 constants, for an independent reference: the area of a cell bounded by two
// parallels and two meridians (authalic-latitude formula). For cells of 0.01° the
// geodesic edges differ from the parallels by far less than the 1e-6 tolerance used.
const A = 6378137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const E = Math.sqrt(E2);
const B = A * (1 - F);
function q(phiDeg: number): number {
  const s = Math.sin((phiDeg * Math.PI) / 180);
  return s / (1 - E2 * s * s) + Math.log((1 + E * s) / (1 - E * s)) / (2 * E);
}
function cellArea(lon1: number, lat1: number, lon2: number, lat2: number): number {
  return (((lon2 - lon1) * Math.PI) / 180) * (B * B / 2) * (q(lat2) - q(lat1));
}
function cell(lon1: number, lat1: number, lon2: number, lat2: number): Position[] {
  return [[lon1, lat1], [lon2, lat1], [lon2, lat2], [lon1, lat2], [lon1, lat1]];
}

describe('ringAreaM2', () => {
  it('matches GeographicLib\'s published diamond around (0, 0)', () => {
    // Planimeter0 in GeographicLib's own test suite: 24619419146 m².
    const ring = [[-1, 0], [0, -1], [1, 0], [0, 1], [-1, 0]];
    expect(ringAreaM2(ring)).toBeCloseTo(24619419146, -1);
  });

  it.each([0, 30, -45, 52, 70, -80])('matches the ellipsoidal cell formula for a 0.01° cell at latitude %d', (lat) => {
    const ring = cell(10, lat, 10.01, lat + 0.01);
    const expected = cellArea(10, lat, 10.01, lat + 0.01);
    expect(Math.abs(ringAreaM2(ring) / expected - 1)).toBeLessThan(1e-6);
  });

  it('is the same whether or not the closing position is repeated', () => {
    const closed = cell(5, 45, 5.02, 45.01);
    const open = closed.slice(0, 4);
    expect(ringAreaM2(open)).toBe(ringAreaM2(closed));
  });

  it('is positive for both windings', () => {
    const ccw = cell(5, 45, 5.02, 45.01);
    const cw = [...ccw].reverse();
    expect(ringAreaM2(cw)).toBeGreaterThan(0);
    expect(ringAreaM2(cw)).toBeCloseTo(ringAreaM2(ccw), 6);
  });

  it('ignores z', () => {
    const flat = cell(5, 45, 5.02, 45.01);
    const raised = flat.map(([lon, lat], i) => [lon!, lat!, 100 + i]);
    raised[4] = [5, 45, 100];
    expect(ringAreaM2(raised)).toBe(ringAreaM2(flat));
  });

  it('is 0 for fewer than 3 distinct positions and for collinear positions', () => {
    expect(ringAreaM2([])).toBe(0);
    expect(ringAreaM2([[1, 1], [2, 2], [1, 1]])).toBe(0);
    expect(ringAreaM2([[0, 0], [0, 0], [0, 0], [0, 0]])).toBeCloseTo(0, 6);
    expect(ringAreaM2([[0, 0], [1, 0], [2, 0], [0, 0]])).toBeCloseTo(0, 3);
  });

  it('gives the same answer on repeated calls (the shared accumulator is reset)', () => {
    const a = cell(0, 0, 0.01, 0.01);
    const b = cell(20, 60, 20.05, 60.02);
    const first = ringAreaM2(a);
    ringAreaM2(b);
    expect(ringAreaM2(a)).toBe(first);
  });
});

describe('ringAreaM2 is GeographicLib\'s PolygonArea, bit for bit', () => {
  // The reference: what ringAreaM2 did before it called Inverse itself.
  const reference = (ring: Position[]): number => {
    let n = ring.length;
    if (n >= 2 && ring[0]![0] === ring[n - 1]![0] && ring[0]![1] === ring[n - 1]![1]) n--;
    if (n < 3) return 0;
    const poly = geodesic.Geodesic.WGS84.Polygon(false);
    for (let i = 0; i < n; i++) poly.AddPoint(ring[i]![1]!, ring[i]![0]!);
    return Math.abs(poly.Compute(false, true).area ?? 0);
  };
  const lon = fc.double({ min: -180, max: 180, noNaN: true });
  const lat = fc.double({ min: -89.9, max: 89.9, noNaN: true });
  const offset = (scale: number) => fc.tuple(fc.double({ min: -scale, max: scale, noNaN: true }), fc.double({ min: -scale, max: scale, noNaN: true }));

  it('for parcel-sized and larger rings anywhere, either winding, across the antimeridian and near the poles', () => {
    fc.assert(fc.property(lon, lat, fc.constantFrom(1e-4, 1e-2, 1, 20, 100), fc.array(offset(1), { minLength: 3, maxLength: 30 }), fc.boolean(),
      (x, y, scale, offsets, close) => {
        const ring: Position[] = offsets.map(([dx, dy]) => [x + dx * scale, Math.max(-90, Math.min(90, y + dy * scale))]);
        if (close) ring.push([...ring[0]!]);
        expect(ringAreaM2(ring)).toBe(reference(ring));
      }), { numRuns: 2000 });
  });

  it('for the published and degenerate cases', () => {
    for (const ring of [[[-1, 0], [0, -1], [1, 0], [0, 1], [-1, 0]], [[179.9, 10], [-179.9, 10], [-179.9, 10.1], [179.9, 10.1]],
      [[0, 89], [120, 89], [240, 89]], [[0, 0], [1, 0], [2, 0], [0, 0]], [[5, 5], [5, 5], [5, 5], [5, 5]],
      // Across the prime meridian, on it, on ±180, -0, and edges of 180° or more in longitude.
      [[-0.001, 1], [0.001, 1], [0.001, 1.001], [-0.001, 1.001]], [[0, 1], [0.001, 1], [-0, 1.001]], [[180, 1], [-179.999, 1], [-180, 1.001]],
      [[-90, 10], [90, 10], [90, 11]], [[-100, 10], [100, 10], [100, 11], [-100, 11]], [[170, 0], [-170, 0], [-170, 1]], [[359, 1], [1, 1], [1, 2]]]) {
      expect(ringAreaM2(ring)).toBe(reference(ring));
    }
  });
});

describe('polygonAreaM2 / polygonHectares', () => {
  const outer = cell(10, 50, 10.01, 50.01);
  const hole = cell(10.002, 50.002, 10.004, 50.004).reverse();

  it('subtracts holes from the outer ring', () => {
    expect(polygonAreaM2([outer, hole])).toBeCloseTo(ringAreaM2(outer) - ringAreaM2(hole), 6);
    expect(polygonAreaM2([outer, hole])).toBeLessThan(ringAreaM2(outer));
  });

  it('never goes negative, even when holes outweigh the shell', () => {
    expect(polygonAreaM2([hole, outer])).toBe(0);
  });

  it('is 0 for no rings', () => {
    expect(polygonAreaM2([])).toBe(0);
  });

  it('converts to hectares', () => {
    expect(polygonHectares([outer, hole])).toBeCloseTo(polygonAreaM2([outer, hole]) / 10_000, 9);
    // 0.01° × 0.01° at 50°N is about 1.11 km × 0.72 km.
    expect(polygonHectares([outer])).toBeGreaterThan(79);
    expect(polygonHectares([outer])).toBeLessThan(80);
  });
});
