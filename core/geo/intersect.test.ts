import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { findSelfIntersection, findSelfIntersectionBy, SMALL_RING } from './intersect.ts';
import { exactOrientSign } from './orient.ts';
import { referenceHasContact } from './intersect.test-helpers.ts';
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

  it('finds nothing in a 10,000-vertex regular polygon', () => {
    // Its time is measured by bench/service-heavy.ts, not here.
    expect(findSelfIntersection([regularPolygon(10_000, 12.5, 41.9, 0.01)])).toBeNull();
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

const STRATEGIES = ['sweep', 'pairs'] as const;

describe.each(STRATEGIES)('findSelfIntersection (%s) against the all-pairs reference', (strategy) => {
  const find = (c: PolygonCoords) => findSelfIntersectionBy(c, strategy);
  // Small integer grids: the arithmetic is exact, and touching, collinear, vertical and repeated positions abound.
  const pos = (max: number) => fc.tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max })).map(([x, y]) => [x, y] as Position);
  const closedRing = (max: number, maxLength: number) => fc.array(pos(max), { minLength: 3, maxLength }).map((r) => [...r, r[0]!]);
  // Unclosed rings, rings of one or two positions, and rings that are nothing but a repeated position.
  const anyRing = fc.oneof(closedRing(6, 9), fc.array(pos(4), { minLength: 0, maxLength: 6 }), pos(3).map((p) => [p, p, p, p]));

  it('agrees on random single rings', () => {
    fc.assert(fc.property(closedRing(6, 9), (r) => {
      expect(find([r]) !== null).toBe(referenceHasContact([r]));
    }), { numRuns: 3000 });
  });

  it('agrees on random polygons with holes, unclosed and degenerate rings', () => {
    fc.assert(fc.property(fc.array(anyRing, { minLength: 1, maxLength: 4 }), (rings) => {
      expect(find(rings) !== null).toBe(referenceHasContact(rings));
    }), { numRuns: 3000 });
  });

  // Mostly valid: star-shaped rings snapped to a coarse grid (so vertices land on each other's edges and lines),
  // some positions then moved; large enough that the tree is several levels deep.
  const snappedStar = fc.record({
    n: fc.integer({ min: 8, max: 160 }),
    grid: fc.constantFrom(1, 2, 5),
    radii: fc.array(fc.integer({ min: 20, max: 60 }), { minLength: 160, maxLength: 160 }),
    moves: fc.array(fc.tuple(fc.nat(), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })), { maxLength: 3 }),
  }).map(({ n, grid, radii, moves }) => {
    const ring: Position[] = [];
    for (let i = 0; i < n; i++) {
      const t = (2 * Math.PI * i) / n;
      ring.push([Math.round((radii[i]! * Math.cos(t)) / grid) * grid, Math.round((radii[i]! * Math.sin(t)) / grid) * grid]);
    }
    for (const [k, dx, dy] of moves) {
      const p = ring[k % n]!;
      ring[k % n] = [p[0]! + dx * grid, p[1]! + dy * grid];
    }
    return [...ring, ring[0]!];
  });

  it('agrees on larger snapped star-shaped rings, with and without a hole', () => {
    fc.assert(fc.property(snappedStar, fc.boolean(), (ring, hole) => {
      const rings = hole ? [ring, [[-5, -5], [-5, 5], [5, 5], [5, -5], [-5, -5]]] : [ring];
      expect(find(rings) !== null).toBe(referenceHasContact(rings));
    }), { numRuns: 1500 });
  });

  it('reports a point that lies on both reported segments', () => {
    fc.assert(fc.property(fc.array(closedRing(6, 9), { minLength: 1, maxLength: 3 }), (rings) => {
      const hit = find(rings);
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

  // Off the grid: positions interpolated in floating point between others lie within rounding of their lines,
  // on either side or exactly on. Only exact side tests can agree with the exact reference there.
  it('agrees with an exact reference on near-collinear floating-point positions', () => {
    const base = fc.tuple(fc.double({ min: -6, max: -5, noNaN: true }), fc.double({ min: 40, max: 41, noNaN: true }));
    const polygon = fc.record({
      corners: fc.array(base, { minLength: 3, maxLength: 8 }),
      between: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.double({ min: 0, max: 1, noNaN: true }), fc.nat()), { minLength: 1, maxLength: 8 }),
    }).map(({ corners, between }) => {
      const ring: Position[] = corners.map(([x, y]) => [x, y]);
      for (const [a, b, t, at] of between) {
        const p = ring[a % ring.length]!;
        const q = ring[b % ring.length]!;
        ring.splice(at % (ring.length + 1), 0, [p[0]! + t * (q[0]! - p[0]!), p[1]! + t * (q[1]! - p[1]!)]);
      }
      return [[...ring, ring[0]!]];
    });
    fc.assert(fc.property(polygon, (rings) => {
      expect(find(rings) !== null).toBe(referenceHasContact(rings, exactOrientSign));
    }), { numRuns: 3000 });
  });

  // A notch reaching down from the top whose tip lies within a few units in the last place of the bottom edge:
  // just above it the ring is valid, on it or below it the notch touches or crosses the edge. The edge is long and
  // the tip near the origin, where rounding in a plain cross product is larger than the tip's distance from the
  // edge (never so in lon/lat parcels, but the sweep must not depend on that).
  it('agrees with an exact reference when rounding alone decides whether a notch touches an edge', () => {
    const notch = fc.record({
      p: fc.tuple(fc.double({ min: -16, max: -8, noNaN: true }), fc.double({ min: -16, max: -8, noNaN: true })),
      q: fc.tuple(fc.double({ min: 8, max: 16, noNaN: true }), fc.double({ min: 8, max: 16, noNaN: true })),
      t: fc.double({ min: 0.4, max: 0.6, noNaN: true }),
      ulps: fc.integer({ min: -4, max: 4 }),
      // The tip with a neighbour on each side (one segment ends there, the next starts) or both to its right.
      leftmost: fc.boolean(),
    }).map(({ p: [px, py], q: [qx, qy], t, ulps, leftmost }) => {
      const rx = px + t * (qx - px);
      let ry = py + t * (qy - py);
      for (let k = 0; k < Math.abs(ulps); k++) ry = nextAfter(ry, ulps > 0 ? Infinity : -Infinity);
      const ring: Position[] = [[px, py], [qx, qy], [qx, qy + 40], [rx + 0.3, ry + 1], [rx, ry], leftmost ? [rx + 0.4, ry + 3] : [rx - 0.3, ry + 1], [px, py + 40], [px, py]];
      return [ring];
    });
    let valid = 0;
    fc.assert(fc.property(notch, (rings) => {
      const expected = referenceHasContact(rings, exactOrientSign);
      if (!expected) valid++;
      expect(find(rings) !== null).toBe(expected);
    }), { numRuns: 2000 });
    expect(valid).toBeGreaterThan(100); // both verdicts occur
  });
});

/** The next double after x towards `to`. */
function nextAfter(x: number, to: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigInt64(0);
  view.setBigInt64(0, (x < to) === (x >= 0) ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

describe('findSelfIntersection: strategy and determinism', () => {
  it('uses the pair sweep up to SMALL_RING segments and the tree sweep beyond, with the same verdicts', () => {
    // A comb whose one tooth crosses the spine: the strategies may report different pairs, never a different verdict.
    for (const n of [SMALL_RING - 3, SMALL_RING + 5, 4 * SMALL_RING]) {
      const ring = regularPolygon(n, 0, 0, 1);
      ring[3] = [-2, 0];
      expect(findSelfIntersection([ring])).not.toBeNull();
      expect(findSelfIntersectionBy([ring], 'sweep')).not.toBeNull();
      expect(findSelfIntersectionBy([ring], 'pairs')).not.toBeNull();
    }
  });

  it('reports the same contact for the same polygon, whatever ran before (scratch space is reused)', () => {
    const eight: PolygonCoords = [[[0, 0], [2, 0], [1, 1], [2, 2], [0, 2], [1, 1], [0, 0]]];
    const big = regularPolygon(5000, 0, 0, 1);
    big[2500] = [0, 0];
    big[10] = [0, 0];
    const first = [findSelfIntersection(eight), findSelfIntersection([big])];
    findSelfIntersection([regularPolygon(20_000, 3, 3, 1)]);
    findSelfIntersection([square(0, 0, 1, 1)]);
    expect([findSelfIntersection(eight), findSelfIntersection([big])]).toEqual(first);
    expect(first[1]).not.toBeNull();
  });
});
