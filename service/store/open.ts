// Where the service's store is chosen: PostgreSQL + PostGIS when DATABASE_URL is set (several service processes on
// one database, docs/deploy.md), otherwise the SQLite file in DATA_DIR, the embedded default. Nothing else in the
// service knows which store it has.
import { dbFile, type ServiceConfig } from '../config.ts';
import { openSqliteStore } from './sqlite/index.ts';
import { openPgStore } from './postgres/index.ts';
import type { Store } from './store.ts';
import type { PgStore } from './postgres/index.ts';
import { StandbyReads } from './postgres/standby.ts';

export interface OpenStoreOptions {
  /** For the service itself (long-running: background maintenance such as SQLite's checkpointer), not a CLI command. */
  serving?: boolean;
}

export async function openStore(config: Pick<ServiceConfig, 'dataDir' | 'synchronous' | 'databaseUrl' | 'pgPoolMax'>, opts: OpenStoreOptions = {}): Promise<Store> {
  // A CLI command needs one connection; the service its whole pool.
  if (config.databaseUrl) return openPgStore(config.databaseUrl, { max: opts.serving ? config.pgPoolMax : 2 });
  return openSqliteStore(dbFile(config.dataDir), { synchronous: config.synchronous, checkpointer: opts.serving === true });
}

/**
 * The standby the listings and the embedded map may read from (READ_DATABASE_URL), polled from now on; null without
 * one. Its pool is half the primary's: only the routed reads use it.
 */
export async function openReadReplica(config: Pick<ServiceConfig, 'readDatabaseUrl' | 'readMaxLagMs' | 'pgPoolMax'>, store: Store,
  onUnavailable?: (why: string) => void): Promise<StandbyReads | null> {
  if (!config.readDatabaseUrl) return null;
  const pool = (store as Partial<PgStore>).pool;
  if (!pool) throw new Error('READ_DATABASE_URL needs the PostgreSQL store (DATABASE_URL)');
  const reads = new StandbyReads(pool, { url: config.readDatabaseUrl, maxLagMs: config.readMaxLagMs, poolMax: Math.max(2, Math.ceil(config.pgPoolMax / 2)), onUnavailable });
  await reads.start();
  return reads;
}
