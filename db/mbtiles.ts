// An MBTiles file (https://github.com/mapbox/mbtiles-spec, 1.3) read for the map: its metadata, and one tile at a
// time by its XYZ address (MBTiles rows count from the south: TMS) — a file the user opened as a layer
// (backend/layer-files.ts) or one the host wrote for an area kept offline (backend/offline-tiles.ts). The file is the user's, so it is opened
// read-only, its schema untrusted (a view or trigger in it runs no function with side effects), and a damaged file
// fails a read, never the host. Vector tiles stored gzipped (as tippecanoe and GDAL write them) are answered
// gunzipped: the page's MVT reader takes plain protobuf, and a header saying gzip would not cross Electron's path.
import Database from 'better-sqlite3';
import { gunzipSync } from 'node:zlib';
import type { TileExt } from '../core/layers/layer-files.ts';

/** The largest tile answered once gunzipped (a real vector tile is well under 1 MB; more is a bomb). */
const MAX_TILE_BYTES = 16 * 1024 * 1024;

export interface MbtilesMeta {
  name: string | null;
  /** The tiles' type: from the metadata's `format`, or told by the first tile's bytes. */
  type: TileExt;
  /** [west, south, east, north], WGS84. */
  bounds: [number, number, number, number] | null;
  minZoom: number | null;
  maxZoom: number | null;
  attribution: string | null;
}

/** Not an MBTiles file, or one that cannot be read: the message says why. */
export class MbtilesError extends Error {}

const FORMATS: Record<string, TileExt> = { png: 'png', jpg: 'jpg', jpeg: 'jpg', webp: 'webp', pbf: 'pbf', mvt: 'pbf' };

/** A tile's type by its first bytes; null when none of the four. */
export function tileTypeOf(b: Uint8Array): TileExt | null {
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpg';
  if (b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') return 'webp';
  if (b[0] === 0x1f && b[1] === 0x8b) return 'pbf';
  // A protobuf message's first byte is a field key: field 3 (a layer), wire type 2.
  if (b[0] === 0x1a) return 'pbf';
  return null;
}

/** A tile's Content-Type by its first bytes: an image the page shows, a vector tile, or octet-stream for neither. */
export function tileContentType(b: Uint8Array): string {
  const t = tileTypeOf(b);
  return t === 'png' ? 'image/png' : t === 'jpg' ? 'image/jpeg' : t === 'webp' ? 'image/webp' : t === 'pbf' ? 'application/x-protobuf' : 'application/octet-stream';
}

/** Whether a tile's bytes are an image (PNG, JPEG or WebP): what a raster tile server must answer. */
export const isImageTile = (b: Uint8Array): boolean => tileContentType(b).startsWith('image/');

/** Whether an SQLite file is a GeoPackage (its application id, 'GPKG', or its contents table). */
export function isGeoPackage(file: string): boolean {
  const db = openUntrusted(file);
  try {
    const id = db.pragma('application_id', { simple: true }) as number;
    return id === 0x47504b47 || tableExists(db, 'gpkg_contents');
  } finally {
    db.close();
  }
}

/** A user's SQLite file, read-only, its schema untrusted. */
export function openUntrusted(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('trusted_schema = OFF');
    db.pragma('query_only = ON');
    db.pragma('cell_size_check = ON');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

const tableExists = (db: Database.Database, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_schema WHERE name = ? AND type IN ('table', 'view')").get(name) !== undefined;

export class MbtilesReader {
  private readonly db: Database.Database;
  private readonly get: Database.Statement<[number, number, number], { tile_data: Buffer | null }>;

  /** Opens `file`; MbtilesError when it is not an MBTiles file (no tiles table or view). */
  constructor(readonly file: string) {
    let db: Database.Database;
    try {
      db = openUntrusted(file);
    } catch (err) {
      throw new MbtilesError(`it cannot be read as SQLite: ${(err as Error).message}`);
    }
    try {
      if (!tableExists(db, 'tiles')) throw new MbtilesError('it is an SQLite file without the tiles of an MBTiles file');
      this.get = db.prepare('SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?');
    } catch (err) {
      db.close();
      throw err instanceof MbtilesError ? err : new MbtilesError(`its tiles cannot be read: ${(err as Error).message}`);
    }
    this.db = db;
  }

  /** The file's metadata, completed from its tiles where the metadata table lacks a value. */
  meta(): MbtilesMeta {
    try {
      const kv = new Map<string, string>();
      if (tableExists(this.db, 'metadata')) {
        for (const r of this.db.prepare('SELECT name, value FROM metadata').all() as { name: unknown; value: unknown }[]) {
          if (typeof r.name === 'string' && (typeof r.value === 'string' || typeof r.value === 'number')) kv.set(r.name.toLowerCase(), String(r.value));
        }
      }
      const first = this.db.prepare('SELECT tile_data FROM tiles LIMIT 1').get() as { tile_data: Buffer | null } | undefined;
      if (!first?.tile_data) throw new MbtilesError('it holds no tiles');
      const type = FORMATS[kv.get('format')?.toLowerCase() ?? ''] ?? tileTypeOf(first.tile_data);
      if (!type) throw new MbtilesError('its tiles are not PNG, JPEG, WebP or vector tiles');
      const zoomOf = (k: string) => {
        const n = Number(kv.get(k));
        return kv.has(k) && Number.isInteger(n) && n >= 0 && n <= 30 ? n : null;
      };
      let [minZoom, maxZoom] = [zoomOf('minzoom'), zoomOf('maxzoom')];
      if (minZoom === null || maxZoom === null) {
        const z = this.db.prepare('SELECT min(zoom_level) AS lo, max(zoom_level) AS hi FROM tiles').get() as { lo: number; hi: number };
        [minZoom, maxZoom] = [minZoom ?? z.lo, maxZoom ?? z.hi];
      }
      return { name: kv.get('name')?.trim() || null, type, bounds: this.bounds(kv.get('bounds'), maxZoom), minZoom, maxZoom, attribution: kv.get('attribution')?.trim().slice(0, 500) || null };
    } catch (err) {
      throw err instanceof MbtilesError ? err : new MbtilesError(`its metadata cannot be read: ${(err as Error).message}`);
    }
  }

  /** The metadata's bounds, or those of the tiles at the deepest zoom. */
  private bounds(text: string | undefined, maxZoom: number): [number, number, number, number] | null {
    const b = text?.split(',').map(Number);
    if (b?.length === 4 && b.every(Number.isFinite) && b[0]! >= -180 && b[2]! <= 180 && b[1]! >= -90 && b[3]! <= 90 && b[0]! < b[2]! && b[1]! < b[3]!) {
      return b as [number, number, number, number];
    }
    const r = this.db.prepare('SELECT min(tile_column) AS x0, max(tile_column) AS x1, min(tile_row) AS r0, max(tile_row) AS r1 FROM tiles WHERE zoom_level = ?').get(maxZoom) as
      { x0: number | null; x1: number | null; r0: number | null; r1: number | null };
    if (r.x0 === null || r.x1 === null || r.r0 === null || r.r1 === null) return null;
    const n = 2 ** maxZoom;
    const lon = (x: number) => (x / n) * 360 - 180;
    const lat = (row: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * (n - row)) / n))) * 180) / Math.PI;
    return [lon(r.x0), lat(r.r0), lon(r.x1 + 1), lat(r.r1 + 1)];
  }

  /** The tile at XYZ z/x/y (gunzipped when stored gzipped), or null when the file has none there. */
  tile(z: number, x: number, y: number): Buffer | null {
    if (!Number.isInteger(z) || z < 0 || z > 30 || !Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= 2 ** z || y >= 2 ** z) return null;
    const row = this.get.get(z, x, 2 ** z - 1 - y);
    const data = row?.tile_data;
    if (!data || !Buffer.isBuffer(data)) return null;
    return data[0] === 0x1f && data[1] === 0x8b ? gunzipSync(data, { maxOutputLength: MAX_TILE_BYTES }) : data;
  }

  close(): void {
    this.db.close();
  }
}
