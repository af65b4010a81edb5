import { describe, expect, it } from 'vitest';
import { CrsError, crsLabel, datumShiftOf, loadGrid, proj4Ready, reprojectGeometry, reprojector, unusable, withPublishedShift, type CrsDefinition } from './crs.ts';
import { crsWords } from './crs-words.ts';
import { ntv2Grid } from './ntv2.test-helpers.ts';
import proj4 from 'proj4';

// Definitions as epsg-index has them (its proj4 strings are PROJ's export).
const def = (code: number | null, name: string, proj4: string, accuracy: number | null = null): CrsDefinition => ({ code, name, proj4, accuracy, bbox: null });
const ETRS89_UTM30 = def(25830, 'ETRS89 / UTM zone 30N', '+proj=utm +zone=30 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs +type=crs');
const ED50_UTM30 = def(23030, 'ED50 / UTM zone 30N', '+proj=utm +zone=30 +ellps=intl +towgs84=-87,-98,-121,0,0,0,0 +units=m +no_defs +type=crs', 10);
const BNG = def(27700, 'OSGB36 / British National Grid',
  '+proj=tmerc +lat_0=49 +lon_0=-2 +k=0.9996012717 +x_0=400000 +y_0=-100000 +ellps=airy +nadgrids=OSTN15_NTv2_OSGBtoETRS.gsb +units=m +no_defs +type=crs');
const NTF_LAMBERT2 = def(27572, 'NTF (Paris) / Lambert zone II',
  '+proj=lcc +lat_1=46.8 +lat_0=46.8 +lon_0=0 +k_0=0.99987742 +x_0=600000 +y_0=2200000 +ellps=clrk80ign +pm=paris +units=m +no_defs +type=crs');
const GERMANY_ZONE3 = def(31493, 'Germany Zone 3', '+proj=tmerc +lat_0=0 +lon_0=9 +k=1 +x_0=3500000 +y_0=0 +ellps=bessel +units=m +no_defs +type=crs');

describe('datum shifts', () => {
  it('tells none, Helmert, grid and unknown apart from the definition', () => {
    expect(datumShiftOf(ETRS89_UTM30.proj4)).toEqual({ kind: 'none' });
    expect(datumShiftOf(ED50_UTM30.proj4)).toEqual({ kind: 'helmert', params: [-87, -98, -121, 0, 0, 0, 0] });
    expect(datumShiftOf(BNG.proj4)).toEqual({ kind: 'grid', grids: ['OSTN15_NTv2_OSGBtoETRS.gsb'] });
    expect(datumShiftOf(GERMANY_ZONE3.proj4)).toEqual({ kind: 'unknown' });
    // Web Mercator: no grid at all (@null).
    expect(datumShiftOf('+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs')).toEqual({ kind: 'none' });
  });

  it("adds EPSG's published Helmert shift to NTF, whose definition has none, and to nothing else", () => {
    const ntf = withPublishedShift(NTF_LAMBERT2);
    expect(ntf).toMatchObject({ proj4: `${NTF_LAMBERT2.proj4} +towgs84=-168,-60,320`, accuracy: 2, transformation: 'EPSG:1193 NTF to WGS 84 (1)' });
    expect(datumShiftOf(ntf.proj4)).toEqual({ kind: 'helmert', params: [-168, -60, 320] });
    const voirol = def(30493, 'Voirol 1879 / Nord Algerie (ancienne)', '+proj=lcc +lat_1=36 +lat_0=36 +lon_0=2.7 +k_0=0.999625544 +x_0=500000 +y_0=300000 +ellps=clrk80ign +units=m +no_defs');
    expect(withPublishedShift(voirol)).toBe(voirol);
    expect(withPublishedShift(ED50_UTM30)).toBe(ED50_UTM30);
  });

  it('needs one of optional grids (@name), every one of mandatory grids', () => {
    const nad27 = def(4267, 'NAD27', '+proj=longlat +ellps=clrk66 +nadgrids=@conus,@ntv2_0.gsb +no_defs');
    expect(datumShiftOf(nad27.proj4)).toEqual({ kind: 'grid', grids: ['conus', 'ntv2_0.gsb'], optional: true });
    expect(unusable(nad27)!.message).toBe('EPSG:4267 (NAD27) needs one of the NTv2 grid files conus, ntv2_0.gsb for its datum shift, the only accurate one, and Furrow does not have it');
    loadGrid('ntv2_0.gsb', ntv2Grid({ south: 30, north: 31, west: -90, east: -89, step: 0.5, shift: () => [0, 0] }), 'test');
    expect(unusable(nad27, new Set(['ntv2_0.gsb']))).toBeNull();
  });

  it('reads ellipsoids proj4 lacks by name as PROJ does, and refuses one neither knows', () => {
    expect(proj4Ready('+proj=utm +zone=30 +ellps=WGS72 +units=m')).toBe('+proj=utm +zone=30 +a=6378135 +rf=298.26 +units=m');
    expect(proj4Ready('+proj=utm +zone=30 +ellps=intl +units=m')).toBe('+proj=utm +zone=30 +ellps=intl +units=m');
    expect(proj4Ready('+proj=utm +zone=30 +ellps=nonesuch +units=m')).toBeNull();
  });

  it('refuses a datum without a known shift, and a grid that is not available, naming it', () => {
    expect(unusable(GERMANY_ZONE3)).toMatchObject({ code: 'datum_unknown', message: expect.stringMatching(/^EPSG:31493 \(Germany Zone 3\) is on a datum Furrow knows no transformation/) as unknown });
    expect(() => reprojector(BNG)).toThrow(CrsError);
    expect(unusable(BNG)).toMatchObject({ code: 'grid_missing', grids: ['OSTN15_NTv2_OSGBtoETRS.gsb'],
      message: 'EPSG:27700 (OSGB36 / British National Grid) needs the NTv2 grid file OSTN15_NTv2_OSGBtoETRS.gsb for its datum shift, the only accurate one, and Furrow does not have it' });
    expect(unusable(ED50_UTM30)).toBeNull();
    expect(crsLabel({ code: null, name: 'Custom_TM' })).toBe('"Custom_TM"');
  });
});

describe('reprojector', () => {
  it('goes to WGS84 and back: within 5 mm through a Helmert shift (proj4 inverts it in geocentric coordinates: 2 mm here), exactly without', () => {
    const r = reprojector(ED50_UTM30);
    const [lon, lat] = r.toWgs84(440_000, 4_140_000)!;
    // The Helmert shift moves ED50 positions about a hundred metres in Spain: not the ETRS89 answer.
    const [lonE, latE] = reprojector(ETRS89_UTM30).toWgs84(440_000, 4_140_000)!;
    expect(Math.abs(lon - lonE) * 88_000 + Math.abs(lat - latE) * 111_000).toBeGreaterThan(100);
    const [x, y] = r.fromWgs84(lon, lat)!;
    expect(Math.hypot(x - 440_000, y - 4_140_000)).toBeLessThan(5e-3);
    // Without a shift, exactly.
    const utm = reprojector(ETRS89_UTM30);
    const back = utm.fromWgs84(...utm.toWgs84(440_000, 4_140_000)!)!;
    expect(Math.hypot(back[0] - 440_000, back[1] - 4_140_000)).toBeLessThan(1e-6);
    expect(r.toWgs84(Number.NaN, 0)).toBeNull();
    expect(r.decimals).toBe(4);
  });

  it('shifts with an NTv2 grid once it is loaded, and only where the grid reaches', () => {
    // One arc-second north and two east over a 1° square around British National Grid's origin.
    const grid = ntv2Grid({ south: 52, north: 53, west: -2.5, east: -1.5, step: 0.25, shift: () => [1, 2] });
    const synthetic = def(null, 'Synthetic', BNG.proj4.replace('OSTN15_NTv2_OSGBtoETRS.gsb', 'synthetic.gsb'));
    expect(() => reprojector(synthetic, new Set(['synthetic.gsb']))).toThrow(/needs the NTv2 grid file synthetic\.gsb/);
    loadGrid('synthetic.gsb', grid, 'test');
    const r = reprojector(synthetic, new Set(['synthetic.gsb']));
    expect(r.shift).toEqual({ kind: 'grid', grids: ['synthetic.gsb'] });
    // The grid shifts latitude and longitude on Airy's ellipsoid: the same projection without it, then 1" and 2".
    const plain = { toWgs84: (x: number, y: number) => proj4('+proj=tmerc +lat_0=49 +lon_0=-2 +k=0.9996012717 +x_0=400000 +y_0=-100000 +ellps=airy +units=m', '+proj=longlat +ellps=airy', [x, y]) };
    const [lon0, lat0] = plain.toWgs84(400_000, 300_000) as [number, number];
    const [lon, lat] = r.toWgs84(400_000, 300_000)!;
    expect((lat - lat0) * 3600).toBeCloseTo(1, 6);
    expect((lon - lon0) * 3600).toBeCloseTo(2, 6);
    // Inverted by iteration, as PROJ does.
    const [x, y] = r.fromWgs84(lon, lat)!;
    expect(Math.hypot(x - 400_000, y - 300_000)).toBeLessThan(1e-4);
    // Outside the grid: no answer (never a position without its shift).
    expect(r.toWgs84(400_000, 600_000)).toBeNull();
  });

  it('refuses grid bytes that are not NTv2', () => {
    expect(() => loadGrid('bad.gsb', new TextEncoder().encode('x'.repeat(400)).buffer as ArrayBuffer, 'test')).toThrow(/bad\.gsb is not an NTv2 grid file/);
  });
});

describe('reprojectGeometry', () => {
  const swap = (x: number, y: number): [number, number] => [y / 3, x / 3];

  it('transforms every position in place, rounded, keeping heights, through collections', () => {
    const g = { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2, 812.5] }, { type: 'Polygon', coordinates: [[[3, 6], [6, 3], [0, 0], [3, 6]]] }] };
    expect(reprojectGeometry(g, swap, 9)).toBeNull();
    expect(g.geometries[0]!.coordinates).toEqual([0.666666667, 0.333333333, 812.5]);
    expect(g.geometries[1]!.coordinates).toEqual([[[2, 1], [1, 2], [0, 0], [2, 1]]]);
  });

  it('leaves positions that are not numbers for validation, and returns the first it cannot transform', () => {
    const g = { type: 'LineString', coordinates: [['a', 1], [5, 5], [7, 7]] };
    expect(reprojectGeometry(g, (x, y) => (x === 7 ? null : swap(x, y)), 9)).toEqual([7, 7]);
    expect(g.coordinates[0]).toEqual(['a', 1]);
    expect(reprojectGeometry({ type: 'Unknown', coordinates: [1, 2] }, swap, 9)).toBeNull();
    expect(reprojectGeometry(null, swap, 9)).toBeNull();
  });
});

describe('crsWords', () => {
  it('names the CRS by its EPSG code, and the datum shift with its accuracy', () => {
    expect(crsWords({ code: 25830, name: 'ETRS89 / UTM zone 30N', reprojected: true, shift: 'none', grid: null, accuracy: null }))
      .toBe('EPSG:25830 · ETRS89 / UTM zone 30N, reprojected to WGS84');
    expect(crsWords({ code: 23030, name: 'ED50 / UTM zone 30N', reprojected: true, shift: 'helmert', grid: null, accuracy: 10 }))
      .toBe('EPSG:23030 · ED50 / UTM zone 30N, reprojected to WGS84 (datum shifted with published Helmert parameters, accurate to about 10 m)');
    expect(crsWords({ code: 31467, name: 'DHDN / 3-degree Gauss-Kruger zone 3', reprojected: true, shift: 'grid', grid: 'BETA2007.gsb', accuracy: null }))
      .toBe('EPSG:31467 · DHDN / 3-degree Gauss-Kruger zone 3, reprojected to WGS84 (datum shifted with the NTv2 grid BETA2007.gsb)');
    expect(crsWords({ code: 4326, name: 'WGS 84', reprojected: false, shift: 'none', grid: null, accuracy: null })).toBe('EPSG:4326 · WGS 84 (longitude/latitude)');
    expect(crsWords({ code: null, name: 'Custom_TM', reprojected: true, shift: 'none', grid: null, accuracy: null })).toBe('Custom_TM (no EPSG code), reprojected to WGS84');
  });
});
