// The store the service tests run against, chosen here and nowhere else: a fresh SQLite file today. The next store
// (PostgreSQL) is added here, and the whole service suite then runs on it unchanged, through the Store interface.
//
// The probe reads what no domain method does (row counts, whole tables), for tests that check a refused request
// wrote nothing at all. Each store has its own; the SQLite one is the only SQL of the service's tests outside
// service/store/sqlite/.
import { dbFile } from '../../service/config.ts';
import { openSqliteStore, type Db } from '../../service/store/sqlite/index.ts';
import type { Store } from '../../service/store/store.ts';

export interface StoreProbe {
  /** Row counts of every data table (named as the store names them): a refused request leaves them all as they were. */
  counts(): Promise<Record<string, number>>;
  /** Every row of every data table in a stable order: that nothing at all changed, finer than counts. */
  snapshot(): Promise<Record<string, unknown[]>>;
}

export interface TestStore {
  store: Store;
  probe: StoreProbe;
  /** The database under a SQLite store, for the tests about SQLite itself; undefined on any other store. */
  sqlite: Db | undefined;
}

/** A fresh, empty store keeping its data in `dir` (a new temporary directory of the caller's). */
export async function openTestStore(dir: string): Promise<TestStore> {
  // NORMAL: a test survives a process crash without it; FULL's fsync per commit would only slow the suite down.
  const store = openSqliteStore(dbFile(dir), { synchronous: 'NORMAL' });
  return { store, probe: sqliteProbe(store.db), sqlite: store.db };
}

/** An existing data directory's store (tests that reach a service running in another process). */
export async function openDataDirStore(dir: string): Promise<Store> {
  return openSqliteStore(dbFile(dir), { synchronous: 'NORMAL' });
}

const DATA_TABLES = ['organizations', 'accounts', 'farms', 'parcels', 'parcels_rtree', 'crops', 'crop_families', 'plants'] as const;

function sqliteProbe(db: Db): StoreProbe {
  return {
    async counts() {
      const out: Record<string, number> = {};
      for (const t of DATA_TABLES) out[t] = (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
      return out;
    },
    async snapshot() {
      const out: Record<string, unknown[]> = {};
      for (const t of [...DATA_TABLES, 'api_keys', 'signing_keys', 'settings']) out[t] = db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all();
      return out;
    },
  };
}
