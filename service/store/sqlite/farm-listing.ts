// GET /api/farms/{id}/parcels/ as a stream: the listing a client reads after a 504 to learn whether its batch
// committed, so it must work at any size. It was one SQLite string: 268 MB and 3 s of a blocked event loop at
// 556 k parcels, SQLITE_TOOBIG (a 500) past ~1 GB of JSON.
//
// - Memory is bounded: parcels are read by id in keyset chunks of about CHUNK_BYTES, and the next chunk is read
//   only when the socket has taken the previous one (stream backpressure).
// - Other requests are not blocked: each chunk is read in its own turn of the event loop (setImmediate), a few
//   milliseconds of SQLite at most.
// - The listing is one consistent snapshot: a read transaction on a read-only connection of its own (WAL: readers
//   never block the writer, nor it them). A batch committing mid-listing is in it entirely or not at all (it is
//   not: the snapshot predates it), a farm deleted mid-listing is still listed whole, and `count` always equals
//   the features listed. The price: while a listing is open the WAL cannot be checkpointed past its snapshot, so
//   a client that stops reading is cut off (the route's stall timeout) rather than allowed to pin the WAL.
import Database from 'better-sqlite3';
import { Readable } from 'node:stream';
import type { Db } from './db.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { visibleFarm } from './parcels.ts';
import type { Scope } from '../scope.ts';

/** About this much JSON per turn of the event loop (~50 parcels of 40 vertices, well under a millisecond): small chunks stay in the CPU cache and the young generation, and measured as fast as one big string. */
export const CHUNK_BYTES = 64 * 1024;
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

export interface FarmListingPage {
  /** One page of at most this many parcels, with `next`; without it, every parcel and `next: null`. */
  limit?: number;
  /** Only parcels with a greater id. */
  after?: number;
}

/**
 * Opens the listing: checks the farm is visible inside the snapshot (404 before anything is sent) and returns the
 * body as a stream. Destroying the stream (the route does when the response closes) ends the snapshot.
 */
export function farmParcelsStream(db: Db, scope: Scope, farmId: number, page: FarmListingPage, nextUrl: (after: number) => string): Readable {
  const reader = snapshotReader(db);
  try {
    if (reader !== db) reader.exec('BEGIN');
    visibleFarm(reader, scope, farmId); // the first read: the snapshot starts here
    const total = (cachedStatement(reader, 'SELECT parcel_count FROM farms WHERE id = ?').get(farmId) as { parcel_count: number }).parcel_count;
    return new FarmParcels(reader, reader !== db, farmId, page, total, nextUrl);
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

class FarmParcels extends Readable {
  private after: number;
  private listed = 0;
  private started = false;
  private done = false;
  private scheduled = false;
  private readonly chunk;

  constructor(
    private readonly reader: Db,
    private readonly owned: boolean,
    private readonly farmId: number,
    private readonly page: FarmListingPage,
    private readonly total: number,
    private readonly nextUrl: (after: number) => string,
  ) {
    super({ highWaterMark: CHUNK_BYTES });
    this.after = page.after ?? 0;
    this.chunk = reader.prepare(CHUNK_SQL).raw();
  }

  override _read(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not nextTick: the turn ends and other requests' I/O runs between two chunks.
    setImmediate(() => {
      this.scheduled = false;
      if (this.destroyed) return;
      try {
        this.push(this.readChunk());
        if (this.done) this.push(null);
      } catch (err) {
        this.destroy(err as Error);
      }
    });
  }

  /** The next piece of the body: the head, up to CHUNK_BYTES of features, and the tail once the last is read. */
  private readChunk(): string {
    const parts: string[] = [];
    if (!this.started) {
      this.started = true;
      parts.push('{"type":"FeatureCollection","features":[');
    }
    const left = this.page.limit === undefined ? Infinity : this.page.limit - this.listed;
    const ask = Math.min(CHUNK_ROWS, left);
    let bytes = 0;
    let rows = 0;
    if (ask > 0) {
      for (const [id, feature] of this.chunk.iterate(this.farmId, this.after, ask) as Iterable<[number, string]>) {
        parts.push(this.listed + rows === 0 ? feature : `,${feature}`);
        this.after = id;
        rows++;
        bytes += feature.length;
        if (bytes >= CHUNK_BYTES) break;
      }
    }
    this.listed += rows;
    const pageFull = this.listed === this.page.limit;
    if (pageFull || (rows < ask && bytes < CHUNK_BYTES)) {
      parts.push(this.tail(pageFull));
      this.done = true;
    }
    return parts.join('');
  }

  private tail(pageFull: boolean): string {
    let next: string | null = null;
    if (pageFull && cachedStatement(this.reader, 'SELECT 1 FROM parcels WHERE farm_id = ? AND id > ? LIMIT 1').get(this.farmId, this.after)) {
      next = this.nextUrl(this.after);
    }
    // A page counts every parcel of the farm (as GET /api/parcels/ counts all matches); the whole listing counts
    // what it listed, which inside the snapshot is the same number.
    const count = this.page.limit === undefined && this.page.after === undefined ? this.listed : this.total;
    return `],"count":${count},"next":${next === null ? 'null' : JSON.stringify(next)}}`;
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (this.owned && this.reader.open) this.reader.close();
    cb(err);
  }
}
