// Checkpoints a database's WAL from its own connection, off the thread that commits (see checkpointer.ts).
// Plain JavaScript: it needs no TypeScript loader, so it starts in a few milliseconds.
import { setInterval, clearInterval } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { readlinkSync, statSync } from 'node:fs';
import { setPriority } from 'node:os';

// Below the thread that commits (the service's request thread, the sync engine's), as the service's validation
// workers are (service/thread-priority.ts; Linux only).
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch { /* not Linux */ }

const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma(`synchronous = ${workerData.synchronous}`);

const wal = `${workerData.file}-wal`;
const walSize = () => {
  try {
    return statSync(wal).size;
  } catch {
    return 0;
  }
};
const timer = setInterval(() => {
  // PASSIVE: copies what it can without waiting for, or blocking, the service's reads and writes.
  db.pragma('wal_checkpoint(PASSIVE)');
  // Under sustained writes PASSIVE never gets to the WAL's very end, so the WAL is never started over and grows (154 MB
  // measured beside a 318 MB database). Past the limit, the committing connection is asked to start it over itself,
  // between its own transactions (checkpointer.ts): from here, a TRUNCATE would take the writer's lock under a write
  // transaction of that connection, which SQLite then refuses with SQLITE_BUSY (found by service-bulk). Asked after
  // this tick's checkpoint is done, so that the two do not meet.
  if (walSize() > workerData.walLimitBytes) parentPort.postMessage('wal-over-limit');
}, workerData.intervalMs);

parentPort.on('message', (m) => {
  if (m !== 'close') return;
  clearInterval(timer);
  db.close();
  // The connection is closed: the thread that asked may go on (checkpointer.ts close).
  parentPort.postMessage('closed');
  parentPort.close();
});
