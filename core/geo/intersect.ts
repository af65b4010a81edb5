import type { PolygonCoords } from './types.ts';

export interface SelfIntersection {
  ring: number;
  segment: number;
  otherRing: number;
  otherSegment: number;
  at: [number, number];
}

// Segments live in flat typed arrays: a 10,000-position ring would otherwise mean 10,000 small objects per
// parcel on the bulk-create path. The arrays are scratch space kept for the whole process and only grown:
// allocating a dozen typed arrays per parcel (each with its own ArrayBuffer) cost more than the sweep itself.
// JavaScript is single-threaded and nothing here calls out, so one set cannot be used by two calls at once.
let capacity = 0;
let x1 = new Float64Array(0);
let y1 = new Float64Array(0);
let x2 = new Float64Array(0);
let y2 = new Float64Array(0);
let ringOf = new Int32Array(0);
let indexOf = new Int32Array(0); // segment k of a ring runs from position k to position k+1
let prev = new Int32Array(0); // neighbouring non-degenerate segment in the same ring, sharing our start
let next = new Int32Array(0); // ... sharing our end
let minX = new Float64Array(0);
let maxX = new Float64Array(0);
let minY = new Float64Array(0);
let maxY = new Float64Array(0);
let order = new Uint32Array(0);

function reserve(n: number): void {
  if (n <= capacity) return;
  capacity = Math.max(n, 2 * capacity, 64);
  x1 = new Float64Array(capacity);
  y1 = new Float64Array(capacity);
  x2 = new Float64Array(capacity);
  y2 = new Float64Array(capacity);
  ringOf = new Int32Array(capacity);
  indexOf = new Int32Array(capacity);
  prev = new Int32Array(capacity);
  next = new Int32Array(capacity);
  minX = new Float64Array(capacity);
  maxX = new Float64Array(capacity);
  minY = new Float64Array(capacity);
  maxY = new Float64Array(capacity);
  order = new Uint32Array(capacity);
}

/** Below this many segments an insertion sort beats TypedArray#sort with a comparator (a call per comparison). */
const INSERTION_SORT_MAX = 64;

/**
 * order[0..n) = 0..n-1 sorted by minX, ties kept in index order. TypedArray#sort is a stable merge sort, and
 * so is an insertion sort: both give the same permutation, so the sweep below meets (and reports) pairs in
 * the same order either way. A NaN would make the comparison inconsistent and the two sorts could differ,
 * so it takes the library sort as before.
 */
export function sortByMinX(keys: Float64Array, out: Uint32Array, n: number): void {
  let finite = true;
  for (let i = 0; i < n; i++) {
    out[i] = i;
    if (keys[i] !== keys[i]) finite = false;
  }
  if (n > INSERTION_SORT_MAX || !finite) {
    out.subarray(0, n).sort((a, b) => keys[a]! - keys[b]!);
    return;
  }
  for (let i = 1; i < n; i++) {
    const v = out[i]!;
    const key = keys[v]!;
    let j = i - 1;
    while (j >= 0 && keys[out[j]!]! > key) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = v;
  }
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
  const n = buildSegments(coords);
  if (n < 2) return null;
  for (let i = 0; i < n; i++) {
    minX[i] = Math.min(x1[i]!, x2[i]!);
    maxX[i] = Math.max(x1[i]!, x2[i]!);
    minY[i] = Math.min(y1[i]!, y2[i]!);
    maxY[i] = Math.max(y1[i]!, y2[i]!);
  }
  sortByMinX(minX, order, n);

  const at: [number, number] = [0, 0];
  for (let oi = 0; oi < n; oi++) {
    const i = order[oi]!;
    const right = maxX[i]!;
    for (let oj = oi + 1; oj < n; oj++) {
      const j = order[oj]!;
      if (minX[j]! > right) break;
      if (minY[j]! > maxY[i]! || maxY[j]! < minY[i]!) continue;
      const adjacent = next[i] === j || prev[i] === j;
      const hit = adjacent
        ? overlapBeyondSharedVertex(x1[i]!, y1[i]!, x2[i]!, y2[i]!, x1[j]!, y1[j]!, x2[j]!, y2[j]!, at)
        : segmentsTouch(x1[i]!, y1[i]!, x2[i]!, y2[i]!, x1[j]!, y1[j]!, x2[j]!, y2[j]!, at);
      if (hit) return describe(i, j, at);
    }
  }
  return null;
}

function describe(i: number, j: number, at: [number, number]): SelfIntersection {
  const ri = ringOf[i]!;
  const rj = ringOf[j]!;
  const si = indexOf[i]!;
  const sj = indexOf[j]!;
  // Report the lower (ring, segment) first so the same polygon always reads the same way.
  const iFirst = ri < rj || (ri === rj && si < sj);
  return iFirst
    ? { ring: ri, segment: si, otherRing: rj, otherSegment: sj, at: [at[0], at[1]] }
    : { ring: rj, segment: sj, otherRing: ri, otherSegment: si, at: [at[0], at[1]] };
}

/** Fills the scratch arrays with the polygon's non-degenerate segments; returns how many. */
function buildSegments(coords: PolygonCoords): number {
  let positions = 0;
  for (const ring of coords) positions += ring.length;
  reserve(positions);
  let count = 0;
  for (let r = 0; r < coords.length; r++) {
    const ring = coords[r]!;
    const len = ring.length;
    if (len < 2) continue;
    const start = count;
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
      const s = count++;
      x1[s] = ax;
      y1[s] = ay;
      x2[s] = bx;
      y2[s] = by;
      ringOf[s] = r;
      indexOf[s] = k;
    }
    const end = count;
    // Neighbours are consecutive non-degenerate segments, wrapping last→first;
    // with a single segment it is its own neighbour and never compared anyway.
    for (let s = start; s < end; s++) {
      next[s] = s + 1 < end ? s + 1 : start;
      prev[s] = s > start ? s - 1 : end - 1;
    }
  }
  return count;
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
