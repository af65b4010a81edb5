import type { Db } from './open.ts';
import type { Entity, OpKind, OpState, OutboxRow } from './types.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { getRow, tableOf, updateRow } from './rows.ts';

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
    cachedStatement(db, 'DELETE FROM outbox WHERE entity = ? AND local_id = ?').run(entity, localId);
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

// ---- transitions driven by the sync engine ----

export function setOpState(db: Db, ids: readonly number[], state: OpState, fields: { last_error?: string | null; next_attempt_at?: string | null } = {}): void {
  if (!ids.length) return;
  // One statement for the whole batch: the engine moves 50 ops at a time.
  cachedStatement(db, `UPDATE outbox SET state = @state, modified = @t,
    last_error = CASE WHEN @set_err THEN @err ELSE last_error END,
    next_attempt_at = CASE WHEN @set_next THEN @next ELSE next_attempt_at END WHERE id IN (SELECT value FROM json_each(@ids))`).run({
    ids: JSON.stringify(ids), state, t: now(),
    set_err: fields.last_error !== undefined ? 1 : 0, err: fields.last_error ?? null,
    set_next: fields.next_attempt_at !== undefined ? 1 : 0, next: fields.next_attempt_at ?? null,
  });
}

/**
 * Marks ops as sent: attempts+1, a batch id, the send time. Must commit before the request goes out.
 * Returns the ids it marked: an op withdrawn meanwhile (its never-sent parcel deleted by the user) is not sent.
 */
export function markInFlight(db: Db, ids: readonly number[], batchId: string): Set<number> {
  const t = now();
  // One statement, so the batch is marked all or none, with one commit (and fsync).
  const rows = cachedStatement(db, `UPDATE outbox SET state = 'in_flight', batch_id = ?, attempts = attempts + 1, checks = 0, sent_at = ?, modified = ?
    WHERE id IN (SELECT value FROM json_each(?)) RETURNING id`).all(batchId, t, t, JSON.stringify(ids)) as { id: number }[];
  return new Set(rows.map((r) => r.id));
}

/**
 * Ops marked in flight ahead of their request (a group of batches marked with one commit) whose request certainly
 * never left, because the run stopped or failed first: back to the queue as they were before the mark. Only for
 * first sends (attempts was 0), so nothing of an earlier attempt is erased.
 */
export function unmarkNeverSent(db: Db, ids: readonly number[]): number {
  if (!ids.length) return 0;
  return cachedStatement(db, `UPDATE outbox SET state = 'queued', batch_id = NULL, attempts = attempts - 1, sent_at = NULL, modified = ?
    WHERE id IN (SELECT value FROM json_each(?)) AND state = 'in_flight' AND attempts = 1`).run(now(), JSON.stringify(ids)).changes;
}

/**
 * After a crash, or a sync that stopped early, every in-flight op is uncertain: it may or may not have reached
 * the service. All accounts' ops, or one account's.
 */
export function inFlightToUncertain(db: Db, accountId: string | null = null, at: string = now()): number {
  return cachedStatement(db, "UPDATE outbox SET state = 'uncertain', uncertain_at = ?, modified = ? WHERE state = 'in_flight' AND (? IS NULL OR account_id = ?)")
    .run(at, at, accountId, accountId).changes;
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
