// A GeoPackage's features (OGC GeoPackage 1.3), read as GeoJSON features for a vector overlay: every table
// gpkg_contents lists as features, its geometry column (gpkg_geometry_columns) decoded from GeoPackage's blob
// (core/geo/wkb.ts), its other columns as properties. The file is the user's: opened read-only, its schema untrusted
// (db/mbtiles.ts openUntrusted). Each table's CRS is said by its EPSG code, for the caller to reproject (a table in
// a CRS of another authority is refused, naming it).
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

/**
 * The EPSG code of a table's SRS: null for WGS84 longitude/latitude (4326, and GeoPackage's own -1 and 0, "undefined",
 * taken as given); a GeoPackageError for one of another authority.
 */
function epsgOf(db: Database.Database, srsId: number, what: string): number | null {
  if (srsId === 4326 || srsId === 0 || srsId === -1) return null;
  const row = db.prepare('SELECT organization, organization_coordsys_id AS code, srs_name FROM gpkg_spatial_ref_sys WHERE srs_id = ?').get(srsId) as
    { organization: string | null; code: number | null; srs_name: string | null } | undefined;
  if (row && String(row.organization).toUpperCase() === 'EPSG' && Number.isInteger(row.code)) return row.code === 4326 ? null : row.code;
  const named = row ? `${row.organization ?? ''}:${row.code ?? srsId}${row.srs_name ? ` (${row.srs_name})` : ''}` : `SRS ${srsId}`;
  throw new GeoPackageError(`${what} is in ${named}, a coordinate system without an EPSG code; reproject it to EPSG:4326 first (ogr2ogr -t_srs EPSG:4326)`);
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Calls `each` with every feature of the GeoPackage at `file` (row by row: never all of them held here), with its
 * table's name, how many tables there are, and the table's EPSG code (null: WGS84); returns the tables read.
 * GeoPackageError when it has no features, or a table's CRS has no EPSG code.
 */
export function readGeoPackage(file: string, fileName: string, each: (f: GpkgFeature, table: string, tables: number, epsg: number | null) => void): string[] {
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
      const epsg = epsgOf(db, col.srs, `${fileName}: ${table}`);
      for (const row of db.prepare(`SELECT * FROM ${quoted(table)}`).iterate() as Iterable<Record<string, unknown>>) {
        const properties: GpkgFeature['properties'] = {};
        let geometry: Geometry | null = null;
        for (const [k, v] of Object.entries(row)) {
          if (k === col.name) {
            if (v instanceof Uint8Array) geometry = readGpkgGeometry(v).geometry;
          } else if (typeof v === 'string' || typeof v === 'number' || v === null) properties[k] = v;
          else if (typeof v === 'bigint') properties[k] = Number(v);
        }
        each({ type: 'Feature', properties, geometry }, table, tables.length, epsg);
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
