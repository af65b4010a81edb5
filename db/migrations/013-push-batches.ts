import type { Database } from 'better-sqlite3';

// `push_batches`: a batch of parcel creates marked in flight as one row, instead of one write to each of its ≤ 50
// outbox rows (db/batch-marks.ts). A row here means: the request of these ops may have left, so after a crash they
// are reconciled, never resent. Its ops keep state 'queued' until their answer is booked (then 'committed', with the
// batch's id, attempt and send time written into each) or anything else looks at them (then the mark is written
// into each op, exactly as a per-op mark would have been, and the row goes).
export function up(db: Database): void {
  db.exec(`CREATE TABLE push_batches (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    ops TEXT NOT NULL,
    sent_at TEXT NOT NULL
  ) STRICT;`);
}
