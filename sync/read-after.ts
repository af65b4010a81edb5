// The engine's side of read-your-writes (docs/api.md, "Reads from a standby"; core/read-after.ts): what a client
// sends on its reads so that a service reading from a lagging standby answers them from the primary when the standby
// has not replayed the client's own writes. Without it a pull right after a push, or the listing that reconciles a
// batch answered 504, could miss the write and resend or drop it.
import { laterLsn, parseLsn, READ_AFTER_PRIMARY } from '../core/read-after.ts';

/**
 * How long after a write the client got no answer to (a 504, a timeout, a cut connection, a 5xx) its reads ask for
 * the primary: such a write may still commit as late as the service's request timeout (REQUEST_TIMEOUT_MS, 120 s by
 * default), and its position was never sent. Twice that, to be safe.
 */
export const UNCERTAIN_WRITE_MS = 240_000;

/** One account's writes on one service, as its clients have seen them. */
export class ReadAfter {
  private lsn: string | null = null;
  private uncertainAt = -Infinity;

  constructor(private readonly now: () => number = Date.now) {}

  /** A write was answered: its WRITE_LSN_HEADER (absent from a service without a standby: nothing to do). */
  answered(header: string | string[] | undefined): void {
    const v = Array.isArray(header) ? header[0] : header;
    if (v === undefined) return;
    // The service could not read its WAL position after committing: as good as no answer for the reads that follow.
    if (parseLsn(v) === null) this.uncertain();
    else this.lsn = laterLsn(this.lsn, v.trim());
  }

  /** A write got no answer, or one that does not say whether it committed. */
  uncertain(): void {
    this.uncertainAt = this.now();
  }

  /** What to keep in the mirror for the next process (null: nothing written); restore() reads it back. */
  state(): string | null {
    if (this.lsn === null && this.uncertainAt === -Infinity) return null;
    return JSON.stringify({ lsn: this.lsn, uncertain_at: Number.isFinite(this.uncertainAt) ? this.uncertainAt : null });
  }

  /** Adds a state() kept by an earlier process (or run); what this one knows already stays. Unreadable: ignored. */
  restore(state: string | null): void {
    if (state === null) return;
    let s: { lsn?: unknown; uncertain_at?: unknown };
    try {
      s = JSON.parse(state) as typeof s;
    } catch {
      return;
    }
    if (typeof s.lsn === 'string') this.lsn = laterLsn(this.lsn, s.lsn);
    if (typeof s.uncertain_at === 'number') this.uncertainAt = Math.max(this.uncertainAt, s.uncertain_at);
  }

  /** The READ_AFTER_HEADER value for a read now, or null when the client has written nothing (any standby will do). */
  header(): string | null {
    if (this.now() - this.uncertainAt < UNCERTAIN_WRITE_MS) return READ_AFTER_PRIMARY;
    return this.lsn;
  }
}

/**
 * Process-wide, one per account and service: the host makes a client factory per sync run, and a read outside a run
 * (a conflict's resolution) must still come after the last run's writes. Between processes the engine keeps the state
 * in the mirror (state(), restore(): a CLI `pull` right after a CLI `push` reads after it).
 */
const shared = new Map<string, ReadAfter>();
export function readAfterOf(serviceUrl: string, accountId: string): ReadAfter {
  const key = `${serviceUrl.replace(/\/+$/, '')}\n${accountId}`;
  let r = shared.get(key);
  if (!r) shared.set(key, r = new ReadAfter());
  return r;
}
