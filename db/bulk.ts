// Bulk inserts of parcels (an import of 100,000): the same rows, R*Tree entries and FTS5 entries as the
// parcels_ai trigger writes, at about half the cost.
//
// Why the trigger is in the way: a statement that fires a trigger and may abort runs in a statement
// transaction, and opening one asks every virtual table written in the transaction for a savepoint. FTS5
// answers a savepoint by flushing its pending terms to disk, so with the trigger each parcel's insert wrote
// a one-row FTS5 segment, and FTS5 then spent its time merging them. Inserted one statement at a time, with
// no trigger, the terms stay pending and go to disk a few thousand at a time.
//
// So a bulk import drops the trigger inside its own transaction and puts it back before committing: the
// schema change is part of the transaction, so no other connection ever sees the mirror without it (they
// cannot write while the import holds the write lock, and readers see the schema of their snapshot), and a
// rollback or a crash restores it with everything else. Every other insert (edits, undo/redo, sync pulls,
// direct SQL) keeps going through the trigger.

import { randomFillSync } from 'node:crypto';
import type { Db } from './open.ts';
import { cachedStatement } from './rows.ts';

/** parcels_ai as migration 001 creates it, whitespace collapsed. */
const KNOWN_TRIGGER = 'CREATE TRIGGER parcels_ai AFTER INSERT ON parcels BEGIN ' +
  'INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (new.rowid, new.minx, new.maxx, new.miny, new.maxy); ' +
  "INSERT INTO parcels_fts (rowid, name, metadata) VALUES (new.rowid, new.name, (SELECT group_concat(value, ' ') FROM json_each(new.metadata))); END";

/** A parcel row to create, its JSON columns already serialized. */
export interface NewParcelRow {
  local_id: string;
  account_id: string;
  farm_local_id: string;
  name: string;
  source_type: 'Polygon' | 'Point';
  point: string | null;
  geometry: string;
  hectares: number;
  metadata: string;
  minx: number; miny: number; maxx: number; maxy: number;
  created: string;
  /** The FTS5 text of the metadata (searchText), when known; undefined: SQLite works it out from `metadata`. */
  search?: string | null;
}

// Positional parameters: binding 15 values by name (an object per row) cost a few µs a row more.
const INSERT_PARCEL = `INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, key, name, source_type, point, geometry, hectares,
  metadata, minx, miny, maxx, maxy, base, deleted, created, modified) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?)`;
// What the trigger writes, the FTS5 text included: name, and the metadata values (not the keys) joined by SQLite
// itself, so numbers and booleans read exactly as the trigger renders them.
const INSERT_RTREE = 'INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)';
const INSERT_FTS = "INSERT INTO parcels_fts (rowid, name, metadata) VALUES (?, ?, (SELECT group_concat(value, ' ') FROM json_each(?)))";
const INSERT_FTS_TEXT = 'INSERT INTO parcels_fts (rowid, name, metadata) VALUES (?, ?, ?)';

/**
 * What the trigger's `group_concat(value, ' ') FROM json_each(metadata)` gives for this metadata, worked out
 * here (so the importing thread does not parse the JSON again) when it certainly gives the same: strings (well
 * formed, no NUL), booleans (json_each reads them as 1 and 0) and integers a double holds exactly (printed alike).
 * Null when there are no values; undefined for anything else (a fraction prints differently in SQLite): then
 * SQLite works it out.
 */
export function searchText(metadata: Record<string, unknown>): string | null | undefined {
  const values = Object.values(metadata);
  if (values.length === 0) return null;
  const parts: string[] = [];
  for (const v of values) {
    if (typeof v === 'string' && wellFormed(v) && !v.includes('\0')) parts.push(v);
    else if (typeof v === 'boolean') parts.push(v ? '1' : '0');
    else if (typeof v === 'number' && Number.isSafeInteger(v)) parts.push(String(v));
    else return undefined;
  }
  return parts.join(' ');
}

// String.prototype.isWellFormed (Node 20) is newer than the ES2023 typings.
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Drops parcels_ai for the rest of the current transaction and returns what puts it back (call it before
 * the transaction commits; a rollback puts it back by itself). Null when the trigger is not the one this
 * code reproduces (a later migration changed it): the caller then inserts through the trigger as usual.
 */
export function suspendInsertTrigger(db: Db): (() => void) | null {
  if (!db.inTransaction) throw new Error('suspendInsertTrigger must run inside a transaction');
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'parcels_ai'").pluck().get() as string | undefined;
  if (sql === undefined || sql.replace(/\s+/g, ' ') !== KNOWN_TRIGGER) return null;
  db.exec('DROP TRIGGER parcels_ai');
  return () => db.exec(sql);
}

/**
 * Runs fn, which commits a big transaction, without SQLite's automatic checkpoint at that commit. By default a
 * commit that leaves the WAL over 1,000 pages goes on to copy the whole WAL into the database file there and
 * then: for an import of 100,000 parcels that is 180 MB and a quarter of a second spent after the data is
 * already committed and durable (the WAL is synced at the commit: synchronous=FULL). The copy is left to the
 * next checkpoint instead — SQLite's automatic one at this connection's next commit, or closing the mirror.
 */
export function withoutCheckpointAtCommit<T>(db: Db, fn: () => T): T {
  const pages = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  db.pragma('wal_autocheckpoint = 0');
  try {
    return fn();
  } finally {
    db.pragma(`wal_autocheckpoint = ${pages}`);
  }
}

/**
 * Inserts one new parcel; with `indexes` (parcels_ai suspended) also its R*Tree and FTS5 entries, as the
 * trigger would. Returns its rowid.
 */
export function insertNewParcel(db: Db, r: NewParcelRow, indexes: boolean): number {
  const rowid = Number(cachedStatement(db, INSERT_PARCEL).run(r.local_id, r.account_id, r.farm_local_id, r.name, r.source_type, r.point, r.geometry,
    r.hectares, r.metadata, r.minx, r.miny, r.maxx, r.maxy, r.created, r.created).lastInsertRowid);
  if (indexes) {
    cachedStatement(db, INSERT_RTREE).run(rowid, r.minx, r.maxx, r.miny, r.maxy);
    if (r.search === undefined) cachedStatement(db, INSERT_FTS).run(rowid, r.name, r.metadata);
    else cachedStatement(db, INSERT_FTS_TEXT).run(rowid, r.name, r.search);
  }
  return rowid;
}

// Time-ordered ids (RFC 9562 version 7) for parcels created in bulk. A random id (v4) lands anywhere in the
// primary key's index and in the outbox's (entity, local_id) index, so each insert touched a page of those
// indexes at random, and the per-chunk outbox statement copied every page it touched to its statement journal
// first; in creation order, inserts append. 48 bits of milliseconds, then a 26-bit counter (in rand_a and the top
// of rand_b) that keeps ids made within one millisecond, or after the clock steps back, in order; 48 random bits.
let lastMs = 0;
let counter = 0;
const COUNTER_LIMIT = 2 ** 26;

export function timeOrderedIds(n: number): string[] {
  const random = randomFillSync(Buffer.alloc(6 * n)).toString('hex');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const now = Date.now();
    if (now > lastMs) {
      lastMs = now;
      counter = 0;
    } else if (++counter === COUNTER_LIMIT) {
      lastMs++; // borrow the next millisecond rather than wrap
      counter = 0;
    }
    const ms = lastMs.toString(16).padStart(12, '0');
    const a = (0x7000 | (counter >>> 14)).toString(16);
    const b = (0x8000 | (counter & 0x3fff)).toString(16);
    ids.push(`${ms.slice(0, 8)}-${ms.slice(8)}-${a}-${b}-${random.slice(12 * i, 12 * i + 12)}`);
  }
  return ids;
}
