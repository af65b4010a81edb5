// Geometry for a vector tile (Web Mercator XYZ): a tile's box in longitude and latitude, [lon, lat] to the tile's
// integer coordinates, and a polygon simplified for its zoom — vertices snapped to the tile's grid, the ones closer
// than `tolerance` to the outline left out (Douglas–Peucker), rings that shrink below a triangle dropped, the winding
// MVT asks for (exterior clockwise on screen, holes the other way). Pure code: db/parcel-tiles.ts cuts with it.

export const TILE_EXTENT = 4096;

const lonOf = (x: number, z: number): number => (x / 2 ** z) * 360 - 180;
const latOf = (y: number, z: number): number => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;

/** The tile's box, [west, south, east, north] in degrees. */
export function tileBox(z: number, x: number, y: number): [number, number, number, number] {
  return [lonOf(x, z), latOf(y + 1, z), lonOf(x + 1, z), latOf(y, z)];
}

/** Web Mercator's latitude limit: a point beyond is drawn at the edge. */
const MAX_LAT = 85.0511287798;

/** [lon, lat] to the tile's coordinates (0..extent across the tile, y down); not rounded. */
export function toTile(lon: number, lat: number, z: number, x: number, y: number, extent = TILE_EXTENT): [number, number] {
  const n = 2 ** z;
  const phi = (Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180;
  const mx = ((lon + 180) / 360) * n;
  const my = ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n;
  return [(mx - x) * extent, (my - y) * extent];
}

/** Twice the signed area in tile coordinates (y down): positive for a ring clockwise on screen. */
export function ringArea2(ring: readonly number[][]): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += ring[j]![0]! * ring[i]![1]! - ring[i]![0]! * ring[j]![1]!;
  return a;
}

function segDistance2(p: readonly number[], a: readonly number[], b: readonly number[]): number {
  const dx = b[0]! - a[0]!;
  const dy = b[1]! - a[1]!;
  const len = dx * dx + dy * dy;
  let t = len === 0 ? 0 : ((p[0]! - a[0]!) * dx + (p[1]! - a[1]!) * dy) / len;
  t = Math.max(0, Math.min(1, t));
  const ex = a[0]! + t * dx - p[0]!;
  const ey = a[1]! + t * dy - p[1]!;
  return ex * ex + ey * ey;
}

/** Douglas–Peucker over pts[from..to], marking the vertices kept. */
function douglasPeucker(pts: readonly number[][], from: number, to: number, tol2: number, keep: Uint8Array): void {
  const stack = [from, to];
  while (stack.length) {
    const b = stack.pop()!;
    const a = stack.pop()!;
    let worst = -1;
    let worstD = tol2;
    for (let i = a + 1; i < b; i++) {
      const d = segDistance2(pts[i]!, pts[a]!, pts[b]!);
      if (d > worstD) { worstD = d; worst = i; }
    }
    if (worst < 0) continue;
    keep[worst] = 1;
    stack.push(a, worst, worst, b);
  }
}

/**
 * One ring ([lon, lat] vertices, closed or not) in the tile's integer coordinates, simplified within `tolerance`
 * (tile units), without the closing vertex; null when fewer than three distinct vertices or no area are left.
 */
export function tileRing(ring: readonly number[][], z: number, x: number, y: number, tolerance: number): number[][] | null {
  const pts: number[][] = [];
  for (const c of ring) {
    const [tx, ty] = toTile(c[0]!, c[1]!, z, x, y);
    const p = [Math.round(tx), Math.round(ty)];
    const last = pts[pts.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) pts.push(p);
  }
  while (pts.length > 1 && pts[0]![0] === pts[pts.length - 1]![0] && pts[0]![1] === pts[pts.length - 1]![1]) pts.pop();
  if (pts.length < 3) return null;
  // Split at the vertex farthest from the first, so that both halves have two distinct ends.
  let far = 1;
  let farD = -1;
  for (let i = 1; i < pts.length; i++) {
    const d = (pts[i]![0]! - pts[0]![0]!) ** 2 + (pts[i]![1]! - pts[0]![1]!) ** 2;
    if (d > farD) { farD = d; far = i; }
  }
  const closed = [...pts, pts[0]!];
  const keep = new Uint8Array(closed.length);
  keep[0] = keep[far] = keep[closed.length - 1] = 1;
  const tol2 = tolerance * tolerance;
  douglasPeucker(closed, 0, far, tol2, keep);
  douglasPeucker(closed, far, closed.length - 1, tol2, keep);
  const out: number[][] = [];
  for (let i = 0; i < closed.length - 1; i++) if (keep[i]) out.push(closed[i]!);
  if (out.length < 3 || ringArea2(out) === 0) return null;
  return out;
}

/**
 * A Polygon's or MultiPolygon's rings in tile coordinates, wound as MVT asks; polygons whose exterior vanished are
 * left out (an empty list: nothing of the shape is a pixel wide).
 */
export function tilePolygons(geometry: { type: string; coordinates: unknown }, z: number, x: number, y: number, tolerance: number): number[][][][] {
  const polys = (geometry.type === 'MultiPolygon' ? geometry.coordinates : [geometry.coordinates]) as number[][][][];
  const out: number[][][][] = [];
  for (const poly of polys) {
    const rings: number[][][] = [];
    for (let i = 0; i < poly.length; i++) {
      const r = tileRing(poly[i]!, z, x, y, tolerance);
      if (!r) {
        if (i === 0) break;
        continue;
      }
      // The exterior clockwise on screen (positive), holes the other way.
      if ((ringArea2(r) > 0) !== (i === 0)) r.reverse();
      rings.push(r);
    }
    if (rings.length) out.push(rings);
  }
  return out;
}
