// The change feed's rows in PostgreSQL (migration 003 records them and says why the counter row orders them).
import type { Pool } from 'pg';
import { inTransaction } from './tx.ts';
import type { ChangeStore } from '../store.ts';
import type { ChangeRead, ChangeRow } from '../changes.ts';
import type { ParcelRow } from '../parcel-json.ts';
import type { PlantRow } from '../rows.ts';
import { FARM_VISIBLE, PARCEL_COLUMNS, scopeValues } from './farm-scope.ts';
import { PLANT_COLUMNS, PLANT_VISIBLE } from './plants.ts';

export function pgChanges(pool: Pool): ChangeStore {
  return {
    read: async (scope, since, limit, tombstonesBefore) => {
      const accountId = scope.accountId!;
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
      // One snapshot for the counter, the rows and their parcels and plants: every number up to the counter it shows
      // is committed in it.
      return inTransaction(pool, async (c): Promise<ChangeRead> => {
        const state = (await c.query<{ seq: string; pruned_seq: string }>('SELECT seq, pruned_seq FROM change_seq WHERE account_id = $1', [accountId])).rows[0];
        const seq = Number(state?.seq ?? 0);
        const prunedSeq = Number(state?.pruned_seq ?? 0);
        const read: ChangeRead = { seq, prunedSeq, rows: [], parcels: new Map(), plants: new Map() };
        if (since === null || since < prunedSeq || since > seq) return read;
        read.rows = (await c.query<{ entity: ChangeRow['entity']; id: string; seq: string; deleted: boolean }>(
          'SELECT entity, id, seq, deleted FROM changes WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [accountId, since, limit])).rows
          .map((r) => ({ entity: r.entity, id: Number(r.id), seq: Number(r.seq), deleted: r.deleted }));
        // The live parcels and plants in one query each, with the visibility their GETs apply.
        const ids = (entity: string) => read.rows.filter((r) => r.entity === entity && !r.deleted).map((r) => r.id);
        const parcels = ids('parcel');
        if (parcels.length) {
          for (const p of (await c.query<ParcelRow>(`SELECT ${PARCEL_COLUMNS} FROM parcels p JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
            WHERE p.organization_id = $1 AND p.id = ANY($3::bigint[]) AND ${FARM_VISIBLE}`, [...scopeValues(scope), parcels])).rows) read.parcels.set(p.id, p);
        }
        const plants = ids('plant');
        if (plants.length) {
          for (const pl of (await c.query<PlantRow>(`SELECT ${PLANT_COLUMNS} FROM plants pl WHERE pl.id = ANY($3::bigint[]) AND ${PLANT_VISIBLE}`,
            [...scopeValues(scope), plants])).rows) read.plants.set(pl.id, pl);
        }
        return read;
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    },
  };
}
