import type { Db } from './db.ts';
import { now } from '../clock.ts';
import { timeOrderedIds } from '../../../platform/node/time-ordered-ids.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { groupCommit } from './group-commit.ts';
import { recordStatements } from './changes-sql.ts';
import { notFound } from '../../errors.ts';
import type { PreparedPatch } from '../../validation-pool.ts';
import { parcelColumnsOf } from '../../../core/parcels/columns.ts';
import type { Scope } from '../scope.ts';
import { FARM_VISIBLE, scopeParams } from './scope-sql.ts';
import type { ParcelRow } from '../parcel-json.ts';
import type { NewParcel, VisibleFarm } from '../parcels.ts';

export const PARCEL_COLUMNS = 'p.id, p.key, p.farm_id, p.name, p.source_type, p.point, p.geometry, p.hectares, p.metadata, p.minx, p.miny, p.maxx, p.maxy, p.created, p.modified';

export function visibleFarm(db: Db, scope: Scope, farmId: number): VisibleFarm {
  const f = cachedStatement(db, `SELECT f.id, f.account_id, f.organization_id FROM farms f WHERE f.id = @id AND f.organization_id = @org AND ${FARM_VISIBLE}`)
    .get({ id: farmId, ...scopeParams(scope) }) as VisibleFarm | undefined;
  if (!f) throw notFound('Farm');
  return f;
}

const RECORD_BATCH = recordStatements('(SELECT account_id FROM farms WHERE id = @farm)', 'parcel',
  'SELECT id FROM parcels WHERE farm_id = @farm AND id BETWEEN @lo AND @hi', false);

/** A parcel's area in whole micro-hectares, exactly as migration 004's triggers round it (farm totals stay exact). */
const MICRO_HECTARES = (col: string) => `CAST(round(${col} * 1000000) AS INTEGER)`;

/** Inserts already-validated parcels; the caller owns the transaction. */
export function insertParcels(db: Db, farmId: number, parcels: readonly NewParcel[], midBatch?: (inserted: number) => void): ParcelRow[] {
  const t = now();
  // Parameters by position: bound from an object by name, they cost ~2.5 µs more per row (bench/service-bulk.ts).
  const ins = cachedStatement(db, `INSERT INTO parcels (key, farm_id, name, source_type, point, geometry, hectares, metadata, minx, miny, maxx, maxy, created, modified)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const rtree = cachedStatement(db, 'INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)');
  // Keys in creation order append to the key's unique index (see timeOrderedIds).
  const keys = timeOrderedIds(parcels.length);
  const rows: ParcelRow[] = [];
  for (const [i, p] of parcels.entries()) {
    const row: ParcelRow = { id: 0, key: keys[i]!, farm_id: farmId, ...('source_type' in p ? p : parcelColumnsOf(p)), created: t, modified: t };
    row.id = Number(ins.run(row.key, farmId, row.name, row.source_type, row.point, row.geometry, row.hectares, row.metadata,
      row.minx, row.miny, row.maxx, row.maxy, t, t).lastInsertRowid);
    rtree.run(row.id, row.minx, row.maxx, row.miny, row.maxy);
    rows.push(row);
    midBatch?.(rows.length);
  }
  if (rows.length) {
    // The farm's totals move once per batch, in this transaction, with the rounding the delete and update triggers
    // use (migration 006 says why not a trigger per row): the rows just inserted are the farm's ids in this range.
    cachedStatement(db, `UPDATE farms SET modified = ?, parcel_count = parcel_count + ?,
      micro_hectares = micro_hectares + (SELECT SUM(${MICRO_HECTARES('hectares')}) FROM parcels WHERE farm_id = ? AND id BETWEEN ? AND ?)
      WHERE id = ?`).run(t, rows.length, farmId, rows[0]!.id, rows[rows.length - 1]!.id, farmId);
    // The change feed's rows for the batch, in two statements rather than a trigger per row (see migration 007).
    const args = { farm: farmId, lo: rows[0]!.id, hi: rows[rows.length - 1]!.id };
    for (const sql of RECORD_BATCH) cachedStatement(db, sql).run(args);
  } else {
    cachedStatement(db, 'UPDATE farms SET modified = ? WHERE id = ?').run(t, farmId);
  }
  return rows;
}

/**
 * POST /api/parcels/'s write: validated parcels into a farm the scope still sees, all or nothing, in one group
 * commit (group-commit.ts) with the batches validated in the same turn of the event loop.
 */
export function createBatch(db: Db, scope: Scope, farmId: number, parcels: readonly NewParcel[], midBatch?: (inserted: number) => void): Promise<ParcelRow[]> {
  return groupCommit(db).submit(() => insertParcels(db, visibleFarm(db, scope, farmId).id, parcels, midBatch));
}

export function parcelRow(db: Db, scope: Scope, id: number): ParcelRow & { account_id: string } {
  const r = cachedStatement(db, `SELECT ${PARCEL_COLUMNS}, f.account_id FROM parcels p JOIN farms f ON f.id = p.farm_id
    WHERE p.id = @id AND f.organization_id = @org AND ${FARM_VISIBLE}`).get({ id, ...scopeParams(scope) }) as (ParcelRow & { account_id: string }) | undefined;
  if (!r) throw notFound('Parcel');
  return r;
}

/** Applies a validated patch to a parcel the scope sees (404 when it went meanwhile); returns the parcel as it is now. */
export function updateParcel(db: Db, scope: Scope, id: number, patch: PreparedPatch): ParcelRow {
  return db.transaction(() => {
    const { account_id: _account, ...r } = parcelRow(db, scope, id);
    const next: ParcelRow = { ...r, modified: now() };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.metadata !== undefined) next.metadata = patch.metadata;
    if (patch.geom) {
      Object.assign(next, patch.geom);
      cachedStatement(db, 'UPDATE parcels_rtree SET minx = ?, maxx = ?, miny = ?, maxy = ? WHERE id = ?').run(next.minx, next.maxx, next.miny, next.maxy, id);
    }
    cachedStatement(db, `UPDATE parcels SET name = @name, source_type = @source_type, point = @point, geometry = @geometry, hectares = @hectares,
      metadata = @metadata, minx = @minx, miny = @miny, maxx = @maxx, maxy = @maxy, modified = @modified WHERE id = @id`).run({
      id, name: next.name, source_type: next.source_type, point: next.point, geometry: next.geometry, hectares: next.hectares,
      metadata: next.metadata, minx: next.minx, miny: next.miny, maxx: next.maxx, maxy: next.maxy, modified: next.modified,
    });
    return next;
  })();
}

export function deleteParcel(db: Db, scope: Scope, id: number): void {
  db.transaction(() => {
    parcelRow(db, scope, id);
    cachedStatement(db, 'DELETE FROM parcels WHERE id = ?').run(id);
  })();
}
