// Opening the mirror: platform/node/ (shared with the service's store) with the mirror's migrations and
// durability, and the mirror's own transaction helper.
import { dirname } from 'node:path';
import { openSqlite, type Db } from '../platform/node/sqlite.ts';
import { ensurePrivateDir } from '../platform/node/private-files.ts';
import { FutureSchemaError, migrate as migrateSchema, type SchemaOptions } from '../platform/node/migrations.ts';
import { migrations } from './migrations/index.ts';
import { commitWithoutFsync } from '../platform/node/wal-sync.ts';

export { FutureSchemaError, type Db };

const SCHEMA: SchemaOptions = {
  migrations,
  future: (found, known) => `This mirror is at schema version ${found}, newer than this build of Furrow knows (${known}). Update Furrow; the file was not touched.`,
};

/**
 * Pages of a new mirror. A parcel row is about a kilobyte (its geometry is GeoJSON text), so 4 KiB pages (SQLite's
 * default) held three and left a quarter of each page empty, and a large import wrote three times the pages, each a
 * WAL frame of its own (two writes and a checksum), then copied each again at the checkpoint. With 16 KiB pages the
 * import of 100,000 parcels (db/bulk.ts) spent about a third less CPU writing, committing and checkpointing, and the
 * file is 7% smaller. Small edits write bigger WAL frames, but each is one fsync either way. (The R*Tree's nodes do
 * not grow with the page: SQLite caps them at 51 entries.) An existing mirror keeps the size it was created with.
 */
export const MIRROR_PAGE_SIZE = 16384;

/**
 * Opens (and migrates) the mirror. synchronous=FULL: the outbox and the id mappings are the only record of
 * what was sent, and losing an in-flight mark to a power cut would mean a blind resend and a duplicate.
 *
 * The mirror is one user's farms and parcels, and its folder is FURROW_HOME, theirs alone: the folder is made (or
 * narrowed to) 0700, the file 0600 and so its -wal, -shm and -journal (platform/node/private-files.ts). This is
 * where FURROW_HOME is created: the CLI and the mirror host open the mirror before writing anything else there.
 */
export function openDb(file: string): Db {
  if (file !== ':memory:') ensurePrivateDir(dirname(file));
  return openSqlite(file, { ...SCHEMA, synchronous: 'FULL', pageSize: MIRROR_PAGE_SIZE, ownerOnly: true, exclusiveOnFullDisk: true });
}

/** Brings the mirror's schema up to version `upTo` (all of them by default). */
export function migrate(db: Db, upTo: number = migrations.length): void {
  migrateSchema(db, SCHEMA, upTo);
}

/**
 * Runs a write transaction without its own fsync (synchronous=NORMAL for its commit). Only for writes whose
 * loss to a power cut is harmless because what is on disk already says what to do: the next FULL commit on this
 * connection (its fsync covers every earlier WAL frame) makes them durable.
 */
export function withoutFsync<T>(db: Db, fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
  // Inside a caller's transaction the commit is the caller's, with the caller's durability.
  if (db.inTransaction) return fn();
  return commitWithoutFsync(db, fn, mode);
}
