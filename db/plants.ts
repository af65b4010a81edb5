// Plants as the app shows them: detected on the service and only ever pulled (sync/pull.ts), found here by where
// they stand (plants_rtree, migration 006) or by their parcel. Read-only. A plant's parcel and crop are the
// service's ids in the table; they are answered as the mirror's local ids, the ids the rest of the app speaks.
import { cachedStatement } from '../platform/node/statements.ts';
import type { Db } from './open.ts';

export interface PlantHit {
  server_id: number;
  /** The point, JSON [lon, lat]. */
  point: string;
  /** The crown, the service's GeoJSON Polygon as JSON, or null. */
  shape: string | null;
  /** The detection's free JSON, as JSON text, or null. */
  info: string | null;
  /** The crown's geodesic area in m², the service's decimal string ('0.00' without a crown). */
  area: string;
  /** The local id of its parcel, when the mirror has that parcel and it is not deleted here. */
  parcel: string | null;
  /** The local id of its crop, likewise. */
  crop: string | null;
}

const COLUMNS = 'SELECT pl.server_id, pl.point, pl.shape, pl.info, pl.area, p.local_id AS parcel, c.local_id AS crop';
const LINKS = `LEFT JOIN parcels p ON p.account_id = pl.account_id AND p.server_id = pl.parcel_server_id AND p.deleted = 0
  LEFT JOIN crops c ON c.account_id = pl.account_id AND c.server_id = pl.crop_server_id AND c.deleted = 0`;

/**
 * An account's plants whose point or crown meets the box, at most `limit`. CROSS JOIN keeps the R*Tree the outer
 * loop: given the choice, the planner walked all of the account's plants by its index and probed the tree for each.
 */
export function plantsInBox(db: Db, accountId: string, bbox: readonly [number, number, number, number], limit: number): PlantHit[] {
  return cachedStatement(db, `${COLUMNS} FROM plants_rtree r CROSS JOIN plants pl ON pl.rowid = r.id ${LINKS}
    WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ? AND pl.account_id = ? LIMIT ?`)
    .all(bbox[0], bbox[2], bbox[1], bbox[3], accountId, limit) as PlantHit[];
}

/**
 * How many plants a parcel (by its server id) has, and the first `limit` of them by id. By the parcel's index: the
 * planner preferred the primary key for its order, a walk over every plant of the account.
 */
export function parcelPlants(db: Db, accountId: string, parcelServerId: number, limit: number): { count: number; plants: PlantHit[] } {
  const count = cachedStatement(db, 'SELECT count(*) FROM plants WHERE account_id = ? AND parcel_server_id = ?').pluck().get(accountId, parcelServerId) as number;
  const plants = count === 0 ? [] : cachedStatement(db, `${COLUMNS} FROM plants pl INDEXED BY plants_parcel ${LINKS} WHERE pl.account_id = ? AND pl.parcel_server_id = ? ORDER BY pl.server_id LIMIT ?`)
    .all(accountId, parcelServerId, limit) as PlantHit[];
  return { count, plants };
}
