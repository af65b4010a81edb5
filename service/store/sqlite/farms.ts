import type { Db } from './db.ts';
import { now } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { notFound } from '../../errors.ts';
import { requireAccount, type Scope } from '../scope.ts';
import { FARM_VISIBLE, scopeParams } from './scope-sql.ts';
import { activeAccount } from './accounts.ts';
import { insertParcels, visibleFarm } from './parcels.ts';
import { farmName, type OrphanFarm } from '../farms.ts';
import type { NewParcel } from '../parcels.ts';
import type { ParcelRow } from '../parcel-json.ts';
import type { Farm } from '../../../core/schemas/farms.ts';

// parcel_count and micro_hectares are kept by triggers (migration 004) in the same transaction as every change of
// a farm's parcels: reading a farm costs the same at 1 parcel and at 1 M.
const FARM_STATS = `SELECT f.id, f.name, f.account_id AS account, f.created, f.modified,
  f.parcel_count, f.micro_hectares / 1000000.0 AS hectares
  FROM farms f`;

/** A farm of the scope's (active) account with its validated parcels, together or not at all. */
export function createFarm(db: Db, scope: Scope, name: string, parcels: readonly NewParcel[]): { farm: Farm; rows: ParcelRow[] } {
  return db.transaction(() => {
    const accountId = requireAccount(scope, 'Creating a farm');
    activeAccount(db, scope.organizationId, accountId);
    const t = now();
    const id = Number(db.prepare('INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES (?, ?, ?, ?, ?)')
      .run(scope.organizationId, accountId, farmName(name), t, t).lastInsertRowid);
    const rows = insertParcels(db, id, parcels);
    // Read back rather than summed here: the answer is the same number GET /api/farms/{id}/ gives.
    const farm = cachedStatement(db, `${FARM_STATS} WHERE f.id = ?`).get(id) as Farm;
    return { farm, rows };
  })();
}

export function listFarms(db: Db, scope: Scope): Farm[] {
  return cachedStatement(db, `${FARM_STATS} WHERE f.organization_id = @org AND ${FARM_VISIBLE} ORDER BY f.id`).all(scopeParams(scope)) as Farm[];
}

export function getFarm(db: Db, scope: Scope, id: number): Farm {
  const f = cachedStatement(db, `${FARM_STATS} WHERE f.id = @id AND f.organization_id = @org AND ${FARM_VISIBLE}`).get({ id, ...scopeParams(scope) }) as Farm | undefined;
  if (!f) throw notFound('Farm');
  return f;
}

export function renameFarm(db: Db, scope: Scope, id: number, name: unknown): Farm {
  return db.transaction(() => {
    visibleFarm(db, scope, id);
    db.prepare('UPDATE farms SET name = ?, modified = ? WHERE id = ?').run(farmName(name), now(), id);
    return getFarm(db, scope, id);
  })();
}

/** DELETE /api/farms/{id}/: its parcels, and with them their crops and plants, go too. */
export function deleteFarm(db: Db, scope: Scope, id: number): void {
  db.transaction(() => {
    visibleFarm(db, scope, id);
    db.prepare('DELETE FROM farms WHERE id = ?').run(id);
  })();
}

/** Names of the organization's farms with these ids (the embedded map names the areas it offers by them). */
export function farmNames(db: Db, organizationId: string, ids: readonly number[]): Map<number, string> {
  const names = new Map<number, string>();
  // In slices: SQLite limits the number of bound parameters of one statement.
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    const found = db.prepare(`SELECT id, name FROM farms WHERE id IN (${slice.map(() => '?').join(',')}) AND organization_id = ?`).all(...slice, organizationId) as { id: number; name: string }[];
    for (const f of found) names.set(f.id, f.name);
  }
  return names;
}

// ---- admin operations (Settings > Data Management): organization-level, not reachable through /api ----

/** The organization of a farm in any state (the CLI names farms by id alone), or undefined. */
export function farmOrganization(db: Db, id: number): string | undefined {
  return (db.prepare('SELECT organization_id FROM farms WHERE id = ?').get(id) as { organization_id: string } | undefined)?.organization_id;
}

/** Unlinking keeps the farm and its data but detaches it from the account: it becomes an orphan. */
export function unlinkFarm(db: Db, organizationId: string, id: number): void {
  const r = db.prepare('UPDATE farms SET account_id = NULL, modified = ? WHERE id = ? AND organization_id = ? AND account_id IS NOT NULL')
    .run(now(), id, organizationId);
  if (r.changes === 0) throw notFound('Linked farm');
}

export function listOrphans(db: Db, organizationId: string): OrphanFarm[] {
  return db.prepare(`${FARM_STATS.replace('f.account_id AS account, ', '')} WHERE f.organization_id = ? AND f.account_id IS NULL ORDER BY f.id`)
    .all(organizationId) as OrphanFarm[];
}

/** Farms still linked to an account, active or deactivated: the ones that can be unlinked. */
export function listLinkedFarms(db: Db, organizationId: string, accountId?: string): Farm[] {
  return db.prepare(`${FARM_STATS} WHERE f.organization_id = @org AND f.account_id IS NOT NULL AND (@acc IS NULL OR f.account_id = @acc) ORDER BY f.account_id, f.id`)
    .all({ org: organizationId, acc: accountId ?? null }) as Farm[];
}

export function deleteOrphan(db: Db, organizationId: string, id: number): void {
  const r = db.prepare('DELETE FROM farms WHERE id = ? AND organization_id = ? AND account_id IS NULL').run(id, organizationId);
  if (r.changes === 0) throw notFound('Orphan farm');
}
