// Shapes that defeat a sweep pruning only by x-range (every long edge shares one x-range) or that keep many
// segments crossing the sweep line at once, at 10,000+ vertices, valid and with one defect each: the sweep must
// agree with the all-pairs reference on every one. How long they take is measured by bench/service-heavy.ts.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { findSelfIntersection, findSelfIntersectionBy } from './intersect.ts';
import { combPolygon, referenceHasContact, spikyStar, spiralStrip } from './intersect.test-helpers.ts';
import type { PolygonCoords, Position } from './types.ts';

const SHAPES: [string, () => PolygonCoords][] = [
  ['a comb whose 2,500 teeth all span the full width', () => combPolygon(2500)],
  ['a star of 5,000 thin spikes', () => spikyStar(5000)],
  ['a spiral strip of 10 turns', () => spiralStrip(10, 5001)],
];

/**
 * One defect at a vertex chosen by the test; the closing position follows the first. Returns the polygon and the
 * new positions of the vertices it moved.
 */
function withDefect(coords: PolygonCoords, kind: 'pinch' | 'swap' | 'shift' | 'onto-edge', k: number, q: number, dx: number, dy: number): { polygon: PolygonCoords; moved: Position[] } {
  const ring = coords[0]!.slice(0, -1).map((p) => [p[0]!, p[1]!] as Position);
  const n = ring.length;
  const i = k % n;
  const j = (i + 2 + (q % (n - 3))) % n; // never i or its two neighbours
  if (kind === 'pinch') ring[i] = [...ring[j]!];
  else if (kind === 'swap') [ring[i], ring[(i + 1) % n]] = [ring[(i + 1) % n]!, ring[i]!];
  else if (kind === 'shift') ring[i] = [ring[i]![0]! + dx, ring[i]![1]! + dy];
  else {
    const a = ring[j]!;
    const b = ring[(j + 1) % n]!;
    // The midpoint of edge j when it is on the grid, else its first vertex: either way on the edge.
    const mid: Position = [(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2];
    ring[i] = Number.isInteger(mid[0]) && Number.isInteger(mid[1]) ? mid : [...a];
  }
  const moved = kind === 'swap' ? [ring[i]!, ring[(i + 1) % n]!] : [ring[i]!];
  return { polygon: [[...ring, [ring[0]![0]!, ring[0]![1]!]]], moved };
}

describe.each(SHAPES)('findSelfIntersection on %s', (_name, make) => {
  const shape = make();

  it('has 10,000 or more positions and finds nothing, as the reference', () => {
    expect(shape[0]!.length).toBeGreaterThanOrEqual(10_000);
    expect(referenceHasContact(shape)).toBe(false);
    expect(findSelfIntersection(shape)).toBeNull();
  });

  it('agrees with the reference once a defect is added', { timeout: 60_000 }, () => {
    let invalid = 0;
    fc.assert(fc.property(
      fc.constantFrom('pinch', 'swap', 'shift', 'onto-edge'), fc.nat(), fc.nat(),
      fc.integer({ min: -60_000, max: 60_000 }), fc.integer({ min: -60_000, max: 60_000 }),
      (kind, k, q, dx, dy) => {
        const { polygon, moved } = withDefect(shape, kind, k, q, dx, dy);
        // The shape is valid (tested above), so only pairs with a moved vertex can touch: the reference tests those.
        const expected = referenceHasContact(polygon, undefined, moved);
        if (expected) invalid++;
        expect(findSelfIntersection(polygon) !== null).toBe(expected);
      },
    ), { numRuns: 100 });
    expect(invalid).toBeGreaterThan(0);
  });

  it('finds a hole touching the shell, and a hole crossing another', () => {
    const [outer] = shape;
    const a = outer![0]!;
    const b = outer![1]!;
    // A small triangle hanging from the middle of the first edge (touching), and a copy of the shell shifted a
    // little (crossing it everywhere).
    const mid: Position = [(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2];
    const touching: Position[] = [mid, [mid[0]! + 1, mid[1]! + 7], [mid[0]! - 1, mid[1]! + 7], mid];
    expect(findSelfIntersectionBy([outer!, touching], 'sweep')).toMatchObject({ ring: 0, otherRing: 1 });
    const shifted = outer!.map((p) => [p[0]! + 3, p[1]! + 5] as Position);
    expect(findSelfIntersection([outer!, shifted])).not.toBeNull();
  });
});
