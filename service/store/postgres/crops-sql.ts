// What the PostgreSQL crop and plant groups share: a Scope as SQL (SQLite's scope-sql.ts, with positional parameters
// and organization_id on every join between tenant tables so that Citus keeps each query on one shard), the
// transaction wrapper, and the visible-parcel check.
//
// Every scoped statement here binds the organization as $1 and the acting account (or NULL) as $2.
import type pg from 'pg';
import { notFound } from '../../errors.ts';
import type { Scope } from '../scope.ts';

/** Farm alias `f` is visible: its account is one of the scope's active accounts. */
export const FARM_VISIBLE = `f.account_id IN (SELECT a.id FROM accounts a WHERE a.organization_id = $1 AND a.state = 'active' AND ($2::text IS NULL OR a.id = $2::text))`;
export const ACCOUNT_VISIBLE = (col: string): string =>
  `${col} IN (SELECT a.id FROM accounts a WHERE a.organization_id = $1 AND a.state = 'active' AND ($2::text IS NULL OR a.id = $2::text))`;
/** The parcel with id `idExpr` is the organization's and its farm is visible. */
export const PARCEL_VISIBLE = (idExpr: string): string => `EXISTS (SELECT 1 FROM parcels p JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
  WHERE p.organization_id = $1 AND p.id = ${idExpr} AND ${FARM_VISIBLE})`;

export const scopeArgs = (s: Scope): [string, string | null] => [s.organizationId, s.accountId];

/**
 * An id PostgreSQL can compare with a bigint column. SQLite answers "no such row" for any number; PostgreSQL would
 * refuse a fraction or a value past 2^63 with a raw error, so such ids are treated as unknown before any query.
 */
export const isId = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isSafeInteger(n);

export type Queryable = pg.Pool | pg.PoolClient;

/** Read-only, one snapshot: a check and the read that follows it (404 then a list) see the same database. */
export const READ_SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/**
 * The scope's parcel with its farm's account, or 404 Parcel. With `lock`, the row is held FOR KEY SHARE until the
 * transaction ends: a crop or plant about to point at it cannot lose it to a concurrent delete (which SQLite's single
 * writer ruled out), so the foreign key never fails with a raw error.
 */
export async function visibleParcel(q: Queryable, scope: Scope, id: number, lock = false): Promise<{ id: number; account_id: string }> {
  if (!isId(id)) throw notFound('Parcel');
  const r = await q.query<{ id: number; account_id: string }>(`SELECT p.id, f.account_id FROM parcels p
    JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
    WHERE p.organization_id = $1 AND p.id = $3 AND ${FARM_VISIBLE}${lock ? ' FOR KEY SHARE OF p' : ''}`, [...scopeArgs(scope), id]);
  if (!r.rows[0]) throw notFound('Parcel');
  return r.rows[0];
}
