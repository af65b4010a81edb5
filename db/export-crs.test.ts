// Exports in a chosen coordinate system (export-crs.ts): where ogr2ogr would put the same parcels, readable by GDAL as
// that CRS, and imported back by Furrow to the same places and areas.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportFile, exportText } from './export.ts';
import { exportProjection } from './export-crs.ts';
import { importFile } from './import/index.ts';
import { ACCOUNT, tempMirror, type TempMirror } from './import/fixtures/temp-mirror.ts';
import { OGR2OGR, movedFarm } from './import/fixtures/crs.ts';

const EXAMPLE = join(import.meta.dirname, '..', 'examples', 'fields.geojson');

let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
});
afterEach(() => t.close());

type Doc = { crs?: unknown; features: { properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } }[] };
const positions = (c: unknown): number[][] => (typeof (c as unknown[])[0] === 'number' ? [c as number[]] : (c as unknown[]).flatMap(positions));
const byName = (doc: Doc) => new Map(doc.features.map((f) => [String(f.properties['name']), positions(f.geometry.coordinates)]));

/** A parcel's positions: its point's, or its polygon's. */
const shape = (p: { source_type: string; point: string | null; geometry: string }) =>
  positions(p.source_type === 'Point' ? JSON.parse(p.point!) : (JSON.parse(p.geometry) as { coordinates: unknown }).coordinates);

/** PROJ's data (Debian proj-data): BETA2007.gsb, Gauss-Krüger's grid. */
const BETA2007 = existsSync('/usr/share/proj/BETA2007.gsb');

async function exampleFarm() {
  const r = await importFile(t.mirror, EXAMPLE, { accountId: ACCOUNT, farmName: 'Cortijo La Campana' });
  return r.farm.local_id;
}

describe('export in a chosen coordinate system', () => {
  it('writes GeoJSON in EPSG:25830 with its "crs" member, and Furrow imports it back to the same places and hectares', async () => {
    const farm = await exampleFarm();
    const projection = exportProjection(25830, []);
    const file = join(t.dir, 'campana.geojson');
    expect(await exportFile(t.mirror, file, { farmLocalId: farm, projection })).toEqual({ format: 'geojson', parcels: 5 });
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Doc;
    expect(doc.crs).toEqual({ type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::25830' } });
    // Metres, a tenth of a millimetre at most: UTM zone 30N eastings and northings of Sevilla.
    const [x, y] = positions(doc.features[0]!.geometry.coordinates)[0]!;
    expect(x).toBeGreaterThan(280_000);
    expect(y).toBeGreaterThan(4_160_000);
    expect(String(x).split('.')[1]?.length ?? 0).toBeLessThanOrEqual(4);
    // The point parcel stays a point with its hectares.
    expect(doc.features.find((f) => f.properties['name'] === 'Parcela de ensayo')).toMatchObject({ geometry: { type: 'Point' }, properties: { hectares: 1.5 } });

    const back = await importFile(t.mirror, file, { accountId: ACCOUNT, farmName: 'De vuelta' });
    expect(back.crs).toMatchObject({ code: 25830, reprojected: true });
    const before = new Map(t.mirror.read.parcels(farm).map((p) => [p.name, p]));
    for (const p of t.mirror.read.parcels(back.farm.local_id)) {
      const was = before.get(p.name)!;
      // Rounded to a tenth of a millimetre and back: the area moves by a hundredth of a square metre or so.
      expect(p.hectares).toBeCloseTo(was.hectares, 4);
      const a = shape(p);
      const b = shape(was);
      expect(a.length).toBe(b.length);
      a.forEach((q, i) => expect(Math.hypot((q[0]! - b[i]![0]!) * 88_000, (q[1]! - b[i]![1]!) * 111_000)).toBeLessThan(0.001));
    }
  });

  it('writes the CSV\'s WKT in the chosen CRS, for a selection too', async () => {
    const farm = await exampleFarm();
    const ids = t.mirror.read.parcels(farm).filter((p) => p.name === 'Haza del Pozo').map((p) => p.local_id);
    const { text } = exportText(t.mirror.read, { accountId: ACCOUNT, parcelIds: ids, projection: exportProjection(2154, []) }, 'csv');
    // Lambert-93 of Sevilla: west of its false origin, so a negative easting, but a position all the same.
    expect(text).toMatch(/,"POLYGON\(\(-49118\.9\d+ 5646983\.6\d+, /);
  });

  it.runIf(BETA2007)('refuses a parcel outside what the CRS covers (a Gauss-Krüger grid shift in Spain), naming it', async () => {
    const farm = await exampleFarm();
    expect(() => exportText(t.mirror.read, { farmLocalId: farm, projection: exportProjection(31467, ['/usr/share/proj']) }, 'geojson'))
      .toThrow(/^parcel 'Haza del Pozo' at \[-5\.408, 37\.587\] has no position in EPSG:31467 \(DHDN \/ 3-degree Gauss-Kruger zone 3\) \(outside what it covers\)$/);
  });

  it('refuses codes it has no definition of, non-horizontal CRSs, and grids it does not have, before writing anything', () => {
    expect(() => exportProjection(1, [])).toThrow(expect.objectContaining({ code: 'crs_unknown', message: 'EPSG:1 is not in the EPSG definitions Furrow has' }));
    expect(() => exportProjection(5773, [])).toThrow(expect.objectContaining({ code: 'crs_unsupported' }));
    expect(() => exportProjection(27700, [])).toThrow(expect.objectContaining({ code: 'grid_missing', grids: ['OSTN15_NTv2_OSGBtoETRS.gsb'] }));
    expect(exportProjection(4326, [])).toBeNull();
  });

  it.runIf(OGR2OGR && BETA2007)('puts the parcels where ogr2ogr does, within 1 cm (ETRS89 UTM and LAEA, Lambert-93, Gauss-Krüger with BETA2007)', async () => {
    for (const [code, at] of [[25830, null], [3035, [11.5, 48.3]], [2154, [1.6, 48.3]], [31467, [9.2, 52.6]]] as const) {
      // The example farm, moved to where the CRS is used (a Gauss-Krüger grid shift covers Germany only).
      const source = at ? t.file(`farm-${code}.geojson`, movedFarm([...at])) : EXAMPLE;
      const farm = (await importFile(t.mirror, source, { accountId: ACCOUNT, farmName: `Farm ${code}` })).farm.local_id;
      const wgs84 = join(t.dir, `wgs84-${code}.geojson`);
      await exportFile(t.mirror, wgs84, { farmLocalId: farm });
      const mine = join(t.dir, `${code}.geojson`);
      await exportFile(t.mirror, mine, { farmLocalId: farm, projection: exportProjection(code, ['/usr/share/proj']) });
      const theirs = join(t.dir, `${code}-ogr.geojson`);
      const r = spawnSync('ogr2ogr', ['-f', 'GeoJSON', theirs, wgs84, '-s_srs', 'EPSG:4326', '-t_srs', `EPSG:${code}`, '-lco', 'COORDINATE_PRECISION=6'], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const a = byName(JSON.parse(readFileSync(mine, 'utf8')) as Doc);
      const b = byName(JSON.parse(readFileSync(theirs, 'utf8')) as Doc);
      let worst = 0;
      for (const [name, ps] of a) ps.forEach((p, i) => { worst = Math.max(worst, Math.hypot(p[0]! - b.get(name)![i]![0]!, p[1]! - b.get(name)![i]![1]!)); });
      expect(worst, `EPSG:${code}`).toBeLessThan(0.01);
    }
  });
});
