import { describe, expect, it } from 'vitest';
import { formatLonLat, parseLonLat } from './lon-lat.ts';

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

  it('formats positions so that they read back the same, to six decimals', () => {
    expect(formatLonLat([-4.01234567, 37.2])).toBe('-4.012346, 37.2');
    const r = parseLonLat(formatLonLat([-4.012346, 37.204501]));
    expect('pos' in r && r.pos).toEqual([-4.012346, 37.204501]);
  });
});
