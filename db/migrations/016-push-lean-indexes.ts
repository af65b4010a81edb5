import type { Database } from 'better-sqlite3';

// Two indexes for what the push writes and reads, per op and per parcel:
// - parcels_synced (migration 011) goes. It counted an account's synced parcels without reading their rows; since
//   migration 014 those counts come from farm_totals, and the one count left on the parcels table (db/pull.ts
//   syncedParcelCount) is answered by the (account_id, server_id) index alone. Every booked parcel of a push still
//   wrote an entry into it: for a push of 20,000 squares about 5 MB more WAL and a tenth of the bookings' CPU.
// - outbox_backoff: the ops waiting out a backoff or a settle time (next_attempt_at set), by account. Each run
//   starts by releasing an account's backoffs (db/sync-state.ts resumeAccount): through outbox_pending that read every
//   queued op's row to look at its next_attempt_at (20,000 queued creates: ~10 ms before the first request could
//   leave); here it finds the few that have one. Kept small: an op gets an entry only while it waits.
export function up(db: Database): void {
  db.exec(`
    DROP INDEX parcels_synced;
    CREATE INDEX outbox_backoff ON outbox(account_id) WHERE next_attempt_at IS NOT NULL;
  `);
}
