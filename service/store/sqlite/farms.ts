import type { Db } from './db.ts';
import { now } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { ApiError, notFound } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import { validateParcels, MAX_PARCELS_PER_REQUEST } from '../../../core/parcels/validate.ts';
import { FARM_VISIBLE, requireAccount, scopeParams, type Scope } from '../scope.ts';
import { activeAccount } from './accounts.ts';
import { insertParcels, invalidParcels, limitFor, visibleFarm } from './parcels.ts';
import { syntaxFirst, type ParcelValidator, type Validated } from '../../validation-pool.ts';
import type { ParcelRow } from '../parcel-json.ts';
import type { Farm } from '../../../core/schemas/farms.ts';

// parcel_count and micro_hectares are kept by triggers (migration 004) in the same transaction as every change of
// a farm's parcels: reading a farm costs the same at 1 parcel and at 1 M.
const FARM_STATS = `SELECT f.id, f.name, f.account_id AS account, f.created, f.modified,
  f.parcel_count, f.micro_hectares / 1000000.0 AS hectares
  FROM farms f`;

function farmName(value: unknown): string {
  if (typeof value !== 'string' || !value.trim() || value.length > 255) {
    throw new ApiError(ErrorCode.validationFailed, 'farm.name must be a non-empty string of at most 255 characters', [
      { path: 'body/farm/name', code: 'name_missing', message: 'farm.name is required' },
    ]);
  }
  return value.trim();
}

type FarmInput = { farm: { name: string }; parcels?: unknown[] };

function farmRequest(db: Db, scope: Scope, body: FarmInput): { accountId: string; name: string; inputs: unknown[] } {
  const accountId = requireAccount(scope, 'Creating a farm');
  activeAccount(db, scope.organizationId, accountId);
  const name = farmName(body.farm.name);
  const inputs = body.parcels ?? [];
  if (inputs.length > MAX_PARCELS_PER_REQUEST) {
    throw new ApiError(ErrorCode.validationFailed, `A farm is created with at most ${MAX_PARCELS_PER_REQUEST} parcels; add more with POST /api/parcels/`);
  }
  return { accountId, name, inputs };
}

/** POST /api/farms/ before its write: the checks, then the parcels validated on the pool. */
export async function validateFarmParcels(db: Db, scope: Scope, body: FarmInput, validator: ParcelValidator): Promise<Validated> {
  const { accountId, inputs } = await syntaxFirst(validator, scope.organizationId, body, () => farmRequest(db, scope, body));
  return validator.validate(scope.organizationId, inputs, limitFor(db, accountId));
}

/**
 * POST /api/farms/: the farm and its parcels are created together or not at all. The parcels are validated here
 * unless `validated` (validateFarmParcels) is given; the checks run again either way (time may have passed).
 */
export function createFarm(db: Db, scope: Scope, body: FarmInput, validated?: Validated): { farm: Farm; rows: ParcelRow[] } {
  const { accountId, name, inputs } = farmRequest(db, scope, body);
  const { parcels, problems } = validated ?? validateParcels(inputs, { maxHectares: limitFor(db, accountId) });
  if (problems.length) throw invalidParcels(problems);
  return db.transaction(() => {
    const t = now();
    const id = Number(db.prepare('INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES (?, ?, ?, ?, ?)')
      .run(scope.organizationId, accountId, name, t, t).lastInsertRowid);
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

// ---- admin operations (Settings > Data Management): organization-level, not reachable through /api ----

export interface OrphanFarm { id: number; name: string; parcel_count: number; hectares: number; created: string; modified: string }

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
