// An area's tiles written on a thread of their own (backend/offline-writer-worker.ts) rather than the host's: a batch
// of a fast download is megabytes committed in one transaction, tens of milliseconds the host's thread would not
// answer the page or draw the map's tiles. The download (backend/offline-job.ts) hands over one batch at a time and
// counts its tiles once this says they are committed; the crash rules are the file's own (backend/mbtiles-writer.ts).
import { startWorker, workerEntry } from '../platform/node/worker-pool.ts';
import type { FetchedTile } from './mbtiles-writer.ts';
import { packTiles, type PackedTiles } from './tile-batch.ts';

/** The thread's entry: bundled beside the built host (dist/offline-writer-worker.mjs), the TypeScript from source. */
const ENTRY = workerEntry('offline-writer-worker', import.meta.url);

export type WriterRequest = { t: 'write'; id: number; tiles: PackedTiles } | { t: 'close' };
export type WriterReply = { t: 'ready' } | { t: 'written'; id: number } | { t: 'failed'; id: number; message: string; code: string | null } | { t: 'closed' };

/** Where a download's batches go: committed when the promise settles. */
export interface TileSink {
  write(tiles: FetchedTile[]): Promise<void>;
}

/** An Error as SQLite's binding throws it: `code` (SQLITE_FULL, SQLITE_CORRUPT…) says what the host tells the user. */
class WriteError extends Error {
  constructor(message: string, readonly code: string | null) {
    super(message);
  }
}

export class PartWriter implements TileSink {
  private readonly worker;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private next = 0;
  private ended: Error | null = null;
  private closed: Promise<void> | null = null;
  /** Settles once the thread has the file open (or has failed). */
  readonly ready: Promise<void>;

  constructor(path: string) {
    this.worker = startWorker(ENTRY, { workerData: { path } });
    let ready = () => {};
    this.ready = new Promise<void>((resolve) => { ready = resolve; });
    this.worker.on('message', (m: WriterReply) => {
      if (m.t === 'ready') ready();
      if (m.t === 'closed' || m.t === 'ready') return;
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.t === 'written') w?.resolve();
      else w?.reject(new WriteError(m.message, m.code));
    });
    const lose = (err: Error) => {
      this.ended ??= err;
      ready();
      for (const w of this.waiting.values()) w.reject(this.ended);
      this.waiting.clear();
    };
    this.worker.on('error', (err) => lose(new Error(`the thread writing the area's tiles failed: ${err.message}`)));
    this.worker.on('exit', (code) => lose(new Error(`the thread writing the area's tiles ended (${code})`)));
  }

  write(tiles: FetchedTile[]): Promise<void> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.next++;
    // One buffer of bytes and one of places, moved, not a clone per tile (backend/tile-batch.ts).
    const packed = packTiles(tiles);
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ t: 'write', id, tiles: packed } satisfies WriterRequest, [packed.places.buffer, packed.bytes]);
    });
  }

  /** Waits for the file's last flush and closes it on the thread, then ends the thread. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      if (!this.ended) {
        await new Promise<void>((resolve) => {
          const done = () => resolve();
          this.worker.once('exit', done);
          this.worker.on('message', (m: WriterReply) => { if (m.t === 'closed') resolve(); });
          this.worker.postMessage({ t: 'close' } satisfies WriterRequest);
        });
      }
      await this.worker.terminate();
    })();
    return this.closed;
  }
}
