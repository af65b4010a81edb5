// A farm's parcels listed from one PostgreSQL snapshot (../farm-listing.ts turns it into the response body), as the
// SQLite store's listing (../sqlite/farm-listing.ts):
// - The snapshot is a REPEATABLE READ, READ ONLY transaction on a pooled client of its own, held until close(): it
//   blocks no writer, and a batch committing meanwhile is in the listing entirely or not at all.
// - Each chunk is one keyset read (id > the last one listed) of about CHUNK_BYTES of features, the number of rows
//   asked for following the size of the rows read so far. The features are parcelFeatureJson's text, so the body
//   is the SQLite store's byte for byte (PostgreSQL prints a double in its shortest exact form, as JavaScript does).
// - The price: the client is out of the pool while the listing is open, and the server ends a transaction left idle
//   past the pool's idle_in_transaction timeout (a client that stops reading), as SQLite's listing is cut off by the
//   route's stall timeout.
import type pg from 'pg';
import type { Pool } from 'pg';
import type { Scope } from '../scope.ts';
import { CHUNK_BYTES, type FarmListingPage, type FarmParcelListing, type FeatureChunk } from '../farm-listing.ts';
import { parcelFeatureJson, type ParcelRow } from '../parcel-json.ts';
import { PARCEL_COLUMNS, visibleFarm } from './farm-scope.ts';

/** Rows asked for per chunk at most (small parcels), and at first, before any row's size is known. */
const CHUNK_ROWS = 4096;
const FIRST_ROWS = 64;

const CHUNK_SQL = `SELECT ${PARCEL_COLUMNS} FROM parcels p WHERE p.organization_id = $1 AND p.farm_id = $2 AND p.id > $3 ORDER BY p.id LIMIT $4`;
/**
 * Rows are read this many chunks ahead: each query is a round trip to the server and back, and a 10,000-parcel
 * listing in 64 KiB chunks would otherwise take ~300 of them. (Not a named prepared statement: the store keeps no
 * session state, so that a transaction-mode pooler such as PgBouncer fits, docs/deploy.md.)
 */
const READ_AHEAD = 8;

/**
 * Opens the listing: checks the farm is visible inside the snapshot (404 before anything is sent) and reads its
 * parcel count there. close() ends the snapshot and gives the client back.
 */
export async function pgOpenFarmParcelListing(pool: Pool, scope: Scope, farmId: number, page: FarmListingPage): Promise<FarmParcelListing> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await visibleFarm(client, scope, farmId); // the first read: the snapshot starts here
    const t = await client.query<{ parcel_count: number }>('SELECT parcel_count FROM farms WHERE organization_id = $1 AND id = $2',
      [scope.organizationId, farmId]);
    return new FarmParcels(client, scope.organizationId, farmId, page, t.rows[0]!.parcel_count);
  } catch (err) {
    await client.query('ROLLBACK').then(() => client.release(), (e: unknown) => client.release(e as Error));
    throw err;
  }
}

class FarmParcels implements FarmParcelListing {
  private after: number;
  private listed = 0;
  private done = false;
  private closed = false;
  /** The mean size of a feature so far, to size the next read. */
  private bytesPerRow = 0;
  /** Rows read ahead, not yet given out, and whether the last read reached the end. */
  private ahead: ParcelRow[] = [];
  private aheadEnds = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly organizationId: string,
    private readonly farmId: number,
    private readonly page: FarmListingPage,
    readonly total: number,
  ) {
    this.after = page.after ?? 0;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<FeatureChunk> {
    while (!this.done) yield await this.readChunk();
  }

  /** About CHUNK_BYTES of features; the last chunk says so (a short read, or the page full). */
  private async readChunk(): Promise<FeatureChunk> {
    if (this.closed) throw new Error('The farm listing is closed');
    const left = this.page.limit === undefined ? Infinity : this.page.limit - this.listed;
    const sized = this.bytesPerRow ? Math.ceil(CHUNK_BYTES / this.bytesPerRow) : FIRST_ROWS;
    const ask = Math.max(0, Math.min(CHUNK_ROWS, sized, left));
    const parts: string[] = [];
    let bytes = 0;
    if (ask > 0 && this.ahead.length < ask && !this.aheadEnds) {
      // The first read is small (row sizes unknown yet); later ones READ_AHEAD chunks' worth, never past the page.
      const want = Math.min(this.bytesPerRow ? ask * READ_AHEAD : ask, left) - this.ahead.length;
      const lastId = this.ahead.length ? this.ahead[this.ahead.length - 1]!.id : this.after;
      const r = await this.client.query<ParcelRow>(CHUNK_SQL, [this.organizationId, this.farmId, lastId, want]);
      this.ahead.push(...r.rows);
      this.aheadEnds = r.rows.length < want;
    }
    const rows = this.ahead.splice(0, ask);
    for (const row of rows) {
      const feature = parcelFeatureJson(row);
      parts.push(feature);
      bytes += feature.length;
      this.after = row.id;
    }
    if (parts.length) this.bytesPerRow = Math.max(1, bytes / parts.length);
    this.listed += parts.length;
    this.done = this.listed === this.page.limit || ask === 0 || (parts.length < ask && this.aheadEnds);
    return { json: parts.join(','), count: parts.length, lastId: this.after, last: this.done };
  }

  async hasAfter(id: number): Promise<boolean> {
    const r = await this.client.query('SELECT 1 FROM parcels WHERE organization_id = $1 AND farm_id = $2 AND id > $3 LIMIT 1',
      [this.organizationId, this.farmId, id]);
    return (r.rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    this.done = true;
    if (this.closed) return;
    this.closed = true;
    // Nothing was written: ROLLBACK ends the snapshot. A client that cannot (its connection gone) is not reused.
    await this.client.query('ROLLBACK').then(() => this.client.release(), (e: unknown) => this.client.release(e as Error));
  }
}
