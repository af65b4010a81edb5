// The PostgreSQL schema brought up to date by numbered migrations, as service/store/db.ts does for SQLite: the
// version in a one-row schema_version table, every pending migration in one transaction (all or none), and a
// database from a newer build refused before anything writes to it.
//
// Several service processes start on one database at once (a deploy, an autoscaler): each takes the same
// transaction-level advisory lock before it reads the version, so one migrates and the others, queued on the lock,
// then find the schema current and run nothing. The lock goes with the transaction, even when the process dies.
import type pg from 'pg';
import { FutureSchemaError } from '../../../platform/node/migrations.ts';
import { migrations as ALL, type PgMigration } from './migrations/index.ts';

export { FutureSchemaError, type PgMigration };

/** The advisory lock every migrating process takes: 'furrow' in ASCII, a key no other application is likely to use. */
export const MIGRATION_LOCK = '112654617309047';

/** The same words as the SQLite store's refusal (service/store/db.ts). */
const future = (found: number, known: number) =>
  `The database is at schema version ${found}, newer than this build knows (${known}); refusing to open it.`;

export interface MigrateResult {
  /** The version found under the lock: equal to `to` when another process (or an earlier start) had migrated. */
  from: number;
  to: number;
}

/**
 * Whether schema_version exists, read from pg_class by an ordinary query (a snapshot of its own for each statement),
 * not by to_regclass: that resolves the name through the backend's catalog cache without a lock, and a cache that
 * remembered "no such table" from the read before the lock was not told of the table another process committed while
 * this one waited for the lock (a transaction takes in such news when it begins, and it began before) — two
 * processes then both ran migration 1.
 */
async function hasVersionTable(client: pg.ClientBase): Promise<boolean> {
  const t = await client.query(`SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relname = 'schema_version' AND n.nspname = ANY (pg_catalog.current_schemas(false))`);
  return t.rows.length > 0;
}

async function schemaVersion(client: pg.ClientBase): Promise<number> {
  if (!(await hasVersionTable(client))) return 0;
  const v = await client.query<{ version: number }>('SELECT version FROM schema_version');
  return v.rows[0]?.version ?? 0;
}

function refuseFuture(found: number, known: number): void {
  if (found > known) throw new FutureSchemaError(future(found, known));
}

/**
 * Runs every pending migration (up to version `upTo`) in one transaction under the advisory lock. A database at a
 * version newer than this build's migrations is refused with FutureSchemaError, untouched.
 */
export async function migratePg(pool: pg.Pool, opts: { upTo?: number; migrations?: readonly PgMigration[] } = {}): Promise<MigrateResult> {
  const list = opts.migrations ?? ALL;
  const upTo = opts.upTo ?? list.length;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // Read first without the lock or a transaction: a database from the future is refused without a single write,
    // and a current one (every start but the first) costs two reads.
    const seen = await schemaVersion(client);
    refuseFuture(seen, list.length);
    if (seen >= upTo) return { from: seen, to: seen };
    await client.query('BEGIN');
    try {
      // The pool's statement timeout is for requests: a migration may rewrite a large table, and waiting for the
      // lock while another process migrates is expected. SET LOCAL: for this transaction only.
      await client.query("SET LOCAL statement_timeout = '0'");
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
      const from = await schemaVersion(client);
      refuseFuture(from, list.length);
      if (from < upTo) {
        await client.query(`CREATE TABLE IF NOT EXISTS schema_version (
          singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
          version integer NOT NULL CHECK (version >= 0),
          migrated timestamptz NOT NULL DEFAULT now())`);
        for (let v = from; v < upTo; v++) await list[v]!(client);
        await client.query(`INSERT INTO schema_version (version) VALUES ($1)
          ON CONFLICT (singleton) DO UPDATE SET version = excluded.version, migrated = excluded.migrated`, [upTo]);
      }
      await client.query('COMMIT');
      return { from, to: Math.max(from, upTo) };
    } catch (e) {
      // A connection that cannot even roll back is not given back to the pool.
      await client.query('ROLLBACK').catch((rollback: Error) => { broken = rollback; });
      throw e;
    }
  } finally {
    client.release(broken);
  }
}
