// The EPSG definitions (epsg.ts) and a .prj without a code matched to them (core/geo/crs-match.ts), on the real
// epsg-index data: what is identified, what is refused as ambiguous, and what is never guessed.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { crsOfPrj } from './crs-source.ts';
import { epsgDefinition, gridNames } from './epsg.ts';
import { reprojector, unusable } from '../../core/geo/crs.ts';

const CS2CS = spawnSync('cs2cs', [], { encoding: 'utf8' }).error === undefined;

/** An ESRI .prj of a Transverse Mercator (UTM zone 30N's numbers unless told), as GDAL writes one. */
const esriTm = (datum: string, spheroid: string, name = 'Some_UTM_30N', lon0 = -3, x0 = 500000, k = 0.9996) =>
  `PROJCS["${name}",GEOGCS["GCS_${datum}",DATUM["D_${datum}",SPHEROID[${spheroid}]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],` +
  `PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",${x0}],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",${lon0}],` +
  `PARAMETER["Scale_Factor",${k}],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]`;
const INTERNATIONAL = '"International_1924",6378388.0,297.0';
const GRS80 = '"GRS_1980",6378137.0,298.257222101';

describe('a .prj without an EPSG code', () => {
  it('is the EPSG CRS whose numbers fit and whose datum it names', () => {
    expect(crsOfPrj(esriTm('European_1950', INTERNATIONAL, 'ED_1950_UTM_Zone_30N'), 'f.zip')).toMatchObject({ code: 23030, name: 'ED50 / UTM zone 30N' });
    expect(crsOfPrj(esriTm('ETRS_1989', GRS80, 'ETRS_1989_UTM_Zone_30N'), 'f.zip')).toMatchObject({ code: 25830, name: 'ETRS89 / UTM zone 30N' });
  });

  it("takes no datum shift from an EPSG CRS whose datum it does not name: it stands for itself, refused when its datum has no known shift", () => {
    const unknown = crsOfPrj(esriTm('Unknown', INTERNATIONAL), 'f.zip')!;
    expect(unknown).toMatchObject({ code: null, name: 'Some_UTM_30N' });
    expect(unusable(unknown)).toMatchObject({ code: 'datum_unknown' });
    // On GRS 1980 it is taken as WGS84, as PROJ does, under its own name: not after whichever EPSG CRS fits.
    const grs80 = crsOfPrj(esriTm('Unknown', GRS80), 'f.zip')!;
    expect(grs80).toMatchObject({ code: null, name: 'Some_UTM_30N' });
    expect(unusable(grs80)).toBeNull();
  });

  it('is refused when EPSG CRSs with different datum shifts fit it equally, listing them', () => {
    const prj = esriTm('Pulkovo_1942', '"Krasovsky_1940",6378245.0,298.3', 'Pulkovo_1942_3_Degree_GK_Zone_5', 15, 5500000, 1);
    expect(() => crsOfPrj(prj, 'p.zip')).toThrow(expect.objectContaining({
      code: 'crs_ambiguous',
      message: expect.stringMatching(/^p\.zip: its \.prj, "Pulkovo_1942_3_Degree_GK_Zone_5", names no EPSG code, and \d EPSG coordinate systems with different datum shifts fit it \(.*Pulkovo 1942\(58\).*Pulkovo 1942\(83\)/) as unknown,
    }));
    // Its own TOWGS84 settles it.
    const own = prj.replace('SPHEROID["Krasovsky_1940",6378245.0,298.3]', 'SPHEROID["Krasovsky_1940",6378245.0,298.3],TOWGS84[33.4,-146.6,-76.3,-0.359,-0.053,0.844,-0.84]');
    expect(crsOfPrj(own, 'p.zip')).toMatchObject({ code: null, proj4: expect.stringContaining('+towgs84=33.4,-146.6,-76.3,-0.359,-0.053,0.844,-0.84') as unknown });
  });

  it('names its EPSG code in an AUTHORITY, WKT2 ID or bare, and is refused when that code is not a horizontal CRS', () => {
    expect(crsOfPrj('EPSG:2154', 'f.zip')).toMatchObject({ code: 2154 });
    expect(crsOfPrj('PROJCRS["x",BASEGEOGCRS["y",ID["EPSG",4258]],ID["EPSG",3035]]', 'f.zip')).toMatchObject({ code: 3035 });
    expect(() => crsOfPrj('VERT_CS["EGM96 height",VERT_DATUM["EGM96 geoid",2005],AUTHORITY["EPSG","5773"]]', 'f.zip')).toThrow(expect.objectContaining({ code: 'crs_unsupported' }));
    expect(() => crsOfPrj('PROJCRS["x",BASEGEOGCRS["y"]]', 'f.zip')).toThrow(expect.objectContaining({ code: 'crs_unknown', message: expect.stringContaining('WKT2 without an EPSG ID') as unknown }));
    expect(() => crsOfPrj('not wkt', 'f.zip')).toThrow(expect.objectContaining({ code: 'crs_unknown' }));
  });
});

describe('epsg-index definitions', () => {
  it("writes out the ellipsoids proj4 does not know by PROJ's name (it would use WGS 84's without a word)", () => {
    expect(epsgDefinition(32230).def!.proj4).toBe('+proj=utm +zone=30 +a=6378135 +rf=298.26 +towgs84=0,0,4.5,0,0,0.554,0.219 +units=m +no_defs +type=crs');
    expect(epsgDefinition(7683).def!.proj4).toContain('+a=6378136.5 +rf=298.2564151');
  });

  it.runIf(CS2CS)('WGS 72 / UTM zone 30N lands where cs2cs puts it, within 1 cm', () => {
    const def = epsgDefinition(32230).def!;
    const r = spawnSync('cs2cs', ['-f', '%.11f', ...'+proj=utm +zone=30 +ellps=WGS72 +towgs84=0,0,4.5,0,0,0.554,0.219 +units=m +no_defs'.split(' '), '+to', '+proj=longlat', '+datum=WGS84'],
      { input: '440000 4140000\n', encoding: 'utf8' });
    const [lon, lat] = r.stdout.trim().split(/\s+/).map(Number);
    const [mlon, mlat] = reprojector(def).toWgs84(440_000, 4_140_000)!;
    expect(Math.hypot((mlon - lon!) * 88_000, (mlat - lat!) * 111_000)).toBeLessThan(0.01);
  });

  it('knows the grids EPSG definitions name, and only those', () => {
    const names = gridNames();
    for (const g of ['BETA2007.gsb', 'OSTN15_NTv2_OSGBtoETRS.gsb', 'NTv2_0.gsb']) expect(names.has(g)).toBe(true);
    expect(names.has('evil.gsb')).toBe(false);
    expect([...names].every((n) => /^[A-Za-z0-9._-]+\.gsb$/i.test(n))).toBe(true);
  });

  it('leaves out what is not an EPSG code, and says what a code is when it is no horizontal CRS', () => {
    expect(epsgDefinition(102001)).toEqual({ def: null, kind: null });
    expect(epsgDefinition(5773)).toEqual({ def: null, kind: 'CRS-VERTCRS' });
    expect(epsgDefinition(1)).toEqual({ def: null, kind: null });
  });
});
