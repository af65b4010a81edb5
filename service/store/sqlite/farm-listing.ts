// A farm's parcels listed from one SQLite snapshot (../farm-listing.ts turns it into the response body):
// - The snapshot is a read transaction on a read-only connection of its own (WAL: readers never block the writer,
//   nor it them). The price: while a listing is open the WAL cannot be checkpointed past its snapshot, so a client
//   that stops reading is cut off (the route's stall timeout) rather than allowed to pin the WAL.
// - Each chunk is one synchronous read of about CHUNK_BYTES, by id (keyset), a few milliseconds of SQLite at most.
import Database from 'better-sqlite3';
import type { Db } from './db.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { visibleFarm } from './parcels.ts';
import type { Scope } from '../scope.ts';
import { CHUNK_BYTES, type FarmListingPage, type FarmParcelListing, type FeatureChunk } from '../farm-listing.ts';

/** Rows asked of SQLite per chunk at most (small parcels); the byte bound usually ends a chunk first. */
const CHUNK_ROWS = 4096;

// The same Feature text as parcelFeatureJson, assembled by SQLite: no row objects, no per-column concatenation in
// JS. SQLite's REAL-to-text conversion round-trips (up to 17 significant digits), so every number parses back to
// the very double the JS serializer writes in shortest form.
const FEATURE_SQL = `'{"type":"Feature","id":' || p.id || ',"bbox":[' || CAST(p.minx AS TEXT) || ',' || CAST(p.miny AS TEXT) || ','
  || CAST(p.maxx AS TEXT) || ',' || CAST(p.maxy AS TEXT) || '],"geometry":' || p.geometry || ',"properties":{"key":"' || p.key
  || '","name":' || json_quote(p.name) || ',"farm":' || p.farm_id || ',"hectares":' || CAST(p.hectares AS TEXT) || ',"metadata":' || p.metadata
  || ',"source_type":"' || p.source_type || '","point":' || coalesce(p.point, 'null') || ',"center":[' || CAST((p.minx + p.maxx) / 2 AS TEXT)
  || ',' || CAST((p.miny + p.maxy) / 2 AS TEXT) || '],"created":"' || p.created || '","modified":"' || p.modified || '"}}'`;
const CHUNK_SQL = `SELECT p.id, ${FEATURE_SQL} FROM parcels p WHERE p.farm_id = ? AND p.id > ? ORDER BY p.id LIMIT ?`;

/**
 * Opens the listing: checks the farm is visible inside the snapshot (404 before anything is sent) and reads its
 * parcel count there. close() ends the snapshot.
 */
export function openFarmParcelListing(db: Db, scope: Scope, farmId: number, page: FarmListingPage): FarmParcelListing {
  const reader = snapshotReader(db);
  try {
    if (reader !== db) reader.exec('BEGIN');
    visibleFarm(reader, scope, farmId); // the first read: the snapshot starts here
    const total = (cachedStatement(reader, 'SELECT parcel_count FROM farms WHERE id = ?').get(farmId) as { parcel_count: number }).parcel_count;
    return new FarmParcels(reader, reader !== db, farmId, page, total);
  } catch (err) {
    if (reader !== db) reader.close();
    throw err;
  }
}

/** A read-only connection of its own for a file database; an in-memory one (tests only) has no second connection. */
function snapshotReader(db: Db): Db {
  if (db.memory) return db;
  const reader = new Database(db.name, { readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  return reader;
}

class FarmParcels implements FarmParcelListing {
  private after: number;
  private listed = 0;
  private done = false;
  private readonly chunk;

  constructor(
    private readonly reader: Db,
    private readonly owned: boolean,
    private readonly farmId: number,
    private readonly page: FarmListingPage,
    readonly total: number,
  ) {
    this.after = page.after ?? 0;
    this.chunk = reader.prepare(CHUNK_SQL).raw();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<FeatureChunk> {
    while (!this.done) yield this.readChunk();
  }

  /** Up to CHUNK_BYTES of features; the last chunk says so (a short read, or the page full). */
  private readChunk(): FeatureChunk {
    const parts: string[] = [];
    const left = this.page.limit === undefined ? Infinity : this.page.limit - this.listed;
    const ask = Math.min(CHUNK_ROWS, left);
    let bytes = 0;
    if (ask > 0) {
      for (const [id, feature] of this.chunk.iterate(this.farmId, this.after, ask) as Iterable<[number, string]>) {
        parts.push(feature);
        this.after = id;
        bytes += feature.length;
        if (bytes >= CHUNK_BYTES) break;
      }
    }
    this.listed += parts.length;
    this.done = this.listed === this.page.limit || (parts.length < ask && bytes < CHUNK_BYTES);
    return { json: parts.join(','), count: parts.length, lastId: this.after, last: this.done };
  }

  async hasAfter(id: number): Promise<boolean> {
    return cachedStatement(this.reader, 'SELECT 1 FROM parcels WHERE farm_id = ? AND id > ? LIMIT 1').get(this.farmId, id) !== undefined;
  }

  async close(): Promise<void> {
    this.done = true;
    if (this.owned && this.reader.open) this.reader.close();
  }
}
