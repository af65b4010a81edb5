import type { Mirror } from '../db/mirror.ts';
import type { AccountRow, OutboxRow } from '../db/types.ts';
import { uncertainCreatesByFarm, requeueUncertainUpdates } from '../db/op-transitions.ts';
import { committedCount, inFlightToUncertain, waitingOps } from '../db/outbox.ts';
import { afterRound } from './rounds.ts';
import { liveSyncHolder, parcelLimit, releaseSyncLock, takeSyncLock } from '../db/settings.ts';
import { blockAccount, resumeAccount, runOutcome } from '../db/sync-state.ts';
import type { ServiceClient } from './http.ts';
import { defaultSyncOptions, readyOps, sleepUnlessCancelled, SyncCancelled, unreachableText, waitingMessage, type AccountCtx, type PullProgress, type SyncOptions } from './context.ts';
import { AccountBlocked } from './blocked.ts';
import type { BlockedCode } from '../core/accounts/blocked.ts';
import { farmCreatesDue, pushFarmCreate, pushFarmDelete, pushFarmUpdate, reconcileFarmCreate } from './farms.ts';
import { pushParcelDelete, pushParcelUpdate, reconcileParcelCreates } from './parcels.ts';
import { pushParcelCreates } from './parcel-creates.ts';
import { cropCreatesDue, pushCropCreate, pushCropDelete, pushCropUpdate, reconcileCropCreate } from './crops.ts';
import { pullAccount, pullStoppedText } from './pull.ts';
import type { ProgressEvent } from './progress.ts';
import { readAfterState, saveReadAfterState } from '../db/read-after.ts';
import { withoutFsync } from '../db/open.ts';

export interface AccountReport {
  account: string;
  /** The service it syncs with. */
  service: string;
  /** Nothing left to send and nothing needing the user. */
  synced: boolean;
  /** Why the engine cannot go on for this account without the user (see sync/blocked.ts), and its code. */
  blocked: string | null;
  blockedCode: BlockedCode | null;
  error: string | null;
  /**
   * Set when the last request of the run could not even connect ("connection refused"): nothing of what is
   * still queued reached the service.
   */
  unreachable: string | null;
  /**
   * Set when the run's last request got no answer within the client's timeout: the service accepts connections and
   * does not answer (hung). Absent otherwise.
   */
  notAnswering?: string;
  /** Ops carried by requests the service answered (any status). */
  sent: number;
  /** Ops the service acknowledged (created, updated, deleted as asked). */
  committed: number;
  rejected: number;
  conflicts: number;
  pulled: number;
  /** Farms, parcels and crops the pull changed here (new, changed or gone on the service); `pulled` counts listings. */
  received: number;
  /** Answer bytes the run received over the wire (compressed as they came), pull and push. */
  bytesReceived: number;
  /** How the pull went: every listing ('full'), or only the changes since the last pull; null when there was none. */
  pullKind: 'full' | 'changes' | null;
  /** Why a pull listed everything when it could have read the changes (the cursor expired…), or null. */
  pullNote: string | null;
  /** The run was stopped through SyncOptions.signal (`error` is then 'cancelled'). */
  cancelled: boolean;
  /** Plants the pull added, changed or removed (an unchanged plant is not written). */
  plantsChanged: number;
  /** Farms, parcels and crops removed here because the service deleted them (a farm's parcels counted with it). */
  removed: number;
  /** Ops still queued or uncertain when the run ended (waiting for a retry or for settling). */
  left: number;
  /** Why they wait, in the words of the latest reason given (the service's refusal: "its disk is full…"); null when none was. */
  waitingWhy: string | null;
  /**
   * Why a pull that was asked for did not happen or did not finish (null: done, or not asked for); for one that
   * stopped partway, where: "stopped after 9 of 15 farms: <reason>".
   */
  pullNotDone: string | null;
  /** How far a pull that began and did not finish got (null: not begun, done, or the account blocked). */
  pullStopped: PullProgress | null;
  /** Remote deletions held because they would remove too much at once (nothing was deleted locally). */
  deletionsHeld: string[];
}

export interface SyncReport { accounts: AccountReport[] }

/** How many accounts one run syncs side by side. */
export const ACCOUNTS_AT_ONCE = 4;


/**
 * Pushes each account's outbox and pulls its data, accounts independently (one blocked or failing account
 * does not stop the others). Only one sync runs on a mirror at a time.
 */
export class SyncEngine {
  private readonly opts: SyncOptions;
  private readonly lastProgress = new Map<string, string>();
  /** Services found without a change feed: asked once per run, per service (sync/change-feed.ts). */
  private feedless = new Set<string>();

  constructor(private readonly mirror: Mirror, private readonly clientFor: (a: AccountRow) => ServiceClient, opts: Partial<SyncOptions> = {}) {
    this.opts = { ...defaultSyncOptions(), ...opts };
  }

  private get db() {
    return this.mirror.syncDb;
  }

  /**
   * Without an fsync of its own, as the account's resume and the read-after state below: each of these writes is
   * either derived again from what is on disk at the next start (in flight → uncertain, the blocked state) or needs no
   * durability (the lock excludes other processes by its write transaction; one lost to a power cut belongs to a dead
   * process). The push's first in-flight mark, or the lock's release, syncs them with its own. Before a push's first
   * request they were three fsyncs in a row, each up to tens of milliseconds on a busy disk.
   */
  private lock(): void {
    withoutFsync(this.db, () => {
      const pid = liveSyncHolder(this.db);
      if (pid !== null && pid !== process.pid) throw new Error(`Another sync (process ${pid}) is running on this mirror`);
      takeSyncLock(this.db, process.pid);
      // Whatever a killed sync left in flight may or may not have reached the service.
      inFlightToUncertain(this.db, null, new Date(this.opts.now()).toISOString());
    }, 'immediate');
  }

  private unlock(): void {
    releaseSyncLock(this.db, process.pid);
  }

  async sync(o: { accounts?: string[]; push?: boolean; pull?: boolean } = {}): Promise<SyncReport> {
    this.lock();
    this.lastProgress.clear();
    this.feedless = new Set();
    try {
      const accounts = this.mirror.read.accounts().filter((a) => !o.accounts || o.accounts.includes(a.id));
      // A few accounts at a time, each in its own queue: a consultant's dozens of accounts must not open dozens of
      // connections and pushes at once (ACCOUNTS_AT_ONCE), and one slow account does not hold the others back.
      const reports = new Array<AccountReport>(accounts.length);
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < accounts.length; i = next++) reports[i] = await this.syncAccount(accounts[i]!, o.push ?? true, o.pull ?? true);
      };
      await Promise.all(Array.from({ length: Math.min(ACCOUNTS_AT_ONCE, accounts.length) }, worker));
      return { accounts: reports };
    } finally {
      this.unlock();
    }
  }

  private async syncAccount(account: AccountRow, push: boolean, pull: boolean): Promise<AccountReport> {
    const stats = { sent: 0, committed: 0, rejected: 0, conflicts: 0, pulled: 0, received: 0, removed: 0, plantsChanged: 0, bytes: 0, bytesReceived: 0 };
    let blocked: AccountBlocked | null = null;
    let error: string | null = null;
    let pulled = false;
    let cancelled = false;
    // A blocked account is tried again on every sync (it may have been reactivated, or connected again); nothing was dropped.
    // Work queued after a failure is tried at once too: backoff and the retry budget belong to one run (the user
    // syncing again is a new decision). Uncertain work keeps its settle time, which is about the service, not the run.
    withoutFsync(this.db, () => resumeAccount(this.db, account.id)); // synced by the next FULL commit (lock())
    let ctx: AccountCtx | null = null;
    try {
      const client = this.clientFor(account);
      // After the writes of earlier processes too (a CLI `pull` right after a CLI `push`): docs/sync.md.
      client.readAfter.restore(readAfterState(this.db, account.id));
      ctx = {
        db: this.db, account, client, opts: this.opts, retriesLeft: this.opts.retryBudget, deadline: this.opts.now() + this.opts.maxWaitMs,
        stats, unreachable: null, silent: null, pull: null, held: [], heldIds: [], pushAgain: false, feedless: this.feedless, pullKind: null, pullNote: null,
        emit: (e: Omit<ProgressEvent, 'account'>) => this.opts.onProgress?.({ ...e, account: account.id, bytesReceived: stats.bytesReceived, ...(ctx?.silent ? { notAnswering: ctx.silent } : {}) }),
      };
      try {
        if (push) await this.pushAccount(ctx);
        if (pull) {
          await pullAccount(ctx);
          pulled = true;
          if (push && ctx.pushAgain) await this.pushAccount(ctx);
        }
      } finally {
        withoutFsync(this.db, () => saveReadAfterState(this.db, account.id, client.readAfter.state())); // synced by the lock's release
        await client.close();
      }
    } catch (err) {
      if (err instanceof AccountBlocked) {
        blocked = err;
        this.block(account.id, err);
      } else if (err instanceof SyncCancelled) {
        cancelled = true;
        error = 'cancelled';
        inFlightToUncertain(this.db, account.id, new Date(this.opts.now()).toISOString());
      } else {
        error = err instanceof Error ? err.message : String(err);
        // Whatever was out when the run stopped may have reached the service: settle it before any resend.
        inFlightToUncertain(this.db, account.id, new Date(this.opts.now()).toISOString());
      }
    }
    this.opts.onProgress?.({ account: account.id, phase: 'done', done: stats.committed, total: stats.sent, bytes: stats.bytes, bytesReceived: stats.bytesReceived, ...(ctx?.silent ? { notAnswering: ctx.silent } : {}) });
    const { left, stuck, open, waitingWhy } = runOutcome(this.db, account.id);
    const unreachable = ctx?.unreachable ? unreachableText(ctx, ctx.unreachable) : null;
    // Pull began: whatever stopped the run stopped the pull, at the point it had reached.
    const began = ctx?.pull ?? null;
    const pullNotDone = !pull || pulled ? null
      : blocked ? `the account is blocked (${blocked.reason})`
      : began ? pullStoppedText(began, unreachable ?? error ?? 'stopped')
      : unreachable ?? (error ? (push ? `the run stopped before it (${error})` : error) : 'stopped');
    return {
      account: account.id, service: account.service_url, synced: !blocked && !error && left === 0 && stuck === 0 && open === 0 && !ctx?.held.length,
      blocked: blocked?.reason ?? null, blockedCode: blocked?.code ?? null, error, unreachable, ...(ctx?.silent && !unreachable ? { notAnswering: ctx.silent } : {}),
      sent: stats.sent, committed: stats.committed, rejected: stats.rejected, conflicts: stats.conflicts, pulled: stats.pulled, received: stats.received, removed: stats.removed, plantsChanged: stats.plantsChanged, left, waitingWhy, pullNotDone,
      bytesReceived: stats.bytesReceived, pullKind: pulled ? ctx?.pullKind ?? null : null, pullNote: ctx?.pullNote ?? null,
      pullStopped: !pull || pulled || blocked ? null : began,
      deletionsHeld: ctx?.held ?? [],
      cancelled,
    };
  }

  /** Credentials refused, the account gone, no token: the queue waits, untouched, until the user acts. */
  private block(accountId: string, b: AccountBlocked): void {
    this.db.transaction(() => blockAccount(this.db, accountId, b.reason, b.code))();
  }

  private async pushAccount(ctx: AccountCtx): Promise<void> {
    const deadline = ctx.deadline;
    for (;;) {
      const roundAt = this.opts.now();
      await this.pushRound(ctx);
      // The service could not be reached connectTries times in a row: nothing more is tried in this run.
      if (ctx.unreachable?.gaveUp) return;
      const open = waitingOps(this.db, ctx.account.id);
      const now = this.opts.now();
      const next = afterRound(open, roundAt, now, deadline, () => this.progressPossible(ctx));
      if (next.kind === 'again') continue;
      if (next.kind === 'stop') return;
      ctx.emit({ phase: 'waiting', done: 0, total: 0, bytes: ctx.stats.bytes, message: this.waitReason(ctx, open, next.until) });
      await sleepUnlessCancelled(this.opts, Math.max(0, next.until - this.opts.now()));
    }
  }

  /** Why the run waits until `next`, for the progress: a retry (and of what), or uncertain creates settling (of `open`, those due then). */
  private waitReason(ctx: AccountCtx, open: readonly { state: string; next_attempt_at: string | null; last_error: string | null }[], next: number): string {
    const due = open.filter((o) => o.next_attempt_at !== null && Date.parse(o.next_attempt_at) === next);
    const ms = next - this.opts.now();
    const uncertain = due.filter((o) => o.state === 'uncertain').length;
    if (uncertain === due.length && !ctx.unreachable) {
      return `${uncertain} change${uncertain === 1 ? '' : 's'} of unknown outcome (${due[0]!.last_error ?? 'no answer'}): letting the service settle, checking it again in ${Math.max(1, Math.ceil(ms / 1000))} s`;
    }
    const n = due.length - uncertain;
    return waitingMessage(ctx, `${n} change${n === 1 ? '' : 's'} not sent (${due.find((o) => o.state === 'queued')?.last_error ?? 'not tried yet'})`, ms);
  }

  /** Whether another round can send something: guards against spinning on ops whose parents never got ids. */
  private progressPossible(ctx: AccountCtx): boolean {
    const key = `${committedCount(this.db, ctx.account.id)}:${ctx.retriesLeft}`;
    if (this.lastProgress.get(ctx.account.id) === key) return false;
    this.lastProgress.set(ctx.account.id, key);
    return true;
  }

  private async pushRound(ctx: AccountCtx): Promise<void> {
    // 1. Settle what is uncertain before sending anything new.
    for (const op of readyOps(ctx, 'farm', 'create', 'uncertain')) await reconcileFarmCreate(ctx, op);
    const { total, byFarm } = uncertainCreatesByFarm(ctx.db, ctx.account.id, new Date(this.opts.now()).toISOString());
    if (byFarm.size) ctx.emit({ phase: 'reconcile', done: 0, total, bytes: ctx.stats.bytes });
    for (const [farmId, ops] of byFarm) await reconcileParcelCreates(ctx, farmId, ops);
    for (const op of readyOps(ctx, 'crop', 'create', 'uncertain')) await reconcileCropCreate(ctx, op);
    // An update or delete carries the whole state (or is a delete): sending it again is harmless.
    requeueUncertainUpdates(ctx.db, ctx.account.id);

    // 2. New work, parents before children, each phase with its real total. A phase is shown only when it has
    // something to send, and none once the run gave up on reaching the service (each op left is put back in the
    // queue, not tried).
    const limit = parcelLimit(ctx.db, ctx.account.id);
    await this.phase(ctx, 'farms', farmCreatesDue(ctx), (op) => pushFarmCreate(ctx, op, limit));
    await pushParcelCreates(ctx);
    await this.phase(ctx, 'updates', [...readyOps(ctx, 'farm', 'update'), ...readyOps(ctx, 'parcel', 'update')],
      (op) => (op.entity === 'farm' ? pushFarmUpdate(ctx, op) : pushParcelUpdate(ctx, op)));
    await this.phase(ctx, 'crops', [...cropCreatesDue(ctx), ...readyOps(ctx, 'crop', 'update')],
      (op) => (op.op === 'create' ? pushCropCreate(ctx, op) : pushCropUpdate(ctx, op)));
    const deletes = { crop: pushCropDelete, parcel: pushParcelDelete, farm: pushFarmDelete };
    await this.phase(ctx, 'deletes', [...readyOps(ctx, 'crop', 'delete'), ...readyOps(ctx, 'parcel', 'delete'), ...readyOps(ctx, 'farm', 'delete')],
      (op) => deletes[op.entity](ctx, op));
  }

  /** Sends a phase's ops one by one, reporting how many of them are done after each. */
  private async phase(ctx: AccountCtx, phase: ProgressEvent['phase'], ops: readonly OutboxRow[], send: (op: OutboxRow) => Promise<void>): Promise<void> {
    if (!ops.length || ctx.unreachable?.gaveUp) return;
    let done = 0;
    ctx.emit({ phase, done, total: ops.length, bytes: ctx.stats.bytes });
    for (const op of ops) {
      await send(op);
      ctx.emit({ phase, done: ++done, total: ops.length, bytes: ctx.stats.bytes });
    }
  }
}
