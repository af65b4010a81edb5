import type { Database } from 'better-sqlite3';

// Two indexes that answer the app's counts of parcels without reading the parcels' rows (each about 2 KB: their
// GeoJSON). With a million parcels the farm list's totals (db/reader.ts accountFarmTotals) and the status counts'
// synced parcels (status) each read the whole 2.3 GB table, one to three seconds of the host's thread apiece, at
// the app's start and after every change — most of the map's first paint.
// - parcels_farm now holds each parcel's deleted flag and hectares after its farm: a farm's count and hectares are
//   read from it alone. Its farm prefix serves every use of the index it replaces (a farm's parcels, the cascade).
// - parcels_synced: the live parcels the service has (deleted = 0, server_id set), by account; counting them reads
//   this index alone (the flag and the id are columns of it too: SQLite counts on a partial index alone only when
//   every column the query names is in it).
export function up(db: Database): void {
  db.exec(`
    DROP INDEX parcels_farm;
    CREATE INDEX parcels_farm ON parcels(farm_local_id, deleted, hectares);
    CREATE INDEX parcels_synced ON parcels(account_id, deleted, server_id) WHERE deleted = 0 AND server_id IS NOT NULL;
  `);
}
