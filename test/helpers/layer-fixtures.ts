// Layer files as users' tools write them, made at test time in a temporary folder: GeoTIFFs (Cloud-Optimized, in
// EPSG:25830 and 3857) by gdal_translate, raster MBTiles by gdal_translate and gdaladdo, vector MBTiles (MVT,
// gzipped) by ogr2ogr, vector overlays by ogr2ogr (GeoJSON, KML, zipped Shapefile, GeoPackage), and PMTiles v3 by
// the tests' writer (test/helpers/pmtiles-writer.ts) from the tiles GDAL wrote. GDAL is needed (Debian gdal-bin: CI
// installs it, .ci/run): a missing ogr2ogr fails the test that needs it, saying so.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { zipSync } from 'fflate';
import proj4 from 'proj4';
import { writePmtiles } from './pmtiles-writer.ts';

/** Where a fixture lies, in WGS84 degrees. */
export interface Area { west: number; south: number; east: number; north: number }
/** Where the fixtures lie unless told: fields near Madrid, 2.56 km square. */
export const AREA: Area = { west: -3.7073, south: 40.4004, east: -3.6768, north: 40.4236 };
/** AREA in EPSG:25830 (ETRS89 / UTM 30N), whole metres. */
const UTM = { ulx: 440000, uly: 4475000, lrx: 442560, lry: 4472440 };
const UTM30 = '+proj=utm +zone=30 +ellps=GRS80 +units=m +no_defs';

/** An area's corners in EPSG:25830 (for an area in UTM zone 30, 6° W to 0°). */
function utmOf(a: Area) {
  if (a === AREA) return UTM;
  const [ulx, uly] = proj4('EPSG:4326', UTM30, [a.west, a.north]);
  const [lrx, lry] = proj4('EPSG:4326', UTM30, [a.east, a.south]);
  return { ulx: ulx!, uly: uly!, lrx: lrx!, lry: lry! };
}

export function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) throw new Error(`${cmd} is needed for this test (Debian: apt-get install gdal-bin): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
}

/** A binary PPM of one colour with a darker grid every 32 pixels (something to see, and to compare). */
function ppm(file: string, size: number, rgb: [number, number, number]): void {
  const px = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const line = x % 32 === 0 || y % 32 === 0;
      const at = (y * size + x) * 3;
      for (let c = 0; c < 3; c++) px[at + c] = line ? Math.round(rgb[c]! * 0.6) : rgb[c]!;
    }
  }
  writeFileSync(file, Buffer.concat([Buffer.from(`P6\n${size} ${size}\n255\n`), px]));
}

/** A Cloud-Optimized GeoTIFF of one colour over `area`, in EPSG:25830 or 3857 (with overviews). */
export function cog(dir: string, name: string, epsg: 25830 | 3857, rgb: [number, number, number], size = 512, compress = 'LZW', area = AREA): string {
  const src = join(dir, `${name}.ppm`);
  ppm(src, size, rgb);
  const out = join(dir, `${name}.tif`);
  const u = utmOf(area);
  if (epsg === 25830) run('gdal_translate', ['-q', src, '-a_srs', 'EPSG:25830', '-a_ullr', ...[u.ulx, u.uly, u.lrx, u.lry].map(String), '-of', 'COG', '-co', `COMPRESS=${compress}`, out]);
  else {
    const geo = join(dir, `${name}-4326.tif`);
    run('gdal_translate', ['-q', src, '-a_srs', 'EPSG:4326', '-a_ullr', ...[area.west, area.north, area.east, area.south].map(String), geo]);
    run('gdalwarp', ['-q', '-t_srs', 'EPSG:3857', '-of', 'COG', '-co', `COMPRESS=${compress}`, geo, out]);
  }
  return out;
}

/** A raster MBTiles of one colour over `area`, PNG tiles, three zooms or more below the deepest (gdal_translate, then gdaladdo's overviews). */
export function rasterMbtiles(dir: string, name: string, rgb: [number, number, number], area = AREA, levels = ['2', '4', '8']): string {
  const tif = cog(dir, `${name}-src`, 3857, rgb, 512, 'LZW', area);
  const out = join(dir, `${name}.mbtiles`);
  run('gdal_translate', ['-q', tif, '-of', 'MBTiles', '-co', 'TILE_FORMAT=PNG', out]);
  run('gdaladdo', ['-q', '-r', 'nearest', out, ...levels]);
  return out;
}

/** A GeoJSON of the overlay's features (a road, a drain, a pond, a well) inside `area`. */
export function overlayGeojson(dir: string, name = 'drains', area = AREA): string {
  const file = join(dir, `${name}.geojson`);
  writeFileSync(file, JSON.stringify(overlayCollection(area)));
  return file;
}

export function overlayCollection(area = AREA) {
  const { west: w, south: s, east: e, north: n } = area;
  // Placed by fractions of the area: a road across it, a drain down it, a pond right of the middle and low (clear
  // of the app's panels on the left), a well near the north-east corner.
  const at = (fx: number, fy: number) => [w + (e - w) * fx, s + (n - s) * fy];
  return {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', properties: { name: 'Camino de la Vega', kind: 'road' }, geometry: { type: 'LineString', coordinates: [at(0.05, 0.5), at(0.95, 0.5)] } },
      { type: 'Feature', properties: { name: 'Acequia', kind: 'drain' }, geometry: { type: 'LineString', coordinates: [at(0.5, 0.05), at(0.5, 0.95)] } },
      { type: 'Feature', properties: { name: 'Balsa', kind: 'pond' }, geometry: { type: 'Polygon', coordinates: [[at(0.6, 0.2), at(0.75, 0.2), at(0.75, 0.35), at(0.6, 0.35), at(0.6, 0.2)]] } },
      { type: 'Feature', properties: { name: 'Pozo', kind: 'well' }, geometry: { type: 'Point', coordinates: at(0.85, 0.85) } },
      { type: 'Feature', properties: { name: 'Sin forma' }, geometry: null },
    ],
  };
}

/** The overlay written by ogr2ogr as each vector format the app takes; the Shapefile zipped, the KML also as a KMZ. */
export function overlays(dir: string): { geojson: string; kml: string; kmz: string; shp: string; gpkg: string } {
  const geojson = overlayGeojson(dir);
  const kml = join(dir, 'drains.kml');
  run('ogr2ogr', ['-f', 'KML', kml, geojson]);
  const kmz = join(dir, 'drains.kmz');
  writeFileSync(kmz, zipSync({ 'doc.kml': readFileSync(kml) }));
  const shpDir = join(dir, 'drains-shp');
  mkdirSync(shpDir, { recursive: true });
  // One shapefile per geometry type: the lines.
  run('ogr2ogr', ['-f', 'ESRI Shapefile', shpDir, geojson, '-nln', 'drains', '-where', "kind IN ('road', 'drain')"]);
  const entries: Record<string, Uint8Array> = {};
  for (const f of readdirSync(shpDir)) entries[f] = readFileSync(join(shpDir, f));
  const shp = join(dir, 'drains.zip');
  writeFileSync(shp, zipSync(entries));
  const gpkg = join(dir, 'drains.gpkg');
  run('ogr2ogr', ['-f', 'GPKG', gpkg, geojson, '-nln', 'drains']);
  return { geojson, kml, kmz, shp, gpkg };
}

/** A vector MBTiles (MVT, gzipped, as ogr2ogr writes it) of the overlay, zooms 8 to 14. */
export function vectorMbtiles(dir: string, name = 'roads', area = AREA): string {
  const out = join(dir, `${name}.mbtiles`);
  run('ogr2ogr', ['-f', 'MBTiles', out, overlayGeojson(dir, `${name}-src`, area), '-nln', 'roads', '-dsco', 'MINZOOM=8', '-dsco', 'MAXZOOM=14']);
  return out;
}

/** Every tile of an MBTiles file, in XYZ (rows flipped from TMS), as stored. */
export function mbtilesTiles(file: string): { z: number; x: number; y: number; data: Buffer }[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT zoom_level AS z, tile_column AS x, tile_row AS r, tile_data AS data FROM tiles').all() as { z: number; x: number; r: number; data: Buffer }[])
      .map((t) => ({ z: t.z, x: t.x, y: 2 ** t.z - 1 - t.r, data: t.data }));
  } finally {
    db.close();
  }
}

/** A PMTiles v3 archive of the tiles of an MBTiles file GDAL wrote (raster PNG, or MVT kept gzipped). */
export function pmtilesFrom(mbtiles: string, out: string, vector: boolean, area = AREA): string {
  const tiles = mbtilesTiles(mbtiles);
  const zooms = tiles.map((t) => t.z);
  writePmtiles(out, {
    tileType: vector ? 1 : 2, tileCompression: vector ? 2 : 1, minZoom: Math.min(...zooms), maxZoom: Math.max(...zooms),
    bounds: [area.west, area.south, area.east, area.north], metadata: { name: vector ? 'Roads (PMTiles)' : 'Orthophoto (PMTiles)', attribution: '© Test fixtures' },
  }, tiles);
  return out;
}
