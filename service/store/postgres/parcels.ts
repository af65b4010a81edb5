// Parcels in PostgreSQL: the ParcelStore group, and what the farm writes share with it (the scope as SQL, the
// transaction, the batch insert). The behaviour is the SQLite store's (../sqlite/parcels.ts); where SQLite relied on
// being the only writer, row locks take its place, so two service processes on one database keep its guarantees:
// - A batch locks its farm's account (FOR SHARE) and then the farm (FOR NO KEY UPDATE), always in that order (the
//   order an account's purge takes them): the account cannot be deactivated, nor its parcel limit changed, nor the
//   farm unlinked or deleted, between the check and the commit; concurrent batches into one farm queue on its row,
//   so its totals stay exact.
// - The parcel limit is checked again against the locked account row: a limit lowered while the batch was being
//   validated off the request thread applies to it (SQLite checks it only at validation).
import { inTransaction } from './tx.ts';
import type pg from 'pg';
import type { Pool } from 'pg';
import { now } from '../clock.ts';
import { timeOrderedIds } from '../../../platform/node/time-ordered-ids.ts';
import { ApiError, notFound } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import { parcelColumnsOf } from '../../../core/parcels/columns.ts';
import { formatHectares, joinPath, report, reporter, type ParcelProblem } from '../../../core/parcels/problems.ts';
import type { PreparedPatch } from '../../validation-pool.ts';
import { parcelLimit } from '../accounts.ts';
import { invalidParcels, problemsToDetails, type NewParcel } from '../parcels.ts';
import type { ParcelRow } from '../parcel-json.ts';
import type { Scope } from '../scope.ts';
import type { ParcelStore } from '../store.ts';
import { pgListParcels } from './parcel-list.ts';
import { FARM_VISIBLE, PARCEL_COLUMNS, scopeValues } from './farm-scope.ts';

/**
 * Inside a transaction: the farm as a batch writes into it, its account locked FOR SHARE and then the farm FOR NO
 * KEY UPDATE (see the header); 404 when the scope does not see it. Returns the account's parcel limit.
 */
export async function lockFarmForWrite(c: pg.ClientBase, scope: Scope, farmId: number): Promise<number> {
  // The account first: READ COMMITTED re-reads a row it waited for, so a deactivation that commits meanwhile is seen.
  const a = await c.query<{ id: string; max_parcel_hectares: number | null }>(`SELECT a.id, a.max_parcel_hectares FROM accounts a
    WHERE a.organization_id = $1 AND a.state = 'active' AND ($2::text IS NULL OR a.id = $2)
      AND a.id = (SELECT f.account_id FROM farms f WHERE f.organization_id = $1 AND f.id = $3)
    FOR SHARE`, [...scopeValues(scope), farmId]);
  const account = a.rows[0];
  if (!account) throw notFound('Farm');
  // Then the farm, still that account's (an unlink or a delete committed meanwhile makes it a 404, as in SQLite).
  const f = await c.query('SELECT 1 FROM farms WHERE organization_id = $1 AND id = $2 AND account_id = $3 FOR NO KEY UPDATE',
    [scope.organizationId, farmId, account.id]);
  if (!f.rowCount) throw notFound('Farm');
  return parcelLimit(account);
}

/** The validation's own problem for a parcel over the limit, with the same path and words (core/parcels/geom.ts). */
function overLimit(index: number, label: string, base: string, p: { source_type: string; hectares: number }, max: number): ParcelProblem {
  const geom = joinPath(base, 'geom');
  const path = p.source_type === 'Point' ? `${geom}/properties/metadata/hectares` : `${geom}/geometry/coordinates`;
  return report(reporter(index, label), path, 'area_over_limit',
    `area ${formatHectares(p.hectares, max)} ha exceeds the account's limit of ${max} ha`);
}

/**
 * Inserts validated parcels into a farm locked by lockFarmForWrite, in one multi-row INSERT, and adds them to the
 * farm's totals in the same statement. `midBatch` is told of each row once they are all written and before the
 * commit: a crash there (the fault switch's crash-mid-batch) ends the connection, and the server rolls the whole
 * batch back, as SQLite's journal does.
 */
export async function insertParcels(c: pg.ClientBase, organizationId: string, farmId: number, parcels: readonly NewParcel[],
  maxHectares: number, midBatch?: (inserted: number) => void): Promise<ParcelRow[]> {
  const t = now();
  // Keys in creation order, as the SQLite store makes them (append to the key's unique index: see timeOrderedIds).
  const keys = timeOrderedIds(parcels.length);
  const rows: ParcelRow[] = parcels.map((p, i) => ({ id: 0, key: keys[i]!, farm_id: farmId, ...('source_type' in p ? p : parcelColumnsOf(p)), created: t, modified: t }));
  const problems = rows.flatMap((r, i) => (r.hectares > maxHectares ? [overLimit(i, `Parcel ${i}`, joinPath('parcels', i), r, maxHectares)] : []));
  if (problems.length) throw invalidParcels(problems);
  if (!rows.length) {
    await c.query('UPDATE farms SET modified = $3 WHERE organization_id = $1 AND id = $2', [organizationId, farmId, t]);
    return rows;
  }
  const col = <K extends keyof ParcelRow>(k: K) => rows.map((r) => r[k]);
  // The identity values are drawn in the order of the rows (ORDER BY n), so ids ascend in request order as in SQLite.
  const r = await c.query<{ id: number; key: string }>(`WITH ins AS (
      INSERT INTO parcels (organization_id, key, farm_id, name, source_type, point, geometry, hectares, metadata, minx, miny, maxx, maxy, created, modified)
      SELECT $1, v.key, $2, v.name, v.source_type, v.point, v.geometry, v.hectares, v.metadata, v.minx, v.miny, v.maxx, v.maxy, $3, $3
      FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::float8[], $10::text[], $11::float8[], $12::float8[], $13::float8[], $14::float8[])
        WITH ORDINALITY AS v(key, name, source_type, point, geometry, hectares, metadata, minx, miny, maxx, maxy, n)
      ORDER BY v.n
      RETURNING id, key, hectares),
    totals AS (
      UPDATE farms SET modified = $3, parcel_count = parcel_count + (SELECT COUNT(*) FROM ins),
        micro_hectares = micro_hectares + (SELECT SUM(micro_hectares(hectares)) FROM ins)
      WHERE organization_id = $1 AND id = $2)
    SELECT id, key FROM ins`,
  [organizationId, farmId, t, col('key'), col('name'), col('source_type'), col('point'), col('geometry'), col('hectares'), col('metadata'),
    col('minx'), col('miny'), col('maxx'), col('maxy')]);
  // The change feed's rows for the batch in one call (a trigger per row would cost a call per parcel).
  await c.query(`SELECT record_changes((SELECT account_id FROM farms WHERE organization_id = $1 AND id = $2), 'parcel', $3::bigint[], false)`,
    [organizationId, farmId, r.rows.map((x) => x.id).sort((a, b) => a - b)]);
  const ids = new Map(r.rows.map((x) => [x.key, x.id]));
  rows.forEach((row, i) => {
    row.id = ids.get(row.key)!;
    midBatch?.(i + 1);
  });
  return rows;
}

type ParcelWithAccount = ParcelRow & { account_id: string };

async function parcelRow(q: pg.ClientBase | Pool, scope: Scope, id: number, lock = ''): Promise<ParcelWithAccount> {
  const r = await q.query<ParcelWithAccount>(`SELECT ${PARCEL_COLUMNS}, f.account_id FROM parcels p
    JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
    WHERE p.organization_id = $1 AND p.id = $3 AND ${FARM_VISIBLE} ${lock}`, [...scopeValues(scope), id]);
  if (!r.rows[0]) throw notFound('Parcel');
  return r.rows[0];
}

/**
 * Inside a transaction: the parcel's account locked FOR SHARE, then the parcel FOR UPDATE (the order of
 * lockFarmForWrite); 404 when the scope does not see it. Returns the row and its account's parcel limit.
 */
async function lockParcel(c: pg.ClientBase, scope: Scope, id: number): Promise<{ row: ParcelRow; limit: number }> {
  const a = await c.query<{ id: string; max_parcel_hectares: number | null }>(`SELECT a.id, a.max_parcel_hectares FROM accounts a
    WHERE a.organization_id = $1 AND a.state = 'active' AND ($2::text IS NULL OR a.id = $2)
      AND a.id = (SELECT f.account_id FROM parcels p JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
        WHERE p.organization_id = $1 AND p.id = $3)
    FOR SHARE`, [...scopeValues(scope), id]);
  if (!a.rows[0]) throw notFound('Parcel');
  const { account_id: _account, ...row } = await parcelRow(c, scope, id, 'FOR UPDATE OF p');
  return { row, limit: parcelLimit(a.rows[0]) };
}

async function updateParcel(pool: Pool, scope: Scope, id: number, patch: PreparedPatch): Promise<ParcelRow> {
  return inTransaction(pool, async (c) => {
    const { row, limit } = await lockParcel(c, scope, id);
    const next: ParcelRow = { ...row, modified: now() };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.metadata !== undefined) next.metadata = patch.metadata;
    if (patch.geom) {
      if (patch.geom.hectares > limit) {
        // As patchParcel answers the validation's problems (../parcels.ts).
        const problem = overLimit(0, `Parcel id ${id}`, '', patch.geom, limit);
        throw new ApiError(ErrorCode.validationFailed, problem.message, problemsToDetails([problem]));
      }
      Object.assign(next, patch.geom);
    }
    await c.query(`UPDATE parcels SET name = $3, source_type = $4, point = $5, geometry = $6, hectares = $7, metadata = $8,
      minx = $9, miny = $10, maxx = $11, maxy = $12, modified = $13 WHERE organization_id = $1 AND id = $2`,
    [scope.organizationId, id, next.name, next.source_type, next.point, next.geometry, next.hectares, next.metadata,
      next.minx, next.miny, next.maxx, next.maxy, next.modified]);
    return next;
  });
}

export function pgParcels(pool: Pool): ParcelStore {
  return {
    createBatch: (scope, farmId, parcels, midBatch) => inTransaction(pool, async (c) => {
      const limit = await lockFarmForWrite(c, scope, farmId);
      return insertParcels(c, scope.organizationId, farmId, parcels, limit, midBatch);
    }),
    get: (scope, id) => parcelRow(pool, scope, id),
    update: (scope, id, patch) => updateParcel(pool, scope, id, patch),
    // One statement: the visibility check and the delete see the same rows; crops and plants go by cascade.
    delete: async (scope, id) => {
      const r = await pool.query(`DELETE FROM parcels p USING farms f WHERE p.organization_id = $1 AND p.id = $3
        AND f.organization_id = p.organization_id AND f.id = p.farm_id AND ${FARM_VISIBLE}`, [...scopeValues(scope), id]);
      if (!r.rowCount) throw notFound('Parcel');
    },
    list: (scope, filter) => pgListParcels(pool, scope, filter),
  };
}
