// Durable commits that do not hold the thread while the disk syncs. better-sqlite3 is synchronous: with
// synchronous=FULL each commit fsyncs the WAL on the calling thread, and on a busy disk that wait (10–100 ms here)
// stalls everything else the thread does — for the sync engine, the answers arriving and the next request leaving.
// WalSync commits with synchronous=NORMAL (the frames are written to the WAL, not synced) and then fdatasyncs the WAL
// file on libuv's thread pool. Once that resolves the transaction is exactly as durable as a FULL commit (which is
// the same fdatasync of the same file, made by SQLite); until then the caller must act as if it had not committed.
import { open, type FileHandle } from 'node:fs/promises';
import type { Db } from './sqlite.ts';
import { cachedStatement } from './statements.ts';

/**
 * Runs `fn` in a transaction whose commit makes no fsync (synchronous=NORMAL for it), then puts the connection's
 * durability back as it was. In WAL mode the frames are written, not synced: durable once something syncs the WAL.
 */
export function commitWithoutFsync<T>(db: Db, fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
  // Prepared once per connection: db.pragma() prepares its statement at every call, three per commit here (each of
  // a push's bookings and marks commits this way).
  const before = cachedStatement(db, 'PRAGMA synchronous').pluck().get() as number;
  cachedStatement(db, 'PRAGMA synchronous = NORMAL').run();
  try {
    return db.transaction(fn)[mode]();
  } finally {
    cachedStatement(db, `PRAGMA synchronous = ${before}`).run();
  }
}

export class WalSync {
  private handle: Promise<FileHandle> | null = null;

  private constructor(private readonly db: Db, private readonly wal: string) {}

  /** For a database file in WAL mode; null otherwise (in memory, another journal), where callers commit with FULL. */
  static of(db: Db): WalSync | null {
    if (db.memory || String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return null;
    return new WalSync(db, `${db.name}-wal`);
  }

  /**
   * Runs `fn` in a transaction committed without an fsync: durable once a `flush` begun after it has resolved (one
   * flush for several of these: a group commit). Until then the caller must act as if it had not committed: a crash
   * may lose it. Not inside another transaction, whose commit it would be (and which a flush could precede).
   */
  write<T>(fn: () => T): T {
    if (this.db.inTransaction) throw new Error('WalSync.write inside a transaction');
    return commitWithoutFsync(this.db, fn);
  }

  /**
   * fdatasync of the WAL: every frame written so far by any connection is on disk (fsync is per file, not per
   * descriptor). A checkpoint that copied frames into the database file synced them first, so they are durable too.
   * The WAL is not removed while this connection is open, so the descriptor stays the live file's.
   */
  async flush(): Promise<void> {
    // Opened for writing: Windows flushes only through a handle with write access; nothing is ever written through it.
    this.handle ??= open(this.wal, 'r+');
    await (await this.handle).datasync();
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = null;
    if (h) await (await h).close();
  }
}
