import type { Db } from './db.ts';
import { now, uuid } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { ApiError, notFound } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import { ACCOUNT_VISIBLE, FARM_VISIBLE, scopeParams, type Scope } from '../scope.ts';
import { parcelRow } from './parcels.ts';
import { getCrop } from './crops.ts';
import { validatePlantCollection, plantAreaM2 } from '../../../core/plants/validate.ts';
import { pointInRing } from '../../../core/geo/contains.ts';
import type { PolygonCoords } from '../../../core/geo/types.ts';

interface PlantRow {
  id: number; key: string; parcel_id: number | null; crop_id: number | null; point: string; shape: string | null;
  info: string | null; area_m2: number; created: string; modified: string;
}

const PLANT_VISIBLE = `pl.organization_id = @org AND (
  (pl.parcel_id IS NOT NULL AND EXISTS (SELECT 1 FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE p.id = pl.parcel_id AND ${FARM_VISIBLE}))
  OR (pl.parcel_id IS NULL AND ${ACCOUNT_VISIBLE('pl.account_id')}))`;

function plantJson(r: PlantRow): string {
  return `{"type":"Feature","id":${r.id},"geometry":{"type":"Point","coordinates":${r.point}},"properties":{"area":"${r.area_m2.toFixed(2)}","key":"${r.key}","shape":${r.shape === null ? 'null' : `{"type":"Polygon","coordinates":${r.shape}}`},"info":${r.info ?? 'null'},"created":"${r.created}","modified":"${r.modified}","parcel":${r.parcel_id ?? 'null'},"crop":${r.crop_id ?? 'null'}}}`;
}

function cropVisible(db: Db, scope: Scope, id: number): boolean {
  try {
    getCrop(db, scope, id);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === ErrorCode.notFound) return false;
    throw e;
  }
}

export interface PlantQuery { search?: string; parcel?: number; limit: number; after?: number }

/**
 * GET /api/plants/: a FeatureCollection; `search` matches the plant's key or text inside its info. With `nextUrl`
 * the collection ends with `next`: that function's URL after the page's last id when more plants match, else null.
 */
export function listPlantsJson(db: Db, scope: Scope, q: PlantQuery, nextUrl?: (after: number) => string): string {
  const where = [PLANT_VISIBLE, 'pl.id > @after'];
  const args: Record<string, unknown> = { ...scopeParams(scope), after: q.after ?? 0, limit: q.limit };
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
  if (nextUrl) args.limit = q.limit + 1;
  const rows = db.prepare(`SELECT pl.* FROM plants pl WHERE ${where.join(' AND ')} ORDER BY pl.id LIMIT @limit`).all(args) as PlantRow[];
  const more = nextUrl !== undefined && rows.length > q.limit;
  if (more) rows.pop();
  const next = nextUrl ? `,"next":${more ? JSON.stringify(nextUrl(rows[rows.length - 1]!.id)) : 'null'}` : '';
  return `{"type":"FeatureCollection","features":[${rows.map(plantJson).join(',')}]${next}}`;
}

export function getPlantJson(db: Db, scope: Scope, id: number): string {
  const r = cachedStatement(db, `SELECT pl.* FROM plants pl WHERE pl.id = @id AND ${PLANT_VISIBLE}`).get({ id, ...scopeParams(scope) }) as PlantRow | undefined;
  if (!r) throw notFound('Plant');
  return plantJson(r);
}

/**
 * Plants are detected, which this service cannot do; detections arrive as a FeatureCollection through
 * this import. A plant without a parcel is placed in the account's parcel that contains it.
 */
export function importPlants(db: Db, organizationId: string, accountId: string, collection: unknown, defaultParcel: number | null = null): { imported: number } {
  const { plants, problems } = validatePlantCollection(collection);
  if (problems.length) {
    throw new ApiError(ErrorCode.validationFailed, `${problems.length} problem(s) in the plant file; nothing was imported. ${problems[0]!.message}`,
      problems.map((p) => ({ index: p.index, path: p.path, code: p.code, message: p.message })));
  }
  const scope: Scope = { organizationId, accountId, via: 'api_key' };
  const parcels = db.prepare(`SELECT p.id, p.geometry, p.minx, p.miny, p.maxx, p.maxy FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE f.account_id = ?`)
    .all(accountId) as { id: number; geometry: string; minx: number; miny: number; maxx: number; maxy: number }[];
  const rings = new Map<number, PolygonCoords>();
  const containing = (pt: number[]): number | null => {
    for (const p of parcels) {
      if (pt[0]! < p.minx || pt[0]! > p.maxx || pt[1]! < p.miny || pt[1]! > p.maxy) continue;
      let coords = rings.get(p.id);
      if (!coords) rings.set(p.id, (coords = (JSON.parse(p.geometry) as { coordinates: PolygonCoords }).coordinates));
      if (pointInRing(pt, coords[0]!) && !coords.slice(1).some((h) => pointInRing(pt, h))) return p.id;
    }
    return null;
  };
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
          throw new ApiError(ErrorCode.validationFailed, `Plant ${i}: parcel ${parcel} does not exist; nothing was imported`, [
            { index: i, path: `features/${i}/properties/parcel`, code: 'parcel_invalid', message: `parcel ${parcel} does not exist` },
          ]);
        }
      }
      // A crop must be one this account can see: an unknown id would fail the foreign key (a raw SqliteError),
      // and another account's or organization's crop would be linked across tenants.
      if (pl.crop !== null && !cropVisible(db, scope, pl.crop)) {
        throw new ApiError(ErrorCode.validationFailed, `Plant ${i}: crop ${pl.crop} does not exist; nothing was imported`, [
          { index: i, path: `features/${i}/properties/crop`, code: 'crop_invalid', message: `crop ${pl.crop} does not exist` },
        ]);
      }
      ins.run(uuid(), organizationId, accountId, parcel, pl.crop, JSON.stringify(pl.point), pl.shape ? JSON.stringify(pl.shape) : null,
        pl.info === undefined ? null : JSON.stringify(pl.info), plantAreaM2(pl.shape), t, t);
    }
    return { imported: plants.length };
  })();
}
