// The store the service tests run against, chosen here and nowhere else: a fresh SQLite file, or, in the test run's
// `postgres` project (vitest.config.ts, FURROW_TEST_STORE=postgres), a fresh PostgreSQL database of the throwaway
// cluster — the whole service suite runs on both, unchanged, through the Store interface.
//
// The probe reads what no domain method does (row counts, whole tables), for tests that check a refused request
// wrote nothing at all. Each store has its own; the SQLite one is the only SQL of the service's tests outside
// service/store/sqlite/.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { dbFile } from '../../service/config.ts';
import { openSqliteStore, type Db } from '../../service/store/sqlite/index.ts';
import { openPgStore } from '../../service/store/postgres/index.ts';
import type { Store } from '../../service/store/store.ts';
import { createTestDatabase, createTestDatabaseSync } from './postgres.ts';

export type StoreKind = 'sqlite' | 'postgres';

/** The store this test run is about: the postgres project sets FURROW_TEST_STORE. */
export const TEST_STORE: StoreKind = process.env.FURROW_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * A PostgreSQL store's address is kept in its data directory, so that whatever else the test starts on that
 * directory (a service process, the service CLI, a second store) reaches the same database.
 */
const URL_FILE = '.database-url';

/**
 * What a service process or the service CLI on `dir` needs in its environment: DATA_DIR, and on PostgreSQL the
 * DATABASE_URL of the directory's database (a new one for a directory the run has not met).
 */
export function dataDirEnv(dir: string): Record<string, string> {
  const file = join(dir, URL_FILE);
  if (TEST_STORE === 'postgres' && !existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, createTestDatabaseSync());
  }
  return existsSync(file) ? { DATA_DIR: dir, DATABASE_URL: readFileSync(file, 'utf8') } : { DATA_DIR: dir };
}

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

/**
 * A fresh, empty store keeping its data in `dir` (a new temporary directory of the caller's): the run's kind, or the
 * one asked for (a conformance test's SQLite side).
 */
export async function openTestStore(dir: string, kind: StoreKind = TEST_STORE): Promise<TestStore> {
  if (kind === 'postgres') {
    const db = await createTestDatabase();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, URL_FILE), db.url);
    const store = await openPgStore(db.url, { max: 4 });
    return { store, probe: pgProbe(store.pool), sqlite: undefined };
  }
  // NORMAL: a test survives a process crash without it; FULL's fsync per commit would only slow the suite down.
  const store = openSqliteStore(dbFile(dir), { synchronous: 'NORMAL' });
  return { store, probe: sqliteProbe(store.db), sqlite: store.db };
}

/** An existing data directory's store (tests that reach a service running in another process). */
export async function openDataDirStore(dir: string): Promise<Store> {
  const env = dataDirEnv(dir);
  if (env.DATABASE_URL) return openPgStore(env.DATABASE_URL, { max: 2 });
  // A data directory the run's PostgreSQL has not met yet: its database, which a service started on it will use.
  if (TEST_STORE === 'postgres') return (await openTestStore(dir)).store;
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

const PG_DATA_TABLES = ['organizations', 'accounts', 'farms', 'parcels', 'crops', 'crop_families', 'plants'] as const;

/** The same probe over PostgreSQL: its tables have no rowid, so rows come in key order. */
function pgProbe(pool: pg.Pool): StoreProbe {
  const order: Record<string, string> = { organizations: 'id', accounts: 'id', api_keys: 'id', signing_keys: 'seq', settings: 'key', crop_families: 'id' };
  /**
   * Each table's stored columns, asked of information_schema once per probe: the store is migrated before its probe
   * exists. Asked at every snapshot (bad-input.test.ts takes two a request), the ten catalogue queries were most of
   * the PostgreSQL project's bad-input time.
   */
  const columns = new Map<string, Promise<string[]>>();
  const columnsOf = (t: string): Promise<string[]> => {
    let cols = columns.get(t);
    if (!cols) {
      cols = pool.query<{ c: string }>(`SELECT column_name AS c FROM information_schema.columns WHERE table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`, [t])
        .then((r) => r.rows.map((row) => row.c));
      columns.set(t, cols);
      cols.catch(() => columns.delete(t));
    }
    return cols;
  };
  return {
    async counts() {
      const out: Record<string, number> = {};
      for (const t of PG_DATA_TABLES) out[t] = (await pool.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${t}`)).rows[0]!.n;
      return out;
    },
    async snapshot() {
      const out: Record<string, unknown[]> = {};
      for (const t of [...PG_DATA_TABLES, 'api_keys', 'signing_keys', 'settings']) {
        const cols = await columnsOf(t);
        out[t] = (await pool.query(`SELECT ${cols.join(', ')} FROM ${t} ORDER BY ${order[t] ?? 'organization_id, id'}`)).rows;
      }
      return out;
    },
  };
}
