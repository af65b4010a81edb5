// Exact predicates on two segments of a polygon, for the self-intersection check (intersect.ts). Pure functions
// of the coordinates: the sides are decided by orientSign, so a verdict never rests on rounding.
import { orientSign } from './orient.ts';

/** For c known to be collinear with a→b: whether it lies within the segment's extent. */
function within(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean {
  return cx >= Math.min(ax, bx) && cx <= Math.max(ax, bx) && cy >= Math.min(ay, by) && cy <= Math.max(ay, by);
}

/**
 * Whether two segments share a point; `at` gets one. The sides are exact (orientSign), as the sweep's are: a
 * verdict never rests on rounding, so the sweep and an all-pairs test agree on every input. Only the reported
 * crossing point is computed in floating point.
 */
export function segmentsTouch(
  ax: number, ay: number, bx: number, by: number,
  cx: number, cy: number, dx: number, dy: number,
  at: [number, number],
): boolean {
  const o1 = orientSign(ax, ay, bx, by, cx, cy);
  const o2 = orientSign(ax, ay, bx, by, dx, dy);
  const o3 = orientSign(cx, cy, dx, dy, ax, ay);
  const o4 = orientSign(cx, cy, dx, dy, bx, by);
  if (o1 * o2 < 0 && o3 * o4 < 0) {
    const f3 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx);
    const f4 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx);
    const t = f3 / (f3 - f4);
    // Rounding may push t out of [0, 1] when the crossing is all but collinear; the point stays on the segment.
    const u = t >= 0 && t <= 1 ? t : t > 1 ? 1 : t < 0 ? 0 : 0.5;
    at[0] = ax + u * (bx - ax);
    at[1] = ay + u * (by - ay);
    return true;
  }
  // Touching or collinear overlap: some endpoint lies on the other segment.
  if (o1 === 0 && within(ax, ay, bx, by, cx, cy)) return put(at, cx, cy);
  if (o2 === 0 && within(ax, ay, bx, by, dx, dy)) return put(at, dx, dy);
  if (o3 === 0 && within(cx, cy, dx, dy, ax, ay)) return put(at, ax, ay);
  if (o4 === 0 && within(cx, cy, dx, dy, bx, by)) return put(at, bx, by);
  return false;
}

/**
 * Neighbouring segments share one vertex, which is never a fault. Unless they are
 * collinear they cannot meet anywhere else, and if they are, they overlap past the
 * shared vertex exactly when the ring doubles back on itself.
 */
export function overlapBeyondSharedVertex(
  ax: number, ay: number, bx: number, by: number,
  cx: number, cy: number, dx: number, dy: number,
  at: [number, number],
): boolean {
  if (orientSign(ax, ay, bx, by, cx, cy) !== 0 || orientSign(ax, ay, bx, by, dx, dy) !== 0) return false;
  // Collinear: compare the two as intervals along the dominant axis of a→b.
  const useX = Math.abs(bx - ax) >= Math.abs(by - ay);
  const a0 = useX ? ax : ay;
  const a1 = useX ? bx : by;
  const c0 = useX ? cx : cy;
  const c1 = useX ? dx : dy;
  const lo = Math.max(Math.min(a0, a1), Math.min(c0, c1));
  const hi = Math.min(Math.max(a0, a1), Math.max(c0, c1));
  if (!(hi > lo)) return false;
  // Report the end of the overlap that is not the shared vertex.
  const shared = (ax === cx && ay === cy) || (ax === dx && ay === dy) ? a0 : a1;
  const v = shared === lo ? hi : lo;
  const t = (v - a0) / (a1 - a0);
  return put(at, ax + t * (bx - ax), ay + t * (by - ay));
}

function put(at: [number, number], x: number, y: number): true {
  at[0] = x;
  at[1] = y;
  return true;
}
