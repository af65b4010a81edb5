// The outcomes of the push, one function each: the sync engine decides (sync/context.ts: from the answer, the
// budget and the clock) and hands the decision here, where its whole write happens in one transaction — the op's
// state, its attempts, its times, and the rows that go with it. The engine runs no SQL (eslint.config.js), and no
// transition is spread over several calls from it.
import type { Db } from './open.ts';
import type { Entity } from './types.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { commitUnderFarm, setOpState } from './outbox.ts';
import { deleteRow } from './rows.ts';

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
