// The scope as SQL for the farm and parcel queries of the PostgreSQL store (parcels, their list and listing, farms):
// which farms a caller sees, and the parcel columns every read returns. Apart from parcels.ts, which uses the list
// (parcel-list.ts), so that the list need not import parcels.ts back.
import type pg from 'pg';
import type { Pool } from 'pg';
import { notFound } from '../../errors.ts';
import type { VisibleFarm } from '../rows.ts';
import type { Scope } from '../scope.ts';

/**
 * SQL condition: farm alias `f` is visible to the scope. Every scoped query binds the organization as $1 and the
 * account (or null) as $2 (scopeValues).
 */
export const FARM_VISIBLE = `f.organization_id = $1 AND f.account_id IN
  (SELECT a.id FROM accounts a WHERE a.organization_id = $1 AND a.state = 'active' AND ($2::text IS NULL OR a.id = $2))`;
export const scopeValues = (s: Scope): [string, string | null] => [s.organizationId, s.accountId];

export const PARCEL_COLUMNS = 'p.id, p.key, p.farm_id, p.name, p.source_type, p.point, p.geometry, p.hectares, p.metadata, p.minx, p.miny, p.maxx, p.maxy, p.created, p.modified';

export async function visibleFarm(q: pg.ClientBase | Pool, scope: Scope, farmId: number): Promise<VisibleFarm> {
  const r = await q.query<VisibleFarm>(`SELECT f.id, f.account_id, f.organization_id FROM farms f WHERE f.id = $3 AND ${FARM_VISIBLE}`,
    [...scopeValues(scope), farmId]);
  if (!r.rows[0]) throw notFound('Farm');
  return r.rows[0];
}

