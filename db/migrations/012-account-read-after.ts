import type { Database } from 'better-sqlite3';

// `read_after`: what the account's reads must come after on a service that reads from a standby (sync/read-after.ts,
// docs/sync.md): the highest WAL position its writes were answered with, and when a write of it last went unanswered,
// as JSON. Kept in the mirror so that the next process (a CLI `pull` after a CLI `push`) reads after this one's writes.
// Null: nothing written yet, or a mirror of version 11.
export function up(db: Database): void {
  db.exec('ALTER TABLE accounts ADD COLUMN read_after TEXT;');
}
