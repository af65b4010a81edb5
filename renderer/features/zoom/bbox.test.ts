import { describe, expect, it } from 'vitest';
import { boxOf } from './bbox.ts';

describe('boxOf', () => {
  it('spans every ring of every geometry, points included', () => {
    const square = { type: 'Polygon', coordinates: [[[-4, 37], [-3.9, 37], [-3.9, 37.1], [-4, 37.1], [-4, 37]]] };
    const hole = { type: 'Polygon', coordinates: [[[1, 2], [3, 2], [3, 5], [1, 2]], [[1.5, 2.5], [2, 2.5], [2, 3], [1.5, 2.5]]] };
    expect(boxOf([square])).toEqual([-4, 37, -3.9, 37.1]);
    expect(boxOf([square, hole])).toEqual([-4, 2, 3, 37.1]);
    expect(boxOf([{ type: 'Point', coordinates: [5, 6] }])).toEqual([5, 6, 5, 6]);
  });
  it('is null for nothing', () => {
    expect(boxOf([])).toBeNull();
    expect(boxOf([{ type: 'Polygon', coordinates: [] }])).toBeNull();
  });
});
