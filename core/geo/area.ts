import geodesic from 'geographiclib-geodesic';
import type { PolygonCoords, Position } from './types.ts';
import { geodesicS12 } from './geodesic-s12.ts';

// The area is GeographicLib's PolygonArea, unrolled: one Geodesic.Inverse per edge, summed in its own
// Accumulator, with its crossing count and its final reduction (AreaReduceA), in the same order, so the
// result is bit for bit what PolygonArea.Compute(false, true) returns (area.test.ts checks that). Each edge's
// Inverse is asked for the area alone (PolygonArea also asks for the distance, to sum the perimeter), through
// geodesicS12: the library's own computation without its allocations (geodesic-s12.ts). The area is most of
// the CPU a bulk create or an import spends per parcel.
const G = geodesic.Geodesic;
const WGS84 = G.WGS84;
/** The ellipsoid's total area, as PolygonArea computes it (4π·c², c the authalic radius). */
const AREA0 = 4 * Math.PI * (WGS84 as unknown as { _c2: number })._c2;
const M = geodesic.Math;

// One accumulator for the whole process: Set(0) is far cheaper than a new one per ring. JavaScript is
// single-threaded and nothing here calls out, so sharing it cannot interleave. (The package's typings
// declare Accumulator as the class; at run time it is a namespace holding it, like PolygonArea.)
const { Accumulator } = geodesic.Accumulator as unknown as { Accumulator: typeof geodesic.Accumulator };
const acc = new Accumulator(0);

/** PolygonArea's transit: 1 or -1 when the edge crosses the prime meridian eastward or westward, else 0. */
function transit(lon1: number, lon2: number): number {
  // Only the sign of the difference matters. Within (-180, 180) AngNormalize returns a longitude unchanged,
  // and when the rounded difference is under 180 in size AngDiff's result has its sign (it only adds the
  // rounding error back): so a parcel's edges skip the two library calls and their allocations.
  const d = lon2 - lon1;
  if (lon1 > -180 && lon1 < 180 && lon2 > -180 && lon2 < 180 && d > -180 && d < 180) return sign(d, lon1, lon2);
  return sign(M.AngDiff(lon1, lon2).d, M.AngNormalize(lon1), M.AngNormalize(lon2));
}

function sign(lon12: number, lon1: number, lon2: number): number {
  return lon12 > 0 && ((lon1 < 0 && lon2 >= 0) || (lon1 > 0 && lon2 === 0)) ? 1
    : (lon12 < 0 && lon1 >= 0 && lon2 < 0 ? -1 : 0);
}

/**
 * Absolute geodesic area (m²) of a ring on the WGS84 ellipsoid, edges being geodesics.
 * A repeated closing position is skipped (the ring is closed implicitly) and z is ignored.
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
  acc.Set(0);
  let crossings = 0;
  let a = ring[0]!;
  for (let i = 1; i <= n; i++) {
    // Edges in PolygonArea's order: AddPoint for each vertex, then Compute's closing edge back to the first.
    const b = ring[i === n ? 0 : i]!;
    acc.Add(geodesicS12(a[1]!, a[0]!, b[1]!, b[0]!));
    crossings += transit(a[0]!, b[0]!);
    a = b;
  }
  // AreaReduceA with reverse = false, sign = true: a clockwise ring stays small and negative instead of
  // becoming "the rest of the Earth".
  acc.Remainder(AREA0);
  if (crossings & 1) acc.Add((acc.Sum() < 0 ? 1 : -1) * AREA0 / 2);
  acc.Negate();
  if (acc.Sum() > AREA0 / 2) acc.Add(-AREA0);
  else if (acc.Sum() <= -AREA0 / 2) acc.Add(+AREA0);
  return Math.abs(0 + acc.Sum());
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
