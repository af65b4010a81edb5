import type { Position } from './types.ts';

/**
 * Even-odd ray casting in planar lon/lat. A point exactly on the boundary may go
 * either way; callers that need a firm answer rule out boundary contact first
 * (findSelfIntersection reports any contact between rings).
 */
export function pointInRing(pt: Position, ring: Position[]): boolean {
  const x = pt[0]!;
  const y = pt[1]!;
  let inside = false;
  const n = ring.length;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    const ay = a[1]!;
    const by = b[1]!;
    // Half-open test on y so a vertex the ray passes through is counted once.
    if (ay > y !== by > y) {
      const ax = a[0]!;
      const crossX = ax + ((y - ay) * (b[0]! - ax)) / (by - ay);
      if (x < crossX) inside = !inside;
    }
  }
  return inside;
}

/** Every vertex of `inner` lies inside `outer`: how a hole is checked against its shell. */
export function ringInsideRing(inner: Position[], outer: Position[]): boolean {
  for (const p of inner) if (!pointInRing(p, outer)) return false;
  return true;
}
