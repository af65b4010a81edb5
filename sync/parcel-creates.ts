// The push of new parcels: batches of ≤ 50 per farm, `pushWindow` requests out at once, and the outbox written by
// group commit — several batches marked in flight with one fsync, the answers booked meanwhile written just before
// them without one, the next group marked (and its fsync run off the thread) while the last batches of the one before
// are still out.
import type { SendOp } from '../db/types.ts';
import { parcelsToSend } from '../db/rows.ts';
import { newBatchIds, unmarkNeverSent } from '../db/op-transitions.ts';
import { dropBatch, markBatch, type BatchMark } from '../db/batch-marks.ts';
import { withoutFsync } from '../db/open.ts';
import { WalSync } from '../platform/node/wal-sync.ts';
import { startCheckpointer, type Checkpointer } from '../platform/node/checkpointer.ts';
import { parcelLimit } from '../db/settings.ts';
import { MAX_PARCELS_PER_REQUEST } from '../core/parcels/validate.ts';
import { SyncCancelled, type AccountCtx } from './context.ts';
import { commitCreated, sendMarked, validItems, type CreatedFeature, type Item } from './parcels.ts';
import { PushPlan, type Planned } from './parcel-plan.ts';

/**
 * A push this large has its WAL checkpointed on a thread of its own (GroupCommit.checkpointOffThread). A smaller one
 * writes at most about half of what SQLite lets the WAL hold before it checkpoints (1,000 pages: 16 MiB at the
 * mirror's page size, ~100 batches of 50 here), so it meets one checkpoint at most, which costs less than starting a
 * thread.
 */
const CHECKPOINT_THREAD_FROM = 2_500;

/**
 * Answers written per step, in one transaction, when a group's bookings are written (nextGroup). Each transaction
 * writes every page it touched to the WAL in full (16 KiB): the pages every booking touches (the outbox's and its
 * indexes', push_batches, farm_totals) once per transaction. 400 bookings of a 20,000-square push (bookCreated as the
 * push writes them, no fsync, 3 alternating runs each, load 5-10): 2 a transaction 373-488 ms of CPU and 90 MB of WAL,
 * 4 a transaction 281-302 ms and 59 MB (the checkpoint thread copies that much less too); a step's median 1.7-2.6 ms
 * against 2.8 ms, still under the ~5 ms the service takes over the request it has waiting (8 held a step ~9 ms).
 */
const BOOKINGS_PER_STEP = 4;

/**
 * Batches read and marked per step of a group (nextGroup), each step a transaction without an fsync, the group made
 * durable by one fsync after its last step: a group of 8 in one step held the thread up to ~5 ms, and an answer that
 * came meanwhile waited that long for its next request (20,000 squares, undici's diagnostics channels).
 */
const MARK_STEP = 4;

/** A batch to send: its farm, its items, and how many ops were planned in it. */
interface Ready { farmId: number; items: Item[]; planned: number }
/** A batch marked in flight: by one row of push_batches (db/batch-marks.ts), `mark`. */
interface Marked extends Ready { mark: BatchMark }
type Booking = { op: SendOp; feature: CreatedFeature };
/** A batch's 201, booked in memory until the next write: its pairs and the batch's mark, which the booking settles. */
type BatchBooking = { mark: BatchMark; pairs: readonly Booking[] };

/**
 * The outbox writes of one push, grouped: a 201 is booked in memory and written just before the next group of in-flight
 * marks, whose fsync makes it durable, so that one fsync serves several requests (an fsync per request held the CLI's only
 * thread for about a third of its time). Durability is what it was: every request leaves only after its mark is
 * synced, and a crash before a booking is written leaves those ops in flight, which means reconciliation by client
 * reference, never a resend.
 */
class GroupCommit {
  private waiting: BatchBooking[] = [];
  /** Null for a mirror not in WAL mode (in memory): its marks commit with FULL, on the thread. */
  private readonly wal: WalSync | null;
  private checkpoints: Checkpointer | null = null;
  constructor(private readonly ctx: AccountCtx) {
    this.wal = WalSync.of(ctx.db);
  }

  /**
   * Until the run ends, the WAL is checkpointed by a thread of its own (platform/node/checkpointer.ts), not inside
   * the commits of this thread: each checkpoint synced the WAL, copied 16 MiB into the database file and synced that
   * here, four times in a push of 20,000 parcels, while answers waited to be read and the next requests to leave.
   */
  checkpointOffThread(): void {
    if (this.wal && !this.checkpoints) this.checkpoints = startCheckpointer(this.ctx.db, this.ctx.db.name, 'FULL');
  }

  book(mark: BatchMark, pairs: readonly Booking[]): void {
    this.waiting.push({ mark, pairs });
  }

  /**
   * Marks each batch in flight (its own batch id: one row each, db/batch-marks.ts, not a write to each of its ops)
   * and writes the bookings waiting, in one transaction without an fsync: none of these batches may leave before
   * `durable` has resolved. A group is marked in a few such steps and made durable once, its fsync run off the thread
   * (WalSync): meanwhile the answers of the requests out are read and booked, instead of waiting behind an fsync
   * that a busy disk can make last 100 ms. In memory (no WAL), each step commits as any transaction.
   */
  markStep(batches: readonly Ready[]): Marked[] {
    const mark = () => {
      this.writeBookings();
      const out: Marked[] = [];
      const sentAt = new Date().toISOString();
      // The group's batch ids at once: each id alone filled its own random buffer (~10 ms of a 20,000-parcel push).
      const ids = newBatchIds(batches.length);
      for (const [i, b] of batches.entries()) {
        // An op withdrawn since it was read (its never-sent parcel deleted) is not marked, so not sent.
        const mark = { id: ids[i]!, sentAt };
        const marked = markBatch(this.ctx.db, this.ctx.account.id, b.items.map((i) => i.op.id), mark);
        const items = marked.size === b.items.length ? b.items : b.items.filter((i) => marked.has(i.op.id));
        out.push({ ...b, items, mark });
      }
      return out;
    };
    return this.wal ? this.wal.write(mark) : this.ctx.db.transaction(mark)();
  }

  /** Every mark step so far on disk: one fsync of the WAL, off the thread (WalSync.flush). */
  async durable(): Promise<void> {
    await this.wal?.flush();
  }

  /** Marked batches that will not leave, back to the queue now (best effort: left marked, they are reconciled). */
  unmark(batches: readonly Marked[]): void {
    if (!batches.length) return;
    try {
      withoutFsync(this.ctx.db, () => this.putBack(batches));
    } catch {
      // The failure that stopped the group may stop this too: what stays marked is settled by reconciliation.
    }
  }

  /** At the end of the run: the bookings waiting, and the marked batches that never left back to the queue. */
  async finish(neverSent: readonly Marked[]): Promise<void> {
    const wal = this.wal;
    const checkpoints = this.checkpoints;
    this.checkpoints = null;
    try {
      this.finishWrites(neverSent);
    } finally {
      await wal?.close();
      // The connection checkpoints on its own again: at its next commit past 1,000 pages, or when it closes.
      await checkpoints?.close();
    }
  }

  private finishWrites(neverSent: readonly Marked[]): void {
    if (!this.waiting.length && !neverSent.some((b) => b.items.length)) return;
    // Without an fsync of its own, as any booking: the run's end (the lock's release) makes it durable.
    withoutFsync(this.ctx.db, () => {
      this.writeBookings();
      this.putBack(neverSent);
    });
  }

  /**
   * Inside the caller's transaction: marked batches that never left back to the queue. Their rows go; ops whose mark
   * something wrote into them meanwhile (writeBatchMarks) go back to the queue too.
   */
  private putBack(batches: readonly Marked[]): void {
    for (const b of batches) dropBatch(this.ctx.db, b.mark.id);
    unmarkNeverSent(this.ctx.db, batches.flatMap((b) => b.items.map((i) => i.op.id)));
  }

  /**
   * The first `max` answers booked so far, written now in a transaction of their own, without an fsync (the next
   * group's marks sync them with theirs): a step of its own, so that the thread is never held for the bookings and the
   * marks at once. Whether more are waiting.
   */
  flushBookings(max = Infinity): boolean {
    if (this.waiting.length) withoutFsync(this.ctx.db, () => this.writeBookings(max));
    return this.waiting.length > 0;
  }

  private writeBookings(max = Infinity): void {
    if (!this.waiting.length) return;
    const waiting = this.waiting.splice(0, max);
    for (const b of waiting) commitCreated(this.ctx, b.pairs, b.mark);
  }
}

/**
 * Reads the rows of the next planned batches (now, not when the run started: the user may have edited or deleted
 * rows meanwhile), validates what needs it and builds each request body once. Batches left with nothing to send
 * are reported done at once.
 */
function prepare(ctx: AccountCtx, group: readonly Planned[], limit: number, done: (n: number) => void): Ready[] {
  const rowids = group.flatMap((g) => g.ops.map((o) => o.rowid));
  const rows = new Map(parcelsToSend(ctx.db, rowids).map((r) => [r.local_id, r]));
  const out: Ready[] = [];
  for (const g of group) {
    const items: Item[] = [];
    for (const op of g.ops) {
      const row = rows.get(op.local_id);
      if (row) items.push({ op, row });
    }
    const valid = validItems(ctx, items, limit);
    if (valid.length) out.push({ farmId: g.farmId, items: valid, planned: g.ops.length });
    else done(g.ops.length);
  }
  return out;
}

/**
 * Queued parcel creates of farms that exist on the service, in batches of ≤ 50, `pushWindow` at a time (2: the next
 * request is at the service while the engine books the last answer and prepares the one after). Batches are marked
 * in flight a group at a time (one commit, one fsync) before the first of them leaves: a window's worth first, so the
 * first requests leave at once, then `markAhead`, each group read and marked while the window is full and no more
 * than a window's worth of the one before is left to send, a step at a time (nextGroup); each settles on its own,
 * so overlapping them changes no outcome. After a failure that stops the account (blocked, budget spent), or a stop,
 * the batches still out are awaited and booked, and the marked ones that never left go back to the queue.
 */
export async function pushParcelCreates(ctx: AccountCtx): Promise<void> {
  const limit = parcelLimit(ctx.db, ctx.account.id);
  const window = Math.max(1, ctx.opts.pushWindow);
  const ahead = Math.max(1, ctx.opts.markAhead);
  // A page of the outbox per mark group (parcel-plan.ts PLAN_PAGE says why).
  const plan = new PushPlan(ctx.db, ctx.account.id, new Date(ctx.opts.now()).toISOString(), limit, Math.max(window, ahead) * MAX_PARCELS_PER_REQUEST);
  let done = 0;
  const progress = (n: number) => {
    done += n;
    ctx.emit({ phase: 'parcels', done, total: plan.total, bytes: ctx.stats.bytes });
  };
  const outbox = new GroupCommit(ctx);
  const ready: Marked[] = [];
  /** The next group: read, marked, and syncing to disk off the thread while the last batches before it go out. */
  let marking: Promise<void> | null = null;
  /**
   * Reads and marks the next `n` batches and adds them to `ready`, in steps with the event loop let run between
   * them (the plan's page, the bookings waiting a few at a time, then the rows and the marks), so that no answer waits behind all of
   * that work at once (~40 ms a group of 8 batches here, held in one piece; back to back on shared cores the push
   * measured 1.25× the bare loop that way, 1.11× in steps).
   * The rows are read and marked in one step, so that no edit can come between reading a row and marking its op.
   */
  const nextGroup = async (n: number, thread: boolean): Promise<void> => {
    // Before each step, the requests just handed to the HTTP client go out (ServiceClient.written): undici writes
    // them in a later turn of the event loop, and a step that came first held them.
    await ctx.client.written();
    // Starting the thread takes a few milliseconds: after the first requests are on their sockets, not before.
    if (thread) {
      outbox.checkpointOffThread();
      await ctx.client.written();
    }
    const group = plan.take(n);
    await ctx.client.written();
    // A few answers at a time (BOOKINGS_PER_STEP): a group's worth at once held the thread ~7 ms, longer than the
    // service takes over the request it has waiting, and an answer that came meanwhile waited for its next request.
    while (outbox.flushBookings(BOOKINGS_PER_STEP)) await ctx.client.written();
    // The group's rows read and marked MARK_STEP batches a step, each step one transaction without an fsync, then one
    // fsync for them all: the requests out are written between the steps, and no step holds the thread as long as
    // the whole group did.
    const marked: Marked[] = [];
    try {
      for (let i = 0; i < group.length; i += MARK_STEP) {
        await ctx.client.written();
        marked.push(...outbox.markStep(prepare(ctx, group.slice(i, i + MARK_STEP), limit, progress)));
      }
    } catch (error) {
      // A step failed: none of the group has left, so the steps before it go back to the queue, as a group whose one
      // transaction failed would have.
      outbox.unmark(marked);
      throw error;
    }
    // A failed sync leaves the whole group in flight on disk, which means reconciliation, never a resend.
    await outbox.durable();
    ready.push(...marked);
  };
  const inflight = new Set<Promise<void>>();
  /**
   * The requests still at the service, which the window counts: sent, and their answers not all in. A 201's request
   * leaves this set as soon as its bytes are in, before they are read and booked, and that work waits until the next
   * request is written (ServiceClient.written): the service then never waits behind it. Any other answer leaves it
   * once settled, as before: it may stop the run (a blocked account), and no request leaves meanwhile.
   */
  const atService = new Set<Promise<void>>();
  const slot = (): () => void => {
    let resolve!: () => void;
    const at = new Promise<void>((r) => { resolve = r; });
    atService.add(at);
    return () => {
      atService.delete(at);
      resolve();
    };
  };
  let failure: { error: unknown } | null = null;
  const more = () => !failure && !ctx.opts.signal?.aborted && !plan.done;
  // The first group is two windows' worth: the first requests leave as soon as it is marked, and a window's worth is
  // still marked when their answers come, while the second group is read, marked and synced (with one window, the
  // first answer waited 6-16 ms for it, the service idle meanwhile).
  let groupSize = 2 * window;
  let groups = 0;
  try {
    for (;;) {
      // Stopped or failed: the batches out finish and are booked; nothing more leaves, what was marked goes back.
      if (failure || ctx.opts.signal?.aborted) break;
      if (ready.length && atService.size < window) {
        const b = ready.shift()!;
        if (!b.items.length) {
          progress(b.planned);
          continue;
        }
        const free = slot();
        const answered = async (status: number) => {
          if (status !== 201) return;
          free();
          await ctx.client.written();
        };
        const sending: Promise<void> = sendMarked(ctx, b.farmId, b.items, (pairs) => {
          outbox.book(b.mark, pairs);
          // No group left to mark, whose commit would write it: written now, while the last requests are out, rather
          // than all at the end of the run (finish), after the last answer. Without an fsync either way.
          if (plan.done && !marking) outbox.flushBookings();
        }, answered)
          .catch((error: unknown) => { failure ??= { error }; })
          .finally(() => { free(); inflight.delete(sending); progress(b.planned); });
        inflight.add(sending);
        continue;
      }
      // Nothing can leave now (the window is full, or nothing is marked): the time to read and mark the next group,
      // once no more than a group's worth of the one before is left, so the service has the next requests queued
      // while this one is read and marked (in steps, the answers meanwhile each let through) and its fsync runs — and
      // never before a request that could leave. Started when two windows' worth was left, a group's steps and fsync
      // sometimes outlasted them: both requests answered, none ready, the service idle until the fsync came (strace).
      if (!marking && ready.length <= ahead && more()) {
        const n = groupSize;
        groupSize = ahead;
        // With the second group, so that starting the thread does not delay the first requests.
        marking = nextGroup(n, ++groups === 2 && plan.total >= CHECKPOINT_THREAD_FROM).finally(() => { marking = null; });
        continue;
      }
      if (ready.length) {
        // The window is full: the next answer, or the next group marked.
        await Promise.race(marking ? [...atService, marking] : [...atService]);
        continue;
      }
      if (!marking) break;
      await marking;
    }
  } catch (error) {
    // A failure here (reading or marking) still lets the requests out finish and be booked below.
    failure ??= { error };
  }
  if (marking) {
    // Marked, but the run stopped before sending them: back to the queue with the rest. A group whose commit or
    // sync failed stays in flight on disk, which means reconciliation, never a resend.
    try {
      await marking;
    } catch (error) {
      failure ??= { error };
    }
  }
  await Promise.all(inflight);
  const left = ready.length > 0;
  await outbox.finish(ready);
  // Stopped with work left: what was not sent stays queued, and the run reports the stop.
  if (!failure && ctx.opts.signal?.aborted && (left || !plan.done)) failure = { error: new SyncCancelled() };
  if (failure) throw (failure as { error: unknown }).error;
}
