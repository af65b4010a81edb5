// The host's layer files on their own (backend/layer-files.ts), over files GDAL wrote now (test/helpers/
// layer-fixtures.ts): each kind told by its bytes and kept as <id>.<ext> with its info, private to the user; what the
// map cannot show refused in words naming the user's file, leaving nothing behind; an MBTiles file's tiles read by
// their XYZ address (the TMS row flipped, MVT gunzipped); and what a stopped host left cleaned at the next start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { LayerFiles, UNUSED_FILE_MS } from './layer-files.ts';
import { AREA, cog, mbtilesTiles, overlays, pmtilesFrom, rasterMbtiles, run, vectorMbtiles } from '../test/helpers/layer-fixtures.ts';
import type { LayerFileInfo } from '../core/api-layer-files.ts';

let dir: string;
let fx: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-layer-files-'));
  const mbr = rasterMbtiles(dir, 'ortho', [255, 128, 0]);
  const mbv = vectorMbtiles(dir);
  fx = {
    tif25830: cog(dir, 'Ortofoto 2024', 25830, [200, 50, 200]), tif3857: cog(dir, 'ortho-3857', 3857, [50, 200, 200]),
    mbr, mbv, pmr: pmtilesFrom(mbr, join(dir, 'ortho.pmtiles'), false), pmv: pmtilesFrom(mbv, join(dir, 'roads.pmtiles'), true), ...overlays(dir),
  };
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const home = () => mkdtempSync(join(dir, 'home-'));
/** Near AREA: within `d` degrees on every side. */
const near = (b: LayerFileInfo['bbox'], d = 0.002) => {
  expect(b).not.toBeNull();
  const want = [AREA.west, AREA.south, AREA.east, AREA.north];
  b!.forEach((v, i) => expect(Math.abs(v - want[i]!), `bbox[${i}] ${v}`).toBeLessThan(d));
};

describe('layer files', () => {
  it('tells every kind by its bytes and keeps it as <id>.<ext> with its info, private to the user', async () => {
    const files = new LayerFiles(home());
    const add = (k: string, name = k) => files.copy(fx[k]!, name);

    const t = await add('tif25830', 'Ortofoto 2024.tif');
    expect(t).toMatchObject({ format: 'geotiff', name: 'Ortofoto 2024', epsg: 25830, minZoom: null, features: null, notes: [], overviews: 0 });
    near(t.bbox);
    // Its overviews counted (the legend says them): GDAL's COG halves a 2,100-pixel image three times, below 512.
    expect((await new LayerFiles(home()).copy(cog(dir, 'large', 25830, [200, 50, 200], 2100), 'large.tif')).overviews).toBe(3);
    expect((await add('tif3857')).epsg).toBe(3857);
    const mr = await add('mbr', 'ortho.mbtiles');
    expect(mr).toMatchObject({ format: 'mbtiles-raster', name: 'ortho', minZoom: 13, maxZoom: 15 });
    near(mr.bbox);
    expect(await add('mbv')).toMatchObject({ format: 'mbtiles-vector', name: 'roads', minZoom: 8, maxZoom: 14 });
    expect(await add('pmr')).toMatchObject({ format: 'pmtiles-raster', name: 'Orthophoto (PMTiles)', attribution: '© Test fixtures', minZoom: 13, maxZoom: 15 });
    expect(await add('pmv')).toMatchObject({ format: 'pmtiles-vector', name: 'Roads (PMTiles)', minZoom: 8, maxZoom: 14 });
    // Vector overlays: every feature with a shape (lines and points too), the one without left out and said.
    const origins: Record<string, string> = { geojson: 'GeoJSON', kml: 'KML', kmz: 'KMZ', gpkg: 'GeoPackage' };
    for (const k of ['geojson', 'kml', 'kmz', 'gpkg']) {
      const v = await add(k, `drains.${k}`);
      expect(v, k).toMatchObject({ format: 'vector', name: 'drains', features: 4, notes: ['1 feature(s) without a shape were left out.'], origin: origins[k] });
      near(v.bbox, 0.005);
      const doc = JSON.parse(readFileSync(files.fileOf(v.file)!, 'utf8')) as { type: string; features: { geometry: { type: string } }[] };
      expect(doc.type).toBe('FeatureCollection');
      expect(doc.features.map((f) => f.geometry.type).sort(), k).toEqual(['LineString', 'LineString', 'Point', 'Polygon']);
    }
    expect(await add('shp', 'drains.zip')).toMatchObject({ format: 'vector', features: 2, origin: 'Shapefile' });
    // In a projected CRS (a cadastre in ETRS89 / UTM 30N): reprojected to WGS84 as an import is, and said.
    const utm = join(dir, 'utm.geojson');
    writeFileSync(utm, JSON.stringify({ type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::25830' } }, features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [440000, 4474000] } }] }));
    const cadastre = await files.copy(utm, 'catastro.geojson');
    expect(cadastre).toMatchObject({ format: 'vector', features: 1, notes: ['Reprojected from EPSG:25830 (ETRS89 / UTM zone 30N) to WGS84.'] });
    expect(cadastre.bbox![0]).toBeCloseTo(-3.70720, 4);
    expect(cadastre.bbox![1]).toBeCloseTo(40.41446, 4);
    // A GeoPackage in EPSG:25830, as ogr2ogr writes one: reprojected too, where the GeoJSON's features lie.
    const gpkg25830 = join(dir, 'drains-25830.gpkg');
    run('ogr2ogr', ['-f', 'GPKG', '-t_srs', 'EPSG:25830', gpkg25830, fx.geojson!, '-nln', 'drains']);
    const g = await files.copy(gpkg25830, 'drenajes.gpkg');
    expect(g).toMatchObject({ format: 'vector', features: 4, notes: ['Reprojected from EPSG:25830 (ETRS89 / UTM zone 30N) to WGS84.', '1 feature(s) without a shape were left out.'] });
    near(g.bbox, 0.005);

    const kept = readdirSync(files.dir);
    expect(kept.filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(files.ids()).toHaveLength(13);
    expect(kept.filter((f) => !f.endsWith('.json')).map((f) => f.split('.')[1]).sort()).toEqual([
      ...Array(7).fill('geojson'), 'mbtiles', 'mbtiles', 'pmtiles', 'pmtiles', 'tif', 'tif',
    ]);
    expect(kept.filter((f) => f.endsWith('.json'))).toHaveLength(13);
    expect(statSync(files.dir).mode & 0o777).toBe(0o700);
    for (const f of kept) expect(statSync(join(files.dir, f)).mode & 0o777, f).toBe(0o600);
    // The copy is the file, byte for byte (the original may go: the layer stays).
    expect(readFileSync(files.fileOf(t.file)!).equals(readFileSync(fx.tif25830!))).toBe(true);
    // Its info is read back by a later host; without it, told again from the file.
    const again = new LayerFiles(join(files.dir, '..'));
    expect(await again.info(mr.file)).toMatchObject({ ...mr, tileType: 'png' });
    rmSync(join(files.dir, `${mr.file}.json`));
    expect(await new LayerFiles(join(files.dir, '..')).info(mr.file)).toMatchObject({ format: 'mbtiles-raster', minZoom: 13, maxZoom: 15, tileType: 'png' });
    await files.close();
    await again.close();
  }, 60_000);

  it("refuses in words, naming the user's file, what the map cannot show, and keeps nothing of it", async () => {
    const files = new LayerFiles(home());
    const refused = async (file: string, name: string, message: RegExp) => {
      await expect(files.copy(file, name)).rejects.toMatchObject({ code: 'unsupported_layer_file', message: expect.stringMatching(message) });
    };
    const png = join(dir, 'photo.png');
    writeFileSync(png, Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    await refused(png, 'photo.png', /^photo\.png is not a file the map shows: open MBTiles, PMTiles, GeoTIFF, GeoJSON/);
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'nothing to see');
    await refused(notes, 'notes.txt', /^notes\.txt is not a file the map shows/);
    // A TIFF without georeferencing.
    const plain = join(dir, 'plain.tif');
    run('gdal_translate', ['-q', '-of', 'GTiff', join(dir, 'ortho-3857.ppm'), plain]);
    await refused(plain, 'scan.tif', /^scan\.tif is a TIFF without georeferencing/);
    // A GeoJSON in a CRS the EPSG definitions do not have: the import's own words.
    const odd = join(dir, 'odd.geojson');
    writeFileSync(odd, JSON.stringify({ type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::1' } }, features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [440000, 4474000] } }] }));
    await refused(odd, 'catastro.geojson', /^catastro\.geojson: its "crs" member names EPSG:1, which is not in the EPSG definitions Furrow has; reproject it/);
    // Projected coordinates without a crs member.
    const bare = join(dir, 'bare.geojson');
    writeFileSync(bare, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [440000, 4474000] } }] }));
    await refused(bare, 'bare.geojson', /coordinates \(440000, 4474000, 440000, 4474000\) are not longitude\/latitude/);
    // An SQLite file that is no MBTiles, and a GeoPackage of tiles.
    const other = join(dir, 'other.sqlite');
    new Database(other).exec('CREATE TABLE t (a)').close();
    await refused(other, 'farm.db', /^farm\.db is not an MBTiles file: it is an SQLite file without the tiles/);
    const tiles = join(dir, 'tiles.gpkg');
    run('gdal_translate', ['-q', '-of', 'GPKG', fx.tif3857!, tiles]);
    await refused(tiles, 'ortho.gpkg', /^ortho\.gpkg is a GeoPackage of tiles: .*MBTiles/);
    // PMTiles of another version.
    const v2 = join(dir, 'v2.pmtiles');
    writeFileSync(v2, Buffer.concat([Buffer.from('PMTiles'), Buffer.from([2]), Buffer.alloc(200)]));
    await refused(v2, 'old.pmtiles', /^old\.pmtiles is a PMTiles file of version 2/);
    // A GeoJSON with nothing to draw.
    const empty = join(dir, 'empty.geojson');
    writeFileSync(empty, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: null }] }));
    await refused(empty, 'empty.geojson', /^empty\.geojson has no feature with a shape/);
    // An empty file, and a path that is not there.
    const zero = join(dir, 'zero.mbtiles');
    writeFileSync(zero, '');
    await expect(files.copy(zero, 'zero.mbtiles')).rejects.toMatchObject({ code: 'unsupported_layer_file', message: 'zero.mbtiles is empty' });
    await expect(files.copy(join(dir, 'missing.tif'), 'missing.tif')).rejects.toMatchObject({ code: 'not_found' });
    expect(readdirSync(files.dir)).toEqual([]);
    await files.close();
    // A disk without room for it (and a margin for the mirror): refused before a byte is copied.
    const full = new LayerFiles(home(), { free: () => 300 * 1024 * 1024 });
    expect(() => full.checkRoom(40 * 1024 * 1024, 'ortho.tif')).not.toThrow();
    await expect(full.copy(fx.tif25830!, 'Ortofoto.tif')).resolves.toMatchObject({ format: 'geotiff' });
    expect(() => full.checkRoom(60 * 1024 * 1024, 'big.tif')).toThrow(expect.objectContaining({ code: 'disk_full', message: "big.tif is 60 MB and the disk holding the app's data has 300 MB free: free some space first" }));
    expect(() => full.checkRoom(70 * 1024 ** 3, 'huge.tif')).toThrow(expect.objectContaining({ code: 'too_large' }));
    await full.close();
  }, 60_000);

  it("reads an MBTiles file's tiles by their XYZ address: rows flipped from TMS, vector tiles gunzipped", async () => {
    const files = new LayerFiles(home());
    const r = await files.copy(fx.mbr!, 'ortho.mbtiles');
    const v = await files.copy(fx.mbv!, 'roads.mbtiles');
    for (const t of mbtilesTiles(fx.mbr!)) expect(files.tile(r.file, t.z, t.x, t.y)?.equals(t.data), `${t.z}/${t.x}/${t.y}`).toBe(true);
    const some = mbtilesTiles(fx.mbv!);
    expect(some[0]!.data.subarray(0, 2).toString('hex')).toBe('1f8b');
    for (const t of some) expect(files.tile(v.file, t.z, t.x, t.y)?.equals(gunzipSync(t.data))).toBe(true);
    // Where the file has no tile (the row of the TMS scheme, read as XYZ, is elsewhere): an empty one.
    const t = some.find((x) => x.y !== 2 ** x.z - 1 - x.y)!;
    expect(files.tile(v.file, t.z, t.x, 2 ** t.z - 1 - t.y)).toEqual(Buffer.alloc(0));
    expect(files.tile(r.file, 0, 0, 0)).toEqual(Buffer.alloc(0));
    // A removed file's tiles are gone with it (its reader closed): none at all.
    files.remove(v.file);
    expect(files.tile(v.file, t.z, t.x, t.y)).toBeNull();
    expect(files.fileOf(v.file)).toBeNull();
    await files.close();
  }, 60_000);

  it("at the start of a host, removes its .part files a stopped one left (not a paused area's download) and the files no saved layer used for a day", async () => {
    const h = home();
    const first = new LayerFiles(h);
    const used = await first.copy(fx.geojson!, 'used.geojson');
    const fresh = await first.copy(fx.kml!, 'fresh.kml');
    const old = await first.copy(fx.kmz!, 'old.kmz');
    await first.close();
    const dayAgo = (Date.now() - UNUSED_FILE_MS - 60_000) / 1000;
    for (const id of [used.file, old.file]) utimesSync(first.fileOf(id)!, dayAgo, dayAgo);
    mkdirSync(join(h, 'layers'), { recursive: true });
    writeFileSync(join(h, 'layers', `${'b'.repeat(32)}.upload.part`), 'half');
    writeFileSync(join(h, 'layers', `${'c'.repeat(32)}.geojson.part`), 'half');
    // An area kept offline, its download paused: it resumes at the next start (backend/offline-areas.ts), untouched.
    writeFileSync(join(h, 'layers', `${'d'.repeat(32)}.mbtiles.part`), 'half');
    // The command line never sweeps (it may run beside a host that is writing).
    const cli = new LayerFiles(h);
    expect(readdirSync(cli.dir).filter((f) => f.endsWith('.part'))).toHaveLength(3);
    expect(cli.ids()).not.toContain('b'.repeat(32));
    await cli.close();
    const host = new LayerFiles(h, { sweep: { used: () => new Set([used.file]) } });
    expect(readdirSync(host.dir).filter((f) => f.endsWith('.part'))).toEqual([`${'d'.repeat(32)}.mbtiles.part`]);
    expect(host.ids().sort()).toEqual([used.file, fresh.file].sort());
    expect(existsSync(join(host.dir, `${old.file}.json`))).toBe(false);
    await host.close();
  }, 60_000);
});
