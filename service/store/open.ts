// Where the service's store is chosen. Today there is one: the SQLite file in DATA_DIR. The PostgreSQL store will be
// chosen here (by DATABASE_URL) when it exists; nothing else in the service knows which store it has.
import { dbFile, type ServiceConfig } from '../config.ts';
import { openSqliteStore } from './sqlite/index.ts';
import type { Store } from './store.ts';

export interface OpenStoreOptions {
  /** For the service itself (long-running: background maintenance such as SQLite's checkpointer), not a CLI command. */
  serving?: boolean;
}

export async function openStore(config: Pick<ServiceConfig, 'dataDir' | 'synchronous'>, opts: OpenStoreOptions = {}): Promise<Store> {
  return openSqliteStore(dbFile(config.dataDir), { synchronous: config.synchronous, checkpointer: opts.serving === true });
}
