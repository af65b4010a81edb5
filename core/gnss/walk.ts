// Closing a walked boundary into a parcel's ring (issue 31): the fixes of the walk, those worse than the accuracy
// threshold left out, thinned by Douglas–Peucker (turf's simplify, in a local metric frame so that its tolerance is
// metres) as far as the geodesic area stays within a tolerance of the walked ring's, the ring valid (never crossing
// itself) and at least a triangle. The vertices kept are fixes of the walk, exactly: each keeps its fix quality for
// the parcel's survey record (survey.ts), and the area is GeographicLib's of positions the receiver gave.
import { simplify, polygon as turfPolygon } from '@turf/turf';
import { polygonHectares } from '../geo/area.ts';
import { findSelfIntersection } from '../geo/intersect.ts';
import { frameAround } from './local-frame.ts';

export interface WalkPoint { lon: number; lat: number; accuracy: number | null }

/** Metres tried as Douglas–Peucker's tolerance, from a survey's centimetres to a rough walk's tens of metres. */
const TOLERANCES = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 20, 30, 50];

export interface ClosedWalk<P extends WalkPoint> {
  /** The ring's vertices, not closed: fixes of the walk. */
  vertices: P[];
  /** Points left out for an accuracy worse than the threshold (or unknown while there is one). */
  dropped: number;
  /** The geodesic hectares of every point kept, and of the simplified ring. */
  walkedHectares: number;
  hectares: number;
  /** The Douglas–Peucker tolerance used, metres (0: none could be used). */
  tolerance: number;
}

/** Whether a point is good enough for the walk's threshold (null: every point is). */
export const goodEnough = (p: { accuracy: number | null }, maxAccuracy: number | null): boolean =>
  maxAccuracy === null || (p.accuracy !== null && p.accuracy <= maxAccuracy);

const ringOf = (ps: readonly WalkPoint[]): [number, number][] => ps.map((p) => [p.lon, p.lat]);
const closedRing = (ps: readonly WalkPoint[]): [number, number][] => { const r = ringOf(ps); return r.length ? [...r, r[0]!] : r; };

/** The geodesic hectares of the walk so far, its points worse than the threshold left out: the panel's live area. */
export function walkHectares(points: readonly WalkPoint[], maxAccuracy: number | null): number {
  const good = points.filter((p) => goodEnough(p, maxAccuracy));
  return good.length >= 3 ? polygonHectares([closedRing(good)]) : 0;
}

/**
 * The walk closed into a ring. `areaTolerance`: the largest change of area simplifying may make, as a fraction
 * (0.005 = 0.5 %). With fewer than three distinct points left, the vertices are what is left (the caller says so).
 */
export function closeWalk<P extends WalkPoint>(points: readonly P[], maxAccuracy: number | null, areaTolerance: number): ClosedWalk<P> {
  const good = points.filter((p) => goodEnough(p, maxAccuracy));
  const dropped = points.length - good.length;
  // The same position twice in a row (standing still) is one vertex; the walk's end on its start closes it.
  const kept: P[] = [];
  for (const p of good) {
    const last = kept[kept.length - 1];
    if (!last || last.lon !== p.lon || last.lat !== p.lat) kept.push(p);
  }
  while (kept.length > 1 && kept[0]!.lon === kept[kept.length - 1]!.lon && kept[0]!.lat === kept[kept.length - 1]!.lat) kept.pop();
  const walkedHectares = kept.length >= 3 ? polygonHectares([closedRing(kept)]) : 0;
  const none: ClosedWalk<P> = { vertices: kept, dropped, walkedHectares, hectares: walkedHectares, tolerance: 0 };
  if (kept.length <= 3 || walkedHectares === 0) return none;
  const frame = frameAround(ringOf(kept));
  const xy = kept.map((p) => frame.toXY([p.lon, p.lat]));
  const index = new Map(xy.map((c, i) => [`${c[0]},${c[1]}`, i]));
  let best = none;
  for (const tolerance of TOLERANCES) {
    let ring: number[][];
    try {
      ring = simplify(turfPolygon([[...xy, xy[0]!]]), { tolerance, highQuality: true }).geometry.coordinates[0]!.slice(0, -1);
    } catch {
      continue; // turf refuses a ring its cleaning leaves under four positions (a walk along one line so far)
    }
    const idx = ring.map((c) => index.get(`${c[0]},${c[1]}`));
    if (idx.some((i) => i === undefined) || idx.length < 3) continue;
    const vertices = idx.map((i) => kept[i!]!);
    const hectares = polygonHectares([closedRing(vertices)]);
    if (Math.abs(hectares - walkedHectares) > areaTolerance * walkedHectares) continue;
    if (findSelfIntersection([closedRing(vertices)])) continue;
    if (vertices.length < best.vertices.length) best = { vertices, dropped, walkedHectares, hectares, tolerance };
  }
  return best;
}
