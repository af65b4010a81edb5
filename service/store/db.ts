import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations/index.ts';

export type Db = Database.Database;

export class FutureSchemaError extends Error {
  constructor(found: number, known: number) {
    super(`The database is at schema version ${found}, newer than this build knows (${known}); refusing to open it.`);
    this.name = 'FutureSchemaError';
  }
}

export interface OpenOptions {
  /** FULL makes every acknowledged 201 survive power loss, not only a process crash. */
  synchronous?: 'FULL' | 'NORMAL';
}

export function openDb(file: string, opts: OpenOptions = {}): Db {
  if (file !== ':memory:') ownerOnly(file);
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    // Refuse a database from the future before anything writes to it (journal_mode = WAL rewrites the header).
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > migrations.length) throw new FutureSchemaError(found, migrations.length);
    whenNotBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma(`synchronous = ${opts.synchronous ?? 'FULL'}`);
    db.pragma('foreign_keys = ON');
    whenNotBusy(() => migrate(db));
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * The database holds every organization's data and the secrets that sign account tokens: anyone who can read it
 * can forge a token. It is created readable by its owner only (a new data directory too), and a file found wider
 * is narrowed. SQLite gives the -wal and -shm files the database file's permissions.
 */
function ownerOnly(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) {
    try {
      closeSync(openSync(file, 'wx', 0o600));
    } catch (err) {
      // Another process created it a moment ago: it is narrowed below like any file found.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f) && (statSync(f).mode & 0o077) !== 0) chmodSync(f, 0o600);
  }
}

/** Runs every pending migration in one transaction; a database from the future is refused untouched. */
export function migrate(db: Db, upTo: number = migrations.length): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) throw new FutureSchemaError(current, migrations.length);
  if (current >= upTo) return;
  // IMMEDIATE takes the write lock first, and the version is read again under it: another process opening
  // the same fresh database at the same moment migrates first, and this one then finds nothing to do.
  db.transaction(() => {
    const locked = db.pragma('user_version', { simple: true }) as number;
    if (locked > migrations.length) throw new FutureSchemaError(locked, migrations.length);
    for (let v = locked; v < upTo; v++) migrations[v]!(db);
    if (locked < upTo) db.pragma(`user_version = ${upTo}`);
  }).immediate();
}

/**
 * Retries `fn` while SQLite answers SQLITE_BUSY. Two processes opening a fresh file at once can get it from the
 * switch to WAL and the first migration before the busy timeout applies (WAL recovery does not wait).
 */
function whenNotBusy<T>(fn: () => T, tries = 100): T {
  for (let i = 1; ; i++) {
    try { return fn(); } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || i >= tries) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.floor(Math.random() * 20));
    }
  }
}
