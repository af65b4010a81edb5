// The change feed's rows in SQLite (migration 007 records them). One connection, one writer: the read below is a
// single synchronous transaction, so its number, its rows and the parcels and plants read with them agree.
import type { Db } from './db.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import type { ChangeRead, ChangeRow } from '../changes.ts';
import type { ParcelRow } from '../parcel-json.ts';
import { CHANGES_PAGE_BYTES, CHANGES_READ_CHUNK, countChunk, endPage, type PlantRow } from '../rows.ts';
import type { Scope } from '../scope.ts';
import { FARM_VISIBLE, scopeParams } from './scope-sql.ts';
import { PARCEL_COLUMNS } from './parcels.ts';
import { PLANT_VISIBLE } from './plants.ts';

export function readChanges(db: Db, scope: Scope, since: number | null, limit: number, tombstonesBefore: number, maxBytes: number = CHANGES_PAGE_BYTES): ChangeRead {
  const accountId = scope.accountId!;
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
    const read: ChangeRead = { seq, prunedSeq, rows: [], parcels: new Map(), plants: new Map() };
    if (since === null || since < prunedSeq || since > seq) return read;
    read.rows = (cachedStatement(db, 'SELECT entity, id, seq, deleted FROM changes WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(accountId, since, limit) as { entity: ChangeRow['entity']; id: number; seq: number; deleted: number }[])
      .map((r) => ({ ...r, deleted: r.deleted === 1 }));
    // The live parcels and plants a chunk of rows at a time, with the visibility their GETs apply, until the page is full.
    const params = scopeParams(scope);
    const ids = (rows: ChangeRow[], entity: string) => JSON.stringify(rows.filter((r) => r.entity === entity && !r.deleted).map((r) => r.id));
    let bytes = 0;
    for (let i = 0; i < read.rows.length; i += CHANGES_READ_CHUNK) {
      const chunk = read.rows.slice(i, i + CHANGES_READ_CHUNK);
      for (const p of cachedStatement(db, `SELECT ${PARCEL_COLUMNS} FROM parcels p JOIN farms f ON f.id = p.farm_id
        WHERE p.id IN (SELECT value FROM json_each(@ids)) AND f.organization_id = @org AND ${FARM_VISIBLE}`).all({ ids: ids(chunk, 'parcel'), ...params }) as ParcelRow[]) {
        read.parcels.set(p.id, p);
      }
      for (const pl of cachedStatement(db, `SELECT pl.* FROM plants pl WHERE pl.id IN (SELECT value FROM json_each(@ids)) AND ${PLANT_VISIBLE}`)
        .all({ ids: ids(chunk, 'plant'), ...params }) as PlantRow[]) {
        read.plants.set(pl.id, pl);
      }
      const counted = countChunk(read, i, i + chunk.length, bytes, maxBytes);
      if (counted.end !== null) {
        endPage(read, counted.end);
        break;
      }
      bytes = counted.bytes;
    }
    return read;
  })();
}
