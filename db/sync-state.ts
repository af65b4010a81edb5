// An account's sync state as a run of the engine (sync/engine.ts) moves it: blocked until the user acts, resumed
// at the start of every run, and what a run leaves behind for its report and for `status`.
import type { Db } from './open.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { writeBatchMarks } from './batch-marks.ts';

/**
 * A run begins: a blocked account is tried again (it may have been reactivated, or connected again; nothing was
 * dropped), and work queued after a failure is due at once (backoff belongs to one run). Uncertain work keeps its
 * settle time, which is about the service, not the run.
 */
export function resumeAccount(db: Db, accountId: string): void {
  // Only rows that change: a freshly imported queue of 100,000 creates is not rewritten, nor read (the blocked ops
  // through outbox_pending, the queued ones waiting out a backoff through outbox_backoff, migration 016).
  cachedStatement(db, "UPDATE outbox SET state = 'queued', next_attempt_at = NULL WHERE account_id = ? AND state = 'blocked'").run(accountId);
  cachedStatement(db, "UPDATE outbox INDEXED BY outbox_backoff SET next_attempt_at = NULL WHERE account_id = ? AND next_attempt_at IS NOT NULL AND state = 'queued'").run(accountId);
  cachedStatement(db, 'UPDATE accounts SET blocked = NULL, blocked_code = NULL WHERE id = ?').run(accountId);
}

/**
 * Credentials refused, the account gone, no token: the account is blocked with the reason and its code
 * (sync/blocked.ts), and its queue waits, untouched, until the user acts.
 */
export function blockAccount(db: Db, accountId: string, reason: string, code: string): void {
  // Batches marked by their rows (db/batch-marks.ts) are in flight too.
  writeBatchMarks(db, accountId);
  // The refused request was turned away before any work: it does not count as an attempt.
  cachedStatement(db, "UPDATE outbox SET attempts = MAX(attempts - 1, 0) WHERE account_id = ? AND state = 'in_flight'").run(accountId);
  cachedStatement(db, "UPDATE outbox SET state = 'blocked', last_error = ? WHERE account_id = ? AND state IN ('queued', 'in_flight')").run(reason, accountId);
  cachedStatement(db, 'UPDATE accounts SET blocked = ?, blocked_code = ? WHERE id = ?').run(reason, code, accountId);
}

/**
 * What a run left of an account: ops still to go (`left`: queued, uncertain or in flight), ops that need the user
 * (`stuck`: rejected, in conflict or blocked), and open conflicts. All zero means synced.
 */
export function runOutcome(db: Db, accountId: string): { left: number; stuck: number; open: number; waitingWhy: string | null } {
  const count = (sql: string) => (cachedStatement(db, sql).get(accountId) as { n: number }).n;
  const left = count("SELECT COUNT(*) AS n FROM outbox WHERE account_id = ? AND state IN ('queued', 'uncertain', 'in_flight')");
  return {
    left,
    stuck: count("SELECT COUNT(*) AS n FROM outbox WHERE account_id = ? AND state IN ('rejected', 'conflict', 'blocked')"),
    open: count('SELECT COUNT(*) AS n FROM conflicts WHERE account_id = ? AND resolved IS NULL'),
    // Why what is left waits: the latest reason given for one of them (a refusal's message, "not on the service yet").
    waitingWhy: left ? (cachedStatement(db, `SELECT last_error FROM outbox WHERE account_id = ? AND state IN ('queued', 'uncertain')
      AND last_error IS NOT NULL ORDER BY modified DESC, id DESC LIMIT 1`).pluck().get(accountId) as string | undefined) ?? null : null,
  };
}

/** A blocked account's changes kept waiting (not lost) until it is unblocked. */
export function waitingWhileBlocked(db: Db, accountId: string): number {
  return (cachedStatement(db, "SELECT COUNT(*) AS n FROM outbox WHERE account_id = ? AND state IN ('queued', 'in_flight', 'uncertain', 'blocked')").get(accountId) as { n: number }).n;
}
