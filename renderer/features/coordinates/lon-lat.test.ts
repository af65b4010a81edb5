import { describe, expect, it } from 'vitest';
import { formatLonLat, parseLonLat, swapSuggestion } from './lon-lat.ts';

const pos = (t: string) => { const r = parseLonLat(t); return 'pos' in r ? r.pos : r.error; };

describe('parseLonLat', () => {
  it('reads a longitude and a latitude separated by a comma, spaces or a semicolon', () => {
    for (const t of ['-4.0123, 37.2045', '-4.0123,37.2045', ' -4.0123   37.2045 ', '-4.0123;37.2045', '-4,0123; 37,2045', '-4,0123 37,2045']) {
      expect(pos(t), t).toEqual([-4.0123, 37.2045]);
    }
    expect(pos('0, 0')).toEqual([0, 0]);
    expect(pos('180, -90')).toEqual([180, -90]);
    expect(pos('.5; ,5')).toEqual([0.5, 0.5]);
  });

  it('refuses what is not two numbers in range, saying why', () => {
    expect(pos('')).toMatch(/Type a longitude/);
    expect(pos('-4.01')).toMatch(/not two numbers/);
    expect(pos('-4.01, 37.2, 3')).toMatch(/not two numbers/);
    expect(pos('-4,01, 37,2')).toMatch(/not two numbers/); // two commas and no space or semicolon: ambiguous
    expect(pos('1.000.000, 2')).toMatch(/not two numbers/);
    expect(pos('abc, 37')).toMatch(/not two numbers/);
    expect(pos('1e3, 2')).toMatch(/not two numbers/);
    expect(pos('-4.01, 91')).toMatch(/Latitude 91 is outside/);
    expect(pos('200, 37')).toMatch(/Longitude 200 is outside/);
  });

  it('names a probable swap instead of guessing', () => {
    expect(pos('37.2045, -104.5')).toMatch(/Latitude -104.5 is outside −90…90. Longitude comes first: were they swapped\?/);
    expect(pos('37.2, 120')).toMatch(/were they swapped/);
    expect(pos('120, 37.2')).toEqual([120, 37.2]);
  });

  it('suggests the swap of a position typed latitude first, when swapped it is near the farm or the view and as typed it is not', () => {
    const farm = [-4.8, 37.87, -4.78, 37.89] as const;
    const view = [-4.9, 37.8, -4.7, 37.95] as const;
    expect(swapSuggestion([37.88, -4.79], [farm, view])).toEqual([-4.79, 37.88]);
    expect(swapSuggestion([37.88, -4.79], [view])).toEqual([-4.79, 37.88]);
    // Typed the right way round, near the farm, or with nothing to go by: as typed.
    expect(swapSuggestion([-4.79, 37.88], [farm, view])).toBeNull();
    expect(swapSuggestion([37.88, -4.79], [])).toBeNull();
    // Far from both either way (another region): no guess.
    expect(swapSuggestion([10.5, 52.3], [farm, view])).toBeNull();
    // Near the view as typed (the map shows Kenya): as typed.
    expect(swapSuggestion([37.88, -4.79], [farm, [37, -5.5, 38.5, -4]])).toBeNull();
    // A swap that would not be a latitude is never suggested.
    expect(swapSuggestion([120, 37.2], [[37, 119, 38, 121]])).toBeNull();
  });

  it('formats positions so that they read back the same, to six decimals', () => {
    expect(formatLonLat([-4.01234567, 37.2])).toBe('-4.012346, 37.2');
    const r = parseLonLat(formatLonLat([-4.012346, 37.204501]));
    expect('pos' in r && r.pos).toEqual([-4.012346, 37.204501]);
  });
});
