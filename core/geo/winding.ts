// RFC 7946 §3.1.6 ring orientation: a Polygon's outer ring counter-clockwise, its holes clockwise. Parsers must not
// reject either winding, so the service accepts both; the app writes the one the RFC asks for, whatever order the
// user clicked the vertices in.
import type { PolygonCoords, Position } from './types.ts';

/**
 * Twice the signed planar area of a ring in lon/lat (the shoelace formula): positive when counter-clockwise. The
 * sign is all that is used, and a parcel is small enough that degrees as a plane give it right; the ring may be
 * closed or not.
 */
export function ringSignedArea2(ring: readonly Position[]): number {
  let sum = 0;
  for (let i = 0, n = ring.length; i < n; i++) {
    const a = ring[i]!;
    const b = ring[(i + 1) % n]!;
    sum += a[0]! * b[1]! - b[0]! * a[1]!;
  }
  return sum;
}

/** The rings with the outer one counter-clockwise and every hole clockwise; a ring already right is kept as is. */
export function rfc7946Winding(rings: PolygonCoords): PolygonCoords {
  return rings.map((ring, i) => {
    const area = ringSignedArea2(ring);
    const wrong = i === 0 ? area < 0 : area > 0;
    return wrong ? [...ring].reverse() : ring;
  });
}
