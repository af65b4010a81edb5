// Files in national and European grids as GDAL writes them (fixtures/crs.ts): imported, their parcels must land where
// ogr2ogr puts them back in WGS84 — within 1 cm where both use the same transformation — and the import's
// reprojection must agree with PROJ's cs2cs on every position, within 1 cm, given the same definition.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { importFile, type ImportError } from './index.ts';
import { readImportSource } from './read.ts';
import { epsgDefinition, gridsFor } from './epsg.ts';
import { reprojector } from '../../core/geo/crs.ts';
import { ntv2Grid } from '../../core/geo/ntv2.test-helpers.ts';
import { ACCOUNT, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';
import { CRS_FIXTURES, OGR2OGR, committedCrsFixture, generateCrsFixture, type CrsFixture, type CrsFixtureFile } from './fixtures/crs.ts';

/** PROJ's data folder (Debian proj-data), where the NTv2 grids it ships are: BETA2007.gsb, not OSTN15. */
const PROJ_DATA = '/usr/share/proj';
const CS2CS = spawnSync('cs2cs', [], { encoding: 'utf8' }).error === undefined;
const hasGrid = (grid: string) => existsSync(join(PROJ_DATA, grid));

let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
});
afterEach(() => t.close());

type Geometry = { type: string; coordinates: unknown };
interface Feature { properties: { name: string }; geometry: Geometry }

/** Every position of a geometry, [lon, lat]. */
const positions = (g: Geometry): number[][] => {
  const out: number[][] = [];
  const walk = (c: unknown) => (typeof (c as unknown[])[0] === 'number' ? out.push(c as number[]) : (c as unknown[]).forEach(walk));
  walk(g.coordinates);
  return out;
};

/** Metres between two WGS84 positions a few metres apart at most (an equirectangular approximation: ample for that). */
const metres = (a: number[], b: number[]) => {
  const rad = Math.PI / 180;
  const dx = (a[0]! - b[0]!) * rad * 6378137 * Math.cos(a[1]! * rad);
  const dy = (a[1]! - b[1]!) * rad * 6378137;
  return Math.hypot(dx, dy);
};

/** ogr2ogr's reprojection back to WGS84 of the fixture, by feature name. */
const expected = (code: number) => new Map((JSON.parse(new TextDecoder().decode(committedCrsFixture(code, 'wgs84.geojson'))) as { features: Feature[] }).features
  .map((f) => [f.properties.name, f.geometry]));

/**
 * Imports the fixture file and measures how far each parcel's positions are from ogr2ogr's (each to the nearest of its
 * feature's: a Shapefile's rings run the other way round). Returns the largest distance in metres.
 */
async function importAndMeasure(f: CrsFixture, file: CrsFixtureFile, gridDirs: string[]) {
  const report = await importFile(t.mirror, t.file(`${f.code}.${file}`, committedCrsFixture(f.code, file)), { accountId: ACCOUNT, farmName: `EPSG ${f.code} ${file}`, gridDirs });
  const want = expected(f.code);
  let worst = 0;
  const parcels = t.mirror.read.parcels(report.farm.local_id);
  for (const p of parcels) {
    const theirs = positions(want.get(p.name)!);
    const mine = p.source_type === 'Point' ? [JSON.parse(p.point!) as number[]] : positions(JSON.parse(p.geometry) as Geometry);
    for (const q of mine) worst = Math.max(worst, Math.min(...theirs.map((r) => metres(q, r))));
  }
  return { report, parcels, worst };
}

const FILES: CrsFixtureFile[] = ['geojson', 'shp.zip'];

describe.each(CRS_FIXTURES.filter((f) => f.compare.kind !== 'grid'))('EPSG:$code in $where, written by ogr2ogr', (f) => {
  it.each(FILES)('the %s is imported where ogr2ogr puts it back in WGS84, and its CRS named', async (file) => {
    const { report, parcels, worst } = await importAndMeasure(f, file, []);
    const def = epsgDefinition(f.code).def!;
    expect(report.crs).toMatchObject({ code: f.code, name: def.name, reprojected: true });
    // The farm is where the CRS is used: no note that it is not.
    expect(report.notes).toEqual([]);
    // Every field (and the GeoJSON's point parcel) imported, with its hectares.
    expect(parcels.map((p) => p.name).sort()).toEqual([...expected(f.code).keys()].filter((n) => file === 'geojson' || n !== 'Parcela de ensayo').sort());
    expect(parcels.every((p) => p.hectares > 1)).toBe(true);
    if (f.compare.kind === 'same') {
      expect(report.crs.shift).toBe(f.compare.shift);
      expect(worst).toBeLessThan(0.01);
    } else if (f.compare.kind === 'different') {
      // Another transformation than PROJ's choice: within what EPSG says of the one used.
      expect(report.crs).toMatchObject({ shift: 'helmert', accuracy: f.compare.metres });
      expect(worst).toBeLessThan(f.compare.metres);
    }
  });
});

describe.each(CRS_FIXTURES.filter((f) => f.compare.kind === 'grid'))('EPSG:$code in $where, whose datum shift is an NTv2 grid', (f) => {
  const grid = f.compare.kind === 'grid' ? f.compare.grid : '';

  it.each(FILES)('the %s is refused without the grid, naming it, and nothing is created', async (file) => {
    const e = await importFile(t.mirror, t.file(`${f.code}.${file}`, committedCrsFixture(f.code, file)), { accountId: ACCOUNT, farmName: 'F', gridDirs: [join(t.dir, 'grids')] })
      .catch((err: unknown) => err as ImportError);
    expect(e).toMatchObject({ code: 'grid_missing' });
    expect((e as ImportError).message).toContain(`needs the NTv2 grid file ${grid} for its datum shift, the only accurate one, and Furrow does not have it; ` +
      `put the grid file in ${join(t.dir, 'grids')} and import the file again`);
    expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
  });

  // PROJ's data (Debian proj-data) ships BETA2007.gsb, not OSTN15: British National Grid is checked without it only.
  it.runIf(hasGrid(grid)).each(FILES)(`the %s, with ${grid} in the grids folder, is imported within 1 cm of ogr2ogr (which uses that grid)`, async (file) => {
    const grids = join(t.dir, 'grids');
    mkdirSync(grids);
    copyFileSync(join(PROJ_DATA, grid), join(grids, grid));
    const { report, worst } = await importAndMeasure(f, file, [grids]);
    expect(report.crs).toMatchObject({ code: f.code, reprojected: true, shift: 'grid', grid });
    expect(report.notes).toEqual([]);
    expect(worst).toBeLessThan(0.01);
  });
});

/** cs2cs's WGS84 longitude/latitude of each (x, y), with the same definition; null when it cannot (a grid it lacks). */
function cs2cs(def: string, points: number[][]): number[][] | null {
  const r = spawnSync('cs2cs', ['-f', '%.11f', ...def.split(' '), '+to', '+proj=longlat', '+datum=WGS84', '+no_defs'],
    { input: points.map((p) => `${p[0]} ${p[1]}`).join('\n') + '\n', encoding: 'utf8' });
  if (r.status !== 0) return null;
  const out = r.stdout.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 2).map(Number));
  return out.length === points.length && out.every((p) => p.every(Number.isFinite)) ? out : null;
}

describe.runIf(CS2CS)("cs2cs (PROJ) on every position of every fixture, with the import's own definition", () => {
  it.each(CRS_FIXTURES.filter((f) => f.compare.kind !== 'grid' || hasGrid(f.compare.grid)))('EPSG:$code: within 1 cm', (f) => {
    const def = epsgDefinition(f.code).def!;
    const r = reprojector(def, gridsFor(def, [PROJ_DATA]));
    const doc = JSON.parse(new TextDecoder().decode(committedCrsFixture(f.code, 'geojson'))) as { features: Feature[] };
    const points = doc.features.flatMap((feature) => positions(feature.geometry));
    const theirs = cs2cs(def.proj4, points);
    expect(theirs, `cs2cs ${def.proj4}`).not.toBeNull();
    const worst = Math.max(...points.map((p, i) => metres(r.toWgs84(p[0]!, p[1]!)!, theirs![i]!)));
    expect(worst).toBeLessThan(0.01);
  });
});

describe.runIf(CS2CS)('a grid the user has, for British National Grid (a synthetic OSTN15: PROJ ships none to compare with)', () => {
  it('the Shapefile is imported with it within 1 cm of cs2cs reading the very same grid file', async () => {
    const grids = join(t.dir, 'grids');
    mkdirSync(grids);
    const name = 'OSTN15_NTv2_OSGBtoETRS.gsb';
    // Shifts that vary over Lincolnshire, of OSTN15's size (a few arc-seconds), on a 0.1° grid.
    writeFileSync(join(grids, name), new Uint8Array(ntv2Grid({ south: 52.5, north: 53.5, west: -1, east: 0.5, step: 0.1, shift: (lon, lat) => [1.8 + 0.4 * (lat - 53), -4.9 + 0.3 * (lon + 0.4)] })));
    const report = await importFile(t.mirror, t.file('27700.shp.zip', committedCrsFixture(27700, 'shp.zip')), { accountId: ACCOUNT, farmName: 'BNG', gridDirs: [grids] });
    expect(report.crs).toMatchObject({ code: 27700, shift: 'grid', grid: name });
    const def = epsgDefinition(27700).def!;
    const doc = JSON.parse(new TextDecoder().decode(committedCrsFixture(27700, 'geojson'))) as { features: Feature[] };
    const byName = new Map(doc.features.map((f) => [f.properties.name, positions(f.geometry)]));
    let worst = 0;
    for (const p of t.mirror.read.parcels(report.farm.local_id)) {
      const source = byName.get(p.name)!;
      const theirs = cs2cs(def.proj4.replace(name, join(grids, name)), source)!;
      expect(theirs).not.toBeNull();
      for (const q of positions(JSON.parse(p.geometry) as Geometry)) worst = Math.max(worst, Math.min(...theirs.map((r) => metres(q, r))));
    }
    expect(worst).toBeLessThan(0.01);
  });
});

describe.runIf(OGR2OGR)('the fixtures written now by ogr2ogr', () => {
  it.each(CRS_FIXTURES)('EPSG:$code: decode exactly like the committed copies', async (f) => {
    const fresh = generateCrsFixture(f);
    for (const file of ['geojson', 'shp.zip'] as const) {
      const decode = async (bytes: Uint8Array) => {
        const source = await readImportSource(t.file(`${f.code}.${file}`, bytes), false, undefined, { gridDirs: [PROJ_DATA] }).catch((e: unknown) => e as ImportError);
        return 'code' in source ? source.code : { features: 'features' in source ? source.features : null, crs: source.crs };
      };
      expect(await decode(fresh[file])).toEqual(await decode(committedCrsFixture(f.code, file)));
    }
    expect(JSON.parse(new TextDecoder().decode(fresh['wgs84.geojson']))).toEqual(JSON.parse(new TextDecoder().decode(committedCrsFixture(f.code, 'wgs84.geojson'))));
    // GDAL's .prj is ESRI's WKT: no EPSG code in it (the import identifies the CRS by its parameters).
    expect(new TextDecoder().decode(unzipSync(fresh['shp.zip'])['fields.prj'])).not.toMatch(/AUTHORITY|EPSG/);
  });
});
