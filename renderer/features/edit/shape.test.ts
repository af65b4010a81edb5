import { describe, expect, it } from 'vitest';
import { openRings, sameShape, shapeGeometry, shapeHectares, shapeProblems, withVertex } from './shape.ts';
import { ringSignedArea2 } from '../../../core/geo/winding.ts';
import { draftHectares } from '../../preview.ts';

const square = [[5, 52], [5.01, 52], [5.01, 52.01], [5, 52.01], [5, 52]];

describe('the shape being modified', () => {
  it('opens GeoJSON rings and measures them as Draw does', () => {
    const rings = openRings([square]);
    expect(rings[0]).toHaveLength(4);
    expect(shapeHectares(rings)).toBeCloseTo(draftHectares(rings[0]!), 9);
    expect(shapeHectares(rings)).toBeGreaterThan(60);
  });

  it('subtracts a hole', () => {
    const hole = [[5.002, 52.002], [5.002, 52.004], [5.004, 52.004], [5.004, 52.002], [5.002, 52.002]];
    expect(shapeHectares(openRings([square, hole]))).toBeLessThan(shapeHectares(openRings([square])));
  });

  it("reports a ring crossing itself in the service's words, and too few vertices", () => {
    expect(shapeProblems(openRings([[[5, 52], [5.01, 52.01], [5.01, 52], [5, 52.01], [5, 52]]])).join(' ')).toMatch(/crosses or touches itself/);
    expect(shapeProblems([[[5, 52], [5.01, 52]]])).toEqual(['The polygon needs at least three vertices.']);
    expect(shapeProblems(openRings([square]))).toEqual([]);
  });

  it('saves closed rings, the outer one counter-clockwise, whatever the order dragged', () => {
    const clockwise = openRings([[...square].reverse()]);
    const g = shapeGeometry(clockwise);
    const outer = g.coordinates[0]!;
    expect(outer[0]).toEqual(outer[outer.length - 1]);
    expect(ringSignedArea2(outer)).toBeGreaterThan(0);
  });

  it('tells an unchanged shape from a moved one', () => {
    const a = openRings([square]);
    expect(sameShape(a, openRings([square]))).toBe(true);
    expect(sameShape(a, [a[0]!.map(([x, y]) => [x + 1e-6, y] as [number, number])])).toBe(false);
  });

  it('takes a typed vertex: replaced, removed, or a new one halfway to the next (after the last: halfway to the first)', () => {
    const hole: [number, number][] = [[5.002, 52.002], [5.002, 52.004], [5.004, 52.004]];
    const rings = [openRings([square])[0]!, hole];
    expect(withVertex(rings, 0, 1, { set: [5.02, 52] })[0]![1]).toEqual([5.02, 52]);
    expect(withVertex(rings, 0, 1, { set: [5.02, 52] })[1]).toBe(hole);
    expect(withVertex(rings, 1, 0, { remove: true })[1]).toEqual([[5.002, 52.004], [5.004, 52.004]]);
    expect(withVertex(rings, 0, 0, { insertAfter: true })[0]!.slice(0, 3)).toEqual([[5, 52], [(5 + 5.01) / 2, 52], [5.01, 52]]);
    expect(withVertex(rings, 0, 3, { insertAfter: true })[0]![4]).toEqual([5, (52.01 + 52) / 2]);
    // The rings given are left as they were.
    expect(rings[0]).toHaveLength(4);
    expect(shapeHectares(withVertex(rings, 0, 2, { set: [5.02, 52.02] }))).toBeGreaterThan(shapeHectares(rings));
  });
});
