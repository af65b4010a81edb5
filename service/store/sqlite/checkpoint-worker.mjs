// Checkpoints the service's WAL from its own connection, off the request thread (see checkpointer.ts).
// Plain JavaScript: it needs no TypeScript loader, so it starts in a few milliseconds.
import { setInterval, clearInterval } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

// Below the thread that answers requests, as the validation workers (see thread-priority.ts; Linux only).
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch { /* not Linux */ }

const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma(`synchronous = ${workerData.synchronous}`);

const timer = setInterval(() => {
  // PASSIVE: copies what it can without waiting for, or blocking, the service's reads and writes.
  db.pragma('wal_checkpoint(PASSIVE)');
}, workerData.intervalMs);

parentPort.on('message', (m) => {
  if (m !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
