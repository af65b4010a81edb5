// The map's parcel tiles, cut from the mirror: every live parcel of an account whose box meets tile z/x/y (the
// R*Tree), as an MVT layer `parcels` (core/tiles/mvt-writer.ts). A parcel SHAPE_FROM_PX pixels or more across is its
// polygon, simplified for the zoom (core/tiles/tile-geometry.ts), one of a pixel or more its box, each with its local
// id (`id`), sync state (`state`) and, when asked, its active crop (`cropName`, `family`); one smaller than a pixel
// is a point at its box's centre, and the
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

export interface ParcelBox { rid: number; minx: number; miny: number; maxx: number; maxy: number; live: number }

/** The rowids and boxes of parcels by local id, `live` 1 for a live parcel of `account`, else 0 (deleted, another's). */
export function parcelBoxes(db: Db, account: string, localIds: readonly string[]): ParcelBox[] {
  return cachedStatement(db, `SELECT rowid AS rid, minx, miny, maxx, maxy, (deleted = 0 AND account_id = ?) AS live FROM parcels
      WHERE local_id IN (SELECT value FROM json_each(?))`).all(account, JSON.stringify(localIds)) as ParcelBox[];
}

export const LIVE_BOXES_SQL = 'SELECT id, minx, miny, maxx, maxy FROM parcels_rtree WHERE account_id = ? AND deleted = 0';

/**
 * Every live parcel of the account, from the R*Tree alone (its account and deleted flag are auxiliary columns of it,
 * migration 010), each handed to `each` as it is read (rowid, minx, miny, maxx, maxy), in one scan of the index and
 * never of the parcels' rows. One at a time: a million rows gathered first as arrays spent more time in the garbage
 * collector than in the scan.
 */
export function eachLiveParcelBox(db: Db, account: string, each: (rid: number, minx: number, miny: number, maxx: number, maxy: number) => void): void {
  for (const r of cachedStatement(db, LIVE_BOXES_SQL).raw().iterate(account) as IterableIterator<[number, number, number, number, number]>) {
    each(r[0], r[1], r[2], r[3], r[4]);
  }
}

/** A parcel meeting a tile: its rowid, local id (null: not read), box, and geometry (null: not read, drawn by its box). */
export interface TileRow { rid: number; id: string | null; minx: number; maxx: number; miny: number; maxy: number; geometry: string | null }

/**
 * A parcel narrower and lower than this many pixels is drawn as its box: at that size its outline simplified within
 * half a pixel is a blob of a few vertices, and reading and parsing the geometry of each of the tens of thousands
 * of parcels a regional tile holds took seconds.
 */
export const SHAPE_FROM_PX = 4;

/** The degrees of a tile pixel at z/x/y: across, and up and down (shorter towards the poles: Mercator). */
export function tilePixel(z: number, x: number, y: number): { lon: number; lat: number; box: [number, number, number, number] } {
  const box = tileBox(z, x, y);
  return { lon: (box[2] - box[0]) / TILE_PIXELS, lat: (box[3] - box[1]) / TILE_PIXELS, box };
}

/** The box of tile z/x/y with its buffer: a parcel meeting it is in the tile. */
export function bufferedTileBox(z: number, x: number, y: number): [number, number, number, number] {
  const { lon, lat, box } = tilePixel(z, x, y);
  return [box[0] - lon * BUFFER_PX, box[1] - lat * BUFFER_PX, box[2] + lon * BUFFER_PX, box[3] + lat * BUFFER_PX];
}

/** The SQL of a tile's parcels: the account's live parcels whose box meets the buffered tile, read from the R*Tree alone. */
export const TILE_ROWS_SQL = `SELECT id AS rid, NULL AS id, minx, maxx, miny, maxy, NULL AS geometry FROM parcels_rtree
  WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ? AND account_id = ? AND deleted = 0`;

/**
 * Cuts tile z/x/y of the account's parcels: found in the R*Tree, its auxiliary columns telling the account's live
 * ones (no parcel row read for them); only those SHAPE_FROM_PX pixels or more across have their row read, for their
 * geometry and local id (withShapes).
 */
export function cutParcelTile(db: Db, account: string, z: number, x: number, y: number, looks: ParcelLooks): CutTile {
  const [w, s, e, n] = bufferedTileBox(z, x, y);
  const rows = cachedStatement(db, TILE_ROWS_SQL).all(w, e, s, n, account) as TileRow[];
  return tileOf(z, x, y, withShapes(db, z, x, y, rows), looks);
}

/**
 * Fills in the local id and geometry of the rows SHAPE_FROM_PX pixels or more across at z/x/y (found in the R*Tree or
 * in backend/parcel-overview.ts, without their rows), in one query by rowid.
 */
export function withShapes(db: Db, z: number, x: number, y: number, rows: TileRow[]): TileRow[] {
  const px = tilePixel(z, x, y);
  const big = rows.filter((r) => r.maxx - r.minx >= px.lon * SHAPE_FROM_PX || r.maxy - r.miny >= px.lat * SHAPE_FROM_PX);
  if (!big.length) return rows;
  const read = new Map((cachedStatement(db, 'SELECT rowid, local_id, geometry FROM parcels WHERE rowid IN (SELECT value FROM json_each(?))').raw()
    .all(JSON.stringify(big.map((r) => r.rid))) as [number, string, string][]).map(([rid, id, g]) => [rid, { id, g }]));
  for (const r of big) {
    const got = read.get(r.rid);
    if (got) { r.id = got.id; r.geometry = got.g; }
  }
  return rows;
}

/**
 * The most features a tile gets from its parcels below SHAPE_FROM_PX: beyond, they are merged on a coarser grid of
 * cells of several pixels. OpenLayers holds about 2 KB a feature it draws from a tile: a regional view of 1,000,000
 * parcels, one feature each, took the page's heap past 6 GB.
 */
export const SMALL_FEATURES_PER_TILE = 6000;

/** Parcels below SHAPE_FROM_PX found without a row each (backend/parcel-overview.ts): rowids and box centres. */
export interface SmallParcels { n: number; rid: Int32Array; lon: Float64Array; lat: Float64Array }

const SYNCED: Look = Object.freeze({ state: 'synced' });

/**
 * The tile of `rows` and of `small` (parcels already known to be below SHAPE_FROM_PX): polygons, boxes and merged
 * points as the head of this file says.
 */
export function tileOf(z: number, x: number, y: number, rows: readonly TileRow[], looks: ParcelLooks, small?: SmallParcels): CutTile {
  const px = tilePixel(z, x, y);
  const features: MvtFeature[] = [];
  const total = rows.length + (small?.n ?? 0);
  const rowids = new Int32Array(total);
  // Crowded (more parcels than SMALL_FEATURES_PER_TILE), every parcel below SHAPE_FROM_PX is a point, merged on cells
  // of several pixels, as large as it takes to keep to the limit: each parcel still shows, as the dot of its cell.
  const crowded = total > SMALL_FEATURES_PER_TILE;
  // The points to merge, in tile units, with their rowid and local id (when read: only rows have one), in typed
  // arrays of the largest size they may need: a country's tile holds a million.
  const pRid = new Int32Array(total);
  const pX = new Float64Array(total);
  const pY = new Float64Array(total);
  const pId: (string | null)[] = [];
  let np = 0;
  let i = 0;
  for (const r of rows) {
    rowids[i++] = r.rid;
    const look = lookOf(r.rid, looks);
    const named = r.id === null ? look : { id: r.id, ...look };
    if (r.geometry !== null) {
      const polygons = tilePolygons(JSON.parse(r.geometry) as { type: string; coordinates: unknown }, z, x, y, PIXEL / 2);
      if (polygons.length) {
        features.push({ id: r.rid, geometry: { type: 'polygon', polygons }, properties: named });
        continue;
      }
    }
    if (!crowded && (r.maxx - r.minx >= px.lon || r.maxy - r.miny >= px.lat)) {
      // A pixel or more, below SHAPE_FROM_PX: its box.
      const [x0, y0] = toTile(r.minx, r.maxy, z, x, y);
      const [x1, y1] = toTile(r.maxx, r.miny, z, x, y);
      const [a, b, c, d] = [Math.round(x0), Math.round(y0), Math.max(Math.round(x1), Math.round(x0) + 1), Math.max(Math.round(y1), Math.round(y0) + 1)];
      features.push({ id: r.rid, geometry: { type: 'polygon', polygons: [[[[a, b], [c, b], [c, d], [a, d]]]] }, properties: named });
      continue;
    }
    const [tx, ty] = toTile((r.minx + r.maxx) / 2, (r.miny + r.maxy) / 2, z, x, y);
    pRid[np] = r.rid; pX[np] = tx; pY[np] = ty; pId[np++] = r.id;
  }
  if (small) {
    // Web Mercator inline (core/tiles/tile-geometry.ts toTile): a million calls allocate nothing.
    const n = 2 ** z;
    for (let k = 0; k < small.n; k++) {
      rowids[i++] = small.rid[k]!;
      const phi = (Math.max(-85.0511287798, Math.min(85.0511287798, small.lat[k]!)) * Math.PI) / 180;
      pRid[np] = small.rid[k]!;
      pX[np] = (((small.lon[k]! + 180) / 360) * n - x) * TILE_EXTENT;
      pY[np++] = (((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n - y) * TILE_EXTENT;
    }
  }
  // Each point's look, interned: most parcels are synced without a crop, and share one.
  const lookIds = new Map<string, number>([['synced||', 0]]);
  const lookList: Look[] = [SYNCED];
  const lookIdx = new Int32Array(np);
  for (let k = 0; k < np; k++) {
    const rid = pRid[k]!;
    if (!looks.states.has(rid) && !looks.crops?.has(rid)) continue;
    const look = lookOf(rid, looks);
    const key = `${look.state}|${look.cropName ?? ''}|${look.family ?? ''}`;
    let id = lookIds.get(key);
    if (id === undefined) { lookIds.set(key, (id = lookList.length)); lookList.push(look); }
    lookIdx[k] = id;
  }
  // Below a pixel (or crowded): a point at its cell's centre, one for all the parcels of that cell that look alike;
  // cells doubled until the points keep to the limit.
  let cell = crowded ? firstCell(pX, pY, np) : PIXEL;
  let points = new Map<number, { k: number; count: number }>();
  for (;;) {
    points = new Map();
    const side = Math.ceil(TILE_EXTENT / cell) + 64;
    for (let k = 0; k < np; k++) {
      const qx = Math.floor(pX[k]! / cell) + 32;
      const qy = Math.floor(pY[k]! / cell) + 32;
      const key = ((qy * side + qx) * lookList.length) + lookIdx[k]!;
      const same = points.get(key);
      if (same) same.count++;
      else points.set(key, { k, count: 1 });
    }
    if (!crowded || points.size <= SMALL_FEATURES_PER_TILE || cell >= 64 * PIXEL) break;
    cell *= 2;
  }
  for (const { k, count } of points.values()) {
    const look = lookList[lookIdx[k]!]!;
    const qx = Math.floor(pX[k]! / cell);
    const qy = Math.floor(pY[k]! / cell);
    // A point of several parcels names none of them (a click asks the host for the exact parcel anyway).
    const id = count === 1 ? pId[k] ?? null : null;
    features.push({ geometry: { type: 'point', x: Math.round(qx * cell + cell / 2), y: Math.round(qy * cell + cell / 2) }, properties: { ...(id ? { id } : {}), ...look, count } });
  }
  rowids.sort();
  return { data: writeMvt([{ name: PARCEL_LAYER, extent: TILE_EXTENT, features }]), rowids };
}

/**
 * The smallest cell, PIXEL doubled up to 64 pixels, on which the np points fill at most SMALL_FEATURES_PER_TILE
 * cells, their looks aside: no finer cell can keep a crowded tile to its limit (a cell of several looks is several
 * points), so the merge starts there. Counted on a bitmap, a few nanoseconds a point; the merge's map of cells cost
 * a tenth of a microsecond a point a try, and a country's tile of a million parcels took seven tries.
 */
function firstCell(pX: Float64Array, pY: Float64Array, np: number): number {
  let cell = PIXEL;
  while (cell < 64 * PIXEL) {
    const side = Math.ceil(TILE_EXTENT / cell) + 64;
    const seen = new Uint8Array(side * side);
    let filled = 0;
    for (let k = 0; k < np && filled <= SMALL_FEATURES_PER_TILE; k++) {
      // The merge's own cells: 32 cells of margin for the tile's buffer.
      const qx = Math.min(side - 1, Math.max(0, Math.floor(pX[k]! / cell) + 32));
      const qy = Math.min(side - 1, Math.max(0, Math.floor(pY[k]! / cell) + 32));
      const at = qy * side + qx;
      if (!seen[at]) { seen[at] = 1; filled++; }
    }
    if (filled <= SMALL_FEATURES_PER_TILE) return cell;
    cell *= 2;
  }
  return cell;
}

type Look = { state: string; cropName?: string; family?: string };

function lookOf(id: number, looks: ParcelLooks): Look {
  const look: Look = { state: looks.states.get(id) ?? 'synced' };
  const crop = looks.crops?.get(id);
  if (crop?.name) look.cropName = crop.name;
  if (crop?.family) look.family = crop.family;
  return look;
}
