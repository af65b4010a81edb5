import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { exactOrientSign, orientSign } from './orient.ts';

// Coordinates n / 2^40 for integers n below 2^53 are exact doubles, and the determinant of their numerators,
// computed in BigInt, is the truth the predicate must match.
const SCALE = 2 ** 40;
const bigSign = (a: bigint[]): number => {
  const [ax, ay, bx, by, cx, cy] = a as [bigint, bigint, bigint, bigint, bigint, bigint];
  const det = (ax - cx) * (by - cy) - (ay - cy) * (bx - cx);
  return det > 0n ? 1 : det < 0n ? -1 : 0;
};
const num = fc.bigInt({ min: -(2n ** 52n), max: 2n ** 52n });

describe('orientSign', () => {
  it('is exact on points at, and a few units off, a line between two far-apart points', () => {
    // c on the line a→b (a + k(b - a) with small integer k keeps every coordinate on the grid), then nudged.
    fc.assert(fc.property(
      fc.bigInt({ min: -(2n ** 48n), max: 2n ** 48n }), fc.bigInt({ min: -(2n ** 48n), max: 2n ** 48n }),
      fc.bigInt({ min: -(2n ** 20n), max: 2n ** 20n }), fc.bigInt({ min: -(2n ** 20n), max: 2n ** 20n }),
      fc.bigInt({ min: -7n, max: 7n }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }),
      (ax, ay, dx, dy, k, ex, ey) => {
        const c = [ax + k * dx + BigInt(ex), ay + k * dy + BigInt(ey)];
        const pts = [ax, ay, ax + dx, ay + dy, c[0]!, c[1]!];
        const [x1, y1, x2, y2, x3, y3] = pts.map((v) => Number(v) / SCALE) as [number, number, number, number, number, number];
        expect(orientSign(x1, y1, x2, y2, x3, y3)).toBe(bigSign(pts));
        expect(exactOrientSign(x1, y1, x2, y2, x3, y3)).toBe(bigSign(pts));
      },
    ), { numRuns: 5000 });
  });

  it('is exact on arbitrary grid points', () => {
    fc.assert(fc.property(fc.array(num, { minLength: 6, maxLength: 6 }), (pts) => {
      const [x1, y1, x2, y2, x3, y3] = pts.map((v) => Number(v) / SCALE) as [number, number, number, number, number, number];
      expect(orientSign(x1, y1, x2, y2, x3, y3)).toBe(bigSign(pts));
    }), { numRuns: 3000 });
  });

  it('gets right what a plain cross product gets wrong (near-collinear points close to the origin, long lever)', () => {
    // Kettner et al.'s classic: points within a few ulps of the line y = x through (12, 12) and (24, 24).
    let wrong = 0;
    for (let i = 0; i < 64; i++) {
      for (let j = 0; j < 64; j++) {
        const px = 0.5 + i * 2 ** -53;
        const py = 0.5 + j * 2 ** -53;
        const plain = Math.sign((12 - px) * (24 - py) - (12 - py) * (24 - px));
        const exact = Math.sign(j - i); // left of (12,12)→(24,24) exactly when py > px
        expect(orientSign(px, py, 12, 12, 24, 24)).toBe(exact);
        if (plain !== exact) wrong++;
      }
    }
    expect(wrong).toBeGreaterThan(0);
  });

  it('handles tiny coordinates whose products underflow, and subnormals', () => {
    const t = 1e-200;
    expect(orientSign(0, 0, t, 0, 0, t)).toBe(1);
    expect(orientSign(0, 0, t, 0, 0, -t)).toBe(-1);
    expect(orientSign(0, 0, t, t, 2 * t, 2 * t)).toBe(0);
    expect(orientSign(0, 0, 5e-324, 0, 0, 5e-324)).toBe(1);
    expect(orientSign(1, 1, 1, 1, 1, 1)).toBe(0);
  });
});
