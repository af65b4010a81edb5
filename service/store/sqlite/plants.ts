import type { Db } from './db.ts';
import { now, uuid } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { ApiError, notFound } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import type { Scope } from '../scope.ts';
import { ACCOUNT_VISIBLE, FARM_VISIBLE, scopeParams } from './scope-sql.ts';
import { parcelRow } from './parcels.ts';
import { getCrop } from './crops.ts';
import { plantAreaM2 } from '../../../core/plants/validate.ts';
import {
  parcelLocator, plantCropInvalid, plantParcelInvalid, plantsToImport, type ParcelOutline, type PlantQuery, type PlantRow,
} from '../plants.ts';

export const PLANT_VISIBLE = `pl.organization_id = @org AND (
  (pl.parcel_id IS NOT NULL AND EXISTS (SELECT 1 FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE p.id = pl.parcel_id AND ${FARM_VISIBLE}))
  OR (pl.parcel_id IS NULL AND ${ACCOUNT_VISIBLE('pl.account_id')}))`;

function cropVisible(db: Db, scope: Scope, id: number): boolean {
  try {
    getCrop(db, scope, id);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === ErrorCode.notFound) return false;
    throw e;
  }
}

/** A page of the scope's plants by id; `hasMore` when more match after it. */
export function listPlants(db: Db, scope: Scope, q: PlantQuery): { rows: PlantRow[]; hasMore: boolean } {
  const where = [PLANT_VISIBLE, 'pl.id > @after'];
  // One more than the page: whether a next page exists.
  const args: Record<string, unknown> = { ...scopeParams(scope), after: q.after ?? 0, limit: q.limit + 1 };
  if (q.parcel !== undefined) {
    parcelRow(db, scope, q.parcel);
    where.push('pl.parcel_id = @parcel');
    args.parcel = q.parcel;
  }
  if (q.search) {
    where.push("(pl.key = @exact OR pl.info LIKE @like ESCAPE '\\')");
    args.exact = q.search;
    args.like = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  const rows = db.prepare(`SELECT pl.* FROM plants pl WHERE ${where.join(' AND ')} ORDER BY pl.id LIMIT @limit`).all(args) as PlantRow[];
  const hasMore = rows.length > q.limit;
  if (hasMore) rows.pop();
  return { rows, hasMore };
}

export function getPlant(db: Db, scope: Scope, id: number): PlantRow {
  const r = cachedStatement(db, `SELECT pl.* FROM plants pl WHERE pl.id = @id AND ${PLANT_VISIBLE}`).get({ id, ...scopeParams(scope) }) as PlantRow | undefined;
  if (!r) throw notFound('Plant');
  return r;
}

/**
 * Plants are detected, which this service cannot do; detections arrive as a FeatureCollection through
 * this import. A plant without a parcel is placed in the account's parcel that contains it.
 */
export function importPlants(db: Db, organizationId: string, accountId: string, collection: unknown, defaultParcel: number | null = null): { imported: number } {
  const plants = plantsToImport(collection);
  const scope: Scope = { organizationId, accountId, via: 'api_key' };
  const containing = parcelLocator(db.prepare(`SELECT p.id, p.geometry, p.minx, p.miny, p.maxx, p.maxy FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE f.account_id = ?`)
    .all(accountId) as ParcelOutline[]);
  return db.transaction(() => {
    const t = now();
    const ins = db.prepare(`INSERT INTO plants (key, organization_id, account_id, parcel_id, crop_id, point, shape, info, area_m2, created, modified)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const [i, pl] of plants.entries()) {
      const parcel = pl.parcel ?? defaultParcel ?? containing(pl.point);
      if (parcel !== null) {
        try {
          parcelRow(db, scope, parcel);
        } catch {
          throw plantParcelInvalid(i, parcel);
        }
      }
      // A crop must be one this account can see: an unknown id would fail the foreign key (a raw SqliteError),
      // and another account's or organization's crop would be linked across tenants.
      if (pl.crop !== null && !cropVisible(db, scope, pl.crop)) throw plantCropInvalid(i, pl.crop);
      ins.run(uuid(), organizationId, accountId, parcel, pl.crop, JSON.stringify(pl.point), pl.shape ? JSON.stringify(pl.shape) : null,
        pl.info === undefined ? null : JSON.stringify(pl.info), plantAreaM2(pl.shape), t, t);
    }
    return { imported: plants.length };
  })();
}
