import type { Db } from './open.ts';
import type { CropRow, Entity, FarmRow, OpKind, OpState, OutboxRow, ParcelToSend, SendOp } from './types.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { getRow, mappedServerIds, tableOf, updateRow } from './rows.ts';
import { writeBatchMarks } from './batch-marks.ts';

const now = () => new Date().toISOString();

/** Ops that may still change the service. Committed ops are kept only as history of what was sent. */
const OPEN: readonly OpState[] = ['queued', 'in_flight', 'uncertain', 'rejected', 'conflict', 'blocked'];

export function openOps(db: Db, entity: Entity, localId: string): OutboxRow[] {
  return cachedStatement(db, `SELECT * FROM outbox WHERE entity = ? AND local_id = ? AND state IN (${OPEN.map(() => '?').join(',')}) ORDER BY id`)
    .all(entity, localId, ...OPEN) as OutboxRow[];
}

function insertOp(db: Db, accountId: string, entity: Entity, localId: string, op: OpKind): void {
  const t = now();
  cachedStatement(db, 'INSERT INTO outbox (account_id, entity, local_id, op, state, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(accountId, entity, localId, op, 'queued', t, t);
}

/**
 * The queued 'create' ops of rows just inserted with consecutive rowids (a bulk create), in rowid order: what
 * enqueue(…, 'create') does for each, as one statement. One INSERT per op cost more than the row itself, and
 * each one (the outbox has AUTOINCREMENT) made FTS5 flush the terms pending in the same transaction.
 */
export function enqueueCreated(db: Db, entity: 'parcel', firstRowid: number, lastRowid: number, at: string = now()): number {
  return cachedStatement(db, `INSERT INTO outbox (account_id, entity, local_id, op, state, created, modified)
    SELECT account_id, ?, local_id, 'create', 'queued', ?, ? FROM ${tableOf(entity)} WHERE rowid BETWEEN ? AND ? ORDER BY rowid`)
    .run(entity, at, at, firstRowid, lastRowid).changes;
}

/** A create that certainly never reached the service: never sent, or refused with a 4xx. */
const neverCreated = (o: OutboxRow) => o.op === 'create' && (o.state === 'rejected' || (o.state === 'queued' && o.attempts === 0));

/**
 * Records a local change in the outbox. Ops carry no payload: the current row is sent when the op goes
 * out, so a queued create or update already covers later edits of the same row.
 * Returns 'removed' when a delete erased a row the service never had.
 */
export function enqueue(db: Db, accountId: string, entity: Entity, localId: string, op: OpKind): 'queued' | 'covered' | 'removed' {
  if (op === 'create') {
    insertOp(db, accountId, entity, localId, 'create');
    return 'queued';
  }
  // A create in a batch marked by its row (a push under way, db/batch-marks.ts) is in flight: an edit now is not
  // covered by it, and a delete cannot forget it. The pull's merges read open ops too (openOps), but never while a push
  // is under way (one sync at a time, engine.ts lock), and a push killed before its end left its rows to the next one.
  writeBatchMarks(db);
  const ops = openOps(db, entity, localId);
  if (op === 'update') {
    const pending = ops.find((o) => (o.op === 'create' || o.op === 'update') && (o.state === 'queued' || o.state === 'rejected' || o.state === 'blocked'));
    if (pending) {
      // The user fixed something the service refused: send it again.
      if (pending.state === 'rejected') {
        cachedStatement(db, "UPDATE outbox SET state = 'queued', attempts = 0, last_error = NULL, next_attempt_at = NULL, modified = ? WHERE id = ?").run(now(), pending.id);
      }
      return 'covered';
    }
    insertOp(db, accountId, entity, localId, 'update');
    return 'queued';
  }
  const create = ops.find((o) => o.op === 'create');
  if (create && neverCreated(create)) {
    // The service never had it: the ops go, and the row stays only as a tombstone for redo (purged with the redo stack).
    forgetOps(db, entity, localId);
    updateRow(db, entity, localId, { deleted: 1, modified: now() });
    return 'removed';
  }
  cachedStatement(db, "DELETE FROM outbox WHERE entity = ? AND local_id = ? AND op = 'update' AND state IN ('queued', 'rejected', 'blocked')").run(entity, localId);
  if (!ops.some((o) => o.op === 'delete' && o.state !== 'committed')) insertOp(db, accountId, entity, localId, 'delete');
  updateRow(db, entity, localId, { deleted: 1, modified: now() });
  return 'queued';
}

/** Undoing a delete that has not gone out yet just withdraws it. */
export function withdrawDelete(db: Db, entity: Entity, localId: string): boolean {
  const r = cachedStatement(db, "DELETE FROM outbox WHERE entity = ? AND local_id = ? AND op = 'delete' AND state IN ('queued', 'rejected', 'blocked')").run(entity, localId);
  if (r.changes > 0) {
    updateRow(db, entity, localId, { deleted: 0, modified: now() });
    const row = getRow(db, entity, localId);
    // Edits made before the delete were dropped with it; the restored state must go out again.
    if (row && row.server_id !== null && row.base !== null) insertOp(db, row.account_id, entity, localId, 'update');
    return true;
  }
  return false;
}

/** A row the service never had and never will (deleted before any create of it landed): every op of it goes. */
export function forgetOps(db: Db, entity: Entity, localId: string): void {
  cachedStatement(db, 'DELETE FROM outbox WHERE entity = ? AND local_id = ?').run(entity, localId);
}

/**
 * After a crash, or a sync that stopped early, every in-flight op is uncertain: it may or may not have reached
 * the service. All accounts' ops, or one account's.
 */
export function inFlightToUncertain(db: Db, accountId: string | null = null, at: string = now()): number {
  return db.transaction(() => {
    // Batches marked by their rows (db/batch-marks.ts) are in flight too.
    writeBatchMarks(db, accountId, at);
    return inFlightOpsToUncertain(db, accountId, at);
  })();
}

function inFlightOpsToUncertain(db: Db, accountId: string | null, at: string): number {
  // Through the accounts (every op has its account: a foreign key), so that outbox_pending (account_id, state) finds
  // the in-flight ops: "(? IS NULL OR account_id = ?)" read every op ever queued, history included, at every start.
  return cachedStatement(db, `UPDATE outbox SET state = 'uncertain', uncertain_at = ?, modified = ? WHERE state = 'in_flight'
    AND account_id IN (SELECT id FROM accounts WHERE ? IS NULL OR id = ?)`).run(at, at, accountId, accountId).changes;
}

export function opsByState(db: Db, accountId: string, states: readonly OpState[]): OutboxRow[] {
  return cachedStatement(db, `SELECT * FROM outbox WHERE account_id = ? AND state IN (${states.map(() => '?').join(',')}) ORDER BY id`)
    .all(accountId, ...states) as OutboxRow[];
}

/** Rows deleted before the service ever had them, once no undo entry can bring them back. */
export function purgeTombstones(db: Db, accountId: string | null = null): void {
  // One account's: another account's redo stack may still need its tombstones.
  for (const table of ['crops', 'parcels', 'farms']) {
    cachedStatement(db, `DELETE FROM ${table} WHERE deleted = 1 AND server_id IS NULL AND (? IS NULL OR account_id = ?)
      AND local_id NOT IN (SELECT local_id FROM outbox WHERE state != 'committed')`).run(accountId, accountId);
  }
}

// ---- the push's reads (sync/); its writes are db/op-transitions.ts ----

/** An account's ops of one kind in `state` (queued to send, uncertain to reconcile) whose wait is over at `at`, in order. */
export function dueOps(db: Db, accountId: string, entity: Entity, op: OpKind, state: OpState, at: string): OutboxRow[] {
  return cachedStatement(db, `SELECT * FROM outbox WHERE account_id = ? AND entity = ? AND op = ? AND state = ?
    AND (next_attempt_at IS NULL OR next_attempt_at <= ?) ORDER BY id`).all(accountId, entity, op, state, at) as OutboxRow[];
}

/** An account's queued and uncertain ops, for the run to tell whether anything is ready and how long to wait. */
export function waitingOps(db: Db, accountId: string): Pick<OutboxRow, 'state' | 'next_attempt_at' | 'last_error'>[] {
  return cachedStatement(db, "SELECT state, next_attempt_at, last_error FROM outbox WHERE account_id = ? AND state IN ('queued', 'uncertain') ORDER BY id")
    .all(accountId) as Pick<OutboxRow, 'state' | 'next_attempt_at' | 'last_error'>[];
}

/** How many of an account's ops are committed: a round that moved none of them made no progress. */
export function committedCount(db: Db, accountId: string): number {
  return (cachedStatement(db, "SELECT COUNT(*) AS n FROM outbox WHERE account_id = ? AND state = 'committed'").get(accountId) as { n: number }).n;
}

/** The outbox conditions of a parcel create due at `at` and never sent (one sent before is reconciled first). */
const CREATE_DUE = `o.entity = 'parcel' AND o.op = 'create' AND o.state = 'queued' AND o.attempts = 0
  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= @at)`;

/**
 * An account's parcel creates due now (`at`) in farms the service has, after op `afterId`, in order, at most `limit`,
 * each with its farm's server id: what the push uses of each op (SendOp). Read a page at a time: all 20,000 of a
 * large push at once took ~100 ms (a lookup of each parcel's wide row for its farm) before the first request could
 * leave; a page of 1,000 takes a few.
 */
export function parcelCreatesDueAfter(db: Db, accountId: string, at: string, afterId: number, limit: number): (SendOp & { farm_server_id: number; hectares: number; rowid: number })[] {
  // The parcel's hectares too: a parcel near the account's limit is sent alone (sync/parcels.ts nearLimit); and its
  // rowid, by which the push reads the row when the batch goes (db/rows.ts parcelsToSend).
  return cachedStatement(db, `SELECT o.id, o.local_id, o.attempts, f.server_id AS farm_server_id, p.hectares, p.rowid AS rowid FROM outbox o
    JOIN parcels p ON p.local_id = o.local_id JOIN farms f ON f.local_id = p.farm_local_id
    WHERE o.account_id = @account AND o.id > @after AND ${CREATE_DUE} AND f.server_id IS NOT NULL ORDER BY o.id LIMIT @limit`)
    .all({ account: accountId, at, after: afterId, limit }) as (SendOp & { farm_server_id: number; hectares: number; rowid: number })[];
}

/**
 * How many parcel creates parcelCreatesDueAfter will give (the push's progress total), without reading the parcels:
 * every due create, less those in farms the service does not have yet (few: only where a farm's create failed).
 */
export function parcelCreatesDueCount(db: Db, accountId: string, at: string): number {
  const all = cachedStatement(db, `SELECT COUNT(*) FROM outbox o WHERE o.account_id = @account AND ${CREATE_DUE}`).pluck().get({ account: accountId, at }) as number;
  if (!all) return 0;
  // CROSS JOIN keeps this order (farms, their parcels, their ops): from the outbox, the planner read every op's parcel.
  const waiting = cachedStatement(db, `SELECT COUNT(*) FROM farms f CROSS JOIN parcels p ON p.farm_local_id = f.local_id
    CROSS JOIN outbox o ON o.entity = 'parcel' AND o.local_id = p.local_id
    WHERE f.account_id = @account AND f.server_id IS NULL AND o.account_id = @account AND ${CREATE_DUE}`).pluck().get({ account: accountId, at }) as number;
  return all - waiting;
}

/**
 * What a farm's create sends, read together: the farm, and the first `limit` of its queued, never-sent parcel creates
 * in order, each with its row (what may go with the farm's own create; the rest go later in batches of their own).
 */
export function farmCreateToSend(db: Db, farmLocalId: string, limit: number): { farm: FarmRow | undefined; parcels: { op: OutboxRow; row: ParcelToSend }[] } {
  const farm = getRow(db, 'farm', farmLocalId);
  if (!farm) return { farm, parcels: [] };
  const rows = cachedStatement(db, `SELECT o.*, p.farm_local_id, p.name, p.source_type, p.point, p.geometry, p.hectares, p.metadata, p.checked
    FROM outbox o JOIN parcels p ON p.local_id = o.local_id WHERE o.entity = 'parcel' AND o.op = 'create'
    AND o.state = 'queued' AND o.attempts = 0 AND p.farm_local_id = ? ORDER BY o.id LIMIT ?`).all(farmLocalId, limit) as (OutboxRow & Omit<ParcelToSend, 'local_id'>)[];
  return {
    farm,
    parcels: rows.map(({ farm_local_id, name, source_type, point, geometry, hectares, metadata, checked, ...op }) =>
      ({ op, row: { local_id: op.local_id, farm_local_id, name, source_type, point, geometry, hectares, metadata, checked } })),
  };
}

/**
 * What settling a farm's uncertain create reads, together: the farm, the parcel ops sent in its batch (a farm's create
 * carries its first parcels, whose client references identify the farm on the service), and the server ids the
 * account's farms already hold (a listed farm one of them holds is not the lost one).
 */
export function farmCreateToReconcile(db: Db, accountId: string, op: OutboxRow): { farm: FarmRow | undefined; batchParcels: OutboxRow[]; mapped: Set<number> } {
  const farm = getRow(db, 'farm', op.local_id);
  if (!farm) return { farm, batchParcels: [], mapped: new Set() };
  const batchParcels = op.batch_id ? cachedStatement(db, "SELECT * FROM outbox WHERE batch_id = ? AND entity = 'parcel'").all(op.batch_id) as OutboxRow[] : [];
  return { farm, batchParcels, mapped: mappedServerIds(db, 'farm', accountId) };
}

/** The user's "retry": rejected work (of one account, or all) is queued again from scratch. How many ops. */
export function requeueRejected(db: Db, accountId: string | null): number {
  return cachedStatement(db, "UPDATE outbox SET state = 'queued', attempts = 0, next_attempt_at = NULL, last_error = NULL WHERE state = 'rejected' AND (? IS NULL OR account_id = ?)")
    .run(accountId, accountId).changes;
}

/**
 * Work waiting out a backoff or a Retry-After is due now. Uncertain work only gets its check sooner: it is
 * reconciled, never resent, before its settle time. How many ops.
 */
export function releaseBackoff(db: Db, accountId: string | null): number {
  return cachedStatement(db, "UPDATE outbox SET next_attempt_at = NULL WHERE state IN ('queued', 'uncertain') AND next_attempt_at IS NOT NULL AND (? IS NULL OR account_id = ?)")
    .run(accountId, accountId).changes;
}

/** The server id of a crop's parcel: null for a crop on no parcel, undefined while its parcel has none yet (the crop waits for it). */
export function cropParcelServerId(db: Db, row: Pick<CropRow, 'parcel_local_id'>): number | null | undefined {
  if (row.parcel_local_id === null) return null;
  return (cachedStatement(db, 'SELECT server_id FROM parcels WHERE local_id = ?').pluck().get(row.parcel_local_id) as number | null | undefined) ?? undefined;
}

/** A crop to send, and its parcel's server id (cropParcelServerId). */
export function cropToSend(db: Db, localId: string): { row: CropRow | undefined; parcel: number | null | undefined } {
  const row = getRow(db, 'crop', localId);
  return { row, parcel: row ? cropParcelServerId(db, row) : undefined };
}

/** What settling a crop's uncertain create reads, together: the crop and its parcel's id (cropToSend), and the server ids the account's crops already hold. */
export function cropCreateToReconcile(db: Db, accountId: string, localId: string): { row: CropRow | undefined; parcel: number | null | undefined; mapped: Set<number> } {
  const { row, parcel } = cropToSend(db, localId);
  return { row, parcel, mapped: row ? mappedServerIds(db, 'crop', accountId) : new Set() };
}
