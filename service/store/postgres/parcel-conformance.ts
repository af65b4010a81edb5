// The farms and parcels conformance tests' harness (tests only): one scenario run on the SQLite store and on the
// PostgreSQL groups, with the same clock, the same organization and accounts, and the answers compared after
// normalising only what a database picks: parcel keys (random UUIDs) and ids (PostgreSQL's identity consumes an id
// on a rolled-back insert, SQLite's AUTOINCREMENT does not, so ids are compared by their rank).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { setClock, now } from '../clock.ts';
import { openSqliteStore } from '../sqlite/index.ts';
import type { Store } from '../store.ts';
import type { Scope } from '../scope.ts';
import type { NewParcel } from '../parcels.ts';
import { validateParcels } from '../../../core/parcels/validate.ts';
import { pgFarms } from './farms.ts';
import { pgParcels } from './parcels.ts';
import { pgBilling } from './billing.ts';
import { insertAccount, insertOrganization, setAccountLimit, setAccountState } from './test-tenants.ts';

export type Groups = Pick<Store, 'farms' | 'parcels' | 'billing'>;

/** What a scenario gets: the store's groups, its tenants, and account operations done the store's way. */
export interface Side {
  kind: 'sqlite' | 'postgres';
  store: Groups;
  org: string;
  /** Accounts a, b, c (c deactivated); another organization's account x. */
  acc: { a: string; b: string; c: string; x: string };
  other: string;
  scope(accountId: string | null, org?: string): Scope;
  deactivate(id: string): Promise<void>;
  reactivate(id: string): Promise<void>;
  setLimit(id: string, hectares: number | null): Promise<void>;
}

export const T0 = Date.parse('2024-03-01T08:00:00.000Z');

/** A polygon square of `side` degrees at (lon, lat). */
export const polygon = (name: string, lon: number, lat: number, side = 0.001, metadata: Record<string, unknown> = {}) => ({
  name, metadata,
  geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[lon, lat], [lon + side, lat], [lon + side, lat + side], [lon, lat + side], [lon, lat]]] } },
});
export const point = (name: string, lon: number, lat: number, hectares: number, metadata: Record<string, unknown> = {}) => ({
  name, metadata, geom: { type: 'Feature', properties: { metadata: { hectares } }, geometry: { type: 'Point', coordinates: [lon, lat] } },
});

/** Validated parcels (as the routes hand them to the store). */
export function valid(inputs: unknown[], maxHectares = 10_000): NewParcel[] {
  const { parcels, problems } = validateParcels(inputs, { maxHectares });
  if (problems.length) throw new Error(`test parcels are invalid: ${problems[0]!.message}`);
  return parcels;
}

/** A promise's value, or its error as {error: class, code, message, errors}: the same error must compare equal. */
export async function settle<T>(p: Promise<T>): Promise<T | { error: string; code?: unknown; message: string; errors?: unknown }> {
  try {
    return await p;
  } catch (e) {
    const err = e as Error & { code?: unknown; errors?: unknown };
    return { error: err.name, code: err.code, message: err.message, errors: err.errors };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** JSON text parsed, keys → K1, K2… by first appearance, farm and parcel ids → their rank among the run's ids. */
export function normalise(value: unknown): unknown {
  const farms = new Set<number>();
  const parcels = new Set<number>();
  const keys = new Map<string, string>();
  const parse = (v: unknown): unknown => {
    if (typeof v === 'string' && /^[[{]/.test(v)) {
      try {
        return parse(JSON.parse(v));
      } catch {
        return v;
      }
    }
    if (Array.isArray(v)) return v.map(parse);
    if (v instanceof Map) return [...v].map(([k, x]) => ({ farm_id: k, name: x }));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, parse(x)]));
    return v;
  };
  const tree = parse(value);
  // Which ids are farms' and which parcels' follows from where they sit.
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(collect);
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.id === 'number') ('parcel_count' in o || 'account_id' in o && 'organization_id' in o ? farms : 'key' in o || o.type === 'Feature' ? parcels : new Set()).add(o.id);
    if (typeof o.farm_id === 'number') farms.add(o.farm_id);
    if (typeof o.farm === 'number') farms.add(o.farm);
    Object.values(o).forEach(collect);
  };
  collect(tree);
  const rank = (set: Set<number>) => new Map([...set].sort((x, y) => x - y).map((id, i) => [id, i + 1]));
  const farmRank = rank(farms);
  const parcelRank = rank(parcels);
  const rewrite = (v: unknown, field?: string, owner?: Record<string, unknown>): unknown => {
    if (Array.isArray(v)) return v.map((x) => rewrite(x));
    if (typeof v === 'string' && UUID.test(v)) {
      if (!keys.has(v)) keys.set(v, `K${keys.size + 1}`);
      return keys.get(v);
    }
    if (typeof v === 'number' && owner) {
      if (field === 'farm_id' || field === 'farm') return `F${farmRank.get(v)}`;
      if (field === 'id' && farms.has(v) && ('parcel_count' in owner || 'organization_id' in owner)) return `F${farmRank.get(v)}`;
      if (field === 'id' && parcels.has(v)) return `P${parcelRank.get(v)}`;
    }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, rewrite(x, k, o)]));
    }
    return v;
  };
  return rewrite(tree);
}

/**
 * Runs `scenario` on a new SQLite store and on `pool` (emptied first), each from T0 on a clock that moves 1 ms per
 * reading, and returns both answers normalised.
 */
export async function onBoth(pool: Pool, scenario: (s: Side) => Promise<unknown>): Promise<{ sqlite: unknown; postgres: unknown }> {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-conf-'));
  const sqlite = openSqliteStore(join(dir, 'service.db'));
  let t = T0;
  const restore = setClock(() => t++);
  try {
    // The tenants, made by the SQLite store and copied row for row into PostgreSQL.
    const org = await sqlite.organizations.create('Org');
    const other = await sqlite.organizations.create('Other');
    const a = await sqlite.accounts.create(org.organization_id, 'a@example.test');
    const b = await sqlite.accounts.create(org.organization_id, 'b@example.test');
    const c = await sqlite.accounts.create(org.organization_id, 'c@example.test');
    await sqlite.accounts.deactivate(org.organization_id, c.id);
    const x = await sqlite.accounts.create(other.organization_id, 'x@example.test');
    await pool.query('TRUNCATE parcels, farms, accounts, organizations RESTART IDENTITY CASCADE');
    for (const o of [org, other]) await insertOrganization(pool, (await sqlite.organizations.get(o.organization_id))!);
    for (const id of [a.id, b.id, c.id, x.id]) await insertAccount(pool, (await sqlite.accounts.get(id))!);
    const base = {
      org: org.organization_id, other: other.organization_id, acc: { a: a.id, b: b.id, c: c.id, x: x.id },
      scope: (accountId: string | null, o = org.organization_id): Scope => ({ organizationId: o, accountId, via: 'api_key' }),
    };
    const start = t;
    const onSqlite = await scenario({
      ...base, kind: 'sqlite', store: sqlite,
      deactivate: async (id) => void await sqlite.accounts.deactivate(org.organization_id, id),
      reactivate: async (id) => void await sqlite.accounts.reactivate(org.organization_id, id),
      setLimit: async (id, ha) => void await sqlite.accounts.setParcelLimit(id, ha),
    });
    t = start;
    const onPg = await scenario({
      ...base, kind: 'postgres', store: { farms: pgFarms(pool), parcels: pgParcels(pool), billing: pgBilling(pool) },
      deactivate: (id) => setAccountState(pool, id, 'deactivated', now()),
      reactivate: (id) => setAccountState(pool, id, 'active', now()),
      setLimit: async (id, ha) => {
        now(); // SQLite's setParcelLimit reads the clock once (modified): keep the two clocks in step.
        await setAccountLimit(pool, id, ha);
      },
    });
    return { sqlite: normalise(onSqlite), postgres: normalise(onPg) };
  } finally {
    restore();
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
