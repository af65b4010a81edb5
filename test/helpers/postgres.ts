// The tests' PostgreSQL, started for the run by test/helpers/postgres-cluster.ts (vitest globalSetup). Every database
// a test asks for is new, cloned from a template that has PostGIS, and owned by a role that is not a superuser (as on
// a managed PostgreSQL): test files run in parallel workers and share no state, only the server.
//
//   describe.skipIf(PG_SKIP !== null)('…', () => {
//     const db = useTestDatabase();            // one per file, dropped after it
//     it('…', async () => { const pool = openPgPool(db().url); … });
//   });
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { openPgPool } from '../../service/store/postgres/pool.ts';
import { migratePg } from '../../service/store/postgres/migrate.ts';
import { PG_TEMPLATE, PG_TEST_ROLE, ensureStarted, urlOf, type PgTestCluster } from './postgres-cluster.ts';
import { useDeploymentPool } from '../../deploy/test-deployment.ts';

function cluster(): PgTestCluster {
  try {
    return inject('postgres') ?? { skip: 'no globalSetup provided a PostgreSQL (run the tests through vitest.config.ts)' };
  } catch {
    // Outside a test run (the benchmarks import the process helpers, which import this): no test cluster.
    return { skip: 'not in a vitest run' };
  }
}

/** Why this run has no PostgreSQL, or null when it has one: `describe.skipIf(PG_SKIP !== null)`. */
export const PG_SKIP: string | null = (() => {
  const c = cluster();
  return 'skip' in c ? c.skip : null;
})();

export interface TestDatabase {
  name: string;
  /** As the test role, the database's owner. */
  url: string;
  /** As the cluster's superuser (what a database of one's own, or a container's, gives the service). */
  superUrl: string;
  /** Drops it, closing whatever connections a test left open. */
  drop(): Promise<void>;
}

async function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const c = cluster();
  if ('skip' in c) throw new Error(`No PostgreSQL for the tests: ${c.skip}`);
  await ensureStarted(c);
  const client = new pg.Client({ connectionString: c.adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A new database. `postgis: false` clones template0 instead: a database without the extension, as a managed
 * PostgreSQL hands it out before anyone ran CREATE EXTENSION.
 */
export async function createTestDatabase(opts: { postgis?: boolean; location?: string } = {}): Promise<TestDatabase> {
  // Random, not a counter: a worker process runs several files, and names must not collide across workers either.
  const name = `furrow_t_${randomBytes(6).toString('hex')}`;
  const template = opts.postgis === false ? 'template0' : PG_TEMPLATE;
  // `location`: the database's files in a tablespace there (a folder the server's user owns, a small tmpfs to fill).
  const space = opts.location ? `${name}_space` : null;
  await asAdmin(async (a) => {
    if (space) await a.query(`CREATE TABLESPACE ${space} LOCATION '${opts.location!.replace(/'/g, "''")}'`);
    await a.query(`CREATE DATABASE ${name} TEMPLATE ${template} OWNER ${PG_TEST_ROLE}${space ? ` TABLESPACE ${space}` : ''}`);
  });
  const c = cluster() as { socketDir: string };
  return {
    name,
    url: urlOf(c.socketDir, PG_TEST_ROLE, name),
    superUrl: urlOf(c.socketDir, 'postgres', name),
    drop: () => asAdmin(async (a) => {
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      if (space) await a.query(`DROP TABLESPACE IF EXISTS ${space}`);
    }),
  };
}

/** Starts the run's cluster if no test has yet (the postgres project's setup file awaits it before any test). */
export async function ensureCluster(): Promise<void> {
  const c = cluster();
  if ('skip' in c) throw new Error(`No PostgreSQL for the tests: ${c.skip}`);
  await ensureStarted(c);
}

/**
 * createTestDatabase for synchronous callers (the service CLI run with spawnSync before any service starts), through
 * psql; the cluster must be up (ensureCluster).
 */
export function createTestDatabaseSync(): string {
  const c = cluster();
  if ('skip' in c) throw new Error(`No PostgreSQL for the tests: ${c.skip}`);
  const name = `furrow_t_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [c.adminUrl, '-q', '-v', 'ON_ERROR_STOP=1', '-c', `CREATE DATABASE ${name} TEMPLATE ${PG_TEMPLATE} OWNER ${PG_TEST_ROLE}`], { stdio: 'pipe' });
  return urlOf(c.socketDir, PG_TEST_ROLE, name);
}

/** A database for the whole file: created before its first test, dropped after its last. */
export function useTestDatabase(opts: { postgis?: boolean } = {}): () => TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(opts);
  });
  afterAll(async () => {
    await db?.drop();
  });
  return () => {
    if (!db) throw new Error('useTestDatabase(): the database exists from beforeAll on');
    return db;
  };
}

/** A pool on a migrated database of the file's own, for its tests: opened before the first, ended after the last. */
export function useMigratedPool(): () => pg.Pool {
  // The `deploy` project: the reference deployment's database, through PgBouncer (vitest.config.ts DEPLOY_SUITES).
  if (process.env.FURROW_TEST_DEPLOYMENT === '1') return useDeploymentPool();
  const db = useTestDatabase();
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    pool = openPgPool(db().url, { max: 4 });
    await migratePg(pool);
  });
  afterAll(async () => {
    await pool?.end();
  });
  return () => {
    if (!pool) throw new Error('useMigratedPool(): the pool exists from beforeAll on');
    return pool;
  };
}
