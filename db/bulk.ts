// Bulk inserts of parcels (an import of 100,000): the same rows, R*Tree entries and FTS5 entries as the
// parcels_ai trigger writes, at about half the cost.
//
// Why the trigger is in the way: a statement that fires a trigger and may abort runs in a statement
// transaction, and opening one asks every virtual table written in the transaction for a savepoint. FTS5
// answers a savepoint by flushing its pending terms to disk, so with the trigger each parcel's insert wrote
// a one-row FTS5 segment, and FTS5 then spent its time merging them. Inserted a range of rows at a time, with
// no trigger, the terms stay pending and go to disk a few thousand at a time.
//
// So a bulk import drops the trigger inside its own transaction and puts it back before committing: the
// schema change is part of the transaction, so no other connection ever sees the mirror without it (they
// cannot write while the import holds the write lock, and readers see the schema of their snapshot), and a
// rollback or a crash restores it with everything else. Every other insert (edits, undo/redo, sync pulls,
// direct SQL) keeps going through the trigger.

import { closeSync, fdatasync, openSync } from 'node:fs';
import type { Db } from './open.ts';
import type { ParcelRow } from './types.ts';
import type { ParcelColumns } from '../core/parcels/columns.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { whenNotBusy } from '../platform/node/sqlite.ts';
import { idAt } from '../platform/node/time-ordered-ids.ts';
import { PARCELS_AI } from './migrations/010-parcels-rtree-live.ts';
import { TOTALS_AI } from './migrations/014-farm-totals.ts';
import { ID_ROOM_BYTES } from './rows.ts';

/** A trigger's statement with its whitespace collapsed, as suspendTrigger compares it with the schema's. */
const collapsed = (sql: string): string => sql.replace(/\s+/g, ' ');

/** Text as a string, or as its UTF-8 (bound as it is, with CAST(? AS TEXT): no conversion). */
export type Utf8Text = string | Uint8Array;

/** A new parcel's own columns, its JSON columns already serialized. */
export type NewParcelColumns = ParcelColumns<Utf8Text> & Pick<ParcelRow, 'checked'>;

/**
 * Rows given one at a time: an array, or rows made only as they are inserted (an import's, from its jobs' buffers:
 * 5,000 row objects held for a whole chunk outlived the young generation, and were garbage for a full collection).
 */
export interface RowSource<T> {
  readonly length: number;
  at(i: number): T | undefined;
}

/**
 * Parcels to create (the columns a new row does not default): each one's own columns and id, and the columns they
 * share. Bound from here as they are: a row object per parcel merging the two ({ ...p, local_id, … }) cost more
 * than the insert itself (1.9 s of CPU for 100,000 parcels: an object spread of these objects takes V8's slow path).
 */
export interface NewParcels {
  parcels: RowSource<NewParcelColumns>;
  /** parcels[i]'s local id is idAt(ids, i) (timeOrderedIdBytes): each id a string only while its row is bound. */
  ids: Buffer;
  account_id: string;
  farm_local_id: string;
  /** Their created and modified time. */
  created: string;
}

// Several rows per INSERT: a statement run from JavaScript costs a microsecond or two of its own, and there
// were three per parcel. Positional parameters: binding 15 values by name (an object per row) cost more. The values
// every row shares (account, farm, time) are named parameters, bound once per statement rather than once per row.
const ROWS_PER_INSERT = 100;
// Text given as UTF-8 bytes is a blob to SQLite: CAST makes it the TEXT it is (a string stays as it is).
// Rows without a server id, each with room for the ids its booking will write (migration 017).
const PARCEL_VALUES = `(?, @account, @farm, NULL, NULL, CAST(? AS TEXT), ?, CAST(? AS TEXT), CAST(? AS TEXT), ?, CAST(? AS TEXT), ?, ?, ?, ?, ?, NULL, 0, @created, @created, zeroblob(${ID_ROOM_BYTES}))`;
const INSERT_PARCELS = `INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, key, name, source_type, point, geometry, hectares,
  metadata, minx, miny, maxx, maxy, checked, base, deleted, created, modified, id_room) VALUES `;
// What the trigger writes for each new row — its box, account and deleted flag to the R*Tree; its name and its metadata's values (not the
// keys: 'region' should not match every parcel that has a region) to FTS5 — for a range of rows at once, read back
// from the rows themselves: the same statements as the trigger's, so the same entries by construction.
const INDEX_RTREE = `INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy, account_id, deleted)
  SELECT rowid, minx, maxx, miny, maxy, account_id, deleted FROM parcels WHERE rowid BETWEEN ? AND ?`;
const INDEX_FTS = `INSERT INTO parcels_fts (rowid, name, metadata)
  SELECT rowid, name, (SELECT group_concat(value, ' ') FROM json_each(metadata)) FROM parcels WHERE rowid BETWEEN ? AND ?`;

const sqlCache = new Map<string, string>();
/** `head` followed by n copies of `values`, built once per n. */
function repeated(head: string, values: string, n: number): string {
  const key = `${head}|${n}`;
  let sql = sqlCache.get(key);
  if (sql === undefined) sqlCache.set(key, (sql = head + Array.from({ length: n }, () => values).join(', ')));
  return sql;
}

/**
 * Drops parcels_ai for the rest of the current transaction and returns what puts it back (call it before
 * the transaction commits; a rollback puts it back by itself). Null when the trigger is not the one this
 * code reproduces (a later migration changed it): the caller then inserts through the trigger as usual.
 */
export function suspendInsertTrigger(db: Db): (() => void) | null {
  return suspendTrigger(db, 'parcels_ai', collapsed(PARCELS_AI));
}

/**
 * Drops parcels_totals_ai for the rest of the current transaction, as suspendInsertTrigger does parcels_ai; the caller
 * then adds the rows it inserts to farm_totals itself (addFarmTotals). Null when the trigger is not this one.
 */
export function suspendTotalsTrigger(db: Db): (() => void) | null {
  return suspendTrigger(db, 'parcels_totals_ai', collapsed(TOTALS_AI));
}

function suspendTrigger(db: Db, name: string, known: string): (() => void) | null {
  if (!db.inTransaction) throw new Error(`suspending ${name} must run inside a transaction`);
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?").pluck().get(name) as string | undefined;
  if (sql === undefined || collapsed(sql) !== known) return null;
  db.exec(`DROP TRIGGER ${name}`);
  return () => db.exec(sql);
}

/**
 * What parcels_totals_ai adds to a farm's row of farm_totals for live rows inserted into it, in insert order: a
 * parcel each, their hectares added one at a time in the order the trigger would have (the same sum to the last bit),
 * `synced` of them with a server id. One statement instead of one upsert per row.
 */
export function addFarmTotals(db: Db, farmLocalId: string, accountId: string, hectares: readonly number[], synced: number): void {
  if (hectares.length === 0) return;
  const row = cachedStatement(db, 'SELECT parcels, hectares, synced FROM farm_totals WHERE farm_local_id = ?').get(farmLocalId) as
    { parcels: number; hectares: number; synced: number } | undefined;
  let sum = row ? row.hectares + hectares[0]! : hectares[0]!;
  for (let i = 1; i < hectares.length; i++) sum += hectares[i]!;
  cachedStatement(db, `INSERT INTO farm_totals (farm_local_id, account_id, parcels, hectares, synced) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (farm_local_id) DO UPDATE SET parcels = excluded.parcels, hectares = excluded.hectares, synced = excluded.synced`)
    .run(farmLocalId, accountId, (row?.parcels ?? 0) + hectares.length, sum, (row?.synced ?? 0) + synced);
}

/**
 * Runs fn, which commits a big transaction, without SQLite's automatic checkpoint at that commit. By default a
 * commit that leaves the WAL over 1,000 pages goes on to copy the whole WAL into the database file there and
 * then: for an import of 100,000 parcels that is 180 MB and a quarter of a second spent after the data is
 * already committed and durable (the WAL is synced at the commit: synchronous=FULL). The copy is left to the
 * next checkpoint instead — SQLite's automatic one at this connection's next commit, or closing the mirror.
 */
export function withoutCheckpointAtCommit<T>(db: Db, fn: () => T): T {
  return withPragma(db, 'wal_autocheckpoint', 0, fn);
}

/**
 * SQLite's page cache for a bulk import, in KiB (cache_size = -KiB). The connection's default (better-sqlite3's
 * 16 MiB) only holds the import's own dirty pages until they are spilled: an import appends, and writes each page
 * once (rows, outbox, FTS5 segments and the indexes' right edges), so a big cache keeps nothing it reads again.
 * 4 MiB: the write phase of 100,000 parcels took the same CPU time (1.72 s against 1.72 s and 1.89 against 1.89,
 * interleaved runs) and its process peaked 12–28 MB lower. 2 MiB: the built CLI importing mirror-import's 100,000
 * parcels peaked 3.2 MB lower again (median of 6 interleaved pairs, 106.3 against 109.5 MB; lower in 5), in the same
 * time (pair ratios 0.96–1.07) and CPU time (6.0–6.4 s both; 2026-11-30, load ~1.5).
 */
export const IMPORT_CACHE_KIB = 2048;

/** Runs fn, one bulk import's transaction, with the smaller page cache of IMPORT_CACHE_KIB; the setting is put back after. */
export function withImportCache<T>(db: Db, fn: () => T): T {
  return withPragma(db, 'cache_size', -IMPORT_CACHE_KIB, fn);
}

/** Runs fn with a connection setting changed, and puts back the value it had, whatever fn does. */
function withPragma<T>(db: Db, name: 'wal_autocheckpoint' | 'synchronous' | 'busy_timeout' | 'cache_size', value: number | string, fn: () => T): T {
  const before = db.pragma(name, { simple: true }) as number;
  db.pragma(`${name} = ${value}`);
  try {
    return fn();
  } finally {
    db.pragma(`${name} = ${before}`);
  }
}

/**
 * Runs fn, which opens and commits one big write transaction, with a rollback journal instead of the WAL when this
 * connection is the only one open on the file (the CLI's import; the host's import thread shares the file with the
 * host's connection, and keeps the WAL). In WAL mode every page of the transaction is written twice: to the WAL,
 * then again by the checkpoint into the database file (170 MB each for 100,000 parcels, the checkpoint a second
 * after the commit). With a rollback journal the new pages go to the database file once, and only the pages that
 * existed before the transaction (few: an import appends) are first copied to the journal.
 *
 * Crash safety is the rollback journal's: the journal is synced before any page it saves is overwritten, so a crash
 * or power cut mid-transaction leaves a hot journal that the next connection to read the file plays back, and the
 * mirror is as before (the parcels_ai trigger included). synchronous = EXTRA for the transaction: its commit (the
 * journal's deletion) is made durable by syncing the directory too, as the WAL's commit is by FULL. Afterwards
 * the file goes back to WAL (openSqlite puts it back too, should this process die first).
 *
 * What other processes see: while the transaction writes, the file is locked, so one that opens or reads the
 * mirror waits for it (up to its busy_timeout, then SQLITE_BUSY) instead of reading the state before the import;
 * writers wait either way.
 * Nothing changes when the switch is refused (another connection is open: SQLITE_BUSY at once, not after the busy
 * timeout), inside a transaction, or for an in-memory database.
 */
export function withRollbackJournal<T>(db: Db, fn: () => T): T {
  if (db.memory || db.inTransaction || !leaveWal(db)) return fn();
  try {
    return withPragma(db, 'synchronous', 'EXTRA', fn);
  } finally {
    // A process opening the mirror meanwhile may hold a read lock a moment: the busy timeout waits for it.
    whenNotBusy(() => db.pragma('journal_mode = WAL'));
    // A connection in WAL mode holds a shared lock on the file, which is what refuses the switch to another process
    // (see leaveWal), but only from its first read in WAL mode on: read now, as any other connection has.
    db.prepare('SELECT count(*) FROM sqlite_master').pluck().get();
  }
}

/** journal_mode = DELETE if no other connection has the file open; false (nothing changed) otherwise. */
function leaveWal(db: Db): boolean {
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') return false;
  return withPragma(db, 'busy_timeout', 0, () => {
    try {
      return db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return false;
      throw err;
    }
  });
}

/**
 * Has the OS write a big transaction's pages out while the transaction is still being built. SQLite moves its pages
 * out of its page cache as the cache fills (a few MiB), long before the commit — to the WAL, or with a rollback
 * journal (withRollbackJournal) to the database file itself — but they sit in the OS's cache until the commit's
 * fsync, which then waited for all of them: 176 MB for 100,000 parcels, a quarter of a second here in the WAL; 178 MB
 * and 100 ms in the database file (strace of the CLI's import, 2026-11-30), with this thread idle meanwhile and, at
 * the end of the import, the worker threads gone. kick() asks for an fdatasync of what the file holds so far on
 * libuv's thread pool and returns at once, so the disk works while this thread goes on; the commit's own fsync
 * still comes, as always, and is what makes the transaction durable: this only adds syncs, of bytes the commit writes
 * out anyway, and never reorders a write (a rollback journal is synced before SQLite overwrites any page it saved).
 *
 * The file is opened read-only through a descriptor of its own. Closing a descriptor of the database file releases
 * every POSIX lock this process holds on it, SQLite's included, so that descriptor is closed by close() at once,
 * which the caller calls right after the transaction ended: with a rollback journal and no statement running,
 * SQLite then holds no lock on the file. A sync already running keeps its own reference to the file; one still
 * queued on the thread pool then fails on the closed descriptor, or syncs whichever file of this process took its
 * number (the WAL, reopened): an fdatasync changes no file, and its callback ignores the outcome. SQLite never locks
 * the WAL, so that one is closed after its last sync. Nothing happens for an in-memory database.
 */
export class SyncAhead {
  private fd = -1;
  private pending = 0;
  private closed = false;
  /** The database file's descriptor: closed at once by close(), not after the last sync (see above). */
  private readonly databaseFile: boolean = false;

  constructor(db: Db) {
    if (db.memory) return;
    this.databaseFile = db.pragma('journal_mode', { simple: true }) !== 'wal';
    try {
      this.fd = openSync(this.databaseFile ? db.name : `${db.name}-wal`, 'r');
    } catch {
      this.fd = -1;
    }
  }

  kick(): void {
    if (this.fd < 0 || this.closed) return;
    this.pending++;
    // The callback runs once the importing thread returns to the event loop; the WAL's file is closed after it.
    fdatasync(this.fd, () => {
      if (--this.pending === 0 && this.closed && !this.databaseFile) this.release();
    });
  }

  /** Called once the transaction has ended (committed or rolled back), before anything else uses the connection. */
  close(): void {
    this.closed = true;
    if (this.pending === 0 || this.databaseFile) this.release();
  }

  private release(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/**
 * Copies the WAL into the database now, on the calling thread: after a large import the WAL holds every page it
 * wrote, and left alone the next commit of whichever connection writes next would checkpoint it synchronously
 * (the host's thread froze 1.3 s on its first write after a 100,000-parcel import). PASSIVE: never waits on readers.
 */
export function checkpointNow(db: Db): void {
  db.pragma('wal_checkpoint(PASSIVE)');
}

/**
 * Inserts new parcels, a hundred a statement, and returns the first one's rowid: the others follow it, since a
 * new row takes max(rowid) + 1.
 */
export function insertNewParcels(db: Db, rows: NewParcels): number {
  const { parcels, ids, account_id: account, farm_local_id: farm, created } = rows;
  const shared = { account, farm, created };
  let first = 0;
  // One array of parameters for every full statement, filled again each time: a new one per hundred rows was kept
  // past the young generation often enough to be 2.6 MB of the importing thread's old-generation garbage.
  const full: unknown[] = [];
  for (let i = 0; i < parcels.length; i += ROWS_PER_INSERT) {
    const n = Math.min(ROWS_PER_INSERT, parcels.length - i);
    const params = n === ROWS_PER_INSERT ? full : [];
    let at = 0;
    for (let k = i; k < i + n; k++) {
      const r = parcels.at(k)!;
      params[at++] = idAt(ids, k);
      params[at++] = r.name;
      params[at++] = r.source_type;
      params[at++] = r.point;
      params[at++] = r.geometry;
      params[at++] = r.hectares;
      params[at++] = r.metadata;
      params[at++] = r.minx;
      params[at++] = r.miny;
      params[at++] = r.maxx;
      params[at++] = r.maxy;
      params[at++] = r.checked;
    }
    const last = Number(cachedStatement(db, repeated(INSERT_PARCELS, PARCEL_VALUES, n)).run(params, shared).lastInsertRowid);
    if (i === 0) first = last - n + 1;
    else if (last !== first + i + n - 1) throw new Error(`insertNewParcels: rowid ${last} after ${first + i - 1}`);
  }
  return first;
}

/** The R*Tree and FTS5 entries of the rows first…last (parcels_ai suspended), as the trigger would have written them. */
export function insertIndexEntries(db: Db, first: number, last: number): void {
  cachedStatement(db, INDEX_RTREE).run(first, last);
  cachedStatement(db, INDEX_FTS).run(first, last);
}

// Time-ordered ids (version-7 UUIDs) for parcels created in bulk: platform/node/time-ordered-ids.ts says why.
export { idAt, timeOrderedIdBytes, timeOrderedIds } from '../platform/node/time-ordered-ids.ts';
