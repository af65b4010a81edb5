// The change feed's rows in SQLite (migration 007 records them). One connection, one writer: the read below is a
// single synchronous transaction, so its number and its rows agree.
import type { Db } from './db.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import type { ChangeRead, ChangeRow } from '../changes.ts';

export function readChanges(db: Db, accountId: string, since: number | null, limit: number, tombstonesBefore: number): ChangeRead {
  return db.transaction((): ChangeRead => {
    // Past the horizon a tombstone goes, and the cursors that could still need it with it (pruned_seq).
    const gone = cachedStatement(db, 'SELECT MAX(seq) AS top FROM changes WHERE account_id = ? AND deleted = 1 AND at < ?')
      .get(accountId, tombstonesBefore) as { top: number | null };
    if (gone.top !== null) {
      cachedStatement(db, 'DELETE FROM changes WHERE account_id = ? AND deleted = 1 AND at < ?').run(accountId, tombstonesBefore);
      cachedStatement(db, 'UPDATE change_seq SET pruned_seq = MAX(pruned_seq, ?) WHERE account_id = ?').run(gone.top, accountId);
    }
    const state = cachedStatement(db, 'SELECT seq, pruned_seq FROM change_seq WHERE account_id = ?').get(accountId) as { seq: number; pruned_seq: number } | undefined;
    const seq = state?.seq ?? 0;
    const prunedSeq = state?.pruned_seq ?? 0;
    if (since === null || since < prunedSeq || since > seq) return { seq, prunedSeq, rows: [] };
    const rows = (cachedStatement(db, 'SELECT entity, id, seq, deleted FROM changes WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(accountId, since, limit) as { entity: ChangeRow['entity']; id: number; seq: number; deleted: number }[])
      .map((r) => ({ ...r, deleted: r.deleted === 1 }));
    return { seq, prunedSeq, rows };
  })();
}
