import { describe, expect, it } from 'vitest';
import { crownPixels, infoRows, squareMetres } from './plant-view.ts';

describe('plant view', () => {
  it('sizes a crown by its area and the resolution, with a visible minimum', () => {
    expect(crownPixels(Math.PI * 4, 0.5)).toBeCloseTo(4);
    expect(crownPixels(Math.PI * 4, 2)).toBe(3);
    expect(crownPixels(0, 0.1)).toBe(3);
  });
  it('words the info of a detection', () => {
    expect(infoRows({ species: 'almond', health: 0.81234, tags: ['a'] })).toEqual([['species', 'almond'], ['health', '0.812'], ['tags', '["a"]']]);
    expect(infoRows(null)).toEqual([]);
    expect(infoRows('x')).toEqual([['Info', '"x"']]);
    expect(squareMetres(3.14159)).toBe('3.1 m²');
  });
});
