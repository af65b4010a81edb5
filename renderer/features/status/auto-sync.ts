// When the app syncs by itself, and what it says about it. Pure: the hook (useAutoSync.ts) keeps the timer.
//
// Online, every minute. Offline, sooner at first so that the work reaches the service soon after it returns, then
// backing off so that a long outage (a field with no network all day) does not keep the machine busy, with jitter so
// that many installations coming back together do not all knock at once.
import type { Connection } from '../../store.ts';

/** How often the app syncs by itself while the service answers. */
export const AUTO_SYNC_MS = 60_000;
/** The first retry after the service could not be reached; each one after waits twice as long, up to the cap. */
export const OFFLINE_RETRY_MS = 5_000;
export const OFFLINE_RETRY_CAP_MS = 30_000;

/** Milliseconds until the next automatic sync, after `offlineRuns` syncs in a row that could not reach the service. */
export function nextAutoSyncMs(offlineRuns: number, random: () => number = Math.random): number {
  if (offlineRuns <= 0) return AUTO_SYNC_MS;
  const wait = Math.min(OFFLINE_RETRY_CAP_MS, OFFLINE_RETRY_MS * 2 ** (offlineRuns - 1));
  // ±20 %.
  return Math.round(wait * (0.8 + 0.4 * random()));
}

export interface SyncOutcome {
  connection: Connection;
  text: string;
  error: boolean;
  /** The sync changed something or needs the user: rejected, conflicts, blocked, an error. */
  news: boolean;
}

/**
 * Whether a sync's message goes to the status line. One the user asked for always does. One the app started by
 * itself only when it is news: the connection changed (offline, or back), something was sent, received, rejected or
 * is in conflict, or a different problem — never the same "Offline" or "Sync needs you" every retry, and never an
 * "up to date" that would wipe the message the user was reading.
 */
export function announce(auto: boolean, before: Connection, outcome: SyncOutcome, lastAuto: string | null): boolean {
  if (!auto) return true;
  if (outcome.connection !== before && before !== 'unknown') return true;
  // Offline, or not answering: said once, not at every retry.
  if (outcome.connection === 'offline' || outcome.connection === 'silent') return before !== outcome.connection && outcome.text !== lastAuto;
  if (!outcome.news) return false;
  return outcome.text !== lastAuto;
}
