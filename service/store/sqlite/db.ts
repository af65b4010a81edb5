// Opening the service's database: platform/node/ (shared with the mirror) with the service's migrations.
import { openSqlite, type Db } from '../../../platform/node/sqlite.ts';
import { FutureSchemaError, migrate as migrateSchema, type SchemaOptions } from '../../../platform/node/migrations.ts';
import { migrations } from './migrations/index.ts';

export { FutureSchemaError, type Db };

const SCHEMA: SchemaOptions = {
  migrations,
  future: (found, known) => `The database is at schema version ${found}, newer than this build knows (${known}); refusing to open it.`,
};

export interface OpenOptions {
  /** FULL makes every acknowledged 201 survive power loss, not only a process crash. */
  synchronous?: 'FULL' | 'NORMAL';
}

/**
 * The database holds every organization's data and the secrets that sign account tokens: anyone who can read it
 * can forge a token. It is created readable by its owner only (a new data directory too), and a file found wider
 * is narrowed.
 */
export function openDb(file: string, opts: OpenOptions = {}): Db {
  return openSqlite(file, { ...SCHEMA, synchronous: opts.synchronous ?? 'FULL', ownerOnly: true });
}

/** Runs every pending migration in one transaction; a database from the future is refused untouched. */
export function migrate(db: Db, upTo: number = migrations.length): void {
  migrateSchema(db, SCHEMA, upTo);
}
