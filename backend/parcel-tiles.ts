// The map's parcel tiles for the pages (core/api-parcel-tiles.ts): cut from the mirror on demand (db/parcel-tiles.ts),
// served through each page session's bytes readers (backend/bytes.ts: /bytes/<key>/<id>/<z>-<x>-<y>), and kept in
// a bounded in-memory cache shared by every page, newest use last. The mirror's change events drop what they make
// stale before the page hears of them (Backend's flush calls `changed` first): the tiles that hold a parcel changed
// (where it was) and the tiles that meet its box now (where it is), at every zoom; a change too large to list (an
// import, a first pull) drops the account's tiles. The app's host cuts them on its tile threads
// (backend/parcel-tile-thread.ts), each of which holds what colours a parcel (its sync state, its crop, read once per account
// until the account changes) and the overview of the low zooms (backend/parcel-tile-cutter.ts); the cache stays here,
// on the host's thread, so a change drops its stale tiles before the page hears of it, and a cut asked before the
// change is not kept.
import type { Mirror } from '../db/mirror.ts';
import { parcelBoxes, type CutTile } from '../db/parcel-tiles.ts';
import { OVERVIEW_UP_TO_ZOOM, ParcelTileCutter, type TileChange } from './parcel-tile-cutter.ts';
import { ParcelTileThread } from './parcel-tile-thread.ts';
import { tileBox } from '../core/tiles/tile-geometry.ts';
import type { ChangeEvent } from '../core/api-parcels.ts';
import type { ByteSession, ReadBytes } from './bytes.ts';

/** A tile's name in its bytes path: z-x-y. */
const NAME = /^(\d{1,2})-(\d{1,8})-(\d{1,8})$/;
/** The deepest zoom cut: OpenLayers scales this zoom's tiles up beyond it (a parcel's vertices are centimetres apart there). */
export const PARCEL_TILE_MAX_ZOOM = 16;
/** The cache's default size: a tile is a few to a few hundred kilobytes. */
const DEFAULT_CACHE_BYTES = 96 * 2 ** 20;
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

export interface ParcelTilesOptions {
  cacheBytes?: number;
  /**
   * Cut the tiles on this many threads of their own (backend/parcel-tile-thread.ts), the host's thread free meanwhile:
   * the app's host does. 0 (the default), and for a mirror in memory (no file for a thread to open): on the caller's
   * thread. The first thread cuts the low zooms (it alone holds the overviews: 63 MB for a million parcels); the
   * others, and it, the deeper tiles, each to the thread with the fewest waiting, so a view's cold tiles are cut side
   * by side. Each is started when first needed, not with the host.
   */
  threads?: number;
}

export class ParcelTiles {
  /** Insertion order is use order: a hit moves its entry to the end, the oldest go first. */
  private readonly cache = new Map<string, Entry>();
  /** Tiles being cut on the thread, by cache key: a second ask waits for the same cut. */
  private readonly cutting = new Map<string, Promise<Entry>>();
  /** Each account's changes so far: a cut asked before a change is answered but not kept (it may predate the change). */
  private readonly generation = new Map<string, number>();
  private readonly cutter: ParcelTileCutter;
  /** The tile threads, each started when first needed (null until then): booting them slowed the app's start. */
  private readonly threads: (ParcelTileThread | null)[];
  private closed = false;
  private bytes = 0;
  private cuts = 0;
  private readonly cacheBytes: number;

  constructor(private readonly mirror: Mirror, opts: ParcelTilesOptions = {}) {
    this.cacheBytes = opts.cacheBytes ?? DEFAULT_CACHE_BYTES;
    this.cutter = new ParcelTileCutter(mirror.syncDb);
    const n = mirror.syncDb.memory ? 0 : opts.threads ?? 0;
    this.threads = Array.from({ length: n }, () => null);
  }

  /** The session's path template for the account's tiles ({z}, {x}, {y} to fill in); with `crops`, they carry the active crop. */
  template(scope: ByteSession, account: string, crops: boolean): string {
    void this.warm(account).catch(() => {});
    const { template } = scope.addReader(`parcels:${account}:${crops ? 'crops' : 'state'}`, (name) => this.serve(account, crops, name));
    return template.replace('{name}', '{z}-{x}-{y}');
  }

  /** A tile by its name, z-x-y (XYZ rows), from the cache or cut now on this thread; null for a name that is no tile. */
  read(account: string, crops: boolean, name: string): ReadBytes | null {
    const at = tileAt(name);
    return at && bytesOf(this.tile(account, crops, ...at));
  }

  /**
   * A tile by its name as the pages' bytes reader answers it: from the cache at once, else cut on the tile thread
   * (the host's thread answering other calls meanwhile) or, without one, here.
   */
  serve(account: string, crops: boolean, name: string): ReadBytes | null | Promise<ReadBytes> {
    const at = tileAt(name);
    if (!at) return null;
    const key = keyOf(account, crops, ...at);
    const hit = this.hit(key);
    if (hit) return bytesOf(hit);
    const thread = this.threadFor(at[0]);
    if (!thread) return bytesOf(this.tile(account, crops, ...at));
    let p = this.cutting.get(key);
    if (!p) {
      const gen = this.generation.get(account) ?? 0;
      p = thread.cut(account, crops, ...at).then((cut) => this.keep(key, account, crops, at, cut, gen === (this.generation.get(account) ?? 0)));
      const done = p;
      this.cutting.set(key, p);
      void p.finally(() => { if (this.cutting.get(key) === done) this.cutting.delete(key); }).catch(() => {});
    }
    return p.then(bytesOf);
  }

  /** The tile's entry, cut on this thread when not cached. */
  tile(account: string, crops: boolean, z: number, x: number, y: number): Entry {
    const key = keyOf(account, crops, z, x, y);
    return this.hit(key) ?? this.keep(key, account, crops, [z, x, y], this.cutter.cut(account, crops, z, x, y), true);
  }

  /** Builds the account's overview (backend/parcel-overview.ts) in the background, when not built or building yet. */
  warm(account: string): Promise<void> {
    const thread = this.threadFor(0);
    if (!thread) return this.cutter.warm(account);
    thread.warm(account);
    return Promise.resolve();
  }

  /** What the cache holds: tiles and bytes, the overviews' bytes (the benchmark reports them), and each thread's tiles waiting. */
  size(): { tiles: number; bytes: number; overviewBytes: number; waiting: number[] } {
    const threads = this.threads.filter((t) => t?.usable) as ParcelTileThread[];
    const overviewBytes = threads.length ? threads.reduce((n, t) => n + t.overviewBytes, 0) : this.cutter.overviewBytes();
    return { tiles: this.cache.size, bytes: this.bytes, overviewBytes, waiting: this.threads.map((t) => t?.waiting ?? 0) };
  }

  /** Ends the tile threads (the host stops). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t?.close()));
  }

  /**
   * The thread to cut a tile of zoom z: the first for the low zooms (its overviews), else the one with the fewest
   * tiles waiting; null when none is left (the tiles are cut here).
   */
  private threadFor(z: number): ParcelTileThread | null {
    if (this.closed || !this.threads.length) return null;
    if (z <= OVERVIEW_UP_TO_ZOOM) return this.started(0) ?? this.anyStarted();
    // The least busy thread; one not started yet when every started one has tiles waiting.
    let best: ParcelTileThread | null = null;
    for (let i = 0; i < this.threads.length; i++) {
      const t: ParcelTileThread | null = this.threads[i] ?? (best && best.waiting === 0 ? null : this.started(i));
      if (t?.usable && (!best || t.waiting < best.waiting)) best = t;
    }
    return best;
  }

  /** Thread i, started now if it was not; null once it is gone for good. */
  private started(i: number): ParcelTileThread | null {
    const t = (this.threads[i] ??= new ParcelTileThread(this.mirror.syncDb.name));
    return t.usable ? t : null;
  }

  /** A thread started and still there, if any. */
  private anyStarted(): ParcelTileThread | null {
    return this.threads.find((t) => t?.usable) ?? null;
  }


  private hit(key: string): Entry | undefined {
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
    }
    return hit;
  }

  /** A cut tile's entry, kept in the cache when `current` (cut after the account's last change), within its size. */
  private keep(key: string, account: string, crops: boolean, [z, x, y]: readonly [number, number, number], cut: CutTile, current: boolean): Entry {
    // The box a parcel must meet to be in the tile: the tile and its buffer (db/parcel-tiles.ts, a few pixels), rounded up.
    const [w, s, e, n] = tileBox(z, x, y);
    const mx = (e - w) / 64;
    const my = (n - s) / 64;
    const entry: Entry = { account, crops, data: cut.data, rowids: cut.rowids, box: [w - mx, s - my, e + mx, n + my], etag: `"parcels-${++this.cuts}"` };
    if (!current) return entry;
    this.cache.set(key, entry);
    this.bytes += entry.data.byteLength + entry.rowids.byteLength;
    for (const [k, old] of this.cache) {
      if (this.bytes <= this.cacheBytes || old === entry) break;
      this.drop(k, old);
    }
    return entry;
  }

  /** Tells the cutters (this thread's and the tile threads') of a change. */
  private tell(c: TileChange): void {
    this.generation.set(c.account, (this.generation.get(c.account) ?? 0) + 1);
    this.cutter.changed(c);
    for (const t of this.threads) t?.changed(c);
  }

  /** The account's tiles all go; its overview is built again. */
  private dropAccount(account: string): void {
    for (const [k, v] of this.cache) if (v.account === account) this.drop(k, v);
    this.tell({ account, boxes: null });
  }

  /** The mirror changed: the tiles it made stale are dropped, before the pages hear of it. */
  changed(e: ChangeEvent): void {
    const ids = [...e.parcels.upserted, ...e.parcels.removed];
    if (!ids.length && !e.manyParcels && !e.crops.length) return;
    if (e.manyParcels || ids.length > LISTED_CHANGES) return this.dropAccount(e.account);
    // A crop changed colours its parcel on the tiles that carry crops: which parcel is not in the event, so they all go.
    if (e.crops.length) for (const [k, v] of this.cache) if (v.account === e.account && v.crops) this.drop(k, v);
    const rows = ids.length ? parcelBoxes(this.mirror.syncDb, e.account, ids) : [];
    // A parcel whose row is gone (removed by a pull) cannot be told by its box: the account's tiles go.
    if (rows.length < new Set(ids).size) return this.dropAccount(e.account);
    this.tell({ account: e.account, boxes: rows });
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

const keyOf = (account: string, crops: boolean, z: number, x: number, y: number) => `${account}|${crops ? 1 : 0}|${z}/${x}/${y}`;
const bytesOf = (e: Entry): ReadBytes => ({ data: e.data, type: 'application/x-protobuf', etag: e.etag });

/** z, x and y of a tile's name, z-x-y (XYZ rows); null for a name that is no tile. */
function tileAt(name: string): [number, number, number] | null {
  const m = name.match(NAME);
  if (!m) return null;
  const [z, x, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return z > PARCEL_TILE_MAX_ZOOM || x >= 2 ** z || y >= 2 ** z ? null : [z, x, y];
}
