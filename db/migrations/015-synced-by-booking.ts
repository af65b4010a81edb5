import type { Database } from 'better-sqlite3';
import { TOTALS_AU_BODY } from './014-farm-totals.ts';

// farm_totals.synced (migration 014) no longer follows server_id through the row trigger alone: parcels_totals_au
// fires on farm_local_id, account_id, hectares and deleted, not on server_id. Booking a push's 201s writes a server id
// into each of 20,000 rows; with the trigger firing on it (even with a WHEN that is always false: SQLite runs the
// trigger's program for every row its column list names) the UPDATEs took ~3.5× as long (a 20,000-square push's
// bookings: 500–600 ms of CPU against ~160 with the count kept per batch, load ~5; bench/sync-push --shape squares).
// Who keeps `synced` exact now:
// - the push's booking (op-transitions.ts bookCreated) adds each batch's newly synced live parcels to their farms'
//   rows, once per farm, in the booking's transaction;
// - every other write of a parcel's server_id goes through rows.ts updateRow, which names `hectares = hectares` beside
//   a server_id written alone, so the trigger fires for it as before (and its WHEN still compares the server ids);
// - inserts and deletes count server_id through their own triggers, unchanged.
// db/migration-015.test.ts compares farm_totals with a recount after each kind of write.
export function up(db: Database): void {
  db.exec(`
    DROP TRIGGER parcels_totals_au;
    CREATE TRIGGER parcels_totals_au AFTER UPDATE OF farm_local_id, account_id, hectares, deleted ON parcels ${TOTALS_AU_BODY}
  `);
}
