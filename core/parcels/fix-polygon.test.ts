import { describe, expect, it } from 'vitest';
import { crossingsOf, validParts, type LonLat } from './fix-polygon.ts';
import { checkPolygon } from './polygon.ts';
import { reporter } from './problems.ts';
import { polygonHectares } from '../geo/area.ts';

/** A bow tie about 1 km across near Córdoba: its two edges cross at its middle. */
const BOW: LonLat[] = [[-4.8, 37.88], [-4.79, 37.89], [-4.79, 37.88], [-4.8, 37.89]];
const SQUARE: LonLat[] = [[-4.8, 37.88], [-4.79, 37.88], [-4.79, 37.89], [-4.8, 37.89]];
const close = (r: LonLat[]) => [[...r, r[0]!]];

describe('fixing a polygon that crosses itself', () => {
  it('finds where a bow tie crosses, and nothing in a square', () => {
    const [at, ...more] = crossingsOf(BOW);
    expect(more).toEqual([]);
    expect(at![0]).toBeCloseTo(-4.795, 9);
    expect(at![1]).toBeCloseTo(37.885, 9);
    expect(crossingsOf(SQUARE)).toEqual([]);
    expect(crossingsOf(BOW.slice(0, 2))).toEqual([]);
  });

  it('finds every crossing of a ring that crosses itself twice, and a vertex touching an edge', () => {
    // A zigzag closing back over itself: two crossings.
    const twice: LonLat[] = [[0, 0], [3, 0], [0, 1], [3, 1], [0, 2], [3, 2]];
    expect(crossingsOf(twice).length).toBeGreaterThanOrEqual(2);
    // A vertex on the opposite edge: no proper crossing, but the service's check refuses it there.
    const touching: LonLat[] = [[0, 0], [2, 0], [2, 2], [1, 0], [0, 2]];
    expect(crossingsOf(touching)).toContainEqual([1, 0]);
  });

  it("splits a bow tie into its two triangles, each one the service takes, together the bow tie's area", () => {
    const parts = validParts(BOW, 100)!;
    expect(parts).toHaveLength(2);
    for (const part of parts) {
      expect(part).toHaveLength(3);
      const r = reporter(0);
      expect(checkPolygon(close(part), r, '', 100)).not.toBeNull();
      expect(r.problems).toEqual([]);
    }
    const total = parts.reduce((s, p) => s + polygonHectares(close(p)), 0);
    expect(total).toBeCloseTo(polygonHectares(close(SQUARE)) / 2, 1);
  });

  it('offers no split for a valid polygon, for parts above the limit, or for a loop over the shape', () => {
    expect(validParts(SQUARE, 100)).toBeNull();
    expect(validParts(BOW, 10)).toBeNull(); // each triangle is about 22 ha
    // A loop drawn across the middle: its parts would overlap.
    const loop: LonLat[] = [[0, 0], [4, 0], [4, 4], [1, 4], [1, 1], [3, 1], [3, 3], [0, 3]];
    expect(validParts(loop.map(([x, y]) => [x * 0.001, y * 0.001] as LonLat), 100)).toBeNull();
  });
});
