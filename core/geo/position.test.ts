import { describe, it, expect } from 'vitest';
import { isPosition, samePosition } from './position.ts';

describe('isPosition', () => {
  it('accepts 2 or 3 finite numbers', () => {
    expect(isPosition([1, 2])).toBe(true);
    expect(isPosition([1, 2, 3])).toBe(true);
    expect(isPosition([-180, -90, -0.5])).toBe(true);
  });

  it('rejects other lengths, non-numbers and non-finite numbers', () => {
    for (const bad of [[], [1], [1, 2, 3, 4], ['1', 2], [1, null], [Number.NaN, 0], [0, Number.POSITIVE_INFINITY], { 0: 1, 1: 2, length: 2 }, '1,2', null]) {
      expect(isPosition(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('samePosition', () => {
  it('samePosition needs identical values including z', () => {
    expect(samePosition([1, 2], [1, 2])).toBe(true);
    expect(samePosition([1, 2, 3], [1, 2, 3])).toBe(true);
    expect(samePosition([1, 2, 3], [1, 2, 4])).toBe(false);
    expect(samePosition([1, 2], [1, 2, 0])).toBe(false);
    expect(samePosition([1, 2], [1, 2.0000001])).toBe(false);
  });
});
