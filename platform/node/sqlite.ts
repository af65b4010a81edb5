// Opening a SQLite database the way the service's store and the local mirror both need it: WAL, a busy timeout,
// foreign keys, statement journals in memory, the durability asked for, and the schema brought up to date
// (migrations.ts) — a database from a newer build refused before anything writes to it. Plus the busy retry both
// need while two processes open a fresh file.

import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync, statfsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { migrate, refuseFuture, type SchemaOptions } from './migrations.ts';
import { narrowFile, privateFile } from './private-files.ts';
import { noRoomError } from './no-room.ts';

export type Db = BetterSqlite3.Database;

// Required, not imported: better-sqlite3 is CommonJS, and an ES import of it runs Node's CommonJS translation first
// (scanning its sources for their exports): ~20 ms of CPU against ~10 ms, in every CLI command and the host's start
// (an unchanged pull is mostly start-up).
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

export interface OpenOptions extends SchemaOptions {
  synchronous: 'FULL' | 'NORMAL';
  /**
   * Create the file (and a new folder) readable by its owner only, and narrow a file found wider, its -wal, -shm and
   * -journal too (private-files.ts). A folder that exists is the caller's to make private (ensurePrivateDir).
   */
  ownerOnly?: boolean;
  /**
   * The page size of a database created by this call; one that exists keeps its own (a database in WAL mode can only
   * change it by leaving WAL for a VACUUM). SQLite's default is 4096.
   */
  pageSize?: number;
  /**
   * On a full disk, where the WAL's shared-memory index cannot even be made (every read fails "disk I/O error"):
   * open anyway with the connection holding the file alone (locking_mode EXCLUSIVE, the index in this process's
   * memory), so that what only reads still works; a write then fails with SQLITE_FULL, nothing half done.
   */
  exclusiveOnFullDisk?: boolean;
}

export function openSqlite(file: string, opts: OpenOptions): Db {
  if (file !== ':memory:') {
    if (opts.ownerOnly) ownerOnly(file);
    else mkdirSync(dirname(file), { recursive: true });
  }
  try {
    return openWith(file, opts, false);
  } catch (err) {
    if (!opts.exclusiveOnFullDisk || !diskFull(err, dirname(file))) throw err;
    return openWith(file, opts, true);
  }
}

/** Bytes free for this user on the disk holding `dir` (null where it cannot be told). */
export function freeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

/** A failure to write for want of space: noRoomError, or an I/O error of SQLite's on a disk with (nearly) nothing free. */
export function diskFull(err: unknown, dir: string): boolean {
  if (noRoomError(err)) return true;
  const code = String((err as { code?: unknown }).code ?? '');
  if (!code.startsWith('SQLITE_IOERR')) return false;
  const free = freeBytes(dir);
  return free !== null && free < 1024 * 1024;
}

function openWith(file: string, opts: OpenOptions, exclusive: boolean): Db {
  const db = new Database(file);
  try {
    // Before anything touches the file: with it, SQLite never makes the shared-memory index (see exclusiveOnFullDisk).
    if (exclusive) db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('busy_timeout = 5000');
    // Refuse a database from the future before anything writes to it (journal_mode = WAL rewrites the header).
    refuseFuture(db, opts);
    // Before journal_mode = WAL, which writes the header of a new file: on a database with content it does nothing.
    if (opts.pageSize !== undefined) db.pragma(`page_size = ${opts.pageSize}`);
    whenNotBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma(`synchronous = ${opts.synchronous}`);
    db.pragma('foreign_keys = ON');
    // Statement journals in memory. A statement that may fail halfway inside a transaction (an UPDATE of rows under a
    // UNIQUE index, an insert into a table with foreign keys, an R*Tree or FTS5) first copies each page it changes to a
    // statement journal, to undo itself alone; past 64 KiB that journal is a temporary file. A push of 20,000 parcels
    // wrote 70 MB of such files on the client and 165 MB on the service — as much again as their WALs — only to
    // truncate each after its statement. A statement journal never outlives its statement (the transaction's own undo
    // is the WAL), so durability is unchanged. Set before anything creates temporary tables or triggers, which a later
    // change of temp_store would drop. Sorts that SQLite would spill are kept in memory too: every large sort here
    // either has a LIMIT or feeds an .all() that holds its rows in memory anyway.
    db.pragma('temp_store = MEMORY');
    whenNotBusy(() => migrate(db, opts));
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * A file readable by its owner only (a new folder too), and a file found wider narrowed. SQLite's unix VFS creates the
 * -wal, -shm and -journal files with the database file's own permission bits (whatever the umask), so a 0600 database
 * keeps them 0600; ones left wider by an older build are narrowed here (sqlite.test.ts checks both).
 */
function ownerOnly(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  privateFile(file);
  for (const suffix of ['-wal', '-shm', '-journal']) narrowFile(`${file}${suffix}`);
}

/**
 * Retries `fn` while SQLite answers SQLITE_BUSY. Two processes opening a fresh file at once can get it from the
 * switch to WAL and the first migration before the busy timeout applies (WAL recovery does not wait).
 */
export function whenNotBusy<T>(fn: () => T, tries = 100): T {
  for (let i = 1; ; i++) {
    try { return fn(); } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || i >= tries) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.floor(Math.random() * 20));
    }
  }
}
