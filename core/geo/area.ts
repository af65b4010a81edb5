import geodesic from 'geographiclib-geodesic';
import type { PolygonCoords, Position } from './types.ts';

// One accumulator for the whole process: bulk create measures every parcel, and
// Clear() is far cheaper than building a PolygonArea per ring. JavaScript is
// single-threaded and Compute() never calls out, so sharing it cannot interleave.
const accumulator = geodesic.Geodesic.WGS84.Polygon(false);

/**
 * Absolute geodesic area (m²) of a ring on the WGS84 ellipsoid, edges being geodesics.
 * A repeated closing position is skipped (PolygonArea closes the ring itself) and z is ignored.
 * Meant for rings smaller than a hemisphere, which every parcel is.
 */
export function ringAreaM2(ring: Position[]): number {
  let n = ring.length;
  if (n >= 2) {
    const first = ring[0]!;
    const last = ring[n - 1]!;
    if (first[0] === last[0] && first[1] === last[1]) n--;
  }
  if (n < 3) return 0;
  accumulator.Clear();
  for (let i = 0; i < n; i++) {
    const p = ring[i]!;
    accumulator.AddPoint(p[1]!, p[0]!);
  }
  // sign=true keeps a clockwise ring small and negative instead of "the rest of the Earth".
  const area = accumulator.Compute(false, true).area ?? 0;
  return Math.abs(area);
}

/** Outer ring minus its holes, in m²; clamped at 0 so malformed input never yields a negative area. */
export function polygonAreaM2(coords: PolygonCoords): number {
  const outer = coords[0];
  if (outer === undefined) return 0;
  let area = ringAreaM2(outer);
  for (let i = 1; i < coords.length; i++) area -= ringAreaM2(coords[i]!);
  return area > 0 ? area : 0;
}

export function polygonHectares(coords: PolygonCoords): number {
  return polygonAreaM2(coords) / 10_000;
}
