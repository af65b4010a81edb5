// The SQLite store: what the rest of the service opens (through ../open.ts), and the SQLite-only parts its own tests
// and the benchmarks need. Nothing outside service/store/sqlite/ (and SQLite's tests) imports better-sqlite3 or Db.
import { openDb, type OpenOptions } from './db.ts';
import { startCheckpointer } from '../../../platform/node/checkpointer.ts';
import { sqliteStore, type SqliteStore } from './store.ts';

export { sqliteStore, type SqliteStore } from './store.ts';
export { openDb, migrate, FutureSchemaError, type Db, type OpenOptions } from './db.ts';

export interface SqliteStoreOptions extends OpenOptions {
  /**
   * A long-running service: the WAL is checkpointed by a worker thread off the request thread (checkpointer.ts).
   * Short-lived users (the admin CLI, tests) leave it to SQLite.
   */
  checkpointer?: boolean;
}

/** Opens (creating and migrating) the database file as a Store; store.close() closes it. */
export function openSqliteStore(file: string, opts: SqliteStoreOptions = {}): SqliteStore {
  const db = openDb(file, opts);
  const checkpointer = opts.checkpointer ? startCheckpointer(db, file, opts.synchronous ?? 'FULL') : null;
  return sqliteStore(db, async () => {
    await checkpointer?.close();
    if (db.open) db.close();
  });
}

