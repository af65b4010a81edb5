// Geodesic lengths on the WGS84 ellipsoid, for measuring (renderer/features/measure/): the distance between two
// positions is GeographicLib's Geodesic.WGS84.Inverse s12 (accurate to nanometres, as its documentation says), a
// line's length the sum of its segments', a ring's perimeter the same with the closing edge. Each segment is a
// geodesic, the shortest path on the ellipsoid; the map draws it as a straight line of its projection, which is the
// same path within a few centimetres for edges of a field and departs from it only over hundreds of kilometres.
import geodesic from 'geographiclib-geodesic';
import type { Position } from './types.ts';

const WGS84 = geodesic.Geodesic.WGS84;
const DISTANCE = geodesic.Geodesic.DISTANCE;

/** Metres along the geodesic from `a` to `b` ([lon, lat]; z ignored). */
export function geodesicDistanceM(a: Position, b: Position): number {
  return WGS84.Inverse(a[1]!, a[0]!, b[1]!, b[0]!, DISTANCE).s12 ?? 0;
}

/** Each segment's length along a line of positions, in metres, and their sum (a Kahan sum: thousands of vertices). */
export function lineLengthsM(line: readonly Position[]): { segments: number[]; total: number } {
  const segments: number[] = [];
  let total = 0;
  let carry = 0;
  for (let i = 1; i < line.length; i++) {
    const s = geodesicDistanceM(line[i - 1]!, line[i]!);
    segments.push(s);
    const y = s - carry;
    const t = total + y;
    carry = t - total - y;
    total = t;
  }
  return { segments, total };
}

/** The perimeter of a ring in metres: its edges and the closing one (a repeated closing position counts once). */
export function ringPerimeterM(ring: readonly Position[]): number {
  if (ring.length < 2) return 0;
  const first = ring[0]!;
  const last = ring[ring.length - 1]!;
  const closed = first[0] === last[0] && first[1] === last[1] ? ring : [...ring, first];
  return lineLengthsM(closed).total;
}
