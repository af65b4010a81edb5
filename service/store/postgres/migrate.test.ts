// The PostgreSQL migrations on the test cluster's real server: a schema from nothing, a second start that does
// nothing, processes starting together, a database from the future, a migration that fails halfway.
import { afterEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PG_SKIP, createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.ts';
import { FutureSchemaError, MIGRATION_LOCK, migratePg, type PgMigration } from './migrate.ts';
import { migrations } from './migrations/index.ts';
import { SHARED_CROP_FAMILIES } from './migrations/001-initial.ts';
import { openPgPool } from './pool.ts';

const TABLES = [
  'accounts', 'admin_login_attempts', 'admin_sessions', 'admins', 'api_keys', 'change_marks', 'change_seq', 'changes', 'crop_families', 'crops', 'farms',
  'organizations', 'parcels', 'plants', 'schema_version', 'settings', 'signing_keys',
];

describe.skipIf(PG_SKIP !== null)('migratePg', () => {
  const open: pg.Pool[] = [];
  const dbs: TestDatabase[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.end()));
    await Promise.all(dbs.splice(0).map((d) => d.drop()));
  });

  /** A fresh database (a migration test needs one of its own) and a pool on it. */
  async function fresh(opts: { postgis?: boolean } = {}): Promise<pg.Pool> {
    const db = await createTestDatabase(opts);
    dbs.push(db);
    return pool(db);
  }
  function pool(db: TestDatabase): pg.Pool {
    const p = openPgPool(db.url, { max: 2 });
    open.push(p);
    return p;
  }

  const tables = async (p: pg.Pool) =>
    (await p.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'spatial_ref_sys' ORDER BY 1")).rows.map((r) => r.t);
  const version = async (p: pg.Pool) => (await p.query<{ version: number }>('SELECT version FROM schema_version')).rows.map((r) => r.version);

  it('creates the whole schema on an empty database', async () => {
    const p = await fresh();
    expect(await migratePg(p)).toEqual({ from: 0, to: migrations.length });
    expect(await tables(p)).toEqual(TABLES);
    expect(await version(p)).toEqual([migrations.length]);
    const geometry = await p.query('SELECT f_table_name AS t, f_geometry_column AS c, type, srid FROM geometry_columns ORDER BY 1');
    expect(geometry.rows).toEqual([
      { t: 'parcels', c: 'geom', type: 'POLYGON', srid: 4326 },
      { t: 'plants', c: 'geom', type: 'POINT', srid: 4326 },
    ]);
    const gist = await p.query("SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%USING gist%' ORDER BY 1");
    expect(gist.rows.map((r) => r.indexname)).toEqual(['parcels_geom', 'plants_geom']);
    const families = await p.query('SELECT name, observation FROM crop_families WHERE organization_id IS NULL ORDER BY id');
    expect(families.rows.map((r) => [r.name, r.observation])).toEqual(SHARED_CROP_FAMILIES);
  });

  it('does nothing when run again', async () => {
    const p = await fresh();
    await migratePg(p);
    const before = await p.query('SELECT version, migrated FROM schema_version');
    expect(await migratePg(p)).toEqual({ from: migrations.length, to: migrations.length });
    expect((await p.query('SELECT version, migrated FROM schema_version')).rows).toEqual(before.rows);
    expect((await p.query<{ n: number }>('SELECT COUNT(*) AS n FROM crop_families')).rows[0]!.n).toBe(SHARED_CROP_FAMILIES.length);
  });

  it('migrates once when several processes start together on a fresh database', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    // One pool each, as separate service processes would have: the runners meet only in the database.
    const runners = [pool(db), pool(db), pool(db), pool(db)];
    // The test holds the migration lock until all four wait for it: each has read version 0 before the lock and begun
    // its transaction, so the three that get the lock after the first committed must read the version afresh (a
    // catalog cache that kept the first read's "no such table" had them all run migration 1 again).
    const holder = pool(db);
    const held = await holder.connect();
    let results: PromiseSettledResult<{ from: number }>[];
    try {
      await held.query('BEGIN');
      await held.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
      const all = Promise.allSettled(runners.map((p) => migratePg(p)));
      for (const deadline = Date.now() + 10_000; ;) {
        const waiting = await holder.query<{ n: number }>(
          "SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");
        if (waiting.rows[0]!.n === runners.length) break;
        if (Date.now() > deadline) throw new Error(`${waiting.rows[0]!.n} of ${runners.length} runners waiting for the lock after 10 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await held.query('COMMIT');
      results = await all;
    } finally {
      held.release();
    }
    // The reasons, not only the statuses: a rejection must say what went wrong.
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const froms = results.map((r) => (r as PromiseFulfilledResult<{ from: number }>).value.from).sort();
    expect(froms).toEqual([0, migrations.length, migrations.length, migrations.length]);
    expect(await version(runners[0]!)).toEqual([migrations.length]);
    expect((await runners[0]!.query<{ n: number }>('SELECT COUNT(*) AS n FROM crop_families')).rows[0]!.n).toBe(SHARED_CROP_FAMILIES.length);
  });

  it('refuses a database from a newer build, untouched', async () => {
    const p = await fresh();
    // What a newer build leaves behind, seen by this one: a version past its migrations (and here nothing else).
    await p.query('CREATE TABLE schema_version (singleton boolean PRIMARY KEY DEFAULT true, version integer NOT NULL, migrated timestamptz NOT NULL DEFAULT now())');
    await p.query('INSERT INTO schema_version (version) VALUES ($1)', [migrations.length + 1]);
    const before = await p.query('SELECT * FROM schema_version');
    const refusal = await migratePg(p).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(FutureSchemaError);
    expect((refusal as Error).message).toBe(`The database is at schema version ${migrations.length + 1}, newer than this build knows (${migrations.length}); refusing to open it.`);
    expect(await tables(p)).toEqual(['schema_version']);
    expect((await p.query('SELECT * FROM schema_version')).rows).toEqual(before.rows);
  });

  it('refuses a migrated database whose version moved past the build, changing nothing', async () => {
    const p = await fresh();
    await migratePg(p);
    await p.query('UPDATE schema_version SET version = 7');
    await expect(migratePg(p)).rejects.toThrow(/schema version 7, newer than this build knows/);
    expect(await version(p)).toEqual([7]);
  });

  it('runs all pending migrations in one transaction: a failure leaves the database as it was', async () => {
    const p = await fresh();
    const failing: PgMigration = async (c) => {
      await c.query('CREATE TABLE half_done (x int)');
      throw new Error('migration 2 failed');
    };
    await expect(migratePg(p, { migrations: [...migrations, failing] })).rejects.toThrow('migration 2 failed');
    expect(await tables(p)).toEqual([]);
    // The connection went back to the pool in a usable state.
    expect((await p.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await migratePg(p);
    expect(await version(p)).toEqual([migrations.length]);
  });

  it('stops at upTo and continues from there later', async () => {
    const p = await fresh();
    const second: PgMigration = async (c) => void await c.query('ALTER TABLE settings ADD COLUMN note text');
    const n = migrations.length;
    expect(await migratePg(p, { migrations: [...migrations, second], upTo: n })).toEqual({ from: 0, to: n });
    expect(await migratePg(p, { migrations: [...migrations, second] })).toEqual({ from: n, to: n + 1 });
    expect(await version(p)).toEqual([n + 1]);
  });

  it('says what to do when PostGIS is not installed and its role may not create it, creating nothing', async () => {
    const p = await fresh({ postgis: false });
    await expect(migratePg(p)).rejects.toThrow(/PostGIS is not installed in database furrow_t_\w+, and role \w+ may not create it \(permission denied[^)]*\): run CREATE EXTENSION postgis;/);
    expect(await tables(p)).toEqual([]);
    const ext = await p.query("SELECT extname FROM pg_extension WHERE extname = 'postgis'");
    expect(ext.rows).toEqual([]);
  });

  it('creates PostGIS itself when its role may (a superuser), then the whole schema', async () => {
    const db = await createTestDatabase({ postgis: false });
    dbs.push(db);
    const p = openPgPool(db.superUrl, { max: 2 });
    open.push(p);
    expect(await migratePg(p)).toEqual({ from: 0, to: migrations.length });
    expect(await tables(p)).toEqual(TABLES);
    const ext = await p.query("SELECT extname FROM pg_extension WHERE extname = 'postgis'");
    expect(ext.rows).toEqual([{ extname: 'postgis' }]);
  });
});
