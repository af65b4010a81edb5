import { describe, expect, it } from 'vitest';
import { rfc7946Winding, ringSignedArea2 } from './winding.ts';
import { polygonHectares } from './area.ts';

const ccw = [[5, 52], [5.01, 52], [5.01, 52.01], [5, 52.01], [5, 52]];
const cw = [...ccw].reverse();
const holeCw = [[5.002, 52.002], [5.002, 52.004], [5.004, 52.004], [5.004, 52.002], [5.002, 52.002]];

describe('rfc7946Winding', () => {
  it('tells the winding by the sign of the shoelace area, closed or not', () => {
    expect(ringSignedArea2(ccw)).toBeGreaterThan(0);
    expect(ringSignedArea2(cw)).toBeLessThan(0);
    expect(ringSignedArea2(ccw.slice(0, -1))).toBeCloseTo(ringSignedArea2(ccw), 12);
  });

  it('turns a clockwise outer ring counter-clockwise and keeps a counter-clockwise one', () => {
    expect(rfc7946Winding([cw])).toEqual([ccw]);
    const kept = [ccw];
    expect(rfc7946Winding(kept)[0]).toBe(ccw);
  });

  it('makes holes clockwise, and leaves the geodesic area unchanged', () => {
    const holeCcw = [...holeCw].reverse();
    const fixed = rfc7946Winding([cw, holeCcw]);
    expect(fixed).toEqual([ccw, holeCw]);
    expect(ringSignedArea2(fixed[1]!)).toBeLessThan(0);
    expect(polygonHectares(fixed)).toBeCloseTo(polygonHectares([ccw, holeCw]), 9);
    expect(polygonHectares(fixed)).toBeLessThan(polygonHectares([ccw]));
  });

  it('keeps the first vertex closing the ring after reversal', () => {
    const [ring] = rfc7946Winding([cw]);
    expect(ring![0]).toEqual(ring![ring!.length - 1]);
  });
});
