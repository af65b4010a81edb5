// Exact orientation of three points given as doubles. The self-intersection sweep orders its segments with it:
// a comparison that rounding could flip (a < b, b < c, c < a) would corrupt the ordered structure and let a
// contact slip past unseen, so no comparison there is ever decided by rounding.

const EPSILON = 2 ** -53;
/** Shewchuk's bound on the rounding error of the float evaluation below, relative to |detleft| + |detright|. */
const ERRBOUND = (3 + 16 * EPSILON) * EPSILON;
/**
 * Below this, a product may have underflowed into subnormals, where the relative error bound no longer holds:
 * such inputs (points closer than ~1e-135 degrees) go to the exact path too.
 */
const TINY = 2 ** -900;

/**
 * Sign of the orientation of (a, b, c): 1 when c lies left of a→b (a, b, c counter-clockwise), -1 when right,
 * 0 when the three are collinear, exactly for any finite doubles. The float determinant decides whenever it is
 * farther from zero than its worst rounding error (Shewchuk's orient2d filter, "Adaptive Precision
 * Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997); otherwise, that is for points within
 * about 1e-16 (relative) of collinear, it is evaluated exactly in integers.
 */
export function orientSign(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const acx = ax - cx;
  const bcy = by - cy;
  const acy = ay - cy;
  const bcx = bx - cx;
  const detleft = acx * bcy;
  const detright = acy * bcx;
  const det = detleft - detright;
  const l = Math.abs(detleft);
  const r = Math.abs(detright);
  if (!(l >= TINY || r >= TINY)) {
    // A difference of two doubles is 0 only when they are equal: a product with such a factor is exactly 0.
    // Points tested against a segment they end are the common case, and need no exact arithmetic.
    if ((acx === 0 || bcy === 0) && (acy === 0 || bcx === 0)) return 0;
    return exactOrientSign(ax, ay, bx, by, cx, cy); // underflow, or NaN
  }
  // Opposite signs (or one zero) cannot cancel: the sign is that of the larger term.
  if (detleft > 0 ? detright <= 0 : detleft < 0 ? detright >= 0 : true) return Math.sign(det);
  const errbound = ERRBOUND * (l + r);
  if (det > errbound) return 1;
  if (-det > errbound) return -1;
  return exactOrientSign(ax, ay, bx, by, cx, cy);
}

const view = new DataView(new ArrayBuffer(8));

/** x = mantissa · 2^exponent exactly, for a finite double. */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exponent = -1074; // subnormals and zero
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  return { mantissa: hi >>> 31 ? -mantissa : mantissa, exponent };
}

/** The same determinant in BigInt, every coordinate scaled to an integer by the smallest power of two present. */
export function exactOrientSign(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const values = [ax, ay, bx, by, cx, cy];
  if (!values.every(Number.isFinite)) return 0;
  const parts = values.map(decompose);
  const min = Math.min(...parts.map((p) => p.exponent));
  const [Ax, Ay, Bx, By, Cx, Cy] = parts.map((p) => p.mantissa << BigInt(p.exponent - min)) as [bigint, bigint, bigint, bigint, bigint, bigint];
  const det = (Ax - Cx) * (By - Cy) - (Ay - Cy) * (Bx - Cx);
  return det > 0n ? 1 : det < 0n ? -1 : 0;
}
