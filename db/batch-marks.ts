// A batch of the parcel push marked in flight as one row of `push_batches` (migration 013) instead of one write to
// each of its ops: the mark must be durable before the request leaves, and writing it into 50 outbox rows (their
// state, attempts, batch id and send time, and two index entries each) was a fifth of the push's SQLite work, for a
// state that nearly always lasts only until the 201 is booked. The ops stay 'queued' meanwhile; the booking commits
// them (bookCreated) and drops the row: a committed op needs no batch id or send time (nothing reads them once the
// batch is settled), and writing them grew every outbox row and the batch index by 20,000 entries in a push of
// 20,000 parcels: 17 of its 73 MB of WAL (squares, traced with strace).
//
// Anything else that reads or writes ops' states — a crash found at start-up, any answer but a clean 201, a blocked
// account, a conflict, an edit — first calls writeBatchMarks, which writes each open batch's mark into its ops exactly
// as a per-op mark would have, and drops the row: from then on every existing rule sees 'in_flight' as before.
import type { Db } from './open.ts';
import { idsIn } from './id-range.ts';
import { cachedStatement } from '../platform/node/statements.ts';

/** A batch marked in flight: its id (each op's batch_id once written) and when it was marked. */
export interface BatchMark { id: string; sentAt: string }

const hasMarks = (db: Db): boolean => cachedStatement(db, 'SELECT EXISTS (SELECT 1 FROM push_batches)').pluck().get() === 1;

/**
 * Marks a batch in flight: one row for the batch. Returns the ops it marked: those still queued as first sends (an op
 * withdrawn since it was planned — its never-sent parcel deleted by the user — is not marked, so not sent). None: no row.
 */
export function markBatch(db: Db, accountId: string, ids: readonly number[], mark: BatchMark): Set<number> {
  // A run of op ids (ops queued together) is read as one range (id-range.ts).
  const these = idsIn('id', ids);
  const marked = cachedStatement(db, `SELECT id FROM outbox WHERE ${these.sql} AND state = 'queued' AND attempts = 0 ORDER BY id`)
    .pluck().all(...these.params) as number[];
  if (marked.length) cachedStatement(db, 'INSERT INTO push_batches (id, account_id, ops, sent_at) VALUES (?, ?, ?, ?)').run(mark.id, accountId, JSON.stringify(marked), mark.sentAt);
  return new Set(marked);
}

/**
 * Writes the marks of open batches (one account's, or all) into their ops — state 'in_flight', the batch id, one more
 * attempt, the send time, as db/op-transitions.ts markInFlight writes them — and drops their rows. Only ops still
 * queued: an op some path changed without this first keeps what that path wrote. How many ops it marked.
 */
export function writeBatchMarks(db: Db, accountId: string | null = null, at: string = new Date().toISOString()): number {
  if (!hasMarks(db)) return 0;
  return db.transaction(() => {
    const n = cachedStatement(db, `UPDATE outbox SET state = 'in_flight', batch_id = m.id, attempts = attempts + 1, checks = 0, sent_at = m.sent_at, modified = ?
      FROM (SELECT b.id, b.sent_at, j.value AS op FROM push_batches b, json_each(b.ops) j WHERE ? IS NULL OR b.account_id = ?) AS m
      WHERE outbox.id = m.op AND outbox.state = 'queued'`).run(at, accountId, accountId).changes;
    cachedStatement(db, 'DELETE FROM push_batches WHERE ? IS NULL OR account_id = ?').run(accountId, accountId);
    return n;
  })();
}

/**
 * Books a batch's ops the service created: committed, counted as one attempt, and the batch's row dropped. The mark
 * is not written into them (the batch is settled); an op whose mark was already written (writeBatchMarks) keeps it.
 */
export function commitBatch(db: Db, mark: BatchMark, ids: readonly number[], at: string): void {
  if (ids.length) {
    // A run of op ids is written as one range (id-range.ts).
    const these = idsIn('id', ids);
    cachedStatement(db, `UPDATE outbox SET modified = ?, last_error = NULL, next_attempt_at = NULL,
      checks = CASE WHEN state = 'queued' THEN 0 ELSE checks END, attempts = attempts + (state = 'queued'), state = 'committed'
      WHERE ${these.sql}`).run(at, ...these.params);
  }
  dropBatch(db, mark.id);
}

/** A batch no longer open (booked, or its request never left): its row goes; its ops stay as they are. */
export function dropBatch(db: Db, batchId: string): void {
  cachedStatement(db, 'DELETE FROM push_batches WHERE id = ?').run(batchId);
}
