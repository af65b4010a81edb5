import { describe, expect, it } from 'vitest';
import { crownPixels, infoRows, plantMatches, squareMetres } from './plant-view.ts';

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
  it("finds a parcel's plants by id or by the detection's info, every word typed", () => {
    const tree = { id: 1042, info: { species: 'Almond', health: 0.81, row: 7 } };
    expect(plantMatches(tree, '')).toBe(true);
    expect(plantMatches(tree, '1042')).toBe(true);
    expect(plantMatches(tree, '104')).toBe(false);
    expect(plantMatches(tree, '#1042')).toBe(true);
    expect(plantMatches(tree, 'Plant 1042')).toBe(true);
    expect(plantMatches({ id: 7, info: { row: 1042 } }, '1042')).toBe(false);
    expect(plantMatches({ id: 7, info: { row: 1042 } }, 'row 1042')).toBe(true);
    expect(plantMatches({ id: 7, info: { row: 10420 } }, 'row 1042')).toBe(false);
    expect(plantMatches(tree, 'alm')).toBe(true);
    expect(plantMatches(tree, '0.81')).toBe(true);
    expect(plantMatches(tree, 'almond')).toBe(true);
    expect(plantMatches(tree, 'species almond')).toBe(true);
    expect(plantMatches(tree, 'almond olive')).toBe(false);
    expect(plantMatches(tree, 'row 7')).toBe(true);
    expect(plantMatches(tree, 'row 70')).toBe(false);
    expect(plantMatches({ id: 5, info: null }, 'plant 5')).toBe(true);
  });
});
