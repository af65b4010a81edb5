import type { Db } from './open.ts';
import type { Entity, OpKind, OpState, OutboxRow, SendOp } from './types.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { getRow, tableOf, updateRow } from './rows.ts';
import { timeOrderedIds } from './bulk.ts';

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
 * A new batch id, time-ordered (RFC 9562 version 7): each batch's entries in the outbox's batch index go after the
 * last one's. A random id put every batch of a push on a page of that index at random, one more page written to the
 * WAL (16 KiB) per batch.
 */
export const newBatchId = (): string => timeOrderedIds(1)[0]!;

/**
 * Marks ops as sent: attempts+1, a batch id, the send time. Must commit before the request goes out.
 * Returns the ids it marked: an op withdrawn meanwhile (its never-sent parcel deleted by the user) is not sent.
 */
export function markInFlight(db: Db, ids: readonly number[], batchId: string = newBatchId()): Set<number> {
  const t = now();
  // One statement, so the batch is marked all or none, with one commit (and fsync).
  return new Set(cachedStatement(db, `UPDATE outbox SET state = 'in_flight', batch_id = ?, attempts = attempts + 1, checks = 0, sent_at = ?, modified = ?
    WHERE id IN (SELECT value FROM json_each(?)) RETURNING id`).pluck().all(batchId, t, t, JSON.stringify(ids)) as number[]);
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

// ---- the push's reads and transitions (sync/), one per outcome of a request ----

/** An IN list of n parameters, for batches (at most 50 ops) whose statement must stay one statement. */
const list = (n: number) => Array.from({ length: n }, () => '?').join(',');

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

/** The queued, never-sent parcel creates of a farm, in order: the parcels that may go with the farm's own create. */
export function unsentParcelCreatesOf(db: Db, farmLocalId: string): OutboxRow[] {
  return cachedStatement(db, `SELECT o.* FROM outbox o JOIN parcels p ON p.local_id = o.local_id WHERE o.entity = 'parcel' AND o.op = 'create'
    AND o.state = 'queued' AND o.attempts = 0 AND p.farm_local_id = ? ORDER BY o.id`).all(farmLocalId) as OutboxRow[];
}

/** The parcel ops sent in one batch (a farm's create carries its first parcels): what identifies the farm on the service. */
export function parcelOpsOfBatch(db: Db, batchId: string): OutboxRow[] {
  return cachedStatement(db, "SELECT * FROM outbox WHERE batch_id = ? AND entity = 'parcel'").all(batchId) as OutboxRow[];
}


/** A delete is marked in flight before it leaves (no batch: repeating a DELETE is harmless). */
export function markDeleteInFlight(db: Db, id: number, at: string): void {
  cachedStatement(db, "UPDATE outbox SET state = 'in_flight', attempts = attempts + 1, sent_at = ? WHERE id = ?").run(at, id);
}

/**
 * Records, before the request leaves, the state an update's PATCH asks the service to hold (migration 003, JSON);
 * with `inFlight`, the op is marked in flight in the same statement.
 */
export function recordSentState(db: Db, id: number, state: string, at: string, inFlight: boolean): void {
  cachedStatement(db, `UPDATE outbox SET sent_state = ?, sent_at = ?${inFlight ? ", state = 'in_flight', attempts = attempts + 1" : ''} WHERE id = ?`)
    .run(state, at, id);
}

/** Creates the service turned away (a 400, a refusal) created nothing: attempts back to 0, in one statement. */
export function resetAttempts(db: Db, ids: readonly number[]): void {
  if (!ids.length) return;
  db.prepare(`UPDATE outbox SET attempts = 0 WHERE id IN (${list(ids.length)})`).run(...ids);
}

/** A refused farm create created nothing: the farm and the parcels sent with it go back to the queue as never sent. */
export function unmarkRefused(db: Db, ids: readonly number[]): void {
  if (!ids.length) return;
  db.prepare(`UPDATE outbox SET state = 'queued', attempts = 0, batch_id = NULL WHERE id IN (${list(ids.length)})`).run(...ids);
}

/** Uncertain creates certainly not on the service (not found, and settled): back to fresh creates, sent again. */
export function requeueAsNew(db: Db, ids: readonly number[]): void {
  if (!ids.length) return;
  db.prepare(`UPDATE outbox SET state = 'queued', attempts = 0, checks = 0, next_attempt_at = NULL, last_error = NULL WHERE id IN (${list(ids.length)})`).run(...ids);
}

/** Uncertain creates not found yet, and not settled: one more empty check, and a look again at `at`. */
export function checkAgainAt(db: Db, ids: readonly number[], at: string): void {
  if (!ids.length) return;
  db.prepare(`UPDATE outbox SET checks = checks + 1, next_attempt_at = ? WHERE id IN (${list(ids.length)})`).run(at, ...ids);
}

/** Uncertain parcel creates missing from their farm's listing: one more empty check each, each looked at again at its own time. */
export function notListedYet(db: Db, checks: readonly { id: number; at: string }[]): void {
  const stmt = cachedStatement(db, "UPDATE outbox SET checks = checks + 1, next_attempt_at = ?, last_error = 'not on the service yet: checking again' WHERE id = ?");
  for (const c of checks) stmt.run(c.at, c.id);
}

/** An update or delete uncertain carries the whole state (or is a delete): sending it again is harmless. */
export function requeueUncertainUpdates(db: Db, accountId: string): void {
  cachedStatement(db, "UPDATE outbox SET state = 'queued' WHERE account_id = ? AND state = 'uncertain' AND op IN ('update', 'delete')").run(accountId);
}

/** The service named why it refused this op (one of a batch). */
export function setLastError(db: Db, id: number, error: string): void {
  cachedStatement(db, 'UPDATE outbox SET last_error = ? WHERE id = ?').run(error, id);
}

/** The service deleted a farm's parcels and crops with it: their own pending ops are moot. */
export function commitUnderFarm(db: Db, farmLocalId: string): void {
  cachedStatement(db, `UPDATE outbox SET state = 'committed', last_error = 'deleted with its farm' WHERE state != 'committed' AND (
    (entity = 'parcel' AND local_id IN (SELECT local_id FROM parcels WHERE farm_local_id = ?)) OR
    (entity = 'crop' AND local_id IN (SELECT c.local_id FROM crops c JOIN parcels p ON p.local_id = c.parcel_local_id WHERE p.farm_local_id = ?)))`).run(farmLocalId, farmLocalId);
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
