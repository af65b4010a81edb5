// What cuts the map's parcel tiles from the mirror (db/parcel-tiles.ts), wherever it runs: on the host's tile thread
// (backend/parcel-tile-worker.ts, its own read-only connection), or on the host's own thread for a mirror in memory.
// It holds what a cut reads once for many tiles: each account's looks (the sync states and active crops that colour
// a parcel) and the account's overview of its parcels' boxes for the low zooms (backend/parcel-overview.ts), both kept
// in step by `changed`, which the host calls with each change to the mirror before any page hears of it.
import type { Db } from '../db/open.ts';
import { MirrorReader } from '../db/reader.ts';
import { bufferedTileBox, cutParcelTile, parcelLooks, tileOf, tilePixel, withShapes, type CutTile, type ParcelBox, type ParcelLooks } from '../db/parcel-tiles.ts';
import { ParcelOverview } from './parcel-overview.ts';

/** Tiles of this zoom and lower are cut from the parcels' boxes in memory (backend/parcel-overview.ts) once it is built. */
export const OVERVIEW_UP_TO_ZOOM = 10;

/** A change to an account's parcels, as the tile cutter needs it. */
export interface TileChange {
  account: string;
  /** The boxes of the parcels changed (db/parcel-tiles.ts parcelBoxes); null: too many to list, the overview is built again. */
  boxes: ParcelBox[] | null;
}

export class ParcelTileCutter {
  private readonly looks = new Map<string, ParcelLooks>();
  private readonly overviews = new Map<string, ParcelOverview>();
  private readonly reader: MirrorReader;

  constructor(private readonly db: Db) {
    this.reader = new MirrorReader(db);
  }

  /** Tile z/x/y of the account's parcels, with their active crop when `crops`. */
  cut(account: string, crops: boolean, z: number, x: number, y: number): CutTile {
    const lookKey = `${account}|${crops ? 1 : 0}`;
    let looks = this.looks.get(lookKey);
    if (!looks) this.looks.set(lookKey, (looks = parcelLooks(this.db, (ids) => this.reader.parcelStates(ids), account, crops)));
    const overview = z <= OVERVIEW_UP_TO_ZOOM ? this.overview(account) : null;
    if (!overview?.ready) return cutParcelTile(this.db, account, z, x, y, looks);
    // Below a pixel a parcel needs no row of its own (a point); from SHAPE_FROM_PX its geometry is read by rowid.
    const px = tilePixel(z, x, y);
    const found = overview.rows(bufferedTileBox(z, x, y), { lon: px.lon, lat: px.lat });
    return tileOf(z, x, y, withShapes(this.db, z, x, y, found.rows), looks, found.small);
  }

  /** Builds the account's overview in the background, when not built or building yet. */
  warm(account: string): Promise<void> {
    return this.overview(account).build();
  }

  /** The mirror changed: the account's looks are read again at the next cut, its overview follows the boxes. */
  changed(c: TileChange): void {
    for (const k of this.looks.keys()) if (k.startsWith(`${c.account}|`)) this.looks.delete(k);
    if (c.boxes === null) {
      if (this.overviews.delete(c.account)) this.overview(c.account);
      return;
    }
    const overview = this.overviews.get(c.account);
    for (const b of c.boxes) overview?.update(b);
  }

  /** About how many bytes the overviews hold (the benchmark reports the host's memory). */
  overviewBytes(): number {
    let n = 0;
    for (const o of this.overviews.values()) n += o.bytes();
    return n;
  }

  private overview(account: string): ParcelOverview {
    let o = this.overviews.get(account);
    if (!o) {
      this.overviews.set(account, (o = new ParcelOverview(this.db, account)));
      void o.build().catch(() => this.overviews.delete(account));
    }
    return o;
  }
}
