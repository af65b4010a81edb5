// Crop rotations as farm managers read them: a farm's crops parcel by parcel, and the crop families the service
// offers (pulled into crop_families by sync/pull.ts). Read-only; crops are written by MirrorWriter like every edit.
import { cachedStatement } from '../platform/node/statements.ts';
import type { Db } from './open.ts';
import type { CropRow } from './types.ts';

export interface FamilyRow { id: number; name: string; observation: string }

/** The crop families the service offered the account at its last pull, by name. */
export function cropFamilies(db: Db, accountId: string): FamilyRow[] {
  return cachedStatement(db, 'SELECT server_id AS id, name, observation FROM crop_families WHERE account_id = ? ORDER BY name COLLATE NOCASE, server_id')
    .all(accountId) as FamilyRow[];
}

/**
 * A family of the account by id, or by name as the service finds a family named on a crop (trimmed, then lower
 * case as JavaScript folds it: SQLite's lower() folds ASCII only); undefined when the mirror does not know it.
 */
export function findFamily(db: Db, accountId: string, by: { id: number } | { name: string }): FamilyRow | undefined {
  const families = cropFamilies(db, accountId);
  if ('id' in by) return families.find((f) => f.id === by.id);
  const name = by.name.trim().toLowerCase();
  return families.find((f) => f.name.toLowerCase() === name);
}

/** Every live crop on the live parcels of a farm. */
export function farmCrops(db: Db, farmLocalId: string): CropRow[] {
  return cachedStatement(db, `SELECT c.* FROM parcels p JOIN crops c ON c.parcel_local_id = p.local_id
    WHERE p.farm_local_id = ? AND p.deleted = 0 AND c.deleted = 0`).all(farmLocalId) as CropRow[];
}
