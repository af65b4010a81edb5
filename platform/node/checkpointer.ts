// WAL checkpoints on a thread of their own. SQLite checkpoints the WAL into the database file on the committing
// connection, inside the COMMIT, whenever the WAL passes 1,000 pages: it syncs the WAL, copies every page into the
// database file and syncs that, all on the thread that committed. The service's request thread paid ~90 ms for it in
// the commit of a batch of 50 parcels at the vertex cap (20 MB), holding every other request; the sync engine's thread
// paid it four times in a push of 20,000 parcels (16 MiB each), holding the answers and the next requests.
import { Worker } from 'node:worker_threads';
import type { Db } from './sqlite.ts';

/** The WAL's size past which it is started over (checkpoint TRUNCATE) and to which it is cut back: 64 MiB. */
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

export interface Checkpointer {
  /** Stops the thread (after its checkpoint under way) and gives the connection back its own checkpoints. */
  close(): Promise<void>;
}

/**
 * From now on `db` never checkpoints on its own; a worker thread with its own connection to `file` does, every
 * `intervalMs`, concurrently with reads and writes (WAL mode allows it). Durability is unchanged: a commit is on disk
 * once its WAL frames are synced, checkpointed or not.
 */
export function startCheckpointer(db: Db, file: string, synchronous: 'FULL' | 'NORMAL', intervalMs = 250, walLimitBytes = WAL_LIMIT_BYTES): Checkpointer {
  const own = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const ownLimit = db.pragma('journal_size_limit', { simple: true }) as number;
  const giveBack = () => {
    if (db.open) {
      db.pragma(`wal_autocheckpoint = ${own}`);
      db.pragma(`journal_size_limit = ${ownLimit}`);
    }
  };
  db.pragma('wal_autocheckpoint = 0');
  // When the WAL starts over after a complete checkpoint, the connection that starts it cuts the file back to this
  // (without it, SQLite keeps the largest size the WAL ever reached until the last connection closes).
  db.pragma(`journal_size_limit = ${walLimitBytes}`);
  const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), { workerData: { file, synchronous, intervalMs, walLimitBytes } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let closed!: () => void;
  const connectionClosed = new Promise<void>((resolve) => { closed = resolve; });
  worker.on('message', (m) => {
    if (m === 'wal-over-limit') startWalOver(db);
    else if (m === 'closed') closed();
  });
  // Should the thread fail, the connection goes back to checkpointing itself: the WAL must not grow without end.
  worker.once('error', giveBack);
  worker.unref();
  return {
    async close() {
      // Held again until its connection is closed: in a process with nothing else to wait for (the CLI at the end of
      // its push), an unreferenced thread's answer would never be awaited, and Node ends with an unsettled await (exit
      // code 13). Not until the thread has exited: tearing its JavaScript engine down took another 4–9 ms, which the
      // push's end (the mirror's own closing checkpoint next) waited for; the last answer to exit, 8 interleaved
      // pairs of 20,000 squares, median 25 ms against 29. The thread ends meanwhile, at its lower priority.
      worker.ref();
      worker.postMessage('close');
      await Promise.race([connectionClosed, exited]);
      worker.unref();
      giveBack();
    },
  };
}

/**
 * The WAL has grown past its limit: the committing connection starts it over (TRUNCATE), between its transactions, on
 * its own thread. The thread has copied nearly all of it already, so little is left to copy; it waits for no reader
 * (busy_timeout 0: a reader on an old snapshot makes it give up, and the thread asks again at its next checkpoint), so the
 * connection's commits are held a few milliseconds at most, once per WAL limit of writes.
 */
function startWalOver(db: Db): void {
  if (!db.open || db.inTransaction) return;
  const busy = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Busy or locked: the thread asks again after its next checkpoint.
  } finally {
    db.pragma(`busy_timeout = ${busy}`);
  }
}
