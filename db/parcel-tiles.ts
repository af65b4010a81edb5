// The map's parcel tiles, cut from the mirror: every live parcel of an account whose box meets tile z/x/y (the
// R*Tree), as an MVT layer `parcels` (core/tiles/mvt-writer.ts). A parcel at least a pixel across is its polygon,
// simplified for the zoom (core/tiles/tile-geometry.ts), with its local id (`id`), sync state (`state`) and, when
// asked, its active crop (`cropName`, `family`); one smaller than a pixel is a point at its box's centre, and the
// parcels of one pixel with the same look are one point (`count` of them): every parcel shows at every zoom, and a
// tile of the whole country reads the boxes of its parcels, never their geometry. Read-only.
import type { Db } from './open.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { writeMvt, type MvtFeature } from '../core/tiles/mvt-writer.ts';
import { TILE_EXTENT, tileBox, tilePolygons, toTile } from '../core/tiles/tile-geometry.ts';
import type { ParcelSyncState } from './reader.ts';

/** The layer's name in every tile. */
export const PARCEL_LAYER = 'parcels';
/** Tile pixels per tile side (OpenLayers' VectorTile default): a pixel is TILE_EXTENT / TILE_PIXELS units. */
const TILE_PIXELS = 512;
const PIXEL = TILE_EXTENT / TILE_PIXELS;
/** Parcels this many pixels beyond the tile are in it too, so an outline on its edge is drawn whole. */
const BUFFER_PX = 4;

/** What colours a parcel, other than its geometry: the states of those not synced, and the active crops. */
export interface ParcelLooks {
  /** Rowid → state, for the parcels with an open op or conflict (every other one is synced). */
  states: Map<number, ParcelSyncState>;
  /** Rowid → its active crop's name and family, when the map is coloured by crop. */
  crops: Map<number, { name: string | null; family: string | null }> | null;
}

export interface CutTile {
  data: Uint8Array;
  /** The rowids of the parcels in the tile, sorted: the tile is cut again when one of them changes. */
  rowids: Int32Array;
}

/**
 * The account's parcels that are not synced, with the state the map shows (db/reader.ts syncStates' ranking), and
 * their active crops when `crops`: read once for many tiles, so a tile costs its R*Tree rows alone.
 */
export function parcelLooks(db: Db, syncStates: (ids: readonly string[]) => Map<string, { state: ParcelSyncState }>, account: string, crops: boolean): ParcelLooks {
  const open = cachedStatement(db, `SELECT local_id FROM outbox WHERE account_id = ? AND entity = 'parcel' AND state != 'committed'
      UNION SELECT local_id FROM conflicts WHERE account_id = ? AND entity = 'parcel' AND resolved IS NULL`).pluck().all(account, account) as string[];
  const states = new Map<number, ParcelSyncState>();
  const rowids = new Map((cachedStatement(db, 'SELECT local_id, rowid FROM parcels WHERE local_id IN (SELECT value FROM json_each(?))').raw()
    .all(JSON.stringify(open)) as [string, number][]));
  for (const [id, s] of syncStates(open)) if (s.state !== 'synced' && rowids.has(id)) states.set(rowids.get(id)!, s.state);
  let cropMap: ParcelLooks['crops'] = null;
  if (crops) {
    cropMap = new Map();
    // The newest sowing first, as the viewport's crop (db/reader.ts FEATURE_WITH_CROP_JSON): the first row a parcel gets wins.
    const rows = cachedStatement(db, `SELECT p.rowid AS id, c.name, coalesce(c.family_name, f.name) AS family FROM crops c
        JOIN parcels p ON p.local_id = c.parcel_local_id
        LEFT JOIN crop_families f ON f.account_id = c.account_id AND f.server_id = c.family_id
        WHERE c.account_id = ? AND c.deleted = 0 AND c.is_active = 1
        ORDER BY c.parcel_local_id, c.sowing IS NULL, c.sowing DESC, c.created DESC`).all(account) as { id: number; name: string | null; family: string | null }[];
    for (const r of rows) if (!cropMap.has(r.id)) cropMap.set(r.id, { name: r.name, family: r.family });
  }
  return { states, crops: cropMap };
}

/** The rowids and boxes of parcels by local id (deleted ones included: their tiles still show them until cut again). */
export function parcelBoxes(db: Db, localIds: readonly string[]): { rid: number; minx: number; miny: number; maxx: number; maxy: number }[] {
  return cachedStatement(db, 'SELECT rowid AS rid, minx, miny, maxx, maxy FROM parcels WHERE local_id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(localIds)) as { rid: number; minx: number; miny: number; maxx: number; maxy: number }[];
}

interface Row { rid: number; id: string; minx: number; maxx: number; miny: number; maxy: number; geometry: string | null }

/** Cuts tile z/x/y of the account's parcels. */
export function cutParcelTile(db: Db, account: string, z: number, x: number, y: number, looks: ParcelLooks): CutTile {
  const [w, s, e, n] = tileBox(z, x, y);
  // A pixel in degrees: across, the same everywhere; up and down, shorter towards the poles (Mercator).
  const pxLon = (e - w) / TILE_PIXELS;
  const pxLat = (n - s) / TILE_PIXELS;
  const bx = pxLon * BUFFER_PX;
  const by = pxLat * BUFFER_PX;
  // The geometry is read only for parcels a pixel or more across; CROSS JOIN keeps the R*Tree first (db/reader.ts).
  const rows = cachedStatement(db, `SELECT p.rowid AS rid, p.local_id AS id, r.minx, r.maxx, r.miny, r.maxy,
        CASE WHEN r.maxx - r.minx >= ? OR r.maxy - r.miny >= ? THEN p.geometry END AS geometry
      FROM parcels_rtree r CROSS JOIN parcels p ON p.rowid = r.id
      WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ? AND p.deleted = 0 AND p.account_id = ?`)
    .all(pxLon, pxLat, w - bx, e + bx, s - by, n + by, account) as Row[];
  const features: MvtFeature[] = [];
  const points = new Map<string, MvtFeature>();
  const rowids = new Int32Array(rows.length);
  let i = 0;
  for (const r of rows) {
    rowids[i++] = r.rid;
    const look = lookOf(r.rid, looks);
    if (r.geometry !== null) {
      const polygons = tilePolygons(JSON.parse(r.geometry) as { type: string; coordinates: unknown }, z, x, y, PIXEL / 2);
      if (polygons.length) {
        features.push({ id: r.rid, geometry: { type: 'polygon', polygons }, properties: { id: r.id, ...look } });
        continue;
      }
    }
    // Below a pixel: a point at the pixel's centre, one for all the parcels of that pixel that look alike.
    const [tx, ty] = toTile((r.minx + r.maxx) / 2, (r.miny + r.maxy) / 2, z, x, y);
    const px = Math.floor(tx / PIXEL);
    const py = Math.floor(ty / PIXEL);
    const key = `${px},${py},${look.state},${look.cropName ?? ''},${look.family ?? ''}`;
    const same = points.get(key);
    if (same) same.properties.count = (same.properties.count as number) + 1;
    else points.set(key, { geometry: { type: 'point', x: px * PIXEL + PIXEL / 2, y: py * PIXEL + PIXEL / 2 }, properties: { ...look, count: 1, id: r.id } });
  }
  for (const p of points.values()) {
    // A point of several parcels names none of them (a click asks the host for the exact parcel anyway).
    if ((p.properties.count as number) > 1) delete p.properties.id;
    features.push(p);
  }
  rowids.sort();
  return { data: writeMvt([{ name: PARCEL_LAYER, extent: TILE_EXTENT, features }]), rowids };
}

function lookOf(id: number, looks: ParcelLooks): { state: string; cropName?: string; family?: string } {
  const look: { state: string; cropName?: string; family?: string } = { state: looks.states.get(id) ?? 'synced' };
  const crop = looks.crops?.get(id);
  if (crop?.name) look.cropName = crop.name;
  if (crop?.family) look.family = crop.family;
  return look;
}
