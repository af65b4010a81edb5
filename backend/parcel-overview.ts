// The boxes of an account's live parcels, held in the host's memory for the parcel tiles of low zooms: a tile of a
// region or a country meets hundreds of thousands of parcels, and reading them through the R*Tree and the parcels
// table took seconds a tile (1,000,000 parcels: 6 s for the R*Tree alone, 19 s with the table), while this answers
// the same rows in milliseconds. Built once from the R*Tree alone (typed arrays, a few dozen bytes a parcel), kept in
// step with the mirror's change events (a parcel's box moved, added, removed), built again after a change too large
// to list. Parcels are found through a grid of z10 tiles by their
// centre; one larger than a cell is kept aside and looked at by every query.
import type { Db } from '../db/open.ts';
import { eachLiveParcelBox, type ParcelBox, type SmallParcels, type TileRow } from '../db/parcel-tiles.ts';

/** The grid's zoom: a cell is a z10 tile (0.35° across). */
const GRID_Z = 10;
const CELLS = 2 ** GRID_Z;

const cellX = (lon: number) => Math.max(0, Math.min(CELLS - 1, Math.floor(((lon + 180) / 360) * CELLS)));
function cellY(lat: number): number {
  const r = (Math.max(-85.05, Math.min(85.05, lat)) * Math.PI) / 180;
  return Math.max(0, Math.min(CELLS - 1, Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * CELLS)));
}
const lonOf = (x: number) => (x / CELLS) * 360 - 180;
const latOf = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / CELLS))) * 180) / Math.PI;

export class ParcelOverview {
  private rowid = new Int32Array(1024);
  private box = new Float64Array(4096);
  private live = new Uint8Array(1024);
  private n = 0;
  private readonly slotOf = new Map<number, number>();
  private readonly cells = new Map<number, number[]>();
  /** Parcels larger than a cell: looked at by every query. */
  private readonly large = new Set<number>();
  private built = false;
  private building: Promise<void> | null = null;

  constructor(private readonly db: Db, readonly account: string) {}

  /** Whether the overview holds every live parcel of the account (until then, tiles read the R*Tree). */
  get ready(): boolean {
    return this.built;
  }

  /**
   * Builds it, once: one scan of the R*Tree, whose auxiliary columns tell the account's live parcels (migration 010),
   * so no parcel row is read (a million parcels: the index's ~70 MB, not the table's 2.3 GB). Run where a second or
   * two of work does not hold up the app: the tile thread (backend/parcel-tile-thread.ts).
   */
  build(): Promise<void> {
    this.building ??= (async () => {
      // Let the caller's turn finish first (the tile that asked is cut from the R*Tree meanwhile).
      await new Promise<void>((res) => setImmediate(res));
      eachLiveParcelBox(this.db, this.account, (rid, minx, miny, maxx, maxy) => this.put(rid, minx, miny, maxx, maxy));
      this.built = true;
    })();
    return this.building;
  }

  /** A parcel's box changed (moved, created) or it is no longer live: kept in step. */
  update(b: ParcelBox): void {
    // Before the build, the build reads it as it is then (one statement: no change comes between its rows).
    if (!this.built) return;
    const slot = this.slotOf.get(b.rid);
    if (slot !== undefined) this.live[slot] = 0;
    this.slotOf.delete(b.rid);
    this.large.delete(b.rid);
    if (b.live) this.put(b.rid, b.minx, b.miny, b.maxx, b.maxy);
  }

  /**
   * The live parcels whose box meets `box` ([w, s, e, n]): those `big` across or up (degrees) as rows without id or
   * geometry, the others as rowids and box centres only (a country-wide tile's million rows as objects took seconds).
   */
  rows(box: readonly [number, number, number, number], big: { lon: number; lat: number }): { rows: TileRow[]; small: SmallParcels } {
    const out: TileRow[] = [];
    let cap = 1024;
    const small: SmallParcels = { n: 0, rid: new Int32Array(cap), lon: new Float64Array(cap), lat: new Float64Array(cap) };
    // A rowid has one live slot, in one cell or among the large: no parcel is taken twice.
    const take = (slot: number) => {
      if (!this.live[slot]) return;
      const b = this.box;
      const o = slot * 4;
      const [minx, miny, maxx, maxy] = [b[o]!, b[o + 1]!, b[o + 2]!, b[o + 3]!];
      if (maxx < box[0] || minx > box[2] || maxy < box[1] || miny > box[3]) return;
      if (maxx - minx >= big.lon || maxy - miny >= big.lat) {
        out.push({ rid: this.rowid[slot]!, id: null, minx, miny, maxx, maxy, geometry: null });
        return;
      }
      if (small.n === cap) {
        cap *= 2;
        const grow = <T extends Int32Array | Float64Array>(a: T): T => { const next = new (a.constructor as new (n: number) => T)(cap); next.set(a); return next; };
        small.rid = grow(small.rid); small.lon = grow(small.lon); small.lat = grow(small.lat);
      }
      small.rid[small.n] = this.rowid[slot]!;
      small.lon[small.n] = (minx + maxx) / 2;
      small.lat[small.n++] = (miny + maxy) / 2;
    };
    // Cells whose centre-placed parcels may meet the box: one cell more on every side (a parcel smaller than a cell
    // reaches at most one cell beyond its own).
    const [x0, x1, y0, y1] = [cellX(box[0]) - 1, cellX(box[2]) + 1, cellY(box[3]) - 1, cellY(box[1]) + 1];
    const span = (x1 - x0 + 1) * (y1 - y0 + 1);
    if (span > this.cells.size) {
      // A box of more cells than hold parcels: every cell is looked at once instead.
      for (const [key, slots] of this.cells) {
        const cx = Math.floor(key / CELLS);
        const cy = key % CELLS;
        if (cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1) for (const s of slots) take(s);
      }
    } else {
      for (let cx = x0; cx <= x1; cx++) for (let cy = y0; cy <= y1; cy++) for (const s of this.cells.get(cx * CELLS + cy) ?? []) take(s);
    }
    for (const rid of this.large) take(this.slotOf.get(rid)!);
    return { rows: out, small };
  }

  /** About how many bytes it holds (the benchmark reports the host's memory). */
  bytes(): number {
    return this.rowid.byteLength + this.box.byteLength + this.live.byteLength + this.n * 24;
  }

  private put(rid: number, minx: number, miny: number, maxx: number, maxy: number): void {
    if (this.n === this.rowid.length) {
      const grow = <T extends Int32Array | Float64Array | Uint8Array>(a: T, k: number): T => {
        const next = new (a.constructor as new (n: number) => T)(this.rowid.length * 2 * k);
        next.set(a);
        return next;
      };
      this.box = grow(this.box, 4);
      this.live = grow(this.live, 1);
      this.rowid = grow(this.rowid, 1);
    }
    const slot = this.n++;
    this.rowid[slot] = rid;
    const o = slot * 4;
    this.box[o] = minx;
    this.box[o + 1] = miny;
    this.box[o + 2] = maxx;
    this.box[o + 3] = maxy;
    this.live[slot] = 1;
    this.slotOf.set(rid, slot);
    const cx = cellX((minx + maxx) / 2);
    const cy = cellY((miny + maxy) / 2);
    if (maxx - minx > lonOf(cx + 1) - lonOf(cx) || maxy - miny > latOf(cy) - latOf(cy + 1)) {
      this.large.add(rid);
      return;
    }
    const key = cx * CELLS + cy;
    let cell = this.cells.get(key);
    if (!cell) this.cells.set(key, (cell = []));
    cell.push(slot);
  }
}
