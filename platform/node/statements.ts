// Hot paths (bulk create, listings, the sync loop) prepare the same SQL thousands of times a second: one prepared
// statement per connection and text, for the service's store and the mirror alike. Re-preparing per row was the
// largest single cost of a bulk create.

import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';

// Per connection, and gone with it: a statement belongs to the handle that prepared it.
const statements = new WeakMap<Database.Database, Map<string, Statement>>();

export function cachedStatement(db: Database.Database, sql: string): Statement {
  let byDb = statements.get(db);
  if (!byDb) statements.set(db, (byDb = new Map()));
  let stmt = byDb.get(sql);
  if (!stmt) byDb.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}
