// Whether two parcels are the same field: the import's check for a feature that is already in the account (the app's
// preview marks it and skips it by default), so that importing a farm's GeoJSON and then its KML, or the app's own
// export, does not stack identical parcels. Same shape within a tolerance, not the same numbers: another format
// rounds coordinates differently, starts its rings at another vertex or runs them the other way, or keeps an extra
// vertex along an edge.
import type { BBox, PolygonCoords } from './types.ts';
import { bboxOf } from './bbox.ts';

/** How far apart two boundaries may be and still be the same field (metres): below what a GPS survey can tell. */
export const SAME_SHAPE_METRES = 0.5;

/** Metres per degree of latitude (and of longitude at the equator) on the mean sphere: ample at a field's scale. */
const METRES_PER_DEGREE = 111_195;

/** The margin (degrees) around a box within which a box of the same shape must lie: the index's query for candidates. */
export function sameShapeMargin(box: BBox, metres = SAME_SHAPE_METRES): { lon: number; lat: number } {
  const lat = Math.max(Math.abs(box[1]), Math.abs(box[3]));
  const cos = Math.max(Math.cos((lat * Math.PI) / 180), 1e-6);
  return { lon: metres / (METRES_PER_DEGREE * cos), lat: metres / METRES_PER_DEGREE };
}

type Plane = Float64Array;

/** Every ring's positions on a local plane in metres (equirectangular about the shapes' middle), flat x, y pairs. */
function onPlane(rings: PolygonCoords, lon0: number, cos0: number): Plane[] {
  return rings.map((ring) => {
    const out = new Float64Array(ring.length * 2);
    ring.forEach((p, i) => {
      out[2 * i] = (p[0]! - lon0) * cos0 * METRES_PER_DEGREE;
      out[2 * i + 1] = p[1]! * METRES_PER_DEGREE;
    });
    return out;
  });
}

/** Squared distance from (px, py) to the segment (ax, ay)–(bx, by). */
function segmentDistance2(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const ex = ax + t * dx - px;
  const ey = ay + t * dy - py;
  return ex * ex + ey * ey;
}

/** Whether every vertex of `a` lies within `tol2` (squared metres) of some edge of `b`. */
function verticesNear(a: Plane[], b: Plane[], tol2: number): boolean {
  for (const ring of a) {
    for (let i = 0; i < ring.length; i += 2) {
      const px = ring[i]!;
      const py = ring[i + 1]!;
      let near = false;
      for (const other of b) {
        // A closed ring's last position repeats its first: its edges are the consecutive pairs.
        for (let j = 0; j + 3 < other.length && !near; j += 2) {
          if (segmentDistance2(px, py, other[j]!, other[j + 1]!, other[j + 2]!, other[j + 3]!) <= tol2) near = true;
        }
        if (near) break;
      }
      if (!near) return false;
    }
  }
  return true;
}

/** Area (m², shells less holes, by the shoelace of each ring) and boundary length (m) on the plane. */
function measure(rings: Plane[]): { area: number; length: number } {
  let area = 0;
  let length = 0;
  rings.forEach((ring, r) => {
    let twice = 0;
    for (let j = 0; j + 3 < ring.length; j += 2) {
      twice += ring[j]! * ring[j + 3]! - ring[j + 2]! * ring[j + 1]!;
      length += Math.hypot(ring[j + 2]! - ring[j]!, ring[j + 3]! - ring[j + 1]!);
    }
    area += (r === 0 ? 1 : -1) * Math.abs(twice / 2);
  });
  return { area, length };
}

/**
 * Whether two polygons (GeoJSON rings, closed, [lon, lat]) are the same shape within `metres`: each one's every
 * vertex lies within that distance of the other's boundary (a discrete Hausdorff distance both ways, holes included),
 * and their areas differ by no more than such a move of the boundary makes; so another start vertex, the other
 * direction, a vertex added along an edge and rounding all leave them the same, while a moved corner, a hole one has
 * and the other not, a neighbour sharing an edge or the same corners in another order do not.
 */
export function sameShape(a: PolygonCoords, b: PolygonCoords, metres = SAME_SHAPE_METRES): boolean {
  if (!a.length || !b.length || !a[0]!.length || !b[0]!.length) return false;
  const ba = bboxOf(a);
  const bb = bboxOf(b);
  // The boxes of two shapes this close differ by at most the distance on every side.
  const margin = sameShapeMargin([Math.min(ba[0], bb[0]), Math.min(ba[1], bb[1]), Math.max(ba[2], bb[2]), Math.max(ba[3], bb[3])], metres);
  for (let k = 0; k < 4; k++) if (Math.abs(ba[k]! - bb[k]!) > (k % 2 === 0 ? margin.lon : margin.lat)) return false;
  const lon0 = (ba[0] + ba[2]) / 2;
  const cos0 = Math.cos((((ba[1] + ba[3]) / 2) * Math.PI) / 180);
  const pa = onPlane(a, lon0, cos0);
  const pb = onPlane(b, lon0, cos0);
  // The same vertices in another order (a square and the bow tie of its corners) are near each other's edges too:
  // the areas tell them apart. A boundary moved by at most `metres` changes the area by at most its length times it.
  const ma = measure(pa);
  const mb = measure(pb);
  if (Math.abs(ma.area - mb.area) > Math.max(ma.length, mb.length) * metres + 1e-6) return false;
  const tol2 = metres * metres;
  return verticesNear(pa, pb, tol2) && verticesNear(pb, pa, tol2);
}
