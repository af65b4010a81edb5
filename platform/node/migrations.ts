// The schema of a SQLite database brought up to date by numbered migrations under `PRAGMA user_version`, for the
// service's store and the local mirror alike. A database from a newer build is refused before anything writes to
// it: an older build cannot know what the newer one's rows mean, and a half-understood file is worse than none.

import type Database from 'better-sqlite3';

type Db = Database.Database;

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

/** Throws the refusal when the database's schema is newer than any migration this build has. */
export function refuseFuture(db: Db, opts: SchemaOptions): void {
  const found = db.pragma('user_version', { simple: true }) as number;
  if (found > opts.migrations.length) throw new FutureSchemaError(opts.future(found, opts.migrations.length));
}

/** Runs every pending migration (up to version `upTo`) in one transaction; a database from the future is refused untouched. */
export function migrate(db: Db, opts: SchemaOptions, upTo: number = opts.migrations.length): void {
  refuseFuture(db, opts);
  if ((db.pragma('user_version', { simple: true }) as number) >= upTo) return;
  // IMMEDIATE takes the write lock first and the version is read again under it: two processes opening the same
  // fresh database at the same moment must not both run migration 1.
  db.transaction(() => {
    refuseFuture(db, opts);
    const locked = db.pragma('user_version', { simple: true }) as number;
    for (let v = locked; v < upTo; v++) opts.migrations[v]!(db);
    if (locked < upTo) db.pragma(`user_version = ${upTo}`);
  }).immediate();
}
