// Reading an MBTiles file (MBTiles 1.3: a SQLite database with `metadata` name/value rows and a `tiles` table, or
// a view of that shape, keyed by zoom_level, tile_column and tile_row in TMS order — row 0 at the south): a tile by
// its XYZ z/x/y, and the metadata. Opened read-only, so a file the user gave is never changed (nor a -wal or
// -journal made beside it); the minimal reading the map needs of an area kept offline (backend/offline-areas.ts).
import Database from 'better-sqlite3';
import { tmsRow } from '../core/tiles/tile-math.ts';

/** A tile's bytes and what they are, told by their first bytes (MBTiles' `format` is often missing or wrong). */
export interface TileBytes {
  data: Buffer;
  type: string;
}

/** The image type of a tile's bytes, for its Content-Type; octet-stream when not an image the page shows. */
export function tileType(data: Uint8Array): string {
  if (data[0] === 0x89 && data[1] === 0x50 && data[2] === 0x4e && data[3] === 0x47) return 'image/png';
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data[0] === 0x52 && data[1] === 0x49 && data[2] === 0x46 && data[3] === 0x46 && data[8] === 0x57 && data[9] === 0x45 && data[10] === 0x42 && data[11] === 0x50) return 'image/webp';
  return 'application/octet-stream';
}

export class MbtilesReader {
  private readonly db: Database.Database;
  private readonly tileStmt: Database.Statement<[number, number, number], Buffer>;

  constructor(readonly file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    this.tileStmt = this.db.prepare<[number, number, number], Buffer>('SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?').pluck();
  }

  /** The tile at XYZ z/x/y (row 0 at the north), or null when the file has none there. */
  tile(z: number, x: number, y: number): TileBytes | null {
    if (!Number.isInteger(z) || z < 0 || z > 30 || !Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= 2 ** z || y >= 2 ** z) return null;
    const data = this.tileStmt.get(z, x, tmsRow(z, y));
    return data ? { data, type: tileType(data) } : null;
  }

  /** The metadata table's names and values (an empty object when the file has none). */
  metadata(): Record<string, string> {
    const has = this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'metadata' AND type IN ('table', 'view')").get();
    if (!has) return {};
    const rows = this.db.prepare('SELECT name, value FROM metadata').all() as { name: unknown; value: unknown }[];
    const out: Record<string, string> = {};
    for (const r of rows) if (typeof r.name === 'string') out[r.name] = String(r.value ?? '');
    return out;
  }

  close(): void {
    this.db.close();
  }
}
