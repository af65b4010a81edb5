import { describe, it, expect } from 'vitest';
import { bboxOf, centerOf } from './bbox.ts';

describe('bboxOf', () => {
  it('spans the outer ring', () => {
    expect(bboxOf([[[2, 1], [5, 1], [5, 4], [3, 6], [2, 1]]])).toEqual([2, 1, 5, 6]);
  });

  it('covers every ring, so unvalidated holes outside the shell still count', () => {
    expect(bboxOf([[[0, 0], [1, 0], [1, 1], [0, 0]], [[-3, 5], [-2, 5], [-2, 7], [-3, 5]]])).toEqual([-3, 0, 1, 7]);
  });

  it('handles negative coordinates and ignores z', () => {
    expect(bboxOf([[[-70, -33, 500], [-69, -33, 10], [-69, -32, 0], [-70, -33, 500]]])).toEqual([-70, -33, -69, -32]);
  });

  it('throws when there is no position', () => {
    expect(() => bboxOf([])).toThrow(RangeError);
    expect(() => bboxOf([[]])).toThrow(RangeError);
  });
});

describe('centerOf', () => {
  it('is the middle of the box', () => {
    expect(centerOf([2, 1, 5, 6])).toEqual([3.5, 3.5]);
    expect(centerOf([-70, -33, -69, -32])).toEqual([-69.5, -32.5]);
  });
});
