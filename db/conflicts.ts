// Conflicts the user resolves (`resolve ID --keep mine|theirs`), and the outbox ops that wait on them. The sync
// engine opens them (sync/conflicts.ts), holds the work under a farm or parcel deleted on the service
// (db/remote-deletes.ts), and settles them; every statement of that is here, named for what it does.
import type { Db } from './open.ts';
import type { ConflictKind, ConflictRow, Entity, OutboxRow } from './types.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { writeBatchMarks } from './batch-marks.ts';

const now = () => new Date().toISOString();

/** The id of the row's open conflict of this kind, if it has one. */
export function openConflictId(db: Db, entity: Entity, localId: string, kind: ConflictKind): number | undefined {
  const r = cachedStatement(db, 'SELECT id FROM conflicts WHERE entity = ? AND local_id = ? AND kind = ? AND resolved IS NULL').get(entity, localId, kind) as { id: number } | undefined;
  return r?.id;
}

/** An open conflict by id (undefined when there is none, or it was resolved). */
export function openConflictById(db: Db, id: number): ConflictRow | undefined {
  return cachedStatement(db, 'SELECT * FROM conflicts WHERE id = ? AND resolved IS NULL').get(id) as ConflictRow | undefined;
}

export type NewConflict = Pick<ConflictRow, 'account_id' | 'entity' | 'local_id' | 'kind' | 'base' | 'mine' | 'theirs'> & { fields: readonly string[] };

/**
 * Opens a conflict, or brings the row's open one of the same kind up to date: one per row and kind, however often
 * a sync finds it again. True when it is new.
 */
export function openConflict(db: Db, c: NewConflict, at: string = now()): boolean {
  const open = openConflictId(db, c.entity, c.local_id, c.kind);
  if (open !== undefined) {
    cachedStatement(db, 'UPDATE conflicts SET base = ?, mine = ?, theirs = ?, fields = ? WHERE id = ?').run(c.base, c.mine, c.theirs, JSON.stringify(c.fields), open);
    return false;
  }
  cachedStatement(db, 'INSERT INTO conflicts (account_id, entity, local_id, kind, base, mine, theirs, fields, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(c.account_id, c.entity, c.local_id, c.kind, c.base, c.mine, c.theirs, JSON.stringify(c.fields), at);
  return true;
}

/**
 * Keeps a conflict for the user: opened (or brought up to date), and the row's open ops wait in 'conflict' (nothing
 * is sent or overwritten), except for a duplicate on the service, which is informational: our own copy is already
 * committed. True when the conflict is new.
 */
export function keepConflict(db: Db, c: NewConflict): boolean {
  return db.transaction(() => {
    const opened = openConflict(db, c);
    if (c.kind !== 'duplicate_on_service') holdInConflict(db, c.entity, c.local_id, `${c.kind}: ${c.fields.join(', ')}`);
    return opened;
  })();
}

/** Settles a conflict; `resolution` says when and how ("<time> mine"). */
export function closeConflict(db: Db, id: number, resolution: string): void {
  cachedStatement(db, 'UPDATE conflicts SET resolved = ? WHERE id = ?').run(resolution, id);
}

/** Settles every open conflict of a row (one under a resolved remote deletion: re-created, or gone with it). */
export function closeConflictsOf(db: Db, entity: Entity, localId: string, resolution: string): void {
  cachedStatement(db, 'UPDATE conflicts SET resolved = ? WHERE entity = ? AND local_id = ? AND resolved IS NULL').run(resolution, entity, localId);
}

// ---- the ops a conflict holds ----

/** A statement on one row's ops, run with (entity, local_id). */
const ofRow = (sql: string) => (db: Db, entity: Entity, localId: string): void => {
  cachedStatement(db, sql).run(entity, localId);
};

/** Every open op of the row waits in 'conflict' (nothing is sent or overwritten) until the user decides. */
export function holdInConflict(db: Db, entity: Entity, localId: string, reason: string): void {
  writeBatchMarks(db); // a batch marked by its row is in flight: held as such
  cachedStatement(db, "UPDATE outbox SET state = 'conflict', last_error = ? WHERE entity = ? AND local_id = ? AND state NOT IN ('committed')")
    .run(reason, entity, localId);
}

/** Work under a row deleted on the service waits too, each op naming the conflict it waits for in `reason`. */
export function parkUnderConflict(db: Db, ids: readonly number[], reason: string): void {
  writeBatchMarks(db); // a batch marked by its row is in flight: parked as such
  const park = cachedStatement(db, "UPDATE outbox SET state = 'conflict', next_attempt_at = NULL, last_error = ? WHERE id = ? AND state IN ('queued', 'in_flight', 'rejected', 'blocked', 'uncertain')");
  for (const id of ids) park.run(reason, id);
}

/**
 * A void remote-delete conflict lets go of the row's ops it held: those held as the row's own remote delete, and
 * those parked under it (their last_error LIKE `parked`). They go out as they were.
 */
export function releaseParked(db: Db, entity: Entity, localId: string, parked: string): void {
  cachedStatement(db, "UPDATE outbox SET state = 'queued', next_attempt_at = NULL, last_error = NULL WHERE entity = ? AND local_id = ? AND state = 'conflict' AND (last_error LIKE 'remote_delete:%' OR last_error LIKE ?)")
    .run(entity, localId, parked);
}

/** keep 'mine' of an edit: the held ops go out as they are (over the remote edit). */
export const reopenHeld = ofRow("UPDATE outbox SET state = 'queued', next_attempt_at = NULL, last_error = NULL WHERE entity = ? AND local_id = ? AND state = 'conflict'");

/** keep 'mine' of a partial batch: the held create goes again as a fresh one (never sent, nothing to reconcile). */
export const resendHeld = ofRow("UPDATE outbox SET state = 'queued', attempts = 0, checks = 0, next_attempt_at = NULL, last_error = NULL WHERE entity = ? AND local_id = ? AND state = 'conflict'");

/** keep 'theirs': the held ops are done with, never sent (kept as history, like every committed op). */
export const keepServiceVersion = ofRow("UPDATE outbox SET state = 'committed', last_error = 'resolved: kept the service version' WHERE entity = ? AND local_id = ? AND state = 'conflict'");

/** keep 'theirs' of a remote deletion: every op of the row not yet committed is done with, whatever its state. */
export const keepServiceDeletion = ofRow("UPDATE outbox SET state = 'committed', last_error = 'resolved: kept the service version (deleted there)' WHERE entity = ? AND local_id = ? AND state != 'committed'");

/** The row's ops not yet committed go (a re-created row starts over with a single create; a dropped row needs none). */
export const dropOpenOps = ofRow("DELETE FROM outbox WHERE entity = ? AND local_id = ? AND state != 'committed'");

/** Work never sent under a re-created row goes out afresh, once its parent has its new server id. */
export const requeueUnsent = ofRow("UPDATE outbox SET state = 'queued', attempts = 0, checks = 0, next_attempt_at = NULL, last_error = NULL WHERE entity = ? AND local_id = ? AND state != 'committed'");

// ---- the rows under a farm or parcel deleted on the service ----

/** The rows under a farm (its parcels and their crops) or a parcel (its crops), the row itself included. */
export interface Subtree { farms: string[]; parcels: string[]; crops: string[] }

export function subtree(db: Db, entity: Entity, localId: string): Subtree {
  if (entity === 'crop') return { farms: [], parcels: [], crops: [localId] };
  const parcels = entity === 'farm'
    ? (cachedStatement(db, 'SELECT local_id FROM parcels WHERE farm_local_id = ? ORDER BY rowid').all(localId) as { local_id: string }[]).map((r) => r.local_id)
    : [localId];
  const crops = (cachedStatement(db, 'SELECT local_id FROM crops WHERE parcel_local_id IN (SELECT value FROM json_each(?)) ORDER BY rowid')
    .all(JSON.stringify(parcels)) as { local_id: string }[]).map((r) => r.local_id);
  return { farms: entity === 'farm' ? [localId] : [], parcels, crops };
}

/** Each row of a subtree with its entity: farms, then parcels, then crops. */
export const eachRow = (t: Subtree): [Entity, string][] => [
  ...t.farms.map((id) => ['farm', id] as [Entity, string]),
  ...t.parcels.map((id) => ['parcel', id] as [Entity, string]),
  ...t.crops.map((id) => ['crop', id] as [Entity, string]),
];

/**
 * Work under a row that the service has not seen: every op not yet committed, except deletes (what they would
 * delete is gone already). Rejected and conflicting ops count: they are edits the user has not given up.
 */
export function unsentWork(db: Db, t: Subtree): OutboxRow[] {
  const q = cachedStatement(db, "SELECT * FROM outbox WHERE entity = ? AND local_id = ? AND state != 'committed' AND op != 'delete' ORDER BY id");
  return eachRow(t).flatMap(([entity, id]) => q.all(entity, id) as OutboxRow[]);
}
