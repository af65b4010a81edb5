import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations/index.ts';

export type Db = Database.Database;

export class FutureSchemaError extends Error {
  constructor(found: number, known: number) {
    super(`This mirror is at schema version ${found}, newer than this build of Furrow knows (${known}). Update Furrow; the file was not touched.`);
    this.name = 'FutureSchemaError';
  }
}

/**
 * Opens (and migrates) the mirror. synchronous=FULL: the outbox and the id mappings are the only record of
 * what was sent, and losing an in-flight mark to a power cut would mean a blind resend and a duplicate.
 */
export function openDb(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    // Refuse a mirror from the future before anything writes to it (journal_mode = WAL rewrites the header).
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > migrations.length) throw new FutureSchemaError(found, migrations.length);
    whenNotBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    whenNotBusy(() => migrate(db));
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

export function migrate(db: Db, upTo: number = migrations.length): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) throw new FutureSchemaError(current, migrations.length);
  if (current >= upTo) return;
  // IMMEDIATE takes the write lock first and the version is read again under it: the app and the CLI opening
  // a fresh mirror at the same moment must not both run migration 1.
  db.transaction(() => {
    const locked = db.pragma('user_version', { simple: true }) as number;
    if (locked > migrations.length) throw new FutureSchemaError(locked, migrations.length);
    for (let v = locked; v < upTo; v++) migrations[v]!(db);
    if (locked < upTo) db.pragma(`user_version = ${upTo}`);
  }).immediate();
}

/**
 * Runs a write transaction without its own fsync (synchronous=NORMAL for its commit). Only for writes whose
 * loss to a power cut is harmless because what is on disk already says what to do: the next FULL commit on this
 * connection (its fsync covers every earlier WAL frame) makes them durable.
 */
export function withoutFsync<T>(db: Db, fn: () => T): T {
  // Inside a caller's transaction the commit is the caller's, with the caller's durability.
  if (db.inTransaction) return fn();
  db.pragma('synchronous = NORMAL');
  try {
    return db.transaction(fn)();
  } finally {
    db.pragma('synchronous = FULL');
  }
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
