import { describe, expect, it } from 'vitest';
import { geodesicDistanceM, lineLengthsM, ringPerimeterM } from './length.ts';

describe('geodesic lengths', () => {
  it("match GeographicLib's published test cases to the millimetre and better", () => {
    // GeodSolve76 (geographiclib-geodesic's test suite): Wellington to Salamanca, a classic failure of Vincenty.
    expect(geodesicDistanceM([174 + 49 / 60, -(41 + 19 / 60)], [-(5 + 30 / 60), 40 + 58 / 60])).toBeCloseTo(19960543.857179, 6);
    // GeodSolve78: where the NGS calculator fails to converge.
    expect(geodesicDistanceM([0, 27.2], [179.5, -27.1])).toBeCloseTo(19974354.765767, 6);
    // GeodSolve74: a 40 m edge, as a field's.
    expect(geodesicDistanceM([15.3872, 54.1589], [15.3877, 54.1591])).toBeCloseTo(39.527686385, 8);
    // The README's example: Wellington (41.32S, 174.81E) to Salamanca (40.96N, 5.50W), "19959679.267 m".
    expect(geodesicDistanceM([174.81, -41.32], [-5.5, 40.96]).toFixed(3)).toBe('19959679.267');
  });

  it('is a quarter meridian from the equator to the pole (WGS84: 10,001,965.729 m)', () => {
    expect(geodesicDistanceM([0, 0], [0, 90])).toBeCloseTo(10001965.7293, 3);
  });

  it("sums a line's segments and gives each", () => {
    const line = [[15.3872, 54.1589], [15.3877, 54.1591], [15.3877, 54.1589]];
    const { segments, total } = lineLengthsM(line);
    expect(segments).toHaveLength(2);
    expect(segments[0]).toBeCloseTo(39.527686385, 8);
    expect(total).toBe(segments[0]! + segments[1]!);
    expect(lineLengthsM([[1, 2]])).toEqual({ segments: [], total: 0 });
    expect(lineLengthsM([])).toEqual({ segments: [], total: 0 });
  });

  it("gives a ring's perimeter with its closing edge, whether or not the ring repeats its first position", () => {
    const open = [[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01]];
    const closed = [...open, [0, 0]];
    const p = ringPerimeterM(open);
    expect(ringPerimeterM(closed)).toBe(p);
    // Four edges of about 1.1 km on the equator.
    expect(p).toBeGreaterThan(4 * 1105);
    expect(p).toBeLessThan(4 * 1115);
    expect(p).toBeCloseTo(lineLengthsM(closed).total, 9);
  });
});
