import type { Db } from '../db/open.ts';
import type { HeldDeletion } from '../db/pull.ts';
import type { AccountRow, Entity, OutboxRow, SendOp } from '../db/types.ts';
import { dueOps } from '../db/outbox.ts';
import { commitOpIds, completeDelete, recordSentState, rejectOps, retryOps, uncertainOps, type UncertainAt } from '../db/op-transitions.ts';
import { ANSWER_TOO_LARGE, NetworkError, errorMessage, type AnswerReader, type Answered, type HttpResponse, type ServiceClient } from './http.ts';
import type { ProgressEvent } from './progress.ts';
import { TokenUnavailable } from './tokens.ts';
import { jsonEqual, type Json } from './merge.ts';
import { AccountBlocked, blockedBy } from './blocked.ts';

export { AccountBlocked } from './blocked.ts';

export interface SyncOptions {
  /** How long an uncertain create must have been out before an empty listing is believed (the service may still commit). */
  settleMs: number;
  /** Retries (transient failures) allowed per account per sync run. */
  retryBudget: number;
  /** Full-jitter backoff: base and cap of the exponential. */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Longest a sync run waits for retries and settling before it gives up and reports what is left. */
  maxWaitMs: number;
  /**
   * Connection attempts in a row that may fail to connect (refused, host not found, connect timeout…) before the run
   * gives up on the account: a service that is plainly down is reported in seconds, not after `maxWaitMs`.
   */
  connectTries: number;
  /** Waits between those attempts: base × 2^(n-1) after the n-th failure, at most `backoffCapMs`; equal jitter (half fixed, half random). */
  connectRetryBaseMs: number;
  /**
   * Apply a pull that deletes more than a fifth of what is synced here at once (see sync/pull.ts); otherwise it is
   * held and reported (CLI: `sync --accept-remote-deletions`).
   */
  acceptRemoteDeletions: boolean;
  /** Parcel batches in flight at once (PUSH_WINDOW by default; 1 sends them one after another). */
  pushWindow: number;
  /**
   * Parcel batches marked in flight together, in one transaction (one fsync), before the first of them is sent; the
   * answers booked meanwhile are written in the same transaction (sync/parcel-creates.ts). 1 marks each batch alone.
   */
  markAhead: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  onProgress?: (e: ProgressEvent) => void;
  /**
   * Stops the run: no request is started once it is aborted and no wait goes on; the requests already out finish
   * (each within its deadline) and are booked, so nothing is left half-done — what was not sent stays queued.
   */
  signal?: AbortSignal;
}

/**
 * The waits and bounds a user may set (backend/settings.ts reads them from FURROW_* variables), each left to its
 * default when unset: the engine's `settleMs` and `maxWaitMs` (SyncOptions), and the HTTP client's idle timeout,
 * deadline and answer cap (sync/http.ts ClientOptions).
 */
export interface DurationOptions {
  settleMs?: number;
  maxWaitMs?: number;
  timeoutMs?: number;
  deadlineMs?: number;
  maxAnswerBytes?: number;
}

export const defaultSyncOptions = (): SyncOptions => ({
  settleMs: 30_000, retryBudget: 30, backoffBaseMs: 250, backoffCapMs: 30_000, maxWaitMs: 120_000, connectTries: 4, connectRetryBaseMs: 1000, pushWindow: 2, markAhead: 8, acceptRemoteDeletions: false,
  now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)), random: Math.random,
});

export class BudgetExhausted extends Error {}
/** An answer past the client's answer cap (SyncOptions.maxAnswerBytes): not asked again, since the same GET gives the same answer. */
export class AnswerTooLarge extends Error {}

/** The run was stopped through SyncOptions.signal. */
export class SyncCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'SyncCancelled';
  }
}

export function throwIfCancelled(ctx: { opts: SyncOptions }): void {
  if (ctx.opts.signal?.aborted) throw new SyncCancelled();
}

/** opts.sleep, cut short (rejected with SyncCancelled) when the run is stopped. */
export function sleepUnlessCancelled(opts: SyncOptions, ms: number): Promise<void> {
  const signal = opts.signal;
  if (!signal) return opts.sleep(ms);
  if (signal.aborted) return Promise.reject(new SyncCancelled());
  return new Promise((resolve, reject) => {
    const stop = () => reject(new SyncCancelled());
    signal.addEventListener('abort', stop, { once: true });
    opts.sleep(ms).then(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, reject);
  });
}

export interface AccountCtx {
  db: Db;
  account: AccountRow;
  client: ServiceClient;
  opts: SyncOptions;
  retriesLeft: number;
  /** The run gives up waiting (for retries, settling) past this moment and reports what is left. */
  deadline: number;
  /** Counters for the report and the progress events; `sent` counts only ops whose request the service answered. */
  stats: { sent: number; committed: number; rejected: number; conflicts: number; pulled: number; received: number; removed: number; plantsChanged: number; bytes: number; bytesReceived: number };
  /**
   * Set when a request could not connect, cleared by the next answer: until `until` nothing else is tried (each
   * try would fail the same way and spend a retry). `failures` counts the attempts that failed in a row (since
   * `since`); at `connectTries` the run gives up on the account (`gaveUp`): nothing more is tried in this run.
   */
  unreachable: Unreachable | null;
  /**
   * Set when the last request got no answer within the client's timeout (the service accepts connections and does
   * not answer), in words; cleared by the next answer. Progress events carry it (ProgressEvent.notAnswering).
   */
  silent: string | null;
  /** Remote deletions the pull did not apply because they were too many at once (sentences for the report). */
  held: string[];
  /** The same deletions by the service's ids: kept in the mirror when the pull ends (db/pull.ts replaceHeldDeletions). */
  heldIds: HeldDeletion[];
  /** The pull released work a void remote-delete conflict had parked: the engine pushes once more after it. */
  pushAgain: boolean;
  /** How far the pull got (null: not begun): what the report says when it stops partway. */
  pull: PullProgress | null;
  /** Service URLs found without a change feed in this run (shared by the run's accounts): they are listed in full. */
  feedless: Set<string>;
  /** How the pull went: every listing, or only the changes since the last pull (sync/change-feed.ts); null before it. */
  pullKind: 'full' | 'changes' | null;
  /** Why a pull that could have gone by the changes listed everything instead (the cursor expired…), or null. */
  pullNote: string | null;
  emit(e: Omit<ProgressEvent, 'account'>): void;
}

/** Where a pull is: reading the changes since the last pull, or the farm list, then each farm's parcels (`farmsDone` of `farms`), then the rest in order. */
export interface PullProgress { stage: 'farm list' | 'changes' | 'farms' | 'crops' | 'crop families' | 'plants' | 'account'; farmsDone: number; farms: number }

export interface Unreachable { until: number; failures: number; since: number; reason: string; gaveUp: boolean }

const iso = (ms: number) => new Date(ms).toISOString();

/** "could not reach URL: connection refused (4 attempts over 6 s)": what the run reports and the progress says. */
export function unreachableText(ctx: AccountCtx, u: Unreachable): string {
  const over = u.failures > 1 ? ` over ${Math.max(1, Math.round((ctx.opts.now() - u.since) / 1000))} s` : '';
  return `could not reach ${ctx.account.service_url}: ${u.reason} (${u.failures} attempt${u.failures === 1 ? '' : 's'}${over})`;
}

/** Equal jitter between connection attempts: a service restarting gets a few seconds, a dead one is reported soon. */
function connectRetryMs(ctx: AccountCtx, failures: number): number {
  const exp = Math.min(ctx.opts.backoffCapMs, ctx.opts.connectRetryBaseMs * 2 ** Math.min(failures - 1, 20));
  return Math.floor(exp / 2 + ctx.opts.random() * (exp / 2));
}

/** What a wait is for, in words, for the progress: "could not reach the service (…; attempt 2 of 4 failed), retrying in 2 s". */
export function waitingMessage(ctx: AccountCtx, why: string, ms: number): string {
  const u = ctx.unreachable;
  const next = `retrying in ${Math.max(1, Math.ceil(ms / 1000))} s`;
  if (u && !u.gaveUp) return `could not reach the service (${u.reason}; attempt ${u.failures} of ${ctx.opts.connectTries} failed), ${next}`;
  return `${why}, ${next}`;
}

/** Full jitter: a uniformly random wait up to min(cap, base × 2^attempt). */
export function backoffMs(ctx: AccountCtx, attempt: number, retryAfterMs: number | null): number {
  const exp = Math.min(ctx.opts.backoffCapMs, ctx.opts.backoffBaseMs * 2 ** Math.min(attempt, 20));
  const jitter = Math.floor(ctx.opts.random() * exp);
  return Math.max(jitter, retryAfterMs ?? 0);
}

/**
 * Puts ops back in the queue for a later attempt; spends one retry of the budget. While the service is unreachable
 * they wait for the same moment as the failed connection (and one that was not even tried spends nothing).
 */
export function retryLater(ctx: AccountCtx, ops: readonly SendOp[], error: string, retryAfterMs: number | null, notSent: boolean, notTried = false): void {
  // Back in the queue even when the budget is spent: these ops are not uncertain, and the run's end must not make them so.
  const exhausted = !notTried && ctx.retriesLeft <= 0;
  if (!notTried && !exhausted) ctx.retriesLeft--;
  const attempt = Math.max(...ops.map((o) => o.attempts), 1);
  const at = iso(ctx.unreachable ? Math.max(ctx.unreachable.until, ctx.opts.now()) : ctx.opts.now() + backoffMs(ctx, attempt, retryAfterMs));
  retryOps(ctx.db, ops.map((o) => o.id), { error, at, notSent });
  if (exhausted) throw new BudgetExhausted(`retry budget used up: ${error}`);
}

export function reject(ctx: AccountCtx, ops: readonly SendOp[], reason: string): void {
  rejectOps(ctx.db, ops.map((o) => o.id), reason);
  ctx.stats.rejected += ops.length;
}

export function markUncertain(ctx: AccountCtx, ops: readonly SendOp[], why: string): void {
  const t = uncertainNow(ctx);
  uncertainOps(ctx.db, ops.map((o) => o.id), { why, ...t });
}

/**
 * Uncertain from now, looked at again once settled. One instant for a whole batch: read per op, a slow machine spread a
 * batch's times over milliseconds, so its ops settled (and were resent) in two requests instead of one.
 */
export function uncertainNow(ctx: AccountCtx): UncertainAt {
  const now = ctx.opts.now();
  return { at: iso(now), recheckAt: iso(now + ctx.opts.settleMs) };
}

/**
 * Settling counts from when the outcome became unknown (the 504, the timeout, the crash found at start-up),
 * not from the send: the service may go on committing long after a gateway gave up.
 */
export const uncertainSince = (o: OutboxRow): number => Date.parse(o.uncertain_at ?? o.sent_at ?? new Date(0).toISOString());
export const settledFor = (ctx: AccountCtx, o: OutboxRow): boolean => o.checks >= 1 && ctx.opts.now() - uncertainSince(o) >= ctx.opts.settleMs;
/** When to look again for an uncertain op; `now` read once by a caller rechecking several (see markUncertain). */
export const recheckAt = (ctx: AccountCtx, o: OutboxRow, now: number = ctx.opts.now()): string =>
  iso(Math.max(now + Math.max(1000, ctx.opts.settleMs / 2), uncertainSince(o) + ctx.opts.settleMs));

/** Answers that say nothing of the request was done: 408, 429, 503 and 507 (its disk full; the write rolled back whole). */
export const REFUSED_UNDONE: ReadonlySet<number> = new Set([408, 429, 503, 507]);

/**
 * Turns failures every request shares into their outcome: blocked account, retry later, or uncertain.
 * Returns true when it handled the response (the caller stops), false for a response the caller must read.
 */
export function handleCommon(ctx: AccountCtx, ops: readonly SendOp[], res: HttpResponse | NetworkError, write: boolean): boolean {
  if (res instanceof NetworkError) {
    // Only a request that may have reached the service leaves a write uncertain; one that never left is simply retried.
    if (!res.sent || !write) retryLater(ctx, ops, res.message, null, !res.sent, res.notTried);
    else markUncertain(ctx, ops, res.message);
    return true;
  }
  // The client already refreshed a token once; credentials still refused cannot be fixed by retrying.
  const blocked = blockedBy(res);
  if (blocked) throw blocked;
  if (REFUSED_UNDONE.has(res.status)) {
    // Throttled, unavailable (too many connections), the request did not arrive whole in time, or the service's disk
    // is full: refused with nothing done, by the service's own description (docs/api.md). Not uncertain: waited for
    // (Retry-After) and sent again.
    retryLater(ctx, ops, errorMessage(res), res.retryAfterMs, true);
    return true;
  }
  if (res.status >= 500) {
    if (write) markUncertain(ctx, ops, errorMessage(res));
    else retryLater(ctx, ops, errorMessage(res), res.retryAfterMs, true);
    return true;
  }
  return false;
}

/**
 * Sends one request. `ops` is how many outbox ops it carries: counted as sent once the service answers. While the
 * service is unreachable (a connection failed a moment ago) nothing is tried until the backoff has passed, and
 * nothing at all once the run gave up on it.
 */
export async function call(ctx: AccountCtx, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, ops = 0, read?: AnswerReader, answered?: Answered): Promise<HttpResponse | NetworkError> {
  if (ctx.unreachable && (ctx.unreachable.gaveUp || ctx.opts.now() < ctx.unreachable.until)) {
    const { reason, gaveUp } = ctx.unreachable;
    return new NetworkError(`${method} ${path}: not tried (${reason}${gaveUp ? ', gave up' : ' a moment ago'})`, { sent: false, reason, unreachable: true, notTried: true });
  }
  // A stopped run starts no request (one already marked in flight is then reconciled, never resent blindly).
  throwIfCancelled(ctx);
  // Failures recorded before this request set out: one recorded meanwhile is the same attempt (two batches in flight).
  const failuresBefore = ctx.unreachable?.failures ?? 0;
  try {
    const res = await ctx.client.send(method, path, body, read, answered);
    ctx.stats.bytes += res.sentBytes;
    ctx.stats.bytesReceived += res.receivedBytes ?? 0;
    ctx.stats.sent += ops;
    ctx.unreachable = null;
    ctx.silent = null;
    return res;
  } catch (err) {
    if (err instanceof NetworkError) {
      if (err.silent) {
        const first = ctx.silent === null;
        ctx.silent = `${ctx.account.service_url} accepts connections but is not answering (${err.reason})`;
        // Said at once: the page's status would read "Online" for as long as the run goes on retrying.
        if (first) ctx.emit({ phase: 'waiting', done: 0, total: 0, bytes: ctx.stats.bytes, message: ctx.silent });
      }
      const u = ctx.unreachable;
      if (err.unreachable && !(u && u.failures > failuresBefore)) {
        // Exponential backoff on the consecutive connection failures, within the retry budget, up to connectTries.
        const failures = (u?.failures ?? 0) + 1;
        const now = ctx.opts.now();
        const gaveUp = failures >= ctx.opts.connectTries;
        ctx.unreachable = { failures, since: u?.since ?? now, reason: err.reason, gaveUp, until: gaveUp ? now : now + connectRetryMs(ctx, failures) };
      }
      return err;
    }
    // No token, nothing sent: the account waits (blocked), its in-flight ops are not uncertain.
    if (err instanceof TokenUnavailable) throw new AccountBlocked(err.message, err.code);
    throw err;
  }
}

/** A GET whose failure is not about any op: network and server errors are retried right here, within the budget. */
export async function getJson(ctx: AccountCtx, path: string, read?: AnswerReader): Promise<HttpResponse> {
  for (let attempt = 1; ; attempt++) {
    const res = await call(ctx, 'GET', path, undefined, 0, read);
    if (!(res instanceof NetworkError) && res.status < 500 && !REFUSED_UNDONE.has(res.status)) {
      const blocked = blockedBy(res);
      if (blocked) throw blocked;
      return res;
    }
    if (res instanceof NetworkError && res.reason === ANSWER_TOO_LARGE) throw new AnswerTooLarge(res.message);
    if (ctx.unreachable?.gaveUp) throw new BudgetExhausted(`GET ${path}: gave up, ${unreachableText(ctx, ctx.unreachable)}`);
    const failure = res instanceof NetworkError ? res.message : errorMessage(res);
    const why = `GET ${path} keeps failing: ${failure}`;
    const tried = !(res instanceof NetworkError && res.notTried);
    const wait = ctx.unreachable ? Math.max(0, ctx.unreachable.until - ctx.opts.now()) : backoffMs(ctx, attempt, res instanceof NetworkError ? null : res.retryAfterMs);
    if ((tried && ctx.retriesLeft <= 0) || ctx.opts.now() + wait > ctx.deadline) throw new BudgetExhausted(why);
    if (tried) ctx.retriesLeft--;
    ctx.emit({ phase: 'waiting', done: 0, total: 0, bytes: ctx.stats.bytes, message: waitingMessage(ctx, `GET ${path} failed (${failure})`, wait) });
    await sleepUnlessCancelled(ctx.opts, wait);
  }
}

export const readyOps = (ctx: AccountCtx, entity: Entity, op: OutboxRow['op'], state: OutboxRow['state'] = 'queued'): OutboxRow[] =>
  dueOps(ctx.db, ctx.account.id, entity, op, state, iso(ctx.opts.now()));

export const commitOps = (ctx: AccountCtx, ids: readonly number[]) => {
  commitOpIds(ctx.db, ids);
  ctx.stats.committed += ids.length;
};

/**
 * A PATCH or a DELETE: it carries the whole state (or is a delete), so repeating it is harmless and an unknown
 * outcome just means "send it again". Returns the answer to read, or null when it was dealt with here.
 */
export async function sendIdempotent(ctx: AccountCtx, op: OutboxRow, method: 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<HttpResponse | null> {
  const res = await call(ctx, method, path, body, 1);
  if (res instanceof NetworkError || (res.status >= 500 && !REFUSED_UNDONE.has(res.status))) {
    retryLater(ctx, [op], res instanceof NetworkError ? res.message : errorMessage(res), null, res instanceof NetworkError && !res.sent, res instanceof NetworkError && res.notTried);
    return null;
  }
  return handleCommon(ctx, [op], res, false) ? null : res;
}

/** A DELETE's answer: 204, or 404 (already gone), completes the op and removes its row (a farm's, its children's ops too). */
export function finishDelete(ctx: AccountCtx, op: OutboxRow, res: HttpResponse): void {
  if (res.status !== 204 && res.status !== 404) {
    reject(ctx, [op], errorMessage(res));
    return;
  }
  completeDelete(ctx.db, op);
  ctx.stats.committed += 1;
}

/**
 * Records, durably and before the request leaves, the state an update's PATCH asks the service to hold
 * (migration 003), so that a later attempt can tell whether a PATCH whose answer was lost landed.
 */
export function recordSent(ctx: AccountCtx, op: OutboxRow, state: unknown, markInFlight: boolean): void {
  recordSentState(ctx.db, op.id, JSON.stringify(state), iso(ctx.opts.now()), markInFlight);
}

/**
 * The common ancestor for an update's merge. When the service holds exactly what this op last PATCHed, that
 * PATCH landed and only its answer was lost: the service's state is the ancestor, so an edit the user made since
 * is merged as theirs-unchanged, not reported as a conflict with their own earlier edit.
 */
export function mergeBase<T>(op: OutboxRow, stored: T, theirs: T): T {
  if (op.sent_state !== null && jsonEqual(JSON.parse(op.sent_state) as Json, theirs as Json)) return theirs;
  return stored;
}
