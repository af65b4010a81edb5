// Go to coordinate's projected positions against PROJ's cs2cs (Debian's proj-bin), as db/import/crs.test.ts checks
// the import: UTM (core/geo/utm.ts) and an EPSG code placed with the host's own definition (backend/crs-definition.ts,
// renderer/features/goto/place.ts), each within 1 cm.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import geodesic from 'geographiclib-geodesic';
import { utmProj4, utmToLonLat } from '../core/geo/utm.ts';
import { crsDefinition } from '../backend/crs-definition.ts';
import { placeInCrs } from '../renderer/features/goto/place.ts';

const CS2CS = spawnSync('cs2cs', [], { encoding: 'utf8' }).error === undefined;
const metres = (a: number[], b: number[]) => geodesic.Geodesic.WGS84.Inverse(a[1]!, a[0]!, b[1]!, b[0]!).s12!;

/** cs2cs's WGS84 longitude, latitude of each (x, y) in a proj4 definition. */
function cs2csDef(def: string, points: number[][]): number[][] {
  const r = spawnSync('cs2cs', ['-f', '%.11f', ...def.split(' '), '+to', '+proj=longlat', '+datum=WGS84', '+no_defs'],
    { input: points.map((p) => `${p[0]} ${p[1]}`).join('\n') + '\n', encoding: 'utf8' });
  return r.stdout.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 2).map(Number));
}

/** cs2cs from the EPSG code itself (PROJ's own database and transformations) to WGS84 longitude, latitude. */
function cs2cs(code: number, x: number, y: number): number[] {
  // PROJ's EPSG:3035 takes northing first, as EPSG defines its axes; the app reads easting first for every code.
  const input = code === 3035 ? `${y} ${x}` : `${x} ${y}`;
  const r = spawnSync('cs2cs', ['-f', '%.11f', `EPSG:${code}`, 'EPSG:4326'], { input: `${input}\n`, encoding: 'utf8' });
  // EPSG:4326's axis order is latitude, longitude.
  const [lat, lon] = r.stdout.trim().split(/\s+/).map(Number);
  return [lon!, lat!];
}

describe.runIf(CS2CS)('UTM to longitude and latitude, against cs2cs', () => {
  const cases: [number, boolean, number[][]][] = [
    [30, true, [[234567, 4145678], [500000, 0], [765432.1, 4500000], [166021.44, 9329005.18]]], // Seville, the equator, Zaragoza's row, 84°N
    [31, true, [[440000, 4480000]]], // near Barcelona
    [19, false, [[350000, 6300000], [500000, 9999999.9]]], // Chile, just south of the equator
    [60, false, [[300000, 5400000]]], // New Zealand
  ];
  it.each(cases)('zone %i (north: %s): within 1 cm', (zone, north, points) => {
    const theirs = cs2csDef(utmProj4(zone, north), points);
    for (let i = 0; i < points.length; i++) {
      const mine = utmToLonLat(zone, north, points[i]![0]!, points[i]![1]!)!;
      expect(metres(mine, theirs[i]!), `${points[i]}`).toBeLessThan(0.01);
    }
  });
});

describe.runIf(CS2CS)('placing a position typed in an EPSG code, against cs2cs', () => {
  it.each([
    [25830, 234567, 4145678], // ETRS89 / UTM 30N, near Seville
    [25830, 440000, 4474000], // Madrid
    [32630, 234567, 4145678], // WGS 84 / UTM 30N
    [2154, 652000, 6862000], // RGF93 / Lambert-93, Paris
    [3035, 3160000, 2010000], // ETRS89 / LAEA Europe
    [3857, -665685.3, 4493000], // Web Mercator
  ])('EPSG:%i %d %d: within 1 cm', (code, x, y) => {
    const r = placeInCrs(crsDefinition(code), x, y);
    expect('pos' in r ? r.pos : r.error).toEqual(expect.any(Array));
    expect(metres((r as { pos: number[] }).pos, cs2cs(code, x, y))).toBeLessThan(0.01);
  });
});

