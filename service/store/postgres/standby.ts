// Reads from a streaming-replication standby (READ_DATABASE_URL, docs/deploy.md "Reads from the standby"): the
// listings and the embedded map may be served there, within a bounded replay lag and only once the standby has
// replayed the client's own writes (core/read-after.ts). Everything else, and every write, stays on the primary.
//
// The lag is measured against the primary's WAL, not pg_last_xact_replay_timestamp(): that one grows on an idle
// primary (nothing to replay), and says nothing about a standby that stopped receiving. Every POLL_MS the poller
// samples the primary's insert position, then the standby's replay position; the lag is the age of the oldest sample
// the standby has not replayed yet (0 when it has replayed every one). A standby not answering, no longer in
// recovery (promoted: it may be a second primary), or whose last poll is older than the bound, is not used.
import type pg from 'pg';
import { parseLsn } from '../../../core/read-after.ts';
import { openPgPool } from './pool.ts';
import { pgStore, type PgStore } from './index.ts';

export const POLL_MS = 100;
/**
 * A query on the standby that has not answered by then fails (and a read is done again on the primary): a standby
 * cut off by the network answers nothing, and its own statement_timeout never fires. Long enough for a chunk of a
 * large listing on a loaded standby.
 */
export const QUERY_TIMEOUT_MS = 5_000;
/** Samples kept at most while the standby is behind; past it the second-oldest goes (the lag stays the oldest's). */
const MAX_SAMPLES = 1000;

export interface StandbyOptions {
  /** The standby's URL, its password from PGPASSFILE as the primary's. */
  url: string;
  maxLagMs: number;
  poolMax: number;
  /** Told when a poll fails (the standby down): the service logs it once per change. */
  onUnavailable?: (why: string) => void;
}

export type ReadTarget = { target: 'standby' } | { target: 'primary'; why: string };

export class StandbyReads {
  /** The Store's reads over the standby's pool (only the routed reads are ever called on it). */
  readonly store: PgStore;
  private readonly pool: pg.Pool;
  private samples: { at: number; lsn: bigint }[] = [];
  private replayed: bigint | null = null;
  private polledAt = 0;
  private lag = 0;
  /** Why the standby is not used now; null also before the first poll, which route() tells by polledAt = 0. */
  private unusable: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly primary: pg.Pool, private readonly opts: StandbyOptions) {
    // A standby that does not answer at once is treated as down: the read goes to the primary instead of waiting.
    this.pool = openPgPool(opts.url, { max: opts.poolMax, connectionTimeoutMs: 1_000, queryTimeoutMs: QUERY_TIMEOUT_MS, applicationName: 'furrow-service-reads', onIdleError: () => undefined });
    this.store = pgStore(this.pool);
  }

  /** Polls now and then every POLL_MS until close(). */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => { this.polling ??= this.poll().finally(() => { this.polling = null; }); }, POLL_MS);
    this.timer.unref();
  }

  /** Where a read with this READ_AFTER_HEADER value (an LSN, `primary` handled by the caller, or none) goes now. */
  route(readAfter: bigint | null): ReadTarget {
    if (this.unusable) return { target: 'primary', why: this.unusable };
    const age = Date.now() - this.polledAt;
    if (age > this.opts.maxLagMs) return { target: 'primary', why: `standby last polled ${age} ms ago` };
    if (this.lag > this.opts.maxLagMs) return { target: 'primary', why: `standby ${this.lag} ms behind` };
    if (readAfter !== null && (this.replayed === null || this.replayed < readAfter)) return { target: 'primary', why: 'standby has not replayed the client\'s writes' };
    return { target: 'standby' };
  }

  /** The standby failed a read (its connection): not used again until a poll finds it well. */
  failed(err: unknown): void {
    this.markUnusable(`a read failed: ${err instanceof Error ? err.message : String(err)}`);
  }

  /** The primary's WAL insert position now: after a commit, at or past that commit's record (WRITE_LSN_HEADER). */
  async writtenLsn(): Promise<string> {
    return (await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn;
  }

  /** The current measure, for tests and the log. */
  state(): { lagMs: number; replayed: string | null; unusable: string | null } {
    return { lagMs: this.lag, replayed: this.replayed === null ? null : this.replayed.toString(16), unusable: this.unusable };
  }

  private async poll(): Promise<void> {
    try {
      const p = (await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!;
      const at = Date.now();
      const s = (await this.pool.query<{ recovery: boolean; lsn: string | null }>('SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn')).rows[0]!;
      const now = Date.now();
      if (!s.recovery || s.lsn === null) return this.markUnusable('the read database is not a standby in recovery (promoted?)');
      const replayed = parseLsn(s.lsn)!;
      const sampled = parseLsn(p.lsn)!;
      const last = this.samples[this.samples.length - 1];
      if (!last || sampled > last.lsn) this.samples.push({ at, lsn: sampled });
      this.samples = this.samples.filter((x) => x.lsn > replayed);
      if (this.samples.length > MAX_SAMPLES) this.samples.splice(1, 1);
      this.lag = this.samples.length ? now - this.samples[0]!.at : 0;
      this.replayed = replayed;
      this.polledAt = now;
      if (this.unusable) this.opts.onUnavailable?.('');
      this.unusable = null;
    } catch (err) {
      this.markUnusable(`the standby did not answer: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private markUnusable(why: string): void {
    if (!this.unusable) this.opts.onUnavailable?.(why);
    this.unusable = why;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.polling;
    await this.store.close();
  }
}
