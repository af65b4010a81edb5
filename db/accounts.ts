// Removing a connected account from this computer: its farms, parcels, crops, plants, outbox, conflicts and undo
// entries go (the foreign keys cascade from `accounts`), never silently with work the service does not have yet.
import type { Db } from './open.ts';
import { dropAccountRotationRules, liveSyncHolder } from './settings.ts';

/** What of an account's work is not on the service yet, by outbox state; and its open conflicts. */
export interface UnsyncedWork { total: number; byState: Record<string, number>; conflicts: number }

export function unsyncedWork(db: Db, accountId: string): UnsyncedWork {
  const rows = db.prepare("SELECT state, count(*) AS n FROM outbox WHERE account_id = ? AND state <> 'committed' GROUP BY state ORDER BY state").all(accountId) as { state: string; n: number }[];
  const conflicts = db.prepare('SELECT count(*) FROM conflicts WHERE account_id = ? AND resolved IS NULL').pluck().get(accountId) as number;
  const byState = Object.fromEntries(rows.map((r) => [r.state, r.n]));
  return { total: rows.reduce((s, r) => s + r.n, 0), byState, conflicts };
}

export interface RemovedAccount { farms: number; parcels: number; crops: number; plants: number; discarded: UnsyncedWork }

export class AccountNotRemoved extends Error {
  constructor(message: string, readonly code: 'unsynced' | 'sync_running' | 'unknown_account', readonly unsynced?: UnsyncedWork) {
    super(message);
    this.name = 'AccountNotRemoved';
  }
}

const describe = (w: UnsyncedWork): string => [
  ...Object.entries(w.byState).map(([state, n]) => `${n} ${state.replace('_', ' ')}`),
  ...(w.conflicts ? [`${w.conflicts} open conflict(s)`] : []),
].join(', ');

/**
 * Removes the account and everything of it from the mirror, in one transaction. Refused while a sync runs on the
 * mirror, and — unless `discardUnsynced` — while the account has changes the service does not have (anything in
 * its outbox not committed, or an open conflict): the caller says how many and how to proceed.
 */
export function removeAccount(db: Db, accountId: string, opts: { discardUnsynced?: boolean } = {}): RemovedAccount {
  const removed = remove(db, accountId, opts);
  // Removed means gone from the disk too (a consultant handing back a customer's data): deleting frees the rows'
  // pages, but older copies of them (from earlier edits and syncs) linger in free space and in the WAL. VACUUM
  // rewrites the file without them (seconds for a large mirror; removing an account is rare), and the
  // checkpoint truncates the WAL.
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  return removed;
}

function remove(db: Db, accountId: string, opts: { discardUnsynced?: boolean }): RemovedAccount {
  return db.transaction((): RemovedAccount => {
    if (!db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(accountId)) throw new AccountNotRemoved(`No account ${accountId} in this mirror`, 'unknown_account');
    const holder = liveSyncHolder(db);
    if (holder !== null) throw new AccountNotRemoved(`A sync is running on this mirror (process ${holder}); remove the account once it ends`, 'sync_running');
    const work = unsyncedWork(db, accountId);
    if ((work.total > 0 || work.conflicts > 0) && !opts.discardUnsynced) {
      throw new AccountNotRemoved(`Account ${accountId} has ${work.total} change(s) the service does not have (${describe(work)}): sync them first, ` +
        'or remove the account and lose them with --discard-unsynced', 'unsynced', work);
    }
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table} WHERE account_id = ? AND ${table === 'plants' ? '1' : 'deleted = 0'}`).pluck().get(accountId) as number;
    const removed = { farms: count('farms'), parcels: count('parcels'), crops: count('crops'), plants: count('plants'), discarded: work };
    // Undo entries that touch the account's rows go with them (undoing them would write rows of no account).
    db.prepare(`CREATE TEMP TABLE IF NOT EXISTS removed_rows (local_id TEXT PRIMARY KEY)`).run();
    db.prepare('DELETE FROM removed_rows').run();
    for (const table of ['farms', 'parcels', 'crops']) db.prepare(`INSERT OR IGNORE INTO removed_rows SELECT local_id FROM ${table} WHERE account_id = ?`).run(accountId);
    // A change names its row by local_id, or lists the rows a bulk edit created under `created` (db/history.ts).
    db.prepare(`DELETE FROM history WHERE EXISTS (SELECT 1 FROM json_each(history.changes) c
      WHERE json_extract(c.value, '$.local_id') IN (SELECT local_id FROM removed_rows)
        OR EXISTS (SELECT 1 FROM json_each(c.value, '$.created') x WHERE x.value IN (SELECT local_id FROM removed_rows)))`).run();
    db.prepare('DELETE FROM removed_rows').run();
    db.prepare("DELETE FROM settings WHERE key = 'parcel_limit:' || ?").run(accountId);
    dropAccountRotationRules(db, accountId);
    db.prepare('DELETE FROM accounts WHERE id = ?').run(accountId);
    // FTS5 deletes only mark rows deleted in new segments: merging the segments drops the removed names for good.
    db.prepare("INSERT INTO parcels_fts (parcels_fts) VALUES ('optimize')").run();
    return removed;
  })();
}
