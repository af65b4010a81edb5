// The change feed's rows in PostgreSQL (migration 003 records them and says why the counter row orders them).
import type { Pool } from 'pg';
import { inTransaction } from './tx.ts';
import type { ChangeStore } from '../store.ts';
import type { ChangeRow } from '../changes.ts';

export function pgChanges(pool: Pool): ChangeStore {
  return {
    read: async (accountId, since, limit, tombstonesBefore) => {
      // Tombstones past the horizon go in a short transaction of their own, which takes the counter's lock (the
      // writers' last lock) only when there is something to drop.
      const stale = await pool.query('SELECT 1 FROM changes WHERE account_id = $1 AND deleted AND at < $2 LIMIT 1', [accountId, tombstonesBefore]);
      if (stale.rowCount) {
        await inTransaction(pool, async (c) => {
          await c.query('SELECT 1 FROM change_seq WHERE account_id = $1 FOR UPDATE', [accountId]);
          await c.query(`WITH gone AS (DELETE FROM changes WHERE account_id = $1 AND deleted AND at < $2 RETURNING seq)
            UPDATE change_seq SET pruned_seq = GREATEST(pruned_seq, (SELECT MAX(seq) FROM gone))
            WHERE account_id = $1 AND EXISTS (SELECT 1 FROM gone)`, [accountId, tombstonesBefore]);
        });
      }
      // One snapshot for the counter and the rows: every number up to the counter it shows is committed in it.
      return inTransaction(pool, async (c) => {
        const state = (await c.query<{ seq: string; pruned_seq: string }>('SELECT seq, pruned_seq FROM change_seq WHERE account_id = $1', [accountId])).rows[0];
        const seq = Number(state?.seq ?? 0);
        const prunedSeq = Number(state?.pruned_seq ?? 0);
        if (since === null || since < prunedSeq || since > seq) return { seq, prunedSeq, rows: [] };
        const rows = (await c.query<{ entity: ChangeRow['entity']; id: string; seq: string; deleted: boolean }>(
          'SELECT entity, id, seq, deleted FROM changes WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [accountId, since, limit])).rows
          .map((r) => ({ entity: r.entity, id: Number(r.id), seq: Number(r.seq), deleted: r.deleted }));
        return { seq, prunedSeq, rows };
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    },
  };
}
