import type { PolygonCoords } from './types.ts';

export interface SelfIntersection {
  ring: number;
  segment: number;
  otherRing: number;
  otherSegment: number;
  at: [number, number];
}

// Segments live in flat typed arrays: a 10,000-position ring would otherwise mean
// 10,000 small objects per parcel on the bulk-create path.
interface Segments {
  count: number;
  x1: Float64Array;
  y1: Float64Array;
  x2: Float64Array;
  y2: Float64Array;
  ring: Int32Array;
  index: Int32Array; // segment k of a ring runs from position k to position k+1
  prev: Int32Array; // neighbouring non-degenerate segment in the same ring, sharing our start
  next: Int32Array; // ... sharing our end
}

/**
 * First planar (lon/lat) contact between two segments of the polygon that are not
 * neighbours, or between neighbours beyond their shared vertex (a spike folding
 * back on itself), or null. Covers every ring: a ring crossing itself, a hole
 * crossing or touching the shell, holes crossing or touching each other. A single
 * shared vertex of non-adjacent segments counts (a pinched figure-8 is invalid),
 * and so does collinear overlap. Zero-length segments (repeated positions) are
 * skipped, so the segments on either side of them are neighbours. A ring whose last
 * position differs from its first is treated as closed by an implicit last segment.
 *
 * Sort-and-sweep on min-x: only pairs whose x-ranges overlap are tested, which keeps
 * real parcels near O(n log n).
 */
export function findSelfIntersection(coords: PolygonCoords): SelfIntersection | null {
  const segs = buildSegments(coords);
  const n = segs.count;
  if (n < 2) return null;
  const { x1, y1, x2, y2 } = segs;
  const minX = new Float64Array(n);
  const maxX = new Float64Array(n);
  const minY = new Float64Array(n);
  const maxY = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    minX[i] = Math.min(x1[i]!, x2[i]!);
    maxX[i] = Math.max(x1[i]!, x2[i]!);
    minY[i] = Math.min(y1[i]!, y2[i]!);
    maxY[i] = Math.max(y1[i]!, y2[i]!);
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => minX[a]! - minX[b]!);

  const at: [number, number] = [0, 0];
  for (let oi = 0; oi < n; oi++) {
    const i = order[oi]!;
    const right = maxX[i]!;
    for (let oj = oi + 1; oj < n; oj++) {
      const j = order[oj]!;
      if (minX[j]! > right) break;
      if (minY[j]! > maxY[i]! || maxY[j]! < minY[i]!) continue;
      const adjacent = segs.next[i] === j || segs.prev[i] === j;
      const hit = adjacent
        ? overlapBeyondSharedVertex(x1[i]!, y1[i]!, x2[i]!, y2[i]!, x1[j]!, y1[j]!, x2[j]!, y2[j]!, at)
        : segmentsTouch(x1[i]!, y1[i]!, x2[i]!, y2[i]!, x1[j]!, y1[j]!, x2[j]!, y2[j]!, at);
      if (hit) return describe(segs, i, j, at);
    }
  }
  return null;
}

function describe(segs: Segments, i: number, j: number, at: [number, number]): SelfIntersection {
  const ri = segs.ring[i]!;
  const rj = segs.ring[j]!;
  const si = segs.index[i]!;
  const sj = segs.index[j]!;
  // Report the lower (ring, segment) first so the same polygon always reads the same way.
  const iFirst = ri < rj || (ri === rj && si < sj);
  return iFirst
    ? { ring: ri, segment: si, otherRing: rj, otherSegment: sj, at: [at[0], at[1]] }
    : { ring: rj, segment: sj, otherRing: ri, otherSegment: si, at: [at[0], at[1]] };
}

function buildSegments(coords: PolygonCoords): Segments {
  let capacity = 0;
  for (const ring of coords) capacity += ring.length;
  const segs: Segments = {
    count: 0,
    x1: new Float64Array(capacity),
    y1: new Float64Array(capacity),
    x2: new Float64Array(capacity),
    y2: new Float64Array(capacity),
    ring: new Int32Array(capacity),
    index: new Int32Array(capacity),
    prev: new Int32Array(capacity),
    next: new Int32Array(capacity),
  };
  for (let r = 0; r < coords.length; r++) {
    const ring = coords[r]!;
    const len = ring.length;
    if (len < 2) continue;
    const start = segs.count;
    const first = ring[0]!;
    const last = ring[len - 1]!;
    const closed = first[0] === last[0] && first[1] === last[1];
    const segmentCount = closed ? len - 1 : len;
    for (let k = 0; k < segmentCount; k++) {
      const a = ring[k]!;
      const b = ring[(k + 1) % len]!;
      const ax = a[0]!;
      const ay = a[1]!;
      const bx = b[0]!;
      const by = b[1]!;
      if (ax === bx && ay === by) continue;
      const s = segs.count++;
      segs.x1[s] = ax;
      segs.y1[s] = ay;
      segs.x2[s] = bx;
      segs.y2[s] = by;
      segs.ring[s] = r;
      segs.index[s] = k;
    }
    const end = segs.count;
    // Neighbours are consecutive non-degenerate segments, wrapping last→first;
    // with a single segment it is its own neighbour and never compared anyway.
    for (let s = start; s < end; s++) {
      segs.next[s] = s + 1 < end ? s + 1 : start;
      segs.prev[s] = s > start ? s - 1 : end - 1;
    }
  }
  return segs;
}

/** Twice the signed area of (a, b, c): > 0 when c is left of a→b, 0 when collinear. */
function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/** For c known to be collinear with a→b: whether it lies within the segment's extent. */
function within(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean {
  return cx >= Math.min(ax, bx) && cx <= Math.max(ax, bx) && cy >= Math.min(ay, by) && cy <= Math.max(ay, by);
}

function segmentsTouch(
  ax: number, ay: number, bx: number, by: number,
  cx: number, cy: number, dx: number, dy: number,
  at: [number, number],
): boolean {
  const o1 = orient(ax, ay, bx, by, cx, cy);
  const o2 = orient(ax, ay, bx, by, dx, dy);
  const o3 = orient(cx, cy, dx, dy, ax, ay);
  const o4 = orient(cx, cy, dx, dy, bx, by);
  if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) {
    const t = o3 / (o3 - o4);
    at[0] = ax + t * (bx - ax);
    at[1] = ay + t * (by - ay);
    return true;
  }
  // Touching or collinear overlap: some endpoint lies on the other segment.
  if (o1 === 0 && within(ax, ay, bx, by, cx, cy)) return put(at, cx, cy);
  if (o2 === 0 && within(ax, ay, bx, by, dx, dy)) return put(at, dx, dy);
  if (o3 === 0 && within(cx, cy, dx, dy, ax, ay)) return put(at, ax, ay);
  if (o4 === 0 && within(cx, cy, dx, dy, bx, by)) return put(at, bx, by);
  return false;
}

/**
 * Neighbouring segments share one vertex, which is never a fault. Unless they are
 * collinear they cannot meet anywhere else, and if they are, they overlap past the
 * shared vertex exactly when the ring doubles back on itself.
 */
function overlapBeyondSharedVertex(
  ax: number, ay: number, bx: number, by: number,
  cx: number, cy: number, dx: number, dy: number,
  at: [number, number],
): boolean {
  if (orient(ax, ay, bx, by, cx, cy) !== 0 || orient(ax, ay, bx, by, dx, dy) !== 0) return false;
  // Collinear: compare the two as intervals along the dominant axis of a→b.
  const useX = Math.abs(bx - ax) >= Math.abs(by - ay);
  const a0 = useX ? ax : ay;
  const a1 = useX ? bx : by;
  const c0 = useX ? cx : cy;
  const c1 = useX ? dx : dy;
  const lo = Math.max(Math.min(a0, a1), Math.min(c0, c1));
  const hi = Math.min(Math.max(a0, a1), Math.max(c0, c1));
  if (!(hi > lo)) return false;
  // Report the end of the overlap that is not the shared vertex.
  const shared = (ax === cx && ay === cy) || (ax === dx && ay === dy) ? a0 : a1;
  const v = shared === lo ? hi : lo;
  const t = (v - a0) / (a1 - a0);
  return put(at, ax + t * (bx - ax), ay + t * (by - ay));
}

function put(at: [number, number], x: number, y: number): true {
  at[0] = x;
  at[1] = y;
  return true;
}
