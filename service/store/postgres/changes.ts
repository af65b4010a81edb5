// The change feed's rows in PostgreSQL (migration 003 records them; 004 numbers them from a sequence and says why a
// reader takes change_feed_top before its snapshot).
import type { Pool } from 'pg';
import { inTransaction } from './tx.ts';
import type { ChangeStore } from '../store.ts';
import type { ChangeRead, ChangeRow } from '../changes.ts';
import type { ParcelRow } from '../parcel-json.ts';
import { CHANGES_PAGE_BYTES, CHANGES_READ_CHUNK, countChunk, endPage, type PlantRow } from '../rows.ts';
import { FARM_VISIBLE, PARCEL_COLUMNS, scopeValues } from './farm-scope.ts';
import { PLANT_COLUMNS, PLANT_VISIBLE } from './plants.ts';

export function pgChanges(pool: Pool): ChangeStore {
  return {
    read: async (scope, since, limit, tombstonesBefore, maxBytes = CHANGES_PAGE_BYTES) => {
      const accountId = scope.accountId!;
      // Tombstones past the horizon go in one statement of their own, only when there is something to drop (a
      // tombstone's number is committed, so dropping it never races a writer's numbering).
      const stale = await pool.query('SELECT 1 FROM changes WHERE account_id = $1 AND deleted AND at < $2 LIMIT 1', [accountId, tombstonesBefore]);
      if (stale.rowCount) {
        await pool.query(`WITH gone AS (DELETE FROM changes WHERE account_id = $1 AND deleted AND at < $2 AND seq IS NOT NULL RETURNING seq)
          INSERT INTO change_seq AS s (account_id, pruned_seq) SELECT $1, MAX(seq) FROM gone HAVING MAX(seq) IS NOT NULL
          ON CONFLICT (account_id) DO UPDATE SET pruned_seq = GREATEST(s.pruned_seq, excluded.pruned_seq)`, [accountId, tombstonesBefore]);
      }
      // Before the snapshot, in a statement (and transaction) of its own: the latest number, once every writer of the
      // account that took numbers has ended its commit. Every number up to it is committed in the snapshot below.
      const top = Number((await pool.query<{ top: string }>('SELECT change_feed_top($1) AS top', [accountId])).rows[0]!.top);
      // One snapshot for the rows and their parcels and plants.
      return inTransaction(pool, async (c): Promise<ChangeRead> => {
        const state = (await c.query<{ pruned_seq: string }>('SELECT pruned_seq FROM change_seq WHERE account_id = $1', [accountId])).rows[0];
        const prunedSeq = Number(state?.pruned_seq ?? 0);
        const own = (await c.query<{ m: string | null }>('SELECT MAX(seq) AS m FROM changes WHERE account_id = $1 AND seq <= $2', [accountId, top])).rows[0]!.m;
        const read: ChangeRead = { seq: top, prunedSeq, latest: Math.max(prunedSeq, Number(own ?? 0)), rows: [], parcels: new Map(), plants: new Map() };
        if (since === null || since < prunedSeq || since > top) return read;
        // Up to the number read before the snapshot: a later one may be visible, but numbers between may not yet.
        read.rows = (await c.query<{ entity: ChangeRow['entity']; id: string; seq: string; deleted: boolean }>(
          'SELECT entity, id, seq, deleted FROM changes WHERE account_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4', [accountId, since, top, limit])).rows
          .map((r) => ({ entity: r.entity, id: Number(r.id), seq: Number(r.seq), deleted: r.deleted }));
        // The live parcels and plants a chunk of rows at a time, with the visibility their GETs apply, until the page is full.
        const ids = (rows: ChangeRow[], entity: string) => rows.filter((r) => r.entity === entity && !r.deleted).map((r) => r.id);
        let bytes = 0;
        for (let i = 0; i < read.rows.length; i += CHANGES_READ_CHUNK) {
          const chunk = read.rows.slice(i, i + CHANGES_READ_CHUNK);
          const parcels = ids(chunk, 'parcel');
          if (parcels.length) {
            for (const p of (await c.query<ParcelRow>(`SELECT ${PARCEL_COLUMNS} FROM parcels p JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
              WHERE p.organization_id = $1 AND p.id = ANY($3::bigint[]) AND ${FARM_VISIBLE}`, [...scopeValues(scope), parcels])).rows) read.parcels.set(p.id, p);
          }
          const plants = ids(chunk, 'plant');
          if (plants.length) {
            for (const pl of (await c.query<PlantRow>(`SELECT ${PLANT_COLUMNS} FROM plants pl WHERE pl.id = ANY($3::bigint[]) AND ${PLANT_VISIBLE}`,
              [...scopeValues(scope), plants])).rows) read.plants.set(pl.id, pl);
          }
          const counted = countChunk(read, i, i + chunk.length, bytes, maxBytes);
          if (counted.end !== null) {
            endPage(read, counted.end);
            break;
          }
          bytes = counted.bytes;
        }
        return read;
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    },
  };
}
