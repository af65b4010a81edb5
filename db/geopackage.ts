// A GeoPackage's features (OGC GeoPackage 1.3), read as GeoJSON features for a vector overlay: every table
// gpkg_contents lists as features, its geometry column (gpkg_geometry_columns) decoded from GeoPackage's blob
// (core/geo/wkb.ts), its other columns as properties. The file is the user's: opened read-only, its schema untrusted
// (db/mbtiles.ts openUntrusted). Features in WGS84 longitude/latitude only, as the import takes them: one in another
// CRS is refused, naming it.
import type Database from 'better-sqlite3';
import { openUntrusted } from './mbtiles.ts';
import { readGpkgGeometry, type Geometry } from '../core/geo/wkb.ts';

/** Not a GeoPackage the overlay reads: why, in words. */
export class GeoPackageError extends Error {}

export interface GpkgFeature {
  type: 'Feature';
  properties: Record<string, string | number | null>;
  geometry: Geometry | null;
}

/** SRS ids that are WGS84 longitude/latitude (4326 by EPSG; GeoPackage's own -1/0 "undefined" are taken as given). */
function wgs84(db: Database.Database, srsId: number): string | null {
  const row = db.prepare('SELECT organization, organization_coordsys_id AS code, srs_name FROM gpkg_spatial_ref_sys WHERE srs_id = ?').get(srsId) as
    { organization: string | null; code: number | null; srs_name: string | null } | undefined;
  if (srsId === 4326 || (row && String(row.organization).toUpperCase() === 'EPSG' && row.code === 4326)) return null;
  if (srsId === 0 || srsId === -1) return null;
  return row ? `${row.organization ?? ''}:${row.code ?? srsId}${row.srs_name ? ` (${row.srs_name})` : ''}` : `SRS ${srsId}`;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Calls `each` with every feature of the GeoPackage at `file` (row by row: never all of them held here), with its
 * table's name and how many tables there are; returns the tables read. GeoPackageError when it has no features or they are not in WGS84.
 */
export function readGeoPackage(file: string, fileName: string, each: (f: GpkgFeature, table: string, tables: number) => void): string[] {
  const db = openUntrusted(file);
  try {
    const contents = db.prepare("SELECT table_name AS name, data_type AS kind FROM gpkg_contents").all() as { name: string; kind: string }[];
    const tables = contents.filter((c) => c.kind === 'features').map((c) => c.name);
    if (tables.length === 0) {
      throw new GeoPackageError(contents.some((c) => c.kind === 'tiles' || c.kind === '2d-gridded-coverage')
        ? `${fileName} is a GeoPackage of tiles: the map shows a GeoPackage's features; convert its tiles to MBTiles (gdal_translate -of MBTiles)`
        : `${fileName} is a GeoPackage without features`);
    }
    for (const table of tables) {
      const col = db.prepare('SELECT column_name AS name, srs_id AS srs FROM gpkg_geometry_columns WHERE table_name = ?').get(table) as { name: string; srs: number } | undefined;
      if (!col) throw new GeoPackageError(`${fileName}: the table ${table} has no geometry column`);
      const crs = wgs84(db, col.srs);
      if (crs) throw new GeoPackageError(`${fileName}: ${table} is in ${crs}, not WGS84 longitude/latitude; reproject it to EPSG:4326 first (ogr2ogr -t_srs EPSG:4326)`);
      for (const row of db.prepare(`SELECT * FROM ${quoted(table)}`).iterate() as Iterable<Record<string, unknown>>) {
        const properties: GpkgFeature['properties'] = {};
        let geometry: Geometry | null = null;
        for (const [k, v] of Object.entries(row)) {
          if (k === col.name) {
            if (v instanceof Uint8Array) geometry = readGpkgGeometry(v).geometry;
          } else if (typeof v === 'string' || typeof v === 'number' || v === null) properties[k] = v;
          else if (typeof v === 'bigint') properties[k] = Number(v);
        }
        each({ type: 'Feature', properties, geometry }, table, tables.length);
      }
    }
    return tables;
  } catch (err) {
    if (err instanceof GeoPackageError) throw err;
    throw new GeoPackageError(`${fileName} cannot be read as a GeoPackage: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}
