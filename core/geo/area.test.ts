import { describe, it, expect } from 'vitest';
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
