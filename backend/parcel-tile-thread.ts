// A tile thread of the host: the map's parcel tiles cut off the host's thread (backend/parcel-tile-worker.ts), so the
// host goes on answering the app while a cold tile is cut (a region's tile of a million-parcel mirror reads thousands
// of parcels' outlines; the overview's build scans the whole index once). One worker, taking one tile at a time from
// a queue kept here (backend/parcel-tiles.ts starts a few and shares the tiles among them); the
// mirror's changes are posted to it in order with the cuts, so a cut asked after a change sees it. A worker lost is
// replaced (its overview built again on demand); after three lost in a row the tiles are cut on the host's thread.
import { workerEntry, WorkerPool } from '../platform/node/worker-pool.ts';
import type { CutTile } from '../db/parcel-tiles.ts';
import type { TileChange } from './parcel-tile-cutter.ts';

/** What the host posts to the tile thread. */
export type TileThreadMessage =
  | { t: 'cut'; account: string; crops: boolean; z: number; x: number; y: number }
  | { t: 'warm'; account: string }
  | ({ t: 'changed' } & TileChange);

/** The tile thread's answer to a cut. */
export type TileThreadReply =
  | { t: 'cut'; data: Uint8Array; rowids: Int32Array; overviewBytes: number }
  | { t: 'failed'; message: string };

interface Job {
  message: Extract<TileThreadMessage, { t: 'cut' }>;
  resolve: (c: CutTile) => void;
  reject: (err: Error) => void;
}

export class ParcelTileThread {
  private readonly pool: WorkerPool<Job, TileThreadReply>;
  private readonly queue: Job[] = [];
  /** What the thread's overviews held at its last answer. */
  overviewBytes = 0;

  /** The thread on the mirror file `file`, opened read-only there. */
  constructor(file: string) {
    this.pool = new WorkerPool<Job, TileThreadReply>(workerEntry('parcel-tile-worker', import.meta.url), 1, {
      start: () => ({ workerData: { file } }),
      giveUpAfter: 3,
      answered: (job, reply) => {
        if (reply.t === 'cut') {
          this.overviewBytes = reply.overviewBytes;
          job.resolve({ data: reply.data, rowids: reply.rowids });
        } else job.reject(new Error(`the tile thread failed to cut a tile: ${reply.message}`));
        this.next();
      },
      lost: (_i, job) => {
        job?.reject(new Error('the tile thread stopped while cutting a tile'));
        if (this.pool.gaveUp) for (const j of this.queue.splice(0)) j.reject(new Error('the tile thread is gone'));
        else this.next();
      },
    });
  }

  /** Tiles asked of it and not answered yet. */
  get waiting(): number {
    return this.queue.length + (this.pool.idle ? 0 : 1);
  }

  /** False once the thread is gone for good (terminated, or lost three times in a row): the host cuts its tiles itself. */
  get usable(): boolean {
    return !this.pool.gaveUp;
  }

  /** Tile z/x/y of the account's parcels, cut on the thread. */
  cut(account: string, crops: boolean, z: number, x: number, y: number): Promise<CutTile> {
    return new Promise((resolve, reject) => {
      if (!this.usable) return reject(new Error('the tile thread is gone'));
      this.queue.push({ message: { t: 'cut', account, crops, z, x, y }, resolve, reject });
      this.next();
    });
  }

  /** The thread builds the account's overview (backend/parcel-overview.ts) now, between cuts. */
  warm(account: string): void {
    if (this.usable) this.pool.post(0, { t: 'warm', account } satisfies TileThreadMessage);
  }

  /** A change to the mirror, posted before any cut asked after it. */
  changed(c: TileChange): void {
    if (this.usable) this.pool.post(0, { t: 'changed', ...c } satisfies TileThreadMessage);
  }

  /** Ends the thread; tiles still queued are refused. */
  async close(): Promise<void> {
    for (const j of this.queue.splice(0)) j.reject(new Error('the tile thread is closed'));
    await this.pool.terminate();
  }

  private next(): void {
    if (!this.pool.idle || !this.queue.length) return;
    const job = this.queue.shift()!;
    this.pool.run(job, job.message);
  }
}
