// The rows the crop and plant tests stand on (organizations, accounts, farms, parcels), written with plain SQL into
// both stores the same way, so that the same scenario gives the same ids in each. The organization, account, farm
// and parcel groups of the PostgreSQL store are other files' work; these tests do not depend on them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { createTestDatabase } from '../../../test/helpers/postgres.ts';
// The conformance tests' reference: SQLite's behaviour is what the PostgreSQL groups reproduce.
import { openSqliteStore } from '../sqlite/index.ts';
import type { Store } from '../store.ts';
import { migratePg } from './migrate.ts';
import { openPgPool } from './pool.ts';
import { pgCrops } from './crops.ts';
import { pgCropFamilies } from './crop-families.ts';
import { pgPlants } from './plants.ts';

const T = '2024-01-01T00:00:00.000Z';

/** A closed ring of [lon, lat] positions. */
export type Ring = number[][];

export const square = (x: number, y: number, d = 0.01): Ring => [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]];

export interface Seed {
  org(id: string): Promise<void>;
  account(organizationId: string, id: string, state?: 'active' | 'deactivated'): Promise<void>;
  setState(id: string, state: 'active' | 'deactivated'): Promise<void>;
  farm(organizationId: string, accountId: string | null): Promise<number>;
  /** A Polygon parcel: the outer ring, then its holes. */
  parcel(organizationId: string, farmId: number, rings: Ring[]): Promise<number>;
  deleteParcel(id: number): Promise<void>;
}

function parcelColumns(rings: Ring[]) {
  const xs = rings[0]!.map((p) => p[0]!);
  const ys = rings[0]!.map((p) => p[1]!);
  return {
    geometry: JSON.stringify({ type: 'Polygon', coordinates: rings }),
    minx: Math.min(...xs), miny: Math.min(...ys), maxx: Math.max(...xs), maxy: Math.max(...ys),
  };
}

export function pgSeed(pool: pg.Pool): Seed {
  const q = async (sql: string, params: unknown[]) => (await pool.query<{ id: number }>(sql, params)).rows;
  return {
    org: async (id) => void await q('INSERT INTO organizations (id, name, created) VALUES ($1, $1, $2)', [id, T]),
    account: async (organizationId, id, state = 'active') => void await q(`INSERT INTO accounts
      (id, organization_id, account_email, email_norm, state, auth_id, created, modified)
      VALUES ($1, $2, $1 || '@x.test', $1 || '@x.test', $3, 'auth-' || $1, $4, $4)`, [id, organizationId, state, T]),
    setState: async (id, state) => void await q('UPDATE accounts SET state = $2 WHERE id = $1', [id, state]),
    farm: async (organizationId, accountId) => (await q(`INSERT INTO farms (organization_id, account_id, name, created, modified)
      VALUES ($1, $2, 'farm', $3, $3) RETURNING id`, [organizationId, accountId, T]))[0]!.id,
    parcel: async (organizationId, farmId, rings) => {
      const c = parcelColumns(rings);
      return (await q(`INSERT INTO parcels (organization_id, key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
        VALUES ($1, gen_random_uuid()::text, $2, 'p', 'Polygon', $3, 1, $4, $5, $6, $7, $8, $8) RETURNING id`,
      [organizationId, farmId, c.geometry, c.minx, c.miny, c.maxx, c.maxy, T]))[0]!.id;
    },
    deleteParcel: async (id) => void await q('DELETE FROM parcels WHERE id = $1', [id]),
  };
}

/** The part of better-sqlite3's Database these fixtures use (the SQLite store's `db`). */
export interface SqliteLike {
  prepare(sql: string): { run(...params: unknown[]): { lastInsertRowid: number | bigint } };
}

export function sqliteSeed(db: SqliteLike): Seed {
  const run = (sql: string, ...params: unknown[]) => Number(db.prepare(sql).run(...params).lastInsertRowid);
  return {
    org: async (id) => void run('INSERT INTO organizations (id, name, created) VALUES (?, ?, ?)', id, id, T),
    account: async (organizationId, id, state = 'active') => void run(`INSERT INTO accounts
      (id, organization_id, account_email, email_norm, state, auth_id, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    id, organizationId, `${id}@x.test`, `${id}@x.test`, state, `auth-${id}`, T, T),
    setState: async (id, state) => void run('UPDATE accounts SET state = ? WHERE id = ?', state, id),
    farm: async (organizationId, accountId) =>
      run("INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES (?, ?, 'farm', ?, ?)", organizationId, accountId, T, T),
    parcel: async (_organizationId, farmId, rings) => {
      const c = parcelColumns(rings);
      const id = run(`INSERT INTO parcels (key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
        VALUES (lower(hex(randomblob(16))), ?, 'p', 'Polygon', ?, 1, ?, ?, ?, ?, ?, ?)`, farmId, c.geometry, c.minx, c.miny, c.maxx, c.maxy, T, T);
      run('INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)', id, c.minx, c.maxx, c.miny, c.maxy);
      return id;
    },
    deleteParcel: async (id) => void run('DELETE FROM parcels WHERE id = ?', id),
  };
}

/** What a store call gave: its value, or its error as the API would answer it (class, code, message, details). */
export type Outcome = { ok: unknown } | { error: { name: string; code?: unknown; message: string; errors?: unknown } };

export async function outcome(fn: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await fn() };
  } catch (e) {
    const err = e as Error & { code?: unknown; errors?: unknown };
    return { error: { name: err.constructor.name, code: err.code, message: err.message, errors: err.errors } };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A value with its random UUIDs (crop, family and plant keys) replaced by their order of first appearance, and Maps
 * as their entries in order: two stores that agree give equal normalised values. Ids are left as they are.
 */
export function normalise(value: unknown): unknown {
  const seen = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && UUID.test(v)) {
      if (!seen.has(v)) seen.set(v, `uuid#${seen.size}`);
      return seen.get(v);
    }
    if (v instanceof Map) return { map: [...v.entries()].map(walk) };
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

/** The groups under test, and how to lay their rows' ground. */
export interface Side { name: 'sqlite' | 'postgres'; store: Pick<Store, 'crops' | 'cropFamilies' | 'plants'>; seed: Seed }


/** The PostgreSQL groups on a pool. */
export const pgSide = (pool: pg.Pool): Side => ({
  name: 'postgres', store: { crops: pgCrops(pool), cropFamilies: pgCropFamilies(pool), plants: pgPlants(pool) }, seed: pgSeed(pool),
});

/** A new SQLite file and a new PostgreSQL database, migrated; `pools` more PostgreSQL pools (other processes) on it. */
export async function openSides(pools = 1): Promise<{ sqlite: Side; pg: Side[]; pgPools: pg.Pool[]; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-crops-'));
  const sqlite = openSqliteStore(join(dir, 'store.db'));
  const db = await createTestDatabase();
  const pgPools = Array.from({ length: pools }, () => openPgPool(db.url, { max: 4 }));
  await migratePg(pgPools[0]!);
  return {
    sqlite: { name: 'sqlite', store: sqlite, seed: sqliteSeed(sqlite.db) },
    pg: pgPools.map(pgSide),
    pgPools,
    close: async () => {
      await sqlite.close();
      await Promise.all(pgPools.map((p) => p.end()));
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
