import type { PolygonCoords } from './types.ts';
import { orientSign } from './orient.ts';
import { overlapBeyondSharedVertex, segmentsTouch } from './segments.ts';
import { NIL, SweepTree } from './sweep-tree.ts';

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
// Each segment runs from its lexicographically smaller endpoint (x1, y1) to the larger (x2, y2): the sweep
// meets the first at the segment's start event and the second at its end event.
let x1 = new Float64Array(0);
let y1 = new Float64Array(0);
let x2 = new Float64Array(0);
let y2 = new Float64Array(0);
let ringOf = new Int32Array(0);
let indexOf = new Int32Array(0); // segment k of a ring runs between its positions k and k+1
let prev = new Int32Array(0); // the previous non-degenerate segment of the ring, ending where this one starts
let next = new Int32Array(0); // ... the next one, starting where this one ends
let forward = new Uint8Array(0); // 1 when the ring runs through the segment from (x1, y1) to (x2, y2)
// Vertex s is where segment s ends and next[s] starts, in ring order: every event of the sweep is at a vertex.
let vx = new Float64Array(0);
let vy = new Float64Array(0);
let order = new Uint32Array(0);
let spare = new Uint32Array(0);
// The segments starting, ending, and meeting at the current event point (at most a few: see eventPoint).
let starts = new Int32Array(8);
let ends = new Int32Array(8);
let contacts = new Int32Array(8);
let nStarts = 0;
let nEnds = 0;
let nContacts = 0;
const tree = new SweepTree();

function reserve(n: number): void {
  tree.reserve(n);
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
  forward = new Uint8Array(capacity);
  vx = new Float64Array(capacity);
  vy = new Float64Array(capacity);
  order = new Uint32Array(capacity);
  spare = new Uint32Array(capacity);
}

function push(buffer: Int32Array<ArrayBuffer>, count: number, value: number): Int32Array<ArrayBuffer> {
  if (count < buffer.length) {
    buffer[count] = value;
    return buffer;
  }
  const grown = new Int32Array(2 * buffer.length);
  grown.set(buffer);
  grown[count] = value;
  return grown;
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
 * A Shamos–Hoey sweep, O(n log n) in the worst case: events (segment ends) in
 * (x, y) order; the segments crossing the sweep line are kept in a balanced tree
 * ordered by y, and only segments that become neighbours there are tested against
 * each other. It stops at the first contact, so it never has to reorder crossing
 * segments: until that contact, their order along the sweep line never changes.
 * Vertical segments need no special case: at equal x the sweep goes up, as if the
 * sweep line leaned slightly, and a vertical segment is in the tree only while the
 * sweep is on it.
 *
 * Every decision is exact (orientSign): two segments are ordered by which side of
 * one the other's point lies on, never by comparing rounded y values, so the order
 * in the tree is a true total order and the leftmost contact is always found.
 * Equal points are equal doubles; no tolerance is applied anywhere.
 */
export function findSelfIntersection(coords: PolygonCoords): SelfIntersection | null {
  const n = buildSegments(coords);
  if (n < 2) return null;
  return n <= SMALL_RING ? pairsSweep(n) : sweep(n);
}

/**
 * Up to this many segments, testing every pair whose x-ranges overlap (at most n(n-1)/2 = 2,016 tests) is
 * cheaper than keeping the tree: typical parcels have 10–50 vertices. Both give the same verdict (the same exact
 * pair test, on every pair that could touch); only which contact is reported may differ.
 */
export const SMALL_RING = 64;

/** findSelfIntersection with the given strategy whatever the size (tests hold both to the same reference). */
export function findSelfIntersectionBy(coords: PolygonCoords, strategy: 'sweep' | 'pairs'): SelfIntersection | null {
  const n = buildSegments(coords);
  if (n < 2) return null;
  return strategy === 'sweep' ? sweep(n) : pairsSweep(n);
}

/** Sort-and-sweep on min-x: each segment against those whose x-range starts within its own. */
function pairsSweep(n: number): SelfIntersection | null {
  for (let k = 0; k < n; k++) vx[k] = x1[k]!; // x1 is the min x; vx is free scratch here
  sortVertices(n);
  const at: [number, number] = [0, 0];
  for (let oi = 0; oi < n; oi++) {
    const i = order[oi]!;
    const right = x2[i]!;
    for (let oj = oi + 1; oj < n; oj++) {
      const j = order[oj]!;
      if (x1[j]! > right) break;
      if (pairTouches(i, j, at)) return describe(i, j, at);
    }
  }
  return null;
}

function sweep(n: number): SelfIntersection | null {
  sortVertices(n);
  tree.clear();
  const at: [number, number] = [0, 0];
  for (let i = 0; i < n;) {
    const px = vx[order[i]!]!;
    const py = vy[order[i]!]!;
    nStarts = 0;
    nEnds = 0;
    let j = i;
    do {
      // Vertex v: segment v ends there in ring order and next[v] starts there; each is a start or an end event.
      const v = order[j]!;
      event(v, forward[v] === 0);
      event(next[v]!, forward[next[v]!] === 1);
      j++;
    } while (j < n && vx[order[j]!] === px && vy[order[j]!] === py);
    const hit = j === i + 1 && nStarts === 1 ? passThrough(at) : eventPoint(px, py, at);
    if (hit !== null) return hit;
    i = j;
  }
  return null;
}

function event(s: number, isStart: boolean): void {
  if (isStart) starts = push(starts, nStarts++, s);
  else ends = push(ends, nEnds++, s);
}

/**
 * The ordinary vertex, most of them: the ring's only visit to p, one segment ending there and the next
 * starting. The two lie on opposite sides of p in sweep order, so they meet at p alone and need no test; the new
 * one takes the other's place in the tree. A third segment through p would lie in the tree next to the one
 * ending (the segments through a point are neighbours there), so testing the new neighbours catches it too.
 */
function passThrough(at: [number, number]): SelfIntersection | null {
  const t = ends[0]!;
  const s = starts[0]!;
  const below = tree.prev(t);
  const above = tree.next(t);
  tree.replace(t, s);
  return (below !== NIL ? test(below, s, at) : null) ?? (above !== NIL ? test(s, above, at) : null);
}

/**
 * Handles the events at point p: tests the segments that contain p against each other, then removes those
 * ending there, inserts those starting there, and tests the pairs that became neighbours in the tree.
 */
function eventPoint(px: number, py: number, at: [number, number]): SelfIntersection | null {
  // The segments in the tree through p form one run; `below` is the last one under p, `above` the first over it.
  let below = NIL;
  let first = NIL;
  if (nEnds > 0) {
    // A segment ending here is in that run (exactness guarantees it): walk out from it, not down from the root.
    first = ends[0]!;
    for (let t = tree.prev(first); t !== NIL && onSegment(t, px, py); t = tree.prev(t)) first = t;
    below = tree.prev(first);
  } else {
    for (let t = tree.root; t !== NIL;) {
      if (orientSign(x1[t]!, y1[t]!, x2[t]!, y2[t]!, px, py) > 0) {
        below = t;
        t = tree.right[t]!;
      } else {
        first = t;
        t = tree.left[t]!;
      }
    }
  }
  nContacts = 0;
  let above = NIL;
  for (let t = first; t !== NIL; t = tree.next(t)) {
    if (!onSegment(t, px, py)) {
      above = t;
      break;
    }
    const partner = contact(t, at);
    if (partner !== NIL) return describe(partner, t, at);
  }
  for (let k = 0; k < nStarts; k++) {
    const s = starts[k]!;
    const partner = contact(s, at);
    if (partner !== NIL) return describe(partner, s, at);
  }
  // Any two segments through p that are not a ring's consecutive pair would have met above, and of three
  // segments through one point two never are: at most two are left, so what follows costs O(log n).
  if (nEnds === 1 && nStarts === 1) {
    // The ordinary vertex: the ring goes on from one segment to the next, which takes the other's place.
    const s = starts[0]!;
    tree.replace(ends[0]!, s);
    return (below !== NIL ? test(below, s, at) : null) ?? (above !== NIL ? test(s, above, at) : null);
  }
  for (let k = 0; k < nEnds; k++) tree.remove(ends[k]!);
  if (nStarts === 0) return below !== NIL && above !== NIL ? test(below, above, at) : null;
  // The new segments go between `below` and `above`, lowest first: no comparison with the tree is needed.
  if (nStarts === 2 && orientSign(px, py, x2[starts[0]!]!, y2[starts[0]!]!, x2[starts[1]!]!, y2[starts[1]!]!) < 0) {
    const s = starts[0]!;
    starts[0] = starts[1]!;
    starts[1] = s;
  }
  let last = below;
  for (let k = 0; k < nStarts; k++) {
    tree.insertAfter(last, starts[k]!);
    last = starts[k]!;
  }
  const lowest = starts[0]!;
  return (below !== NIL ? test(below, lowest, at) : null) ?? (above !== NIL ? test(last, above, at) : null);
}

/** Whether p lies on segment t, which is in the tree (so p is within its extent once it is on its line). */
function onSegment(t: number, px: number, py: number): boolean {
  return orientSign(x1[t]!, y1[t]!, x2[t]!, y2[t]!, px, py) === 0;
}

/**
 * Adds s to the segments through the event point, testing it against those already there: returns the first
 * one it may not meet (`at` then holds where they do), or NIL.
 */
function contact(s: number, at: [number, number]): number {
  for (let c = 0; c < nContacts; c++) {
    const t = contacts[c]!;
    if (t !== s && pairTouches(t, s, at)) return t;
  }
  contacts = push(contacts, nContacts++, s);
  return NIL;
}

function test(a: number, b: number, at: [number, number]): SelfIntersection | null {
  return pairTouches(a, b, at) ? describe(a, b, at) : null;
}

/** Today's pairwise rule: neighbours may only share their vertex; any other two segments may not meet at all. */
function pairTouches(i: number, j: number, at: [number, number]): boolean {
  // Disjoint extents cannot meet (x1 <= x2 always; y either way round).
  if (x1[j]! > x2[i]! || x1[i]! > x2[j]!) return false;
  if (Math.max(y1[j]!, y2[j]!) < Math.min(y1[i]!, y2[i]!) || Math.max(y1[i]!, y2[i]!) < Math.min(y1[j]!, y2[j]!)) return false;
  return next[i] === j || prev[i] === j
    ? overlapBeyondSharedVertex(x1[i]!, y1[i]!, x2[i]!, y2[i]!, x1[j]!, y1[j]!, x2[j]!, y2[j]!, at)
    : segmentsTouch(x1[i]!, y1[i]!, x2[i]!, y2[i]!, x1[j]!, y1[j]!, x2[j]!, y2[j]!, at);
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
      const fwd = ax < bx || (ax === bx && ay < by);
      x1[s] = fwd ? ax : bx;
      y1[s] = fwd ? ay : by;
      x2[s] = fwd ? bx : ax;
      y2[s] = fwd ? by : ay;
      forward[s] = fwd ? 1 : 0;
      vx[s] = bx;
      vy[s] = by;
      ringOf[s] = r;
      indexOf[s] = k;
    }
    const end = count;
    // Neighbours are consecutive non-degenerate segments, wrapping last→first. A ring never has exactly one
    // (a closed walk that moves at all moves at least twice), so a segment is never its own neighbour.
    for (let s = start; s < end; s++) {
      next[s] = s + 1 < end ? s + 1 : start;
      prev[s] = s > start ? s - 1 : end - 1;
    }
  }
  return count;
}

/** Below this many vertices an insertion sort beats the merge sort. */
const INSERTION_SORT_MAX = 32;

/**
 * order[0..n) = the vertices sorted by (x, y), ties in vertex order. Both sorts are stable, so the sweep meets
 * (and reports) pairs in the same order on every run. Hand-written: TypedArray#sort with a comparator costs a
 * call per comparison, which was most of the sweep.
 */
function sortVertices(n: number): void {
  for (let k = 0; k < n; k++) order[k] = k;
  if (n <= INSERTION_SORT_MAX) {
    for (let k = 1; k < n; k++) {
      const v = order[k]!;
      const x = vx[v]!;
      const y = vy[v]!;
      let j = k - 1;
      while (j >= 0 && (vx[order[j]!]! > x || (vx[order[j]!] === x && vy[order[j]!]! > y))) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = v;
    }
    return;
  }
  // Bottom-up merge sort between order and spare.
  let src = order;
  let dst = spare;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let a = lo;
      let b = mid;
      let k = lo;
      while (a < mid && b < hi) {
        const ea = src[a]!;
        const eb = src[b]!;
        // Take from the right run only when strictly smaller: ties keep their order.
        if (vx[eb]! < vx[ea]! || (vx[eb] === vx[ea] && vy[eb]! < vy[ea]!)) {
          dst[k++] = eb;
          b++;
        } else {
          dst[k++] = ea;
          a++;
        }
      }
      while (a < mid) dst[k++] = src[a++]!;
      while (b < hi) dst[k++] = src[b++]!;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== order) order.set(src.subarray(0, n));
}
