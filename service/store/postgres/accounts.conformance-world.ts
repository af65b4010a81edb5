// The conformance tests' two worlds: the SQLite store (the behaviour to reproduce) and this part of the PostgreSQL
// store, each with the few raw rows those tests need that no method of this part writes (farms, parcels, crops and
// plants for a purge) and a look at what the methods left behind. A scenario runs in both and its log, with the
// random ids and secrets replaced by their order of appearance, must be the same.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { expect } from 'vitest';
import { setClock } from '../clock.ts';
import { ApiError } from '../../errors.ts';
import type { Store } from '../store.ts';
import { openTestStore, type TestStore } from '../../../test/helpers/store.ts';
import { pgOrganizations, pgApiKeys } from './organizations.ts';
import { pgAccounts } from './accounts.ts';
import { pgSigningKeys } from './tokens.ts';
import { pgAdmins } from './admins.ts';
import { pgServedUrls } from './served-urls.ts';

/** The Store groups this part implements. */
export type Part = Pick<Store, 'organizations' | 'apiKeys' | 'accounts' | 'signingKeys' | 'admins' | 'servedUrls'>;

export function pgPart(pool: pg.Pool): Part {
  return {
    organizations: pgOrganizations(pool), apiKeys: pgApiKeys(pool), accounts: pgAccounts(pool),
    signingKeys: pgSigningKeys(pool), admins: pgAdmins(pool), servedUrls: pgServedUrls(pool),
  };
}

export interface World {
  store: Part;
  /** A farm with parcels of these hectares, its totals as the stores keep them. */
  farm(org: string, account: string | null, hectares: number[]): Promise<{ farm: number; parcels: number[] }>;
  crop(org: string, account: string, parcel: number | null): Promise<number>;
  plant(org: string, account: string, parcel: number | null): Promise<number>;
  /** What Settings > Data Management's unlink does to the row. */
  unlink(org: string, farm: number): Promise<void>;
  /** The organization's farms, parcels, crops and plants, and the sign-in tables: what a method left behind. */
  rows(org: string): Promise<Record<string, unknown>>;
}

const polygon = JSON.stringify({ type: 'Polygon', coordinates: [[[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01], [0, 0]]] });
const T = '2024-01-01T00:00:00.000Z';

export async function sqliteWorld(): Promise<World & { close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-conf-'));
  const t: TestStore = await openTestStore(dir, 'sqlite');
  const db = t.sqlite!;
  const ids = (sql: string, ...args: unknown[]) => (db.prepare(sql).all(...args) as Array<{ id: number }>).map((r) => r.id);
  return {
    store: t.store,
    async farm(org, account, hectares) {
      const farm = Number(db.prepare('INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES (?, ?, ?, ?, ?)')
        .run(org, account, 'farm', T, T).lastInsertRowid);
      const parcels = hectares.map((h, i) => Number(db.prepare(`INSERT INTO parcels (key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
        VALUES (?, ?, ?, 'Polygon', ?, ?, 0, 0, 0.01, 0.01, ?, ?)`).run(`k-${farm}-${i}`, farm, `p${i}`, polygon, h, T, T).lastInsertRowid));
      db.prepare(`UPDATE farms SET parcel_count = (SELECT COUNT(*) FROM parcels WHERE farm_id = @farm),
        micro_hectares = (SELECT COALESCE(SUM(CAST(round(hectares * 1000000) AS INTEGER)), 0) FROM parcels WHERE farm_id = @farm) WHERE id = @farm`).run({ farm });
      return { farm, parcels };
    },
    async crop(org, account, parcel) {
      return Number(db.prepare('INSERT INTO crops (key, organization_id, account_id, parcel_id, name, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(`c-${Math.random()}`, org, account, parcel, 'wheat', T, T).lastInsertRowid);
    },
    async plant(org, account, parcel) {
      return Number(db.prepare('INSERT INTO plants (key, organization_id, account_id, parcel_id, point, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(`pl-${Math.random()}`, org, account, parcel, '[0.005,0.005]', T, T).lastInsertRowid);
    },
    async unlink(org, farm) {
      db.prepare('UPDATE farms SET account_id = NULL WHERE organization_id = ? AND id = ?').run(org, farm);
    },
    async rows(org) {
      return {
        farms: db.prepare('SELECT id, account_id, parcel_count, micro_hectares FROM farms WHERE organization_id = ? ORDER BY id').all(org),
        parcels: ids('SELECT p.id FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE f.organization_id = ? ORDER BY p.id', org),
        crops: db.prepare('SELECT id, account_id, parcel_id FROM crops WHERE organization_id = ? ORDER BY id').all(org),
        plants: db.prepare('SELECT id, account_id, parcel_id FROM plants WHERE organization_id = ? ORDER BY id').all(org),
        attempts: db.prepare('SELECT id, email_norm, ip, at FROM admin_login_attempts ORDER BY id').all(),
        sessions: db.prepare('SELECT admin_id, created, expires, last_seen, flash FROM admin_sessions ORDER BY created, admin_id').all(),
      };
    },
    async close() {
      await t.store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The PostgreSQL world on a migrated database, emptied first: every sequence restarts, as in a new SQLite file. */
export async function pgWorld(pool: pg.Pool): Promise<World> {
  await pool.query(`TRUNCATE changes, change_seq, change_marks, admin_sessions, admins, admin_login_attempts, api_keys, signing_keys, plants, crops, parcels, farms, accounts, settings
    RESTART IDENTITY`);
  await pool.query('DELETE FROM crop_families WHERE organization_id IS NOT NULL');
  await pool.query('DELETE FROM organizations');
  const q = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await pool.query<R>(sql, params)).rows;
  return {
    store: pgPart(pool),
    async farm(org, account, hectares) {
      const farm = (await q<{ id: number }>('INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES ($1, $2, $3, $4, $4) RETURNING id',
        [org, account, 'farm', T]))[0]!.id;
      const parcels = (await q<{ id: number }>(`INSERT INTO parcels (organization_id, key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
        SELECT $1, 'k-' || $2::bigint || '-' || (n - 1), $2::bigint, 'p' || (n - 1), 'Polygon', $3, h, 0, 0, 0.01, 0.01, $4, $4
        FROM unnest($5::float8[]) WITH ORDINALITY AS x(h, n) ORDER BY n RETURNING id`, [org, farm, polygon, T, hectares])).map((r) => r.id);
      await q(`UPDATE farms SET parcel_count = (SELECT COUNT(*) FROM parcels WHERE organization_id = $1 AND farm_id = $2),
        micro_hectares = (SELECT COALESCE(SUM(micro_hectares(hectares)), 0) FROM parcels WHERE organization_id = $1 AND farm_id = $2)
        WHERE organization_id = $1 AND id = $2`, [org, farm]);
      return { farm, parcels };
    },
    async crop(org, account, parcel) {
      return (await q<{ id: number }>(`INSERT INTO crops (key, organization_id, account_id, parcel_id, name, created, modified)
        VALUES (gen_random_uuid()::text, $1, $2, $3, 'wheat', $4, $4) RETURNING id`, [org, account, parcel, T]))[0]!.id;
    },
    async plant(org, account, parcel) {
      return (await q<{ id: number }>(`INSERT INTO plants (key, organization_id, account_id, parcel_id, point, created, modified)
        VALUES (gen_random_uuid()::text, $1, $2, $3, '[0.005,0.005]', $4, $4) RETURNING id`, [org, account, parcel, T]))[0]!.id;
    },
    async unlink(org, farm) {
      await q('UPDATE farms SET account_id = NULL WHERE organization_id = $1 AND id = $2', [org, farm]);
    },
    async rows(org) {
      return {
        farms: await q('SELECT id, account_id, parcel_count, micro_hectares FROM farms WHERE organization_id = $1 ORDER BY id', [org]),
        parcels: (await q<{ id: number }>('SELECT id FROM parcels WHERE organization_id = $1 ORDER BY id', [org])).map((r) => r.id),
        crops: await q('SELECT id, account_id, parcel_id FROM crops WHERE organization_id = $1 ORDER BY id', [org]),
        plants: await q('SELECT id, account_id, parcel_id FROM plants WHERE organization_id = $1 ORDER BY id', [org]),
        attempts: await q('SELECT id, email_norm, ip, at FROM admin_login_attempts ORDER BY id'),
        sessions: await q('SELECT admin_id, created, expires, last_seen, flash FROM admin_sessions ORDER BY created, admin_id'),
      };
    },
  };
}

/** A result or the error it failed with, as a caller sees it: class, code, status, message, details. */
export async function outcome<T>(fn: () => Promise<T>): Promise<{ ok: T } | { error: Record<string, unknown> }> {
  try {
    return { ok: await fn() };
  } catch (e) {
    if (e instanceof ApiError) return { error: { class: 'ApiError', code: e.code, status: e.status, message: e.message, errors: e.errors ?? null } };
    throw e;
  }
}

// Random ids and secrets: each distinct one becomes <n>, n its order of first appearance in the log.
const RANDOM = /(?:org|acc)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|fk_[0-9a-f]{8}(?:_[\w-]{32})?|sk_[\w-]{16}/g;
const OPAQUE = /^[\w-]{32,}$/;

export function normalize(log: unknown): unknown {
  const seen = new Map<string, string>();
  const name = (s: string) => {
    if (!seen.has(s)) seen.set(s, `<${seen.size + 1}>`);
    return seen.get(s)!;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return OPAQUE.test(v) ? name(v) : v.replace(RANDOM, name);
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `<${v.length} bytes>`;
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Map) return [...v.entries()].map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(log);
}

/**
 * Runs the scenario on SQLite, then on PostgreSQL, each from an empty store and the same clock, and expects the same
 * normalized logs. The clock moves one second at each log line: a timestamp says which step wrote it, however many
 * times a store read the clock within the step.
 */
export async function conform(
  pool: pg.Pool, scenario: (w: World, log: (label: string, v: unknown) => void) => Promise<void>, opts: { start?: string } = {},
): Promise<unknown[]> {
  // By default an hour ago, whole seconds: what the stores compare with the real time (a retired signing key's
  // expiry) behaves as in production, and both runs start from the same instant.
  const start = opts.start ? Date.parse(opts.start) : Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
  const run = async (w: World): Promise<unknown[]> => {
    let t = start;
    const restore = setClock(() => t);
    const out: unknown[] = [];
    try {
      await scenario(w, (label, v) => {
        out.push([label, v]);
        t += 1000;
      });
    } finally {
      restore();
    }
    return out;
  };
  const lite = await sqliteWorld();
  let expected: unknown[];
  try {
    expected = await run(lite);
  } finally {
    await lite.close();
  }
  const actual = await run(await pgWorld(pool));
  expect(normalize(actual)).toEqual(normalize(expected));
  // Stricter than toEqual: the same keys in the same order (rows serialized as they are, e.g. by the CLI's --json).
  expect(JSON.stringify(normalize(actual))).toBe(JSON.stringify(normalize(expected)));
  expect(expected.length).toBeGreaterThan(0);
  return expected;
}
