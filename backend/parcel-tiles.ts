// The map's parcel tiles for the pages (core/api-parcel-tiles.ts): cut from the mirror on demand (db/parcel-tiles.ts),
// served through each page session's bytes readers (backend/bytes.ts: /bytes/<key>/<id>/<z>-<x>-<y>), and kept in
// a bounded in-memory cache shared by every page, newest use last. The mirror's change events drop what they make
// stale before the page hears of them (Backend's flush calls `changed` first): the tiles that hold a parcel changed
// (where it was) and the tiles that meet its box now (where it is), at every zoom; a change too large to list (an
// import, a first pull) drops the account's tiles. What colours a parcel (its sync state, its crop) is read once per
// account and kept until the account changes.
import type { Mirror } from '../db/mirror.ts';
import { bufferedTileBox, cutParcelTile, parcelBoxes, parcelLooks, tileOf, tilePixel, withShapes, type ParcelLooks } from '../db/parcel-tiles.ts';
import { ParcelOverview } from './parcel-overview.ts';
import { tileBox } from '../core/tiles/tile-geometry.ts';
import type { ChangeEvent } from '../core/api-parcels.ts';
import type { ByteSession, ReadBytes } from './bytes.ts';

/** A tile's name in its bytes path: z-x-y. */
const NAME = /^(\d{1,2})-(\d{1,8})-(\d{1,8})$/;
/** The deepest zoom cut: OpenLayers scales this zoom's tiles up beyond it (a parcel's vertices are centimetres apart there). */
export const PARCEL_TILE_MAX_ZOOM = 16;
/** The cache's default size: a tile is a few to a few hundred kilobytes. */
const DEFAULT_CACHE_BYTES = 96 * 2 ** 20;
/** Tiles of this zoom and lower are cut from the parcels' boxes in memory (backend/parcel-overview.ts) once it is built. */
export const OVERVIEW_UP_TO_ZOOM = 10;
/** More parcels than this in one change: the account's tiles are dropped rather than looked through. */
const LISTED_CHANGES = 2000;

interface Entry {
  account: string;
  crops: boolean;
  data: Uint8Array;
  rowids: Int32Array;
  box: [number, number, number, number];
  etag: string;
}

function contains(sorted: Int32Array, v: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = sorted[mid]!;
    if (m === v) return true;
    if (m < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

export interface ParcelTilesOptions { cacheBytes?: number }

export class ParcelTiles {
  /** Insertion order is use order: a hit moves its entry to the end, the oldest go first. */
  private readonly cache = new Map<string, Entry>();
  private readonly looks = new Map<string, ParcelLooks>();
  private readonly overviews = new Map<string, ParcelOverview>();
  private bytes = 0;
  private cuts = 0;
  private readonly cacheBytes: number;

  constructor(private readonly mirror: Mirror, opts: ParcelTilesOptions = {}) {
    this.cacheBytes = opts.cacheBytes ?? DEFAULT_CACHE_BYTES;
  }

  /** The session's path template for the account's tiles ({z}, {x}, {y} to fill in); with `crops`, they carry the active crop. */
  template(scope: ByteSession, account: string, crops: boolean): string {
    this.warm(account);
    const { template } = scope.addReader(`parcels:${account}:${crops ? 'crops' : 'state'}`, (name) => this.read(account, crops, name));
    return template.replace('{name}', '{z}-{x}-{y}');
  }

  /** A tile by its name, z-x-y (XYZ rows), from the cache or cut now; null for a name that is no tile. */
  read(account: string, crops: boolean, name: string): ReadBytes | null {
    const m = name.match(NAME);
    if (!m) return null;
    const [z, x, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (z > PARCEL_TILE_MAX_ZOOM || x >= 2 ** z || y >= 2 ** z) return null;
    const e = this.tile(account, crops, z, x, y);
    return { data: e.data, type: 'application/x-protobuf', etag: e.etag };
  }

  /** The tile's entry, cut when not cached. */
  tile(account: string, crops: boolean, z: number, x: number, y: number): Entry {
    const key = `${account}|${crops ? 1 : 0}|${z}/${x}/${y}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const lookKey = `${account}|${crops ? 1 : 0}`;
    let looks = this.looks.get(lookKey);
    if (!looks) this.looks.set(lookKey, (looks = parcelLooks(this.mirror.syncDb, (ids) => this.mirror.read.parcelStates(ids), account, crops)));
    const overview = z <= OVERVIEW_UP_TO_ZOOM ? this.overview(account) : null;
    let cut;
    if (overview?.ready) {
      // Below a pixel a parcel needs no row of its own (a point); from SHAPE_FROM_PX its geometry is read by rowid.
      const px = tilePixel(z, x, y);
      const found = overview.rows(bufferedTileBox(z, x, y), { lon: px.lon, lat: px.lat });
      cut = tileOf(z, x, y, withShapes(this.mirror.syncDb, z, x, y, found.rows), looks, found.small);
    } else cut = cutParcelTile(this.mirror.syncDb, account, z, x, y, looks);
    // The box a parcel must meet to be in the tile: the tile and its buffer (db/parcel-tiles.ts, a few pixels), rounded up.
    const [w, s, e, n] = tileBox(z, x, y);
    const mx = (e - w) / 64;
    const my = (n - s) / 64;
    const entry: Entry = { account, crops, data: cut.data, rowids: cut.rowids, box: [w - mx, s - my, e + mx, n + my], etag: `"parcels-${++this.cuts}"` };
    this.cache.set(key, entry);
    this.bytes += entry.data.byteLength + entry.rowids.byteLength;
    for (const [k, old] of this.cache) {
      if (this.bytes <= this.cacheBytes || old === entry) break;
      this.drop(k, old);
    }
    return entry;
  }

  /** Builds the account's overview (backend/parcel-overview.ts) in the background, when not built or building yet. */
  warm(account: string): Promise<void> {
    return this.overview(account).build();
  }

  /** What the cache holds: tiles and bytes, and the overviews' bytes (the benchmark reports them). */
  size(): { tiles: number; bytes: number; overviewBytes: number } {
    let overviewBytes = 0;
    for (const o of this.overviews.values()) overviewBytes += o.bytes();
    return { tiles: this.cache.size, bytes: this.bytes, overviewBytes };
  }

  private overview(account: string): ParcelOverview {
    let o = this.overviews.get(account);
    if (!o) {
      this.overviews.set(account, (o = new ParcelOverview(this.mirror.syncDb, account)));
      void o.build().catch(() => this.overviews.delete(account));
    }
    return o;
  }

  /** The account's tiles all go; its overview is built again. */
  private dropAccount(account: string): void {
    for (const [k, v] of this.cache) if (v.account === account) this.drop(k, v);
    if (this.overviews.delete(account)) this.overview(account);
  }

  /** The mirror changed: the tiles it made stale are dropped, before the pages hear of it. */
  changed(e: ChangeEvent): void {
    const ids = [...e.parcels.upserted, ...e.parcels.removed];
    if (!ids.length && !e.manyParcels && !e.crops.length) return;
    for (const k of this.looks.keys()) if (k.startsWith(`${e.account}|`)) this.looks.delete(k);
    if (e.manyParcels || ids.length > LISTED_CHANGES) return this.dropAccount(e.account);
    // A crop changed colours its parcel on the tiles that carry crops: which parcel is not in the event, so they all go.
    if (e.crops.length) for (const [k, v] of this.cache) if (v.account === e.account && v.crops) this.drop(k, v);
    if (!ids.length) return;
    const rows = parcelBoxes(this.mirror.syncDb, e.account, ids);
    // A parcel whose row is gone (removed by a pull) cannot be told by its box: the account's tiles go.
    if (rows.length < new Set(ids).size) return this.dropAccount(e.account);
    const overview = this.overviews.get(e.account);
    for (const r of rows) overview?.update(r);
    for (const [k, v] of this.cache) {
      if (v.account !== e.account) continue;
      const stale = rows.some((r) => contains(v.rowids, r.rid) || (r.maxx >= v.box[0] && r.minx <= v.box[2] && r.maxy >= v.box[1] && r.miny <= v.box[3]));
      if (stale) this.drop(k, v);
    }
  }

  private drop(key: string, e: Entry): void {
    this.cache.delete(key);
    this.bytes -= e.data.byteLength + e.rowids.byteLength;
  }
}
