// A parcel's shape while it is modified, as plain [lon, lat] rings (not closed), and what the service would say of
// it: the same core/ functions Draw's preview uses (renderer/preview.ts), over every ring so that a parcel with a
// hole is measured as the service measures it.
import { polygonHectares } from '../../../core/geo/area.ts';
import { rfc7946Winding } from '../../../core/geo/winding.ts';
import { checkPolygon } from '../../../core/parcels/polygon.ts';
import { reporter } from '../../../core/parcels/problems.ts';
import type { Position2 } from '../../store.ts';
import { closeRing } from '../../preview.ts';

export type Rings = Position2[][];

/** GeoJSON rings (closed) as the editor holds them: [lon, lat] pairs without the closing vertex. */
export const openRings = (coordinates: readonly (readonly (readonly number[])[])[]): Rings =>
  coordinates.map((ring) => ring.slice(0, -1).map((p) => [p[0]!, p[1]!] as Position2));

/** Geodesic hectares, the service's own computation; 0 while the outer ring has fewer than three vertices. */
export const shapeHectares = (rings: Rings): number =>
  (rings[0] && rings[0].length >= 3 ? polygonHectares(rings.map(closeRing)) : 0);

/** Why the service would refuse the shape (a ring crossing itself…), the account's limit aside, in its words. */
export function shapeProblems(rings: Rings): string[] {
  if (!rings[0] || rings[0].length < 3) return ['The polygon needs at least three vertices.'];
  const r = reporter(0, 'The polygon');
  checkPolygon(rings.map(closeRing), r, 'geometry.coordinates', Infinity);
  return r.problems.map((p) => p.message);
}

/** The GeoJSON Polygon saved: closed rings, the outer one counter-clockwise and holes clockwise (RFC 7946). */
export const shapeGeometry = (rings: Rings): { type: 'Polygon'; coordinates: Position2[][] } =>
  ({ type: 'Polygon', coordinates: rfc7946Winding(rings.map(closeRing)) as Position2[][] });

export const sameShape = (a: Rings, b: Rings): boolean =>
  a.length === b.length && a.every((ring, i) => ring.length === b[i]!.length && ring.every((p, j) => p[0] === b[i]![j]![0] && p[1] === b[i]![j]![1]));

/** A ring of the shape with vertex `i` replaced, removed, or followed by a new one halfway to the next. */
export function withVertex(rings: Rings, r: number, i: number, change: { set: [number, number] } | { remove: true } | { insertAfter: true }): Rings {
  return rings.map((ring, k) => {
    if (k !== r) return ring;
    if ('set' in change) return ring.map((p, j) => (j === i ? change.set : p));
    if ('remove' in change) return ring.filter((_, j) => j !== i);
    const a = ring[i]!;
    const b = ring[(i + 1) % ring.length]!;
    return [...ring.slice(0, i + 1), [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] as [number, number], ...ring.slice(i + 1)];
  });
}
