import { describe, expect, it } from 'vitest';
import geodesic from 'geographiclib-geodesic';
import { averageDone, averagePositions, goalWords } from './average.ts';
import { localFrame } from './local-frame.ts';

const G = geodesic.Geodesic.WGS84;
/** The point `d` metres from [lon, lat] towards azimuth `azi`, by GeographicLib. */
function offset(lon: number, lat: number, azi: number, d: number): [number, number] {
  const r = G.Direct(lat, lon, azi, d);
  return [r.lon2!, r.lat2!];
}

describe('averagePositions', () => {
  it('is the centre of fixes spread evenly around it, with their RMS distance as the spread', () => {
    const c: [number, number] = [-4.0123, 37.2045];
    const pts = [0, 90, 180, 270].map((azi) => offset(c[0], c[1], azi, 2));
    const a = averagePositions(pts)!;
    expect(G.Inverse(a.lat, a.lon, c[1], c[0]).s12!).toBeLessThan(0.001);
    expect(a.spread).toBeCloseTo(2, 3);
    expect(a.count).toBe(4);
  });

  it('weighs each fix equally: three on one spot and one 4 m away put the mean 1 m towards it', () => {
    const c: [number, number] = [10, 60];
    const far = offset(c[0], c[1], 45, 4);
    const a = averagePositions([c, c, c, far])!;
    expect(G.Inverse(c[1], c[0], a.lat, a.lon).s12!).toBeCloseTo(1, 3);
    // RMS of distances 1, 1, 1, 3
    expect(a.spread).toBeCloseTo(Math.sqrt((1 + 1 + 1 + 9) / 4), 3);
  });

  it('averages across the antimeridian the short way round', () => {
    const a = averagePositions([[179.99999, -17], [-179.99999, -17]])!;
    expect(Math.abs(a.lon)).toBeCloseTo(180, 6);
    expect(a.spread).toBeLessThan(2);
  });

  it('is null without fixes, and one fix is itself with no spread', () => {
    expect(averagePositions([])).toBeNull();
    expect(averagePositions([[1, 2]])).toEqual({ lon: 1, lat: 2, spread: 0, count: 1 });
  });
});

describe('localFrame', () => {
  it('measures metres as GeographicLib does over a field', () => {
    const f = localFrame(2.35, 48.85);
    const p = offset(2.35, 48.85, 30, 500);
    const [x, y] = f.toXY(p);
    expect(Math.hypot(x, y)).toBeCloseTo(500, 0);
    const back = f.toLonLat([x, y]);
    expect(back[0]).toBeCloseTo(p[0], 9);
    expect(back[1]).toBeCloseTo(p[1], 9);
  });
});

describe('averageDone', () => {
  it('counts fixes or seconds from the first fix', () => {
    expect(averageDone({ fixes: 5 }, 4, 0, 99_000)).toBe(false);
    expect(averageDone({ fixes: 5 }, 5, 0, 0)).toBe(true);
    expect(averageDone({ seconds: 10 }, 50, 1000, 10_999)).toBe(false);
    expect(averageDone({ seconds: 10 }, 3, 1000, 11_000)).toBe(true);
    expect(averageDone({ seconds: 10 }, 0, 0, 1e9)).toBe(false);
    expect(goalWords({ fixes: 1 })).toBe('1 fix');
    expect(goalWords({ seconds: 10 })).toBe('10 s');
  });
});
