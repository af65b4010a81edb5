// The push's state machine in the mirror: every write the sync engine makes to the outbox, one function per outcome
// of a request or step of a batch. The engine decides (sync/: from the answer, the budget and the clock) and hands
// its decision here, where the whole step happens in one transaction: the op's state, its attempts and times, the
// rows that go with it (a 201's ids, a settled create's requeue, a conflict). A batch goes down into the mirror
// once, and no transition is spread over several calls from above. The engine runs no SQL (eslint.config.js).
import type { Db } from './open.ts';
import type { Entity, OpState, OutboxRow, SendOp } from './types.ts';
import { withoutFsync } from './open.ts';
import { idsIn } from './id-range.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { timeOrderedIds } from './bulk.ts';
import { ParcelFeature } from '../core/schemas/parcels.ts';
import { problemsOf } from '../core/schemas/check.ts';
import { forgetOps } from './outbox.ts';
import { keepConflict, type NewConflict } from './conflicts.ts';
import { deleteRow, updateRow } from './rows.ts';
import { parcelStateOfFeature } from './parcel-state.ts';
import { commitBatch, writeBatchMarks, type BatchMark } from './batch-marks.ts';

const now = () => new Date().toISOString();

// ---- one op's or one batch's transitions ----

/** An IN list of n parameters, for batches (at most 50 ops) whose statement must stay one statement. */
const list = (n: number) => Array.from({ length: n }, () => '?').join(',');

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
 * New batch ids, time-ordered (RFC 9562 version 7): each batch's entries in the outbox's batch index go after the
 * last one's. A random id put every batch of a push on a page of that index at random, one more page written to the
 * WAL (16 KiB) per batch. A push makes a mark group's ids at once (one random buffer for all).
 */
export const newBatchIds = (n: number): string[] => timeOrderedIds(n);
export const newBatchId = (): string => newBatchIds(1)[0]!;

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

/** Back to the queue for another try at `at`; a request that never left cannot have created anything, so it is no attempt. */
export function retryOps(db: Db, ids: readonly number[], t: { error: string; at: string; notSent: boolean }): void {
  if (!ids.length) return;
  db.transaction(() => {
    setOpState(db, ids, 'queued', { last_error: t.error, next_attempt_at: t.at });
    if (!t.notSent) return;
    const stmt = cachedStatement(db, 'UPDATE outbox SET attempts = MAX(attempts - 1, 0) WHERE id = ?');
    for (const id of ids) stmt.run(id);
  })();
}

/**
 * Refused by the service: the user must look. A refused create certainly created nothing, so its attempts go back to
 * 0 and an edit resends it without reconciling.
 */
export function rejectOps(db: Db, ids: readonly number[], reason: string): void {
  if (!ids.length) return;
  db.transaction(() => {
    setOpState(db, ids, 'rejected', { last_error: reason, next_attempt_at: null });
    const stmt = cachedStatement(db, 'UPDATE outbox SET attempts = 0 WHERE id = ? AND op = ?');
    for (const id of ids) stmt.run(id, 'create');
  })();
}

/**
 * The outcome of these ops' request is unknown (a 504, a timeout, an answer lost): uncertain since `at`, one instant
 * for the whole batch, and looked at again from `recheckAt`.
 */
export function uncertainOps(db: Db, ids: readonly number[], t: { why: string; at: string; recheckAt: string }): void {
  if (!ids.length) return;
  db.transaction(() => {
    setOpState(db, ids, 'uncertain', { last_error: t.why, next_attempt_at: t.recheckAt });
    const stmt = cachedStatement(db, 'UPDATE outbox SET uncertain_at = ? WHERE id = ?');
    for (const id of ids) stmt.run(t.at, id);
  })();
}

/** Done on the service (no transaction of its own: a booking commits its ops with the ids it writes). */
export function commitOpIds(db: Db, ids: readonly number[]): void {
  setOpState(db, ids, 'committed', { last_error: null, next_attempt_at: null });
}

/**
 * A delete the service answered (204, or 404: nothing left to delete): the op committed and the row gone. A farm's
 * parcels and crops went with it on the service, so their own pending ops commit too.
 */
export function completeDelete(db: Db, op: { id: number; entity: Entity; local_id: string }): void {
  db.transaction(() => {
    if (op.entity === 'farm') commitUnderFarm(db, op.local_id);
    commitOpIds(db, [op.id]);
    deleteRow(db, op.entity, op.local_id);
  })();
}

// ---- the steps of a batch of parcel creates, and of a farm created with its parcels ----

/**
 * A parcel the service created, as far as its booking needs: the ids, checked (sync/parcels.ts Created). `text` gives
 * the whole feature's JSON when only the ids were read from the answer (sync/created-scan.ts).
 */
export interface CreatedParcel { id: number; properties: { key: string }; text?: () => string }
export interface Created { op: SendOp; feature: CreatedParcel }
/** When the outcome of some ops became unknown, and when to look at them again (sync/context.ts uncertainNow). */
export interface UncertainAt { at: string; recheckAt: string }
/** What a booking did: ops committed, and ops whose answer could not be read whole (now uncertain). */
export interface Booked { committed: number; unread: number }

/**
 * Books a 201: the service's ids into the parcels and their ops committed, in one transaction without an fsync of its
 * own (inside a caller's transaction, the caller's). Until the next in-flight mark, or the end of the run, makes it
 * durable, a power cut leaves these ops in flight on disk, which means a reconciliation by client reference, never a
 * resend. With `mark`, the ops were marked in flight by their batch's row, which this booking settles. The base stays
 * NULL: the service holds exactly what was sent (parcel-state.ts parcelBase).
 */
export function bookCreated(db: Db, pairs: readonly Created[], uncertain: UncertainAt, mark?: BatchMark): Booked {
  return withoutFsync(db, () => {
    // A parcel edited while its create was out (or uncertain) is not what the service created: its base is the created
    // state, so that its pending update merges against it. An implicit base (NULL: the row itself) made the edit look
    // like the service's state and the merge took the service's older name back (found by the chaos test).
    const edited = parcelsEditedSinceSent(db, pairs.map((p) => p.op.local_id));
    // farm_totals.synced is kept here, not by a trigger per row (migration 015): a live row that had no server id is
    // booked by the first statement and counted; any other (deleted, or booked before) by the second, uncounted.
    const firstId = cachedStatement(db, 'UPDATE parcels SET server_id = ?, key = ?, base = ?, id_room = NULL WHERE rowid = ? AND local_id = ? AND server_id IS NULL AND deleted = 0');
    const again = cachedStatement(db, 'UPDATE parcels SET server_id = ?, key = ?, base = ?, id_room = NULL WHERE rowid = ? AND local_id = ?');
    const rowidOf = cachedStatement(db, 'SELECT rowid FROM parcels WHERE local_id = ?').pluck();
    const newlySynced: number[] = [];
    const write = (id: number, key: string, base: string | null, rowid: number, localId: string): boolean => {
      if (firstId.run(id, key, base, rowid, localId).changes) {
        newlySynced.push(rowid);
        return true;
      }
      return again.run(id, key, base, rowid, localId).changes > 0;
    };
    const ids: number[] = [];
    const unread: number[] = [];
    for (const { op, feature } of pairs) {
      let base: string | null = null;
      if (edited.has(op.local_id)) {
        // The answer was checked only for the ids: a feature that is not whole cannot be this base, so the op is
        // settled from the farm's listing instead (reconciliation), never guessed.
        const whole: unknown = feature.text ? JSON.parse(feature.text()) : feature;
        if (problemsOf(ParcelFeature, whole).length) {
          unread.push(op.id);
          continue;
        }
        base = JSON.stringify(parcelStateOfFeature(whole as ParcelFeature).state);
      }
      // By rowid when known (the table's own key; the local id is still checked, on the row itself): found through the
      // local id's index, the 20,000 rows of a push took about a fifth longer. One statement per parcel: one
      // UPDATE … FROM json_each for the batch took half as long again. A row not found by its rowid is looked up by
      // its local id.
      const { id, properties: { key } } = feature;
      if (op.rowid === undefined || !write(id, key, base, op.rowid, op.local_id)) {
        const rowid = rowidOf.get(op.local_id) as number | undefined;
        if (rowid !== undefined) write(id, key, base, rowid, op.local_id);
      }
      ids.push(op.id);
    }
    if (newlySynced.length) {
      // Once per farm (a push's batch is one farm's); by rowid, the table's own key, a run of them as one range (id-range.ts).
      const rows = idsIn('rowid', newlySynced);
      cachedStatement(db, `UPDATE farm_totals SET synced = synced + n.n FROM (SELECT farm_local_id, count(*) AS n FROM parcels
        WHERE ${rows.sql} GROUP BY farm_local_id) AS n WHERE farm_totals.farm_local_id = n.farm_local_id`).run(...rows.params);
    }
    // A batch marked by its row (db/batch-marks.ts): committed with its mark written in; an op to reconcile needs its
    // mark written first, as uncertainOps expects of an op that was sent.
    if (mark && unread.length) writeBatchMarks(db);
    if (mark) commitBatch(db, mark, ids, now());
    else commitOpIds(db, ids);
    uncertainOps(db, unread, { why: 'the 201 does not hold the whole created parcel', ...uncertain });
    return { committed: ids.length, unread: unread.length };
  });
}

/**
 * Of these parcels, those with an update not yet on the service: edited after their create was sent, so the row is
 * no longer what the service holds and needs an explicit base (the created state), not the implicit one.
 */
export function parcelsEditedSinceSent(db: Db, localIds: readonly string[]): Set<string> {
  // Nearly always there is no open parcel update at all: one probe of the partial index says so, instead of a lookup
  // per parcel (a push of 20,000 parcels: ~10-15 ms of its thread).
  if (cachedStatement(db, "SELECT EXISTS (SELECT 1 FROM outbox WHERE entity = 'parcel' AND op = 'update' AND state != 'committed')").pluck().get() === 0) return new Set();
  return new Set(cachedStatement(db, `SELECT DISTINCT local_id FROM outbox WHERE entity = 'parcel' AND op = 'update' AND state != 'committed'
    AND local_id IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(localIds)) as string[]);
}

/**
 * A 400 created nothing: the batch's attempts go back to 0 (what is sent again is a first send, not a reconciliation),
 * and the parcels it refused are rejected, each with its own reasons.
 */
export function refuseInBatch(db: Db, batch: readonly number[], refused: readonly { id: number; reason: string }[]): void {
  db.transaction(() => {
    resetAttempts(db, batch);
    rejectOps(db, refused.map((r) => r.id), '');
    for (const r of refused) setLastError(db, r.id, r.reason);
  })();
}

/**
 * An account's uncertain parcel creates due at `at`, by the service's id of their farm: what a round reconciles, one
 * farm's listing each. A create whose parcel or farm is gone from the mirror has nothing left to settle (committed
 * here); one whose farm has no id yet is settled with its farm. `total` counts them all, for the progress.
 */
export function uncertainCreatesByFarm(db: Db, accountId: string, at: string): { total: number; byFarm: Map<number, OutboxRow[]> } {
  return db.transaction(() => {
    const rows = cachedStatement(db, `SELECT o.*, f.server_id AS farm_server_id, f.local_id IS NULL AS gone FROM outbox o
      LEFT JOIN parcels p ON p.local_id = o.local_id LEFT JOIN farms f ON f.local_id = p.farm_local_id
      WHERE o.account_id = ? AND o.entity = 'parcel' AND o.op = 'create' AND o.state = 'uncertain'
      AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?) ORDER BY o.id`).all(accountId, at) as (OutboxRow & { farm_server_id: number | null; gone: number })[];
    const byFarm = new Map<number, OutboxRow[]>();
    const gone: number[] = [];
    for (const { farm_server_id: farm, gone: isGone, ...op } of rows) {
      if (isGone) gone.push(op.id);
      else if (farm !== null) {
        const list = byFarm.get(farm);
        if (list) list.push(op);
        else byFarm.set(farm, [op]);
      }
    }
    setOpState(db, gone, 'committed', { last_error: 'row gone' });
    return { total: rows.length, byFarm };
  })();
}

/** What the reconciliation of one farm's uncertain creates found, decided by the engine (sync/parcels.ts). */
export interface Reconciled {
  /** Listed by the service: booked with its ids. */
  found: readonly Created[];
  /** For the user: a parcel the service holds twice, or one missing from a batch of which the rest is there. */
  conflicts: readonly NewConflict[];
  /** Certainly not on the service (not listed, and settled): a fresh create again, or gone if the user deleted it meanwhile. */
  absent: readonly OutboxRow[];
  /** Not listed yet, and not settled: one more empty check each, looked at again at `at`. */
  notYet: readonly { id: number; at: string }[];
}

/** Settles one farm's uncertain creates as the engine decided, in one transaction; how many ops and conflicts it booked. */
export function settleReconciled(db: Db, r: Reconciled, uncertain: UncertainAt): Booked & { conflicts: number } {
  return db.transaction(() => {
    const booked = r.found.length ? bookCreated(db, r.found, uncertain) : { committed: 0, unread: 0 };
    let conflicts = 0;
    for (const c of r.conflicts) if (keepConflict(db, c)) conflicts++;
    const deleted = cachedStatement(db, 'SELECT deleted FROM parcels WHERE local_id = ?').pluck();
    const requeue: number[] = [];
    for (const o of r.absent) {
      // Certainly not on the service and deleted by the user meanwhile: gone, like a never-sent create (not created to be deleted).
      if (deleted.get(o.local_id) === 1) {
        forgetOps(db, 'parcel', o.local_id);
        deleteRow(db, 'parcel', o.local_id);
      } else requeue.push(o.id);
    }
    // Certainly not on the service: back to a fresh create. If that send is uncertain too, it is reconciled again.
    requeueAsNew(db, requeue);
    notListedYet(db, r.notYet);
    return { ...booked, conflicts };
  })();
}

/** The farm as the service holds it: its id, and its name as the base of a later rename's merge. */
export interface FarmCreated { opId: number; localId: string; serverId: number; name: string }

export function bookFarmCreated(db: Db, farm: FarmCreated, parcels: readonly Created[], uncertain: UncertainAt): Booked {
  return db.transaction(() => {
    updateRow(db, 'farm', farm.localId, { server_id: farm.serverId, base: JSON.stringify({ name: farm.name }) });
    commitOpIds(db, [farm.opId]);
    const booked = parcels.length ? bookCreated(db, parcels, uncertain) : { committed: 0, unread: 0 };
    return { committed: booked.committed + 1, unread: booked.unread };
  })();
}

/** A crop's create answered 201, or found again by its fields: the service's ids and its state as the base, and its op committed. */
export function bookCropCreated(db: Db, opId: number, localId: string, ids: { server_id: number; key: string; family_id: number | null; family_name: string | null; base: string }): void {
  db.transaction(() => {
    updateRow(db, 'crop', localId, ids);
    commitOpIds(db, [opId]);
  })();
}
