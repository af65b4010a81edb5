import { Worker } from 'node:worker_threads';
import type { Db } from './db.ts';

export interface Checkpointer { close(): Promise<void> }

/**
 * SQLite checkpoints the WAL into the database file on the committing connection, inside the COMMIT, whenever
 * the WAL passes 1,000 pages: the commit of a batch of 50 parcels at the vertex cap (20 MB) paid ~90 ms for it on
 * the request thread, holding every other request. Here the service's connection never checkpoints, and a worker
 * thread with its own connection does, every `intervalMs`, concurrently with reads and writes (WAL mode allows it).
 * Durability is unchanged: a commit is on disk once its WAL frames are synced, checkpointed or not.
 */
export function startCheckpointer(db: Db, file: string, synchronous: 'FULL' | 'NORMAL', intervalMs = 250): Checkpointer {
  db.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), { workerData: { file, synchronous, intervalMs } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // Should the thread fail, the connection goes back to checkpointing itself: the WAL must not grow without end.
  worker.once('error', () => db.open && db.pragma('wal_autocheckpoint = 1000'));
  worker.unref();
  return {
    async close() {
      worker.postMessage('close');
      await exited;
    },
  };
}
