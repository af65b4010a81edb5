import { describe, it, expect } from 'vitest';
import { pointInRing, ringInsideRing } from './contains.ts';
import type { Position } from './types.ts';

const square = (x0: number, y0: number, x1: number, y1: number): Position[] =>
  [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
// A "C" open to the east: its mouth is outside although inside the bounding box.
const cShape: Position[] = [[0, 0], [3, 0], [3, 1], [1, 1], [1, 2], [3, 2], [3, 3], [0, 3], [0, 0]];

describe('pointInRing', () => {
  it('tells inside from outside for a square', () => {
    const ring = square(0, 0, 2, 2);
    expect(pointInRing([1, 1], ring)).toBe(true);
    expect(pointInRing([3, 1], ring)).toBe(false);
    expect(pointInRing([-1, 1], ring)).toBe(false);
    expect(pointInRing([1, 2.5], ring)).toBe(false);
  });

  it('handles concave rings', () => {
    expect(pointInRing([0.5, 1.5], cShape)).toBe(true);
    expect(pointInRing([2, 1.5], cShape)).toBe(false);
    expect(pointInRing([2, 0.5], cShape)).toBe(true);
  });

  it('counts a ray passing exactly through a vertex once', () => {
    const diamond: Position[] = [[0, -1], [1, 0], [0, 1], [-1, 0], [0, -1]];
    expect(pointInRing([0, 0], diamond)).toBe(true);
    expect(pointInRing([-2, 0], diamond)).toBe(false);
    expect(pointInRing([0.5, 0], diamond)).toBe(true);
  });

  it('works on unclosed rings and either winding, ignoring z', () => {
    expect(pointInRing([1, 1], square(0, 0, 2, 2).slice(0, 4))).toBe(true);
    expect(pointInRing([1, 1], square(0, 0, 2, 2).reverse())).toBe(true);
    expect(pointInRing([1, 1, 99], square(0, 0, 2, 2))).toBe(true);
  });

  it('is false for an empty ring', () => {
    expect(pointInRing([0, 0], [])).toBe(false);
  });
});

describe('ringInsideRing', () => {
  it('is true for a hole strictly inside its shell', () => {
    expect(ringInsideRing(square(1, 1, 2, 2), square(0, 0, 4, 4))).toBe(true);
  });

  it('is false for a hole wholly outside', () => {
    expect(ringInsideRing(square(5, 5, 6, 6), square(0, 0, 4, 4))).toBe(false);
  });

  it('is false when only some vertices are inside', () => {
    expect(ringInsideRing(square(3, 3, 5, 5), square(0, 0, 4, 4))).toBe(false);
  });

  it('is false for a hole in the mouth of a concave shell, although inside its bounding box', () => {
    expect(ringInsideRing(square(2, 1.2, 2.5, 1.8), cShape)).toBe(false);
    expect(ringInsideRing(square(0.2, 1.2, 0.8, 1.8), cShape)).toBe(true);
  });
});
