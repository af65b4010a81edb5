// GET /api/farms/{id}/parcels/ as a stream: the listing a client reads after a 504 to learn whether its batch
// committed, so it must work at any size. It was one SQLite string: 268 MB and 3 s of a blocked event loop at
// 556 k parcels, SQLITE_TOOBIG (a 500) past ~1 GB of JSON.
//
// The store opens the listing (Store.farms.openParcelListing): one consistent snapshot, read in chunks of about
// CHUNK_BYTES of Feature JSON. This file turns it into the response body, for any store:
// - Memory is bounded: the next chunk is asked for only when the socket has taken the previous one (stream
//   backpressure).
// - Other requests are not blocked: each chunk is read in its own turn of the event loop (setImmediate).
// - `count` always equals the features listed, a batch committing mid-listing is in it entirely or not at all, a
//   farm deleted mid-listing is still listed whole (the snapshot). Destroying the body (the route does when the
//   response closes) ends the snapshot.
import { Readable } from 'node:stream';

/** About this much JSON per chunk (~50 parcels of 40 vertices, well under a millisecond): small chunks stay in the CPU cache and the young generation, and measured as fast as one big string. */
export const CHUNK_BYTES = 64 * 1024;

export interface FarmListingPage {
  /** One page of at most this many parcels, with `next`; without it, every parcel and `next: null`. */
  limit?: number;
  /** Only parcels with a greater id. */
  after?: number;
}

/** Consecutive parcels of the listing as Feature JSON, in id order. */
export interface FeatureChunk {
  /** The chunk's Features joined by ',' (no brackets); '' for none. */
  json: string;
  /** How many Features `json` holds. */
  count: number;
  /** The id of its last parcel (the page's `after` so far when it holds none). */
  lastId: number;
  /** Nothing follows: the body ends with this chunk rather than asking for another. */
  last?: boolean;
}

/**
 * An open listing of a farm's parcels (at most the page's limit, after its `after`): its chunks, iterated once, and
 * what its tail needs, all read inside one snapshot that lasts until close().
 */
export interface FarmParcelListing extends AsyncIterable<FeatureChunk> {
  /** The farm's parcel count in the snapshot. */
  readonly total: number;
  /** Whether the farm has a parcel with a greater id in the snapshot (a full page's `next`). */
  hasAfter(id: number): Promise<boolean>;
  /** Ends the snapshot; safe to call more than once. */
  close(): Promise<void>;
}

/** The listing's FeatureCollection as a stream: `nextUrl` builds a full page's absolute `next`. */
export function farmParcelsBody(listing: FarmParcelListing, page: FarmListingPage, nextUrl: (after: number) => string): Readable {
  return new FarmParcelsBody(listing, page, nextUrl);
}

class FarmParcelsBody extends Readable {
  private readonly chunks: AsyncIterator<FeatureChunk>;
  private after: number;
  private listed = 0;
  private started = false;
  private scheduled = false;

  constructor(
    private readonly listing: FarmParcelListing,
    private readonly page: FarmListingPage,
    private readonly nextUrl: (after: number) => string,
  ) {
    super({ highWaterMark: CHUNK_BYTES });
    this.after = page.after ?? 0;
    this.chunks = listing[Symbol.asyncIterator]();
  }

  override _read(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not nextTick: the turn ends and other requests' I/O runs between two chunks.
    setImmediate(() => {
      this.next().then((text) => {
        this.scheduled = false;
        if (this.destroyed || text === null) return;
        this.push(text.body);
        if (text.end) this.push(null);
      }, (err: unknown) => this.destroy(err as Error));
    });
  }

  /** The next piece of the body: the head, a chunk of features, and the tail once the last is read. */
  private async next(): Promise<{ body: string; end: boolean } | null> {
    if (this.destroyed) return null;
    const head = this.started ? '' : '{"type":"FeatureCollection","features":[';
    this.started = true;
    const r = await this.chunks.next();
    if (this.destroyed) return null;
    let body = head;
    if (!r.done && r.value.count > 0) {
      body += this.listed === 0 ? r.value.json : `,${r.value.json}`;
      this.listed += r.value.count;
      this.after = r.value.lastId;
    }
    const end = r.done === true || r.value.last === true;
    if (end) body += await this.tail();
    return { body, end };
  }

  private async tail(): Promise<string> {
    const pageFull = this.listed === this.page.limit;
    const next = pageFull && (await this.listing.hasAfter(this.after)) ? this.nextUrl(this.after) : null;
    // A page counts every parcel of the farm (as GET /api/parcels/ counts all matches); the whole listing counts
    // what it listed, which inside the snapshot is the same number.
    const count = this.page.limit === undefined && this.page.after === undefined ? this.listed : this.listing.total;
    return `],"count":${count},"next":${next === null ? 'null' : JSON.stringify(next)}}`;
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.listing.close().then(() => cb(err), (closeErr: unknown) => cb(err ?? (closeErr as Error)));
  }
}
