// Where the service's store is chosen: PostgreSQL + PostGIS when DATABASE_URL is set (several service processes on
// one database, docs/deploy.md), otherwise the SQLite file in DATA_DIR, the embedded default. Nothing else in the
// service knows which store it has.
import { dbFile, type ServiceConfig } from '../config.ts';
import { openSqliteStore } from './sqlite/index.ts';
import { openPgStore } from './postgres/index.ts';
import type { Store } from './store.ts';

export interface OpenStoreOptions {
  /** For the service itself (long-running: background maintenance such as SQLite's checkpointer), not a CLI command. */
  serving?: boolean;
}

export async function openStore(config: Pick<ServiceConfig, 'dataDir' | 'synchronous' | 'databaseUrl' | 'pgPoolMax'>, opts: OpenStoreOptions = {}): Promise<Store> {
  // A CLI command needs one connection; the service its whole pool.
  if (config.databaseUrl) return openPgStore(config.databaseUrl, { max: opts.serving ? config.pgPoolMax : 2 });
  return openSqliteStore(dbFile(config.dataDir), { synchronous: config.synchronous, checkpointer: opts.serving === true });
}
