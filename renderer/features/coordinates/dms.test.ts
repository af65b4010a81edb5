import { describe, expect, it } from 'vitest';
import { formatDms, looksLikeDms, parseDms } from './dms.ts';

const pos = (t: string) => { const r = parseDms(t); return 'pos' in r ? r.pos : r.error; };
const SEVILLE: [number, number] = [-(5 + 58 / 60 + 48 / 3600), 37 + 22 / 60 + 48 / 3600];

describe('parseDms', () => {
  it('reads the usual ways of writing degrees, minutes and seconds', () => {
    for (const t of [
      `37°22'48"N 5°58'48"W`, `37°22'48" N, 5°58'48" W`, '37 22 48 N, 5 58 48 W', '37 22 48 n 5 58 48 w', `N37°22'48" W5°58'48"`,
      'N 37 22 48 W 5 58 48', '37d22m48sN 5d58m48sW', '37º22′48″N 5º58′48″W', `37°22’48”N 5°58’48”W`, `37°22'48''N 5°58'48''W`,
      // Longitude first: the letters say which is which.
      `5°58'48"W 37°22'48"N`, 'W 5 58 48 ; N 37 22 48',
    ]) {
      const p = pos(t);
      expect(Array.isArray(p), `${t}: ${String(p)}`).toBe(true);
      expect((p as number[])[0], t).toBeCloseTo(SEVILLE[0], 12);
      expect((p as number[])[1], t).toBeCloseTo(SEVILLE[1], 12);
    }
  });

  it('reads decimal seconds (point or comma), decimal minutes, decimal degrees with letters, and the southern and eastern hemispheres', () => {
    expect(pos(`37°22'48.5"N 5°58'48.25"W`)).toEqual([-(5 + 58 / 60 + 48.25 / 3600), 37 + 22 / 60 + 48.5 / 3600]);
    expect(pos('37 22 48,5 N 5 58 48,25 W')).toEqual([-(5 + 58 / 60 + 48.25 / 3600), 37 + 22 / 60 + 48.5 / 3600]);
    expect(pos(`37°22.8'N 5°58.8'W`)).toEqual([-(5 + 58.8 / 60), 37 + 22.8 / 60]);
    expect(pos('37.38°N 5.98°W')).toEqual([-5.98, 37.38]);
    expect(pos(`33°52'S 151°12'E`)).toEqual([151.2, -(33 + 52 / 60)]);
    expect(pos('33 52 s 151 12 e')).toEqual([151.2, -(33 + 52 / 60)]);
    expect(pos(`0°0'0"N 0°0'0"E`)).toEqual([0, 0]);
  });

  it('refuses, saying why', () => {
    expect(pos(`37°22'48"N 5°58'48"N`)).toMatch(/Two latitudes .* one coordinate needs N or S, the other E or W/);
    expect(pos(`5°E 6°W`)).toMatch(/Two longitudes/);
    expect(pos(`37°22'48"N`)).toMatch(/Type a latitude and a longitude, each with its hemisphere/);
    expect(pos(`37°22'48"N 5°58'48"`)).toMatch(/Numbers after the last hemisphere letter/);
    expect(pos(`37°61'N 5°W`)).toMatch(/61 minutes: minutes go up to 59/);
    expect(pos(`37°22'60"N 5°W`)).toMatch(/60 seconds/);
    expect(pos(`91°N 5°W`)).toMatch(/Latitude 91° is beyond 90°/);
    expect(pos(`37°N 181°W`)).toMatch(/Longitude 181° is beyond 180°/);
    expect(pos(`37.5°22'N 5°W`)).toMatch(/Only the last number of N may have decimals \(37.5\)/);
    expect(pos(`22'37°N 5°W`)).toMatch(/not degrees, then minutes, then seconds/);
    expect(pos('37 22 48 12 N 5 W')).toMatch(/Too many numbers before or after N/);
    expect(pos(`37°22'48"N -5°58'48"W`)).toMatch(/A minus sign and a hemisphere letter together/);
    expect(pos(`37°22'48" -5°58'48"`)).toMatch(/hemisphere letters, not a minus sign/);
    expect(pos(`37°22'48"N x 5°W`)).toMatch(/"x 5°W" is not part of a position/);
  });

  it('tells DMS from plain numbers', () => {
    for (const t of [`37°22'48"N 5°58'48"W`, '37 22 48 N 5 58 48 W', '37d22m48s', `37°22'`]) expect(looksLikeDms(t), t).toBe(true);
    for (const t of ['-5.98, 37.38', '37,38 -5,98', '234567 4145678']) expect(looksLikeDms(t), t).toBe(false);
  });

  it('formats to a tenth of a second, and reads back what it wrote', () => {
    expect(formatDms(SEVILLE)).toBe(`37°22'48.0"N 5°58'48.0"W`);
    expect(formatDms([151.2, -33.8667])).toBe(`33°52'00.1"S 151°12'00.0"E`);
    const back = pos(formatDms([2.123456, 41.987654])) as number[];
    expect(back[0]).toBeCloseTo(2.123456, 4);
    expect(back[1]).toBeCloseTo(41.987654, 4);
  });
});
