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

/**
 * The names the account's map is coloured among (core/crops/family-colours.ts cropColours): the crop families the
 * service offers it with those named on its crops here (not yet sent), and its live parcels' active crops' names.
 */
export function colourNames(db: Db, accountId: string): { families: string[]; crops: string[] } {
  const families = cachedStatement(db, `SELECT name FROM crop_families WHERE account_id = ?
    UNION SELECT family_name FROM crops WHERE account_id = ? AND deleted = 0 AND family_name IS NOT NULL`).pluck().all(accountId, accountId) as string[];
  const crops = cachedStatement(db, `SELECT DISTINCT c.name FROM crops c JOIN parcels p ON p.local_id = c.parcel_local_id
    WHERE c.account_id = ? AND c.deleted = 0 AND c.is_active = 1 AND p.deleted = 0 AND c.name IS NOT NULL`).pluck().all(accountId) as string[];
  return { families, crops };
}

/** Every live crop on the live parcels of a farm. */
export function farmCrops(db: Db, farmLocalId: string): CropRow[] {
  return cachedStatement(db, `SELECT c.* FROM parcels p JOIN crops c ON c.parcel_local_id = p.local_id
    WHERE p.farm_local_id = ? AND p.deleted = 0 AND c.deleted = 0`).all(farmLocalId) as CropRow[];
}

/** The campaigns of an account's live crops, each with whether a crop of it is on the ground or sown (the plan's clock). */
export function accountCampaigns(db: Db, accountId: string): { campaign: string; started: number }[] {
  return cachedStatement(db, `SELECT campaign, max(is_active = 1 OR sowing IS NOT NULL) AS started FROM crops
    WHERE account_id = ? AND deleted = 0 AND campaign IS NOT NULL GROUP BY campaign`).all(accountId) as { campaign: string; started: number }[];
}
