// Opening a SQLite database the way the service's store and the local mirror both need it: WAL, a busy timeout,
// foreign keys, the durability asked for, and the schema brought up to date by versioned migrations under
// `PRAGMA user_version` — a database from a newer build refused before anything writes to it. Plus the small
// helpers both use on every hot path (a statement cache per handle, the busy retry).

import Database, { type Statement } from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database.Database;
/** One schema version: migration n brings the schema from version n to n + 1. */
export type Migration = (db: Db) => void;

export class FutureSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FutureSchemaError';
  }
}

export interface SchemaOptions {
  migrations: readonly Migration[];
  /** The refusal of a database at schema version `found`, newer than the `known` this build has. */
  future: (found: number, known: number) => string;
}

export interface OpenOptions extends SchemaOptions {
  synchronous: 'FULL' | 'NORMAL';
  /** Create the file (and a new folder) readable by its owner only, and narrow a file found wider. */
  ownerOnly?: boolean;
  /**
   * The page size of a database created by this call; one that exists keeps its own (a database in WAL mode can only
   * change it by leaving WAL for a VACUUM). SQLite's default is 4096.
   */
  pageSize?: number;
}

export function openSqlite(file: string, opts: OpenOptions): Db {
  if (file !== ':memory:') {
    if (opts.ownerOnly) ownerOnly(file);
    else mkdirSync(dirname(file), { recursive: true });
  }
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    // Refuse a database from the future before anything writes to it (journal_mode = WAL rewrites the header).
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > opts.migrations.length) throw new FutureSchemaError(opts.future(found, opts.migrations.length));
    // Before journal_mode = WAL, which writes the header of a new file: on a database with content it does nothing.
    if (opts.pageSize !== undefined) db.pragma(`page_size = ${opts.pageSize}`);
    whenNotBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma(`synchronous = ${opts.synchronous}`);
    db.pragma('foreign_keys = ON');
    whenNotBusy(() => migrate(db, opts));
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Runs every pending migration (up to version `upTo`) in one transaction; a database from the future is refused untouched. */
export function migrate(db: Db, opts: SchemaOptions, upTo: number = opts.migrations.length): void {
  const { migrations } = opts;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) throw new FutureSchemaError(opts.future(current, migrations.length));
  if (current >= upTo) return;
  // IMMEDIATE takes the write lock first and the version is read again under it: two processes opening the same
  // fresh database at the same moment must not both run migration 1.
  db.transaction(() => {
    const locked = db.pragma('user_version', { simple: true }) as number;
    if (locked > migrations.length) throw new FutureSchemaError(opts.future(locked, migrations.length));
    for (let v = locked; v < upTo; v++) migrations[v]!(db);
    if (locked < upTo) db.pragma(`user_version = ${upTo}`);
  }).immediate();
}

/**
 * A file readable by its owner only (a new folder too), and a file found wider narrowed. SQLite gives the -wal
 * and -shm files the database file's permissions.
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

// Hot paths (bulk create, listings, the sync loop) prepare the same SQL thousands of times a second: one
// prepared statement per handle and text.
const statements = new WeakMap<Db, Map<string, Statement>>();

export function cachedStatement(db: Db, sql: string): Statement {
  let byDb = statements.get(db);
  if (!byDb) statements.set(db, (byDb = new Map()));
  let stmt = byDb.get(sql);
  if (!stmt) byDb.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}
