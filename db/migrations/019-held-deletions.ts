import type { Database } from 'better-sqlite3';

// The deletions the account's last pull held back (more than a fifth of a farm, or of the account, at once: docs/sync.md
// "What a pull never deletes"), by the service's ids. Before, the pull kept its change cursor before them so that the
// next pull would read them again, and with them every change since, pull after pull (a full listing, every minute in
// the app, when they came from one); kept here, the cursor moves on and each pull weighs them again with what is new.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE held_deletions (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      entity TEXT NOT NULL CHECK (entity IN ('farm', 'parcel')),
      server_id INTEGER NOT NULL,
      PRIMARY KEY (account_id, entity, server_id)
    ) WITHOUT ROWID;
  `);
}
