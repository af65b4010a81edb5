// UTM against PROJ's cs2cs (Debian's proj-bin), as db/import/crs.test.ts checks the import: within 1 cm.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import geodesic from 'geographiclib-geodesic';
import { bandLatitudes, latitudeBand, utmEpsg, utmProj4, utmToLonLat } from './utm.ts';

const CS2CS = spawnSync('cs2cs', [], { encoding: 'utf8' }).error === undefined;
const metres = (a: number[], b: number[]) => geodesic.Geodesic.WGS84.Inverse(a[1]!, a[0]!, b[1]!, b[0]!).s12!;

function cs2cs(def: string, points: number[][]): number[][] {
  const r = spawnSync('cs2cs', ['-f', '%.11f', ...def.split(' '), '+to', '+proj=longlat', '+datum=WGS84', '+no_defs'],
    { input: points.map((p) => `${p[0]} ${p[1]}`).join('\n') + '\n', encoding: 'utf8' });
  return r.stdout.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 2).map(Number));
}

describe('latitude bands', () => {
  it('are 8° each from 80°S, X being 12°, without I and O', () => {
    expect(latitudeBand(37.38)).toBe('S');
    expect(latitudeBand(0)).toBe('N');
    expect(latitudeBand(-0.1)).toBe('M');
    expect(latitudeBand(-80)).toBe('C');
    expect(latitudeBand(83.9)).toBe('X');
    expect(latitudeBand(84)).toBe('X');
    expect(latitudeBand(85)).toBeNull();
    expect(latitudeBand(-81)).toBeNull();
    expect(bandLatitudes('s')).toEqual([32, 40]);
    expect(bandLatitudes('X')).toEqual([72, 84]);
    expect(bandLatitudes('I')).toBeNull();
  });

  it('name the EPSG codes of the zones', () => {
    expect(utmEpsg(30, true)).toBe(32630);
    expect(utmEpsg(19, false)).toBe(32719);
  });
});

describe.runIf(CS2CS)('UTM to longitude and latitude, against cs2cs', () => {
  const cases: [number, boolean, number[][]][] = [
    [30, true, [[234567, 4145678], [500000, 0], [765432.1, 4500000], [166021.44, 9329005.18]]], // Seville, the equator, Zaragoza's row, 84°N
    [31, true, [[440000, 4480000]]], // near Barcelona
    [19, false, [[350000, 6300000], [500000, 9999999.9]]], // Chile, just south of the equator
    [60, false, [[300000, 5400000]]], // New Zealand
  ];
  it.each(cases)('zone %i (north: %s): within 1 cm', (zone, north, points) => {
    const theirs = cs2cs(utmProj4(zone, north), points);
    for (let i = 0; i < points.length; i++) {
      const mine = utmToLonLat(zone, north, points[i]![0]!, points[i]![1]!)!;
      expect(metres(mine, theirs[i]!), `${points[i]}`).toBeLessThan(0.01);
    }
  });

  it('places the issue\'s example near Seville', () => {
    const [lon, lat] = utmToLonLat(30, true, 234567, 4145678)!;
    expect(lon).toBeCloseTo(-5.98, 1);
    expect(lat).toBeCloseTo(37.4, 1);
  });
});
