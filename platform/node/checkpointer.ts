// WAL checkpoints on a thread of their own. SQLite checkpoints the WAL into the database file on the committing
// connection, inside the COMMIT, whenever the WAL passes 1,000 pages: it syncs the WAL, copies every page into the
// database file and syncs that, all on the thread that committed. The service's request thread paid ~90 ms for it in
// the commit of a batch of 50 parcels at the vertex cap (20 MB), holding every other request; the sync engine's thread
// paid it four times in a push of 20,000 parcels (16 MiB each), holding the answers and the next requests.
import { Worker } from 'node:worker_threads';
import type { Db } from './sqlite.ts';

export interface Checkpointer {
  /** Stops the thread (after its checkpoint under way) and gives the connection back its own checkpoints. */
  close(): Promise<void>;
}

/**
 * From now on `db` never checkpoints on its own; a worker thread with its own connection to `file` does, every
 * `intervalMs`, concurrently with reads and writes (WAL mode allows it). Durability is unchanged: a commit is on disk
 * once its WAL frames are synced, checkpointed or not.
 */
export function startCheckpointer(db: Db, file: string, synchronous: 'FULL' | 'NORMAL', intervalMs = 250): Checkpointer {
  const own = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const giveBack = () => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${own}`);
  };
  db.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), { workerData: { file, synchronous, intervalMs } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // Should the thread fail, the connection goes back to checkpointing itself: the WAL must not grow without end.
  worker.once('error', giveBack);
  worker.unref();
  return {
    async close() {
      // Held again until it has exited: in a process with nothing else to wait for (the CLI at the end of its push),
      // an unreferenced thread's exit would never be awaited, and Node ends with an unsettled await (exit code 13).
      worker.ref();
      worker.postMessage('close');
      await exited;
      giveBack();
    },
  };
}
