import type { Database } from 'better-sqlite3';

// `change_cursor`: where the account's next pull resumes the service's change feed (GET /api/changes/, docs/sync.md
// "Incremental pulls"), as the service gave it, opaque. Null: the next pull lists everything (a mirror of version 8,
// an account never pulled, a service without the feed, or a feed that refused the cursor).
export function up(db: Database): void {
  db.exec('ALTER TABLE accounts ADD COLUMN change_cursor TEXT;');
}
