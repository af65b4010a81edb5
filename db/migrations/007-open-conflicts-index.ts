import type { Database } from 'better-sqlite3';

// Open conflicts by item: the map asks, for every parcel it draws, whether it has an unresolved conflict
// (db/reader.ts openState). Resolved conflicts stay as history and only grow, so without this each parcel of a
// viewport would scan all of them.
export function up(db: Database): void {
  db.exec('CREATE INDEX conflicts_open ON conflicts(entity, local_id) WHERE resolved IS NULL;');
}
