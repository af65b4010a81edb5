import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { findSelfIntersection, sortByMinX } from './intersect.ts';
import type { PolygonCoords, Position } from './types.ts';

const square = (x0: number, y0: number, x1: number, y1: number): Position[] =>
  [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];

function regularPolygon(n: number, cx: number, cy: number, r: number): Position[] {
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) {
    const t = (2 * Math.PI * i) / n;
    ring.push([cx + r * Math.cos(t), cy + r * Math.sin(t)]);
  }
  ring.push([ring[0]![0]!, ring[0]![1]!]);
  return ring;
}

describe('findSelfIntersection: valid polygons', () => {
  it('finds nothing in a convex ring', () => {
    expect(findSelfIntersection([square(0, 0, 1, 1)])).toBeNull();
  });

  it('finds nothing in a concave ring (a star and an L)', () => {
    const star: Position[] = [];
    for (let i = 0; i < 10; i++) {
      const r = i % 2 === 0 ? 1 : 0.4;
      const t = (Math.PI * i) / 5;
      star.push([r * Math.cos(t), r * Math.sin(t)]);
    }
    star.push(star[0]!);
    expect(findSelfIntersection([star])).toBeNull();
    expect(findSelfIntersection([[[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2], [0, 0]]])).toBeNull();
  });

  it('finds nothing with a hole that touches nothing', () => {
    expect(findSelfIntersection([square(0, 0, 10, 10), square(2, 2, 4, 4).reverse(), square(6, 6, 8, 8)])).toBeNull();
  });

  it('ignores zero-length segments, including a repeated closing position', () => {
    expect(findSelfIntersection([[[0, 0], [1, 0], [1, 0], [1, 1], [0, 1], [0, 0]]])).toBeNull();
    expect(findSelfIntersection([[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0], [0, 0]]])).toBeNull();
  });

  it('accepts collinear consecutive vertices (a vertex in the middle of a straight edge)', () => {
    expect(findSelfIntersection([[[0, 0], [1, 0], [2, 0], [2, 2], [0, 2], [0, 0]]])).toBeNull();
  });

  it('ignores z', () => {
    expect(findSelfIntersection([[[0, 0, 5], [1, 0, 6], [1, 1, 7], [0, 1, 8], [0, 0, 5]]])).toBeNull();
  });

  it('checks a 10,000-vertex regular polygon quickly and finds nothing', () => {
    const ring = regularPolygon(10_000, 12.5, 41.9, 0.01);
    findSelfIntersection([ring]); // warm-up so the timing is of the algorithm, not the JIT
    const t0 = performance.now();
    expect(findSelfIntersection([ring])).toBeNull();
    // Quadratic pair testing would be ~5e7 pairs; the sweep does a few ms of work.
    expect(performance.now() - t0).toBeLessThan(150);
  });
});

describe('findSelfIntersection: invalid polygons', () => {
  it('finds the crossing of a bow-tie, with segments and point', () => {
    expect(findSelfIntersection([[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]])).toEqual({
      ring: 0, segment: 0, otherRing: 0, otherSegment: 2, at: [0.5, 0.5],
    });
  });

  it('treats an unclosed ring as closed', () => {
    const hit = findSelfIntersection([[[0, 0], [1, 1], [1, 0], [0, 1]]]);
    expect(hit).toMatchObject({ ring: 0, segment: 0, otherSegment: 2 });
  });

  it('counts a figure-8 pinch (one vertex visited twice) as an intersection', () => {
    const ring = [[0, 0], [2, 0], [1, 1], [2, 2], [0, 2], [1, 1], [0, 0]];
    const hit = findSelfIntersection([ring]);
    expect(hit).not.toBeNull();
    expect(hit!.at).toEqual([1, 1]);
    expect(hit!.ring).toBe(0);
    expect(hit!.otherRing).toBe(0);
  });

  it('counts a vertex resting on a non-adjacent edge', () => {
    const hit = findSelfIntersection([[[0, 0], [4, 0], [4, 4], [2, 0], [0, 4], [0, 0]]]);
    expect(hit).not.toBeNull();
    expect(hit!.at).toEqual([2, 0]);
  });

  it('counts a spike: an edge doubling back over the previous one', () => {
    const hit = findSelfIntersection([[[0, 0], [4, 0], [4, 4], [4, 2], [0, 4], [0, 0]]]);
    expect(hit).toMatchObject({ ring: 0, segment: 1, at: [4, 2] });
  });

  it('counts neighbouring segments that overlap beyond their shared vertex', () => {
    // Three collinear segments, every pair neighbours: only the overlap rule can catch it.
    const hit = findSelfIntersection([[[0, 0], [2, 0], [1, 0], [0, 0]]]);
    expect(hit).toEqual({ ring: 0, segment: 0, otherRing: 0, otherSegment: 2, at: [1, 0] });
  });

  it('counts a ring that folds onto itself (two positions back and forth)', () => {
    expect(findSelfIntersection([[[0, 0], [1, 1], [0, 0], [1, 1]]])).not.toBeNull();
  });

  it('finds a hole crossing the outer ring', () => {
    const hit = findSelfIntersection([square(0, 0, 4, 4), square(3, 1, 5, 2)]);
    expect(hit).toMatchObject({ ring: 0, otherRing: 1 });
    expect(hit!.at[0]).toBe(4);
  });

  it('finds a hole touching the outer ring at a single vertex', () => {
    const hit = findSelfIntersection([square(0, 0, 4, 4), [[4, 2], [3, 3], [3, 1], [4, 2]]]);
    expect(hit).toMatchObject({ ring: 0, otherRing: 1, at: [4, 2] });
  });

  it('finds a hole sharing part of an edge with the outer ring (collinear overlap)', () => {
    expect(findSelfIntersection([square(0, 0, 4, 4), [[1, 0], [3, 0], [2, 1], [1, 0]]])).toMatchObject({ ring: 0, otherRing: 1 });
  });

  it('finds two holes crossing each other, reporting the lower ring first', () => {
    const hit = findSelfIntersection([square(0, 0, 10, 10), square(5, 5, 8, 8), square(2, 2, 6, 6)]);
    expect(hit).toMatchObject({ ring: 1, otherRing: 2 });
  });

  it('finds a single crossing in a 10,000-vertex ring', () => {
    const ring = regularPolygon(10_000, 0, 0, 1);
    // Swapping two neighbouring vertices twists their edges into a small bow-tie.
    const a = ring[5000]!;
    ring[5000] = ring[5001]!;
    ring[5001] = a;
    const hit = findSelfIntersection([ring]);
    expect(hit).toMatchObject({ ring: 0, segment: 4999, otherRing: 0, otherSegment: 5001 });
  });
});

// An independent all-pairs reference with the same rules, on small integer grids
// where the arithmetic is exact and touching, collinear and repeated positions abound.
function bruteForce(coords: PolygonCoords): boolean {
  interface Seg { a: Position; b: Position; ring: number; order: number; count: number }
  const segs: Seg[] = [];
  coords.forEach((ring, r) => {
    const closed = ring.length > 0 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1];
    const n = closed ? ring.length - 1 : ring.length;
    const mine: Seg[] = [];
    if (ring.length >= 2) {
      for (let k = 0; k < n; k++) {
        const a = ring[k]!;
        const b = ring[(k + 1) % ring.length]!;
        if (a[0] !== b[0] || a[1] !== b[1]) mine.push({ a, b, ring: r, order: mine.length, count: 0 });
      }
    }
    for (const s of mine) s.count = mine.length;
    segs.push(...mine);
  });
  const cross = (o: Position, p: Position, q: Position) => (p[0]! - o[0]!) * (q[1]! - o[1]!) - (p[1]! - o[1]!) * (q[0]! - o[0]!);
  const onSeg = (p: Position, s: Seg) =>
    cross(s.a, s.b, p) === 0 &&
    Math.min(s.a[0]!, s.b[0]!) <= p[0]! && p[0]! <= Math.max(s.a[0]!, s.b[0]!) &&
    Math.min(s.a[1]!, s.b[1]!) <= p[1]! && p[1]! <= Math.max(s.a[1]!, s.b[1]!);
  for (let i = 0; i < segs.length; i++) {
    for (let j = i + 1; j < segs.length; j++) {
      const s = segs[i]!;
      const t = segs[j]!;
      const adjacent = s.ring === t.ring && ((s.order + 1) % s.count === t.order || (t.order + 1) % t.count === s.order);
      if (adjacent) {
        if (cross(s.a, s.b, t.a) !== 0 || cross(s.a, s.b, t.b) !== 0) continue;
        // Collinear neighbours: do they share more than one point? Test sample points strictly inside t.
        const mid = (u: Position, v: Position): Position => [(u[0]! + v[0]!) / 2, (u[1]! + v[1]!) / 2];
        const inner = [mid(t.a, t.b), mid(t.a, mid(t.a, t.b)), mid(t.b, mid(t.a, t.b))];
        const innerS = [mid(s.a, s.b), mid(s.a, mid(s.a, s.b)), mid(s.b, mid(s.a, s.b))];
        if (inner.some((p) => onSeg(p, s)) || innerS.some((p) => onSeg(p, t))) return true;
        continue;
      }
      const d1 = Math.sign(cross(s.a, s.b, t.a));
      const d2 = Math.sign(cross(s.a, s.b, t.b));
      const d3 = Math.sign(cross(t.a, t.b, s.a));
      const d4 = Math.sign(cross(t.a, t.b, s.b));
      if (d1 * d2 < 0 && d3 * d4 < 0) return true;
      if (onSeg(t.a, s) || onSeg(t.b, s) || onSeg(s.a, t) || onSeg(s.b, t)) return true;
    }
  }
  return false;
}

describe('findSelfIntersection against an all-pairs reference', () => {
  const pos = fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 })).map(([x, y]) => [x, y] as Position);
  const ring = fc.array(pos, { minLength: 3, maxLength: 9 }).map((r) => [...r, r[0]!]);

  it('agrees on random single rings', () => {
    fc.assert(fc.property(ring, (r) => {
      expect(findSelfIntersection([r]) !== null).toBe(bruteForce([r]));
    }), { numRuns: 3000 });
  });

  it('agrees on random polygons with holes', () => {
    fc.assert(fc.property(fc.array(ring, { minLength: 2, maxLength: 4 }), (rings) => {
      expect(findSelfIntersection(rings) !== null).toBe(bruteForce(rings));
    }), { numRuns: 2000 });
  });

  it('reports a point that lies on both reported segments', () => {
    fc.assert(fc.property(fc.array(ring, { minLength: 1, maxLength: 3 }), (rings) => {
      const hit = findSelfIntersection(rings);
      if (hit === null) return;
      for (const [r, k] of [[hit.ring, hit.segment], [hit.otherRing, hit.otherSegment]] as const) {
        const ringPositions = rings[r]!;
        const a = ringPositions[k]!;
        const b = ringPositions[(k + 1) % ringPositions.length]!;
        const area2 = (b[0]! - a[0]!) * (hit.at[1] - a[1]!) - (b[1]! - a[1]!) * (hit.at[0] - a[0]!);
        expect(Math.abs(area2)).toBeLessThan(1e-9);
        expect(hit.at[0]).toBeGreaterThanOrEqual(Math.min(a[0]!, b[0]!) - 1e-9);
        expect(hit.at[0]).toBeLessThanOrEqual(Math.max(a[0]!, b[0]!) + 1e-9);
        expect(hit.at[1]).toBeGreaterThanOrEqual(Math.min(a[1]!, b[1]!) - 1e-9);
        expect(hit.at[1]).toBeLessThanOrEqual(Math.max(a[1]!, b[1]!) + 1e-9);
      }
    }), { numRuns: 2000 });
  });
});

describe('sortByMinX', () => {
  // Which pair the sweep reports first depends on the order of equal min-x values (segments sharing a vertex tie
  // all the time), so the insertion sort used for small rings must order ties exactly as the stable sort does.
  it('orders like a stable sort, ties in index order, on both sides of the insertion-sort limit', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 0, maxLength: 150 }), (ints) => {
      const keys = Float64Array.from(ints);
      const out = new Uint32Array(keys.length + 3);
      sortByMinX(keys, out, keys.length);
      const stable = Array.from(keys, (_, i) => i).sort((a, b) => keys[a]! - keys[b]!);
      expect(Array.from(out.subarray(0, keys.length))).toEqual(stable);
    }), { numRuns: 1000 });
  });
});
