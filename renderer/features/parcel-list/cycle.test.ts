import { describe, expect, it } from 'vitest';
import { cycleParcels, readingOrder } from './cycle.ts';

// A 2×2 block of plots, the upper row slightly uneven, and one alone further south.
const plots = [
  { id: 'se', x: 10, y: 0 },
  { id: 'nw', x: 0, y: 10 },
  { id: 'ne', x: 10, y: 10.4 },
  { id: 'sw', x: 0, y: 0 },
  { id: 'far-south', x: 5, y: -20 },
];

describe('keyboard selection of the parcels in view', () => {
  it('reads them north to south, west to east within a row', () => {
    expect(readingOrder(plots, 1).map((p) => p.id)).toEqual(['nw', 'ne', 'sw', 'se', 'far-south']);
    // Without a tolerance the uneven row is two rows: its eastern plot, a little further north, first.
    expect(readingOrder(plots).map((p) => p.id)).toEqual(['ne', 'nw', 'sw', 'se', 'far-south']);
  });

  it('steps forward and back from the selection, round the ends', () => {
    expect(cycleParcels(plots, 'nw', 1, 1)).toBe('ne');
    expect(cycleParcels(plots, 'ne', 1, 1)).toBe('sw');
    expect(cycleParcels(plots, 'far-south', 1, 1)).toBe('nw');
    expect(cycleParcels(plots, 'nw', -1, 1)).toBe('far-south');
    expect(cycleParcels(plots, 'sw', -1, 1)).toBe('ne');
  });

  it('starts at the first (or, going back, the last) when nothing in view is selected, and says none when none is in view', () => {
    expect(cycleParcels(plots, null, 1, 1)).toBe('nw');
    expect(cycleParcels(plots, 'elsewhere', 1, 1)).toBe('nw');
    expect(cycleParcels(plots, null, -1, 1)).toBe('far-south');
    expect(cycleParcels([], 'nw', 1)).toBeNull();
  });
});
