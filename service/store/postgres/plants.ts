// Plants on PostgreSQL: SQLite's sqlite/plants.ts with the same rows, paging, search and import rules.
//
// The import is one transaction of a fixed number of statements whatever the file's size: the parcels that may
// contain the plants come from the GiST index in one query, the referenced parcels and crops are checked (and held
// FOR KEY SHARE) in one query each, and the plants go in with one multi-row INSERT. The file's first problem, in the
// order SQLite meets them (plant by plant, its parcel before its crop), is the error.
import { inTransaction } from './tx.ts';
import type pg from 'pg';
import { now, uuid } from '../clock.ts';
import { notFound } from '../../errors.ts';
import type { Scope } from '../scope.ts';
import type { PlantStore } from '../store.ts';
import { plantAreaM2 } from '../../../core/plants/validate.ts';
import {
  parcelLocator, plantCropInvalid, plantParcelInvalid, plantsToImport, type ParcelOutline, type PlantQuery, type PlantRow,
} from '../plants.ts';
import { ACCOUNT_VISIBLE, FARM_VISIBLE, PARCEL_VISIBLE, READ_SNAPSHOT, isId, scopeArgs, visibleParcel, type Queryable } from './crops-sql.ts';
import { visibleCropIds } from './crops.ts';

export const PLANT_VISIBLE = `pl.organization_id = $1 AND ((pl.parcel_id IS NOT NULL AND ${PARCEL_VISIBLE('pl.parcel_id')})
  OR (pl.parcel_id IS NULL AND ${ACCOUNT_VISIBLE('pl.account_id')}))`;
// SQLite's `pl.*`: the same columns (its rows carry organization_id and account_id too), without the PostGIS column.
export const PLANT_COLUMNS = 'pl.id, pl.key, pl.organization_id, pl.account_id, pl.parcel_id, pl.crop_id, pl.point, pl.shape, pl.info, pl.area_m2, pl.created, pl.modified';

/** SQLite's LIKE pattern for a search: the text anywhere, with its own \, % and _ taken literally. */
const likePattern = (search: string): string => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

async function listPlants(pool: pg.Pool, scope: Scope, q: PlantQuery): Promise<{ rows: PlantRow[]; hasMore: boolean }> {
  const where = [PLANT_VISIBLE];
  // One more than the page: whether a next page exists.
  const args: unknown[] = [...scopeArgs(scope), q.after ?? 0, q.limit + 1];
  where.push('pl.id > $3');
  if (q.parcel !== undefined) { args.push(q.parcel); where.push(`pl.parcel_id = $${args.length}`); }
  if (q.search) {
    // SQLite's LIKE folds ASCII letters only: lower() under COLLATE "C" folds exactly those (ILIKE, or lower() in
    // the database's locale, would also match É to é, which SQLite does not).
    args.push(q.search, likePattern(q.search));
    where.push(`(pl.key = $${args.length - 1} OR lower(pl.info COLLATE "C") LIKE lower($${args.length}::text COLLATE "C") ESCAPE '\\')`);
  }
  const sql = `SELECT ${PLANT_COLUMNS} FROM plants pl WHERE ${where.join(' AND ')} ORDER BY pl.id LIMIT $4`;
  const read = async (c: Queryable) => {
    const rows = (await c.query<PlantRow>(sql, args)).rows;
    const hasMore = rows.length > q.limit;
    if (hasMore) rows.pop();
    return { rows, hasMore };
  };
  if (q.parcel === undefined) return read(pool);
  // The parcel's 404 and the page from one snapshot.
  return inTransaction(pool, async (c) => {
    await visibleParcel(c, scope, q.parcel!);
    return read(c);
  }, READ_SNAPSHOT);
}

async function getPlant(pool: pg.Pool, scope: Scope, id: number): Promise<PlantRow> {
  if (!isId(id)) throw notFound('Plant');
  const r = await pool.query<PlantRow>(`SELECT ${PLANT_COLUMNS} FROM plants pl WHERE pl.id = $3 AND ${PLANT_VISIBLE}`, [...scopeArgs(scope), id]);
  if (!r.rows[0]) throw notFound('Plant');
  return r.rows[0];
}

/**
 * For each point (by index), the account's parcel that contains it, or null. SQLite's rule exactly: parcelLocator
 * (../plants.ts) decides, on the parcels SQLite would have tried, in SQLite's order (its plan walks the account's
 * farms by id, then each farm's parcels by id; the first that contains the point wins where parcels overlap). The
 * GiST index only narrows them: `&&` on the float-rounded-outward boxes passes every parcel whose exact box holds
 * the point, so no parcel parcelLocator would pick is lost, and ST_Contains/ST_Covers are not used because
 * parcelLocator's even-odd test puts boundary points where neither of them does.
 */
async function locate(c: Queryable, organizationId: string, accountId: string, points: ReadonlyMap<number, number[]>): Promise<Map<number, number | null>> {
  const at = [...points.keys()];
  const r = await c.query<ParcelOutline & { n: number }>(`SELECT v.n, p.id, p.geometry, p.minx, p.miny, p.maxx, p.maxy
    FROM unnest($3::int[], $4::float8[], $5::float8[]) AS v(n, x, y)
    JOIN parcels p ON p.organization_id = $1 AND p.geom && ST_SetSRID(ST_MakePoint(v.x, v.y), 4326)
    JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
    WHERE f.account_id = $2
    ORDER BY v.n, p.farm_id, p.id`, [organizationId, accountId, at, at.map((i) => points.get(i)![0]), at.map((i) => points.get(i)![1])]);
  const candidates = new Map<number, ParcelOutline[]>();
  for (const { n, ...outline } of r.rows) {
    const list = candidates.get(n);
    if (list) list.push(outline);
    else candidates.set(n, [outline]);
  }
  // One locator per set of candidates: plants of one parcel share it, so each outline is parsed once, not per plant.
  const locators = new Map<string, (pt: number[]) => number | null>();
  const out = new Map<number, number | null>();
  for (const i of at) {
    const list = candidates.get(i);
    if (!list) { out.set(i, null); continue; }
    const key = list.map((p) => p.id).join(',');
    let locator = locators.get(key);
    if (!locator) locators.set(key, (locator = parcelLocator(list)));
    out.set(i, locator(points.get(i)!));
  }
  return out;
}

/** Which of `ids` are parcels the scope sees, each held FOR KEY SHARE until the plants pointing at them are in. */
async function visibleParcelIds(c: Queryable, scope: Scope, ids: readonly number[]): Promise<Set<number>> {
  const r = await c.query<{ id: number }>(`SELECT p.id FROM parcels p JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
    WHERE p.organization_id = $1 AND p.id = ANY($3::bigint[]) AND ${FARM_VISIBLE} FOR KEY SHARE OF p`, [...scopeArgs(scope), ids.filter(isId)]);
  return new Set(r.rows.map((x) => x.id));
}

async function importPlants(pool: pg.Pool, organizationId: string, accountId: string, collection: unknown, defaultParcel: number | null = null): Promise<{ imported: number }> {
  const plants = plantsToImport(collection);
  const scope: Scope = { organizationId, accountId, via: 'api_key' };
  return inTransaction(pool, async (c) => {
    // Taken where SQLite takes it (first in the transaction, failed imports included): the same clock, the same times.
    const t = now();
    const unplaced = new Map<number, number[]>();
    plants.forEach((pl, i) => { if (pl.parcel === null && defaultParcel === null) unplaced.set(i, pl.point); });
    const located = unplaced.size ? await locate(c, organizationId, accountId, unplaced) : new Map<number, number | null>();
    const parcels = plants.map((pl, i) => pl.parcel ?? defaultParcel ?? located.get(i) ?? null);
    const crops = plants.map((pl) => pl.crop);
    const distinct = (xs: (number | null)[]) => [...new Set(xs.filter((x): x is number => x !== null))];
    const parcelOk = await visibleParcelIds(c, scope, distinct(parcels));
    const cropIds = distinct(crops);
    const cropOk = cropIds.length ? await visibleCropIds(c, scope, cropIds) : new Set<number>();
    for (let i = 0; i < plants.length; i++) {
      const parcel = parcels[i]!;
      if (parcel !== null && !parcelOk.has(parcel)) throw plantParcelInvalid(i, parcel);
      // A crop must be one this account can see: another account's or organization's would link across tenants.
      const crop = crops[i]!;
      if (crop !== null && !cropOk.has(crop)) throw plantCropInvalid(i, crop);
    }
    if (plants.length) {
      await c.query(`INSERT INTO plants (organization_id, account_id, key, parcel_id, crop_id, point, shape, info, area_m2, created, modified)
        SELECT $1, $2, v.key, v.parcel, v.crop, v.point, v.shape, v.info, v.area, $3, $3
        FROM unnest($4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::float8[]) WITH ORDINALITY
          AS v(key, parcel, crop, point, shape, info, area, n)
        ORDER BY v.n`, [
        organizationId, accountId, t, plants.map(() => uuid()), parcels, crops,
        plants.map((pl) => JSON.stringify(pl.point)), plants.map((pl) => (pl.shape ? JSON.stringify(pl.shape) : null)),
        plants.map((pl) => (pl.info === undefined ? null : JSON.stringify(pl.info))), plants.map((pl) => plantAreaM2(pl.shape)),
      ]);
    }
    return { imported: plants.length };
  });
}

/** The plant group of the PostgreSQL store. */
export function pgPlants(pool: pg.Pool): PlantStore {
  return {
    list: (scope, q) => listPlants(pool, scope, q),
    get: (scope, id) => getPlant(pool, scope, id),
    import: (organizationId, accountId, collection, defaultParcel) => importPlants(pool, organizationId, accountId, collection, defaultParcel ?? null),
  };
}
