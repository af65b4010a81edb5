// Projected positions placed with the host's own definitions, against PROJ's cs2cs (Debian's proj-bin), within 1 cm.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import geodesic from 'geographiclib-geodesic';
import { crsDefinition } from '../../../backend/crs-definition.ts';
import { placeInCrs } from './place.ts';

const CS2CS = spawnSync('cs2cs', [], { encoding: 'utf8' }).error === undefined;
const metres = (a: number[], b: number[]) => geodesic.Geodesic.WGS84.Inverse(a[1]!, a[0]!, b[1]!, b[0]!).s12!;

/** cs2cs from the EPSG code itself (PROJ's own database and transformations) to WGS84 longitude, latitude. */
function cs2cs(code: number, x: number, y: number): number[] {
  // PROJ's EPSG:3035 takes northing first, as EPSG defines its axes; the app reads easting first for every code.
  const input = code === 3035 ? `${y} ${x}` : `${x} ${y}`;
  const r = spawnSync('cs2cs', ['-f', '%.11f', `EPSG:${code}`, 'EPSG:4326'], { input: `${input}\n`, encoding: 'utf8' });
  // EPSG:4326's axis order is latitude, longitude.
  const [lat, lon] = r.stdout.trim().split(/\s+/).map(Number);
  return [lon!, lat!];
}

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

describe('placing refuses what its projection cannot place', () => {
  it('says so, naming the CRS', () => {
    const r = placeInCrs({ code: 25830, name: 'ETRS89 / UTM zone 30N', proj4: '+proj=utm +zone=30 +ellps=GRS80 +units=m +no_defs', byGrid: false }, 4145678, 1e12);
    expect('error' in r ? r.error : r.pos.join()).toMatch(/outside what EPSG:25830 \(ETRS89 \/ UTM zone 30N\) can place/);
  });
});
