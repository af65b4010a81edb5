import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { ImportError, importFile } from './index.ts';
import { isWgs84Prj } from '../../core/geo/wkt.ts';
import { buildShapefile, UTM30N_PRJ, WGS84_PRJ, zipShapefile, type DbfField, type ShapeRecord } from './fixtures/shapefile-writer.ts';
import { ACCOUNT, square, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';

let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
});
afterEach(() => t.close());

const opts = { accountId: ACCOUNT, farmName: 'Finca SHP' };
const meta = (localId: string) => JSON.parse(t.mirror.read.parcel(localId)!.metadata) as Record<string, unknown>;
// Shapefile outer rings run clockwise, holes counter-clockwise.
const cw = (ring: number[][]) => [...ring].reverse();

const FIELDS: DbfField[] = [
  { name: 'NAME', type: 'C', length: 30 },
  { name: 'CROP', type: 'C', length: 20 },
  { name: 'YEAR', type: 'N', length: 4 },
  { name: 'AREA_DECL', type: 'N', length: 8, decimals: 2 },
  { name: 'ORGANIC', type: 'L', length: 1 },
  { name: 'SOWN', type: 'D', length: 8 },
];

const RECORDS: ShapeRecord[] = [
  { geometry: { type: 'Polygon', rings: [cw(square(-5.9, 37.4))] }, attributes: { NAME: 'Cañada', CROP: 'wheat', YEAR: 2024, AREA_DECL: 1.25, ORGANIC: true, SOWN: '20241015' } },
  { geometry: { type: 'Polygon', rings: [cw(square(-5.8, 37.4, 0.002)), square(-5.7995, 37.4005)] }, attributes: { NAME: 'Con hueco', CROP: '', YEAR: null, AREA_DECL: null, ORGANIC: false, SOWN: null } },
  // Two outer rings in one record: a MultiPolygon, split into two parcels.
  { geometry: { type: 'Polygon', rings: [cw(square(-5.6, 37.4)), cw(square(-5.5, 37.4))] }, attributes: { NAME: 'Dos trozos', CROP: 'olive', YEAR: 2020, AREA_DECL: 2, ORGANIC: null, SOWN: null } },
];

describe('importFile: zipped Shapefile', () => {
  it('imports polygons with their attributes as metadata (UTF-8 per the .cpg, WGS84 per the .prj)', async () => {
    const zip = zipShapefile('parcels', buildShapefile(5, FIELDS, RECORDS), { 'parcels.prj': WGS84_PRJ, 'parcels.cpg': 'UTF-8' });
    const report = await importFile(t.mirror, t.file('parcels.zip', zip), opts);
    expect(report).toMatchObject({ imported: 4, parts: 2, skipped: [] });
    const parcels = t.mirror.read.parcels(report.farm.local_id);
    expect(parcels.map((p) => p.name)).toEqual(['Cañada', 'Con hueco', 'Dos trozos (part 1 of 2)', 'Dos trozos (part 2 of 2)']);
    expect(meta(parcels[0]!.local_id)).toEqual({ CROP: 'wheat', YEAR: 2024, AREA_DECL: 1.25, ORGANIC: true, SOWN: '2024-10-15' });
    // Empty text and numbers, and unknown logicals, are nulls in DBF: dropped.
    expect(meta(parcels[1]!.local_id)).toEqual({ ORGANIC: false });
    expect(meta(parcels[2]!.local_id)).toEqual({ CROP: 'olive', YEAR: 2020, AREA_DECL: 2 });
    // The hole is kept and subtracted: 0.002° square minus a 0.001° square.
    expect(JSON.parse(parcels[1]!.geometry).coordinates).toHaveLength(2);
    expect(parcels[1]!.hectares / parcels[0]!.hectares).toBeCloseTo(3, 2);
  });

  it('imports a point layer with a HECTARES column, from a folder inside the zip, without a .cpg', async () => {
    const fields: DbfField[] = [{ name: 'LABEL', type: 'C', length: 10 }, { name: 'HECTARES', type: 'N', length: 6, decimals: 2 }];
    const files = buildShapefile(1, fields, [
      { geometry: { type: 'Point', at: [-5.9, 37.4] }, attributes: { LABEL: 'Pozo', HECTARES: 3.5 } },
      { geometry: { type: 'Point', at: [-5.8, 37.4] }, attributes: { LABEL: 'Sin área', HECTARES: null } },
    ]);
    const zip = zipSync({ 'export/wells.shp': files.shp, 'export/wells.shx': files.shx, 'export/wells.dbf': files.dbf, 'export/wells.prj': new TextEncoder().encode(WGS84_PRJ) });
    const report = await importFile(t.mirror, t.file('wells.zip', zip), { ...opts, skipInvalid: true });
    expect(report.imported).toBe(1);
    expect(t.mirror.read.parcels(report.farm.local_id)).toEqual([expect.objectContaining({ name: 'Pozo', source_type: 'Point', hectares: 3.5 })]);
    expect(report.skipped).toEqual([expect.objectContaining({ index: 1, code: 'hectares_missing' })]);
  });

  it('imports a layer in ETRS89 / UTM zone 30N (an ESRI .prj without an EPSG code) reprojected to WGS84', async () => {
    // A 100 m square in metres: about a hectare on the ground. Its corner is where cs2cs EPSG:25830 EPSG:4326 puts it.
    const metres = [{ geometry: { type: 'Polygon' as const, rings: [cw(square(440_000, 4_140_000, 100))] }, attributes: { NAME: 'Parcela UTM' } }];
    const zip = zipShapefile('utm', buildShapefile(5, [{ name: 'NAME', type: 'C', length: 20 }], metres), { 'utm.prj': UTM30N_PRJ });
    const report = await importFile(t.mirror, t.file('utm.zip', zip), { ...opts, gridDirs: [] });
    expect(report.crs).toEqual({ code: 25830, name: 'ETRS89 / UTM zone 30N', reprojected: true, shift: 'none', grid: null, accuracy: null });
    const [p] = t.mirror.read.parcels(report.farm.local_id);
    expect(p!.hectares).toBeGreaterThan(0.99);
    expect(p!.hectares).toBeLessThan(1.01);
    const [lon, lat] = (JSON.parse(p!.geometry) as { coordinates: number[][][] }).coordinates[0]![0]!;
    expect(lon).toBeCloseTo(-3.677946, 6);
    expect(lat).toBeCloseTo(37.404842, 6);
  });

  it('refuses a layer whose .prj names a datum with no known shift to WGS84, and creates nothing', async () => {
    const prj = UTM30N_PRJ.replace('GCS_ETRS_1989', 'GCS_Mystery').replace('D_ETRS_1989', 'D_Mystery').replace('"GRS_1980",6378137.0,298.257222101', '"Bessel_1841",6377397.155,299.1528128');
    const zip = zipShapefile('odd', buildShapefile(5, FIELDS, RECORDS), { 'odd.prj': prj });
    const e = await importFile(t.mirror, t.file('odd.zip', zip), opts).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ImportError);
    expect(e).toMatchObject({ code: 'datum_unknown', message: expect.stringMatching(/^odd\.zip: "ETRS_1989_UTM_Zone_30N" is on a datum Furrow knows no transformation to WGS84 for.*reproject it to WGS84/) as unknown });
    expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
  });

  it('refuses a layer without .prj whose coordinates cannot be longitude/latitude', async () => {
    const metres = [{ geometry: { type: 'Polygon' as const, rings: [cw(square(440000, 4140000, 100))] }, attributes: { NAME: 'x' } }];
    const zip = zipShapefile('noprj', buildShapefile(5, [{ name: 'NAME', type: 'C', length: 5 }], metres));
    await expect(importFile(t.mirror, t.file('noprj.zip', zip), opts)).rejects.toMatchObject({ code: 'projection' });
  });

  it('refuses a zip with several layers or none', async () => {
    const files = buildShapefile(5, FIELDS, RECORDS);
    const two = zipShapefile('a', files, { 'b.shp': files.shp, 'b.dbf': files.dbf });
    await expect(importFile(t.mirror, t.file('two.zip', two), opts)).rejects.toMatchObject({ code: 'unsupported_format', message: expect.stringContaining('2 shapefiles') as unknown });
    const none = zipSync({ 'readme.txt': new TextEncoder().encode('hi') });
    await expect(importFile(t.mirror, t.file('none.zip', none), opts)).rejects.toMatchObject({ code: 'unsupported_format' });
  });

  it('reports a record without shape as an invalid feature, by its record index', async () => {
    const records: ShapeRecord[] = [RECORDS[0]!, { geometry: null, attributes: { NAME: 'vacío' } }];
    const zip = zipShapefile('nulls', buildShapefile(5, FIELDS, records), { 'nulls.prj': WGS84_PRJ });
    const e = await importFile(t.mirror, t.file('nulls.zip', zip), opts).catch((err: unknown) => err);
    expect((e as ImportError).problems).toEqual([expect.objectContaining({ index: 1, code: 'geom_not_feature' })]);
  });
});

describe('damaged shapefiles are refused, never imported in part', () => {
  async function refusedWith(files: { shp: Uint8Array; shx: Uint8Array; dbf: Uint8Array }): Promise<string> {
    const zip = zipShapefile('broken', files, { 'broken.prj': WGS84_PRJ });
    const e = await importFile(t.mirror, t.file('broken.zip', zip), opts).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(ImportError);
    expect((e as ImportError).code).toBe('unreadable');
    expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
    return (e as ImportError).message;
  }

  it('a first record whose length points past the end (the reader stopped after it: "Imported 1 parcel(s)")', async () => {
    const files = buildShapefile(5, FIELDS, RECORDS);
    const shp = files.shp.slice();
    new DataView(shp.buffer).setInt32(100 + 4, 0x100000, false);
    expect(await refusedWith({ ...files, shp })).toMatch(/broken\.shp is damaged.*record 1 of the \.shp claims 2097152 bytes, past the end/);
  });

  it('a DBF with fewer rows than the shapes, or a row length past its end (parcels were renamed "S 2", "S 3")', async () => {
    const full = buildShapefile(5, FIELDS, RECORDS);
    const short = buildShapefile(5, FIELDS, RECORDS.slice(0, 1));
    expect(await refusedWith({ ...full, dbf: short.dbf })).toMatch(/the \.dbf holds 1 rows for the 3 shapes/);
    const dbf = full.dbf.slice();
    new DataView(dbf.buffer).setUint16(10, 60_000, true);
    expect(await refusedWith({ ...full, dbf })).toMatch(/declares 3 rows of 60000 bytes/);
  });

  it('a .shp header whose length disagrees with the file', async () => {
    const files = buildShapefile(5, FIELDS, RECORDS);
    const shp = new Uint8Array(files.shp.length + 40);
    shp.set(files.shp);
    expect(await refusedWith({ ...files, shp })).toMatch(/header gives a length of \d+ bytes, the file has \d+/);
  });
});

describe('isWgs84Prj', () => {
  it('takes geographic WGS84 in its usual spellings as WGS84, and nothing else', () => {
    expect(isWgs84Prj(WGS84_PRJ)).toBe(true);
    expect(isWgs84Prj('GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],AUTHORITY["EPSG","4326"]]')).toBe(true);
    expect(isWgs84Prj('EPSG:4326')).toBe(true);
    expect(isWgs84Prj(UTM30N_PRJ)).toBe(false);
    expect(isWgs84Prj('PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984"]]]')).toBe(false);
    expect(isWgs84Prj('GEOGCS["GCS_ETRS_1989",DATUM["D_ETRS_1989",SPHEROID["GRS_1980",6378137.0,298.257222101]]]')).toBe(false);
     // With a TOWGS84 datum shift (which names WGS84) and on other meridians: refused, never read as WGS84.
    expect(isWgs84Prj('GEOGCS["ED50",DATUM["European_Datum_1950",SPHEROID["International 1924",6378388,297],TOWGS84[-87,-98,-121,0,0,0,0]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4230"]]')).toBe(false);
    expect(isWgs84Prj('GEOGCS["Tokyo",DATUM["Tokyo",SPHEROID["Bessel 1841",6377397.155,299.1528128],TOWGS84[-146.414,507.337,680.507,0,0,0,0]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]')).toBe(false);
    expect(isWgs84Prj('GEOGCS["NTF (Paris)",DATUM["Nouvelle_Triangulation_Francaise_Paris",SPHEROID["Clarke 1880 (IGN)",6378249.2,293.4660212936269],TOWGS84[-168,-60,320,0,0,0,0]],PRIMEM["Paris",2.5969213],UNIT["grad",0.01570796326794897]]')).toBe(false);
    expect(isWgs84Prj('GEOGCS["Odd",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Paris",2.33722917],UNIT["degree",0.0174532925199433]]')).toBe(false);
    // WGS84 itself with an explicit null shift, and the ESRI spelling, still pass.
    expect(isWgs84Prj('GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563],TOWGS84[0,0,0,0,0,0,0]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]')).toBe(true);
    expect(isWgs84Prj('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')).toBe(true);
  });
});
