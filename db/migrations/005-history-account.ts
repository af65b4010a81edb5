import type { Database } from 'better-sqlite3';

// `history.account_id`: undo and redo are per account (a consultant's undo in one customer's account must not
// reach into another's). An edit changes rows of one account; entries written under version 4 get the account of
// their first change (its recorded row, or the row itself for a bulk create recorded by id only).
export function up(db: Database): void {
  db.exec(`ALTER TABLE history ADD COLUMN account_id TEXT;
    UPDATE history SET account_id = COALESCE(
      json_extract(changes, '$[0].before.account_id'),
      json_extract(changes, '$[0].after.account_id'),
      (SELECT account_id FROM parcels WHERE local_id = json_extract(history.changes, '$[0].local_id')),
      (SELECT account_id FROM farms WHERE local_id = json_extract(history.changes, '$[0].local_id')),
      (SELECT account_id FROM crops WHERE local_id = json_extract(history.changes, '$[0].local_id')));
    CREATE INDEX history_account ON history(account_id, undone, id);`);
}
