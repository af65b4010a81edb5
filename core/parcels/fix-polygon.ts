// Fixing a drawn polygon that crosses itself, rather than throwing it away: where it crosses (for the map to mark),
// and the valid parts a bow tie splits into (each a parcel of its own). The parts are cut by turf's unkinkPolygon and
// then checked with the service's own rules (core/parcels/polygon.ts), so a part the app offers is one the service
// takes. Rings here are open ([lon, lat] without the closing vertex), as the app draws them.
import { kinks, polygon as turfPolygon, unkinkPolygon } from '@turf/turf';
import type { PolygonCoords } from '../geo/types.ts';
import { findSelfIntersection } from '../geo/intersect.ts';
import { checkPolygon } from './polygon.ts';
import { reporter } from './problems.ts';

export type LonLat = [number, number];

const closed = (ring: readonly LonLat[]): LonLat[] => [...ring, ring[0]!];

/** Whether the open ring has at least three distinct positions (fewer is no polygon to cross). */
const drawable = (ring: readonly LonLat[]): boolean => new Set(ring.map((p) => `${p[0]},${p[1]}`)).size >= 3;

/**
 * Where the ring crosses or touches itself: every proper crossing (turf's kinks), and the contact the service's own
 * check reports first (a vertex touching an edge, an edge folding back) when it is not among them. None for a ring
 * that does not.
 */
export function crossingsOf(ring: readonly LonLat[]): LonLat[] {
  if (ring.length < 3 || !drawable(ring)) return [];
  const rings: PolygonCoords = [closed(ring)];
  const first = findSelfIntersection(rings);
  if (!first) return [];
  const all: LonLat[] = kinks(turfPolygon(rings)).features.map((f) => f.geometry.coordinates as LonLat);
  const near = (a: LonLat, b: LonLat) => Math.abs(a[0] - b[0]) < 1e-9 && Math.abs(a[1] - b[1]) < 1e-9;
  if (!all.some((p) => near(p, first.at))) all.unshift(first.at);
  // A crossing found twice (kinks reports each pair of segments once, but a point where three meet more often).
  return all.filter((p, i) => all.findIndex((q) => near(p, q)) === i);
}

/** Whether `p` lies strictly inside the ring (even-odd rule, planar lon/lat), not on its boundary. */
function inside(p: LonLat, ring: readonly LonLat[]): boolean {
  let odd = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if ((yi > p[1]) !== (yj > p[1]) && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) odd = !odd;
  }
  return odd;
}

/**
 * The valid parts of a ring that crosses itself, as open rings — a bow tie's two triangles — or null when it does not
 * cross itself, or its parts are not each a parcel the service takes (within `maxHectares`), or they overlap (a loop
 * drawn over the shape): then the vertices have to be moved instead.
 */
export function validParts(ring: readonly LonLat[], maxHectares: number): LonLat[][] | null {
  if (crossingsOf(ring).length === 0) return null;
  let cut: PolygonCoords[];
  try {
    cut = unkinkPolygon(turfPolygon([closed(ring)])).features.map((f) => f.geometry.coordinates as PolygonCoords);
  } catch {
    return null; // a ring turf cannot untangle (repeated vertices where it crosses): moved by hand instead
  }
  if (cut.length < 2 || cut.some((rings) => rings.length !== 1)) return null;
  const parts = cut.map((rings) => rings[0]!.slice(0, -1).map((p) => [p[0]!, p[1]!] as LonLat));
  for (const part of parts) {
    const r = reporter(0, 'A part');
    if (!checkPolygon([closed(part)], r, 'geometry.coordinates', maxHectares) || r.problems.length) return null;
  }
  // Parts side by side, as a bow tie's: no vertex of one inside another (the crossing they share is on both).
  const shared = (p: LonLat, ring: readonly LonLat[]) => ring.some((q) => Math.abs(p[0] - q[0]) < 1e-9 && Math.abs(p[1] - q[1]) < 1e-9);
  for (const [i, part] of parts.entries()) {
    if (parts.some((other, j) => j !== i && part.some((p) => !shared(p, other) && inside(p, other)))) return null;
  }
  return parts;
}
