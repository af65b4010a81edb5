// Farms in PostgreSQL: the FarmStore group, with the SQLite store's answers (../sqlite/farms.ts). A farm's totals
// (parcel_count, micro_hectares) are kept in its row by the batch insert and schema 001's triggers, so reading a farm
// costs the same at 1 parcel and at 1 M. Text is ordered COLLATE "C": SQLite compares bytes, a locale would not.
import type { Pool } from 'pg';
import { now } from '../clock.ts';
import { accountNotFound, notFound } from '../../errors.ts';
import { farmName, type OrphanFarm } from '../farms.ts';
import { parcelLimit } from '../accounts.ts';
import { requireAccount, type Scope } from '../scope.ts';
import type { FarmStore } from '../store.ts';
import type { Farm } from '../../../core/schemas/farms.ts';
import { insertParcels, lockFarmForWrite } from './parcels.ts';
import { FARM_VISIBLE, scopeValues, visibleFarm } from './farm-scope.ts';
import { inTransaction } from './tx.ts';
import { pgOpenFarmParcelListing } from './farm-listing.ts';

// hectares as SQLite's micro_hectares / 1000000.0: a double division of the same integer.
const FARM_STATS = `SELECT f.id, f.name, f.account_id AS account, f.created, f.modified,
  f.parcel_count, f.micro_hectares::float8 / 1000000 AS hectares
  FROM farms f`;
const ORPHAN_STATS = FARM_STATS.replace('f.account_id AS account, ', '');

async function getFarm(pool: Pool, scope: Scope, id: number): Promise<Farm> {
  const r = await pool.query<Farm>(`${FARM_STATS} WHERE f.id = $3 AND ${FARM_VISIBLE}`, [...scopeValues(scope), id]);
  if (!r.rows[0]) throw notFound('Farm');
  return r.rows[0];
}

export function pgFarms(pool: Pool): FarmStore {
  return {
    create: (scope, name, parcels) => inTransaction(pool, async (c) => {
      const accountId = requireAccount(scope, 'Creating a farm');
      // Locked as a batch locks it: the account stays active, and its limit the same, until the farm is committed.
      const a = await c.query<{ max_parcel_hectares: number | null }>(
        "SELECT max_parcel_hectares FROM accounts WHERE organization_id = $1 AND id = $2 AND state = 'active' FOR SHARE",
        [scope.organizationId, accountId]);
      if (!a.rows[0]) throw accountNotFound();
      const t = now();
      const f = await c.query<{ id: number }>(
        'INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES ($1, $2, $3, $4, $4) RETURNING id',
        [scope.organizationId, accountId, farmName(name), t]);
      const id = f.rows[0]!.id;
      const rows = await insertParcels(c, scope.organizationId, id, parcels, parcelLimit(a.rows[0]));
      // Read back rather than summed here: the answer is the same number GET /api/farms/{id}/ gives.
      const farm = (await c.query<Farm>(`${FARM_STATS} WHERE f.organization_id = $1 AND f.id = $2`, [scope.organizationId, id])).rows[0]!;
      return { farm, rows };
    }),

    list: async (scope) => (await pool.query<Farm>(`${FARM_STATS} WHERE ${FARM_VISIBLE} ORDER BY f.id`, scopeValues(scope))).rows,

    get: (scope, id) => getFarm(pool, scope, id),

    visible: (scope, id) => visibleFarm(pool, scope, id),

    rename: (scope, id, name) => inTransaction(pool, async (c) => {
      // As SQLite: a farm the scope does not see is a 404 before its new name is looked at.
      await lockFarmForWrite(c, scope, id);
      const r = await c.query<Farm>(`WITH u AS (UPDATE farms SET name = $3, modified = $4 WHERE organization_id = $1 AND id = $2 RETURNING *)
        ${FARM_STATS.replace('FROM farms f', 'FROM u f')}`, [scope.organizationId, id, farmName(name), now()]);
      return r.rows[0]!;
    }),

    // One statement: its visibility and its delete see the same rows; parcels, crops and plants go by cascade.
    delete: async (scope, id) => {
      const r = await pool.query(`DELETE FROM farms f WHERE f.id = $3 AND ${FARM_VISIBLE}`, [...scopeValues(scope), id]);
      if (!r.rowCount) throw notFound('Farm');
    },

    openParcelListing: (scope, id, page) => pgOpenFarmParcelListing(pool, scope, id, page),

    names: async (organizationId, ids) => {
      const r = await pool.query<{ id: number; name: string }>('SELECT id, name FROM farms WHERE organization_id = $1 AND id = ANY($2::bigint[]) ORDER BY id',
        [organizationId, ids.filter((id) => Number.isSafeInteger(id))]);
      return new Map(r.rows.map((f) => [f.id, f.name]));
    },

    // The CLI names a farm by its id alone: the one query that cannot name the organization (under Citus, it asks
    // every shard; it is an operator's command, not a request path).
    organizationOf: async (id) => {
      if (!Number.isSafeInteger(id)) return undefined;
      const r = await pool.query<{ organization_id: string }>('SELECT organization_id FROM farms WHERE id = $1', [id]);
      return r.rows[0]?.organization_id;
    },

    unlink: async (organizationId, id) => {
      const r = await pool.query('UPDATE farms SET account_id = NULL, modified = $3 WHERE organization_id = $1 AND id = $2 AND account_id IS NOT NULL',
        [organizationId, id, now()]);
      if (!r.rowCount) throw notFound('Linked farm');
    },

    listOrphans: async (organizationId) =>
      (await pool.query<OrphanFarm>(`${ORPHAN_STATS} WHERE f.organization_id = $1 AND f.account_id IS NULL ORDER BY f.id`, [organizationId])).rows,

    listLinked: async (organizationId, accountId) => (await pool.query<Farm>(`${FARM_STATS}
      WHERE f.organization_id = $1 AND f.account_id IS NOT NULL AND ($2::text IS NULL OR f.account_id = $2) ORDER BY f.account_id COLLATE "C", f.id`,
    [organizationId, accountId ?? null])).rows,

    deleteOrphan: async (organizationId, id) => {
      const r = await pool.query('DELETE FROM farms WHERE organization_id = $1 AND id = $2 AND account_id IS NULL', [organizationId, id]);
      if (!r.rowCount) throw notFound('Orphan farm');
    },
  };
}
