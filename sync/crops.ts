import { Type } from '@sinclair/typebox';
import type { CropRow, CropState, OutboxRow } from '../db/types.ts';
import { getRow } from '../db/rows.ts';
import { cropCreateToReconcile, cropParcelServerId, cropToSend } from '../db/outbox.ts';
import { bookCropCreated, checkAgainAt, markInFlight, requeueAsNew } from '../db/op-transitions.ts';
import { Crop } from '../core/schemas/crops.ts';
import { expectShape, SchemaMismatch } from '../core/schemas/check.ts';
import { errorMessage, type NetworkError } from './http.ts';
import { call, commitOps, finishDelete, getJson, handleCommon, markUncertain, readyOps, recheckAt, reject, sendIdempotent, settledFor, type AccountCtx, throwIfCancelled } from './context.ts';
import { cropColumns, cropStateOfRow, cropStateOfWire } from './state.ts';
import { recordConflict } from './conflicts.ts';
import { jsonEqual, mergeCrop } from './merge.ts';
import { pushUpdate, type UpdateSpec } from './updates.ts';

const CropList = Type.Array(Crop);

function cropBody(row: CropRow, parcel: number | null): Record<string, unknown> {
  const s = cropStateOfRow(row);
  const { family_id: _f, ...fields } = s;
  const family = row.family_id !== null ? { id: row.family_id } : row.family_name ? { name: row.family_name } : null;
  return { ...fields, parcel, family };
}

/** The crop as the service created it (db/op-transitions.ts bookCropCreated), counted for the report. */
function commitCrop(ctx: AccountCtx, op: OutboxRow, crop: Crop): void {
  bookCropCreated(ctx.db, op.id, op.local_id, {
    server_id: crop.id, key: crop.key, family_id: crop.family?.id ?? null, family_name: crop.family?.name ?? null, base: JSON.stringify(cropStateOfWire(crop)),
  });
  ctx.stats.committed += 1;
}

/** Crops wait for their parcel's server id; they carry no metadata, so a lost answer is settled by their fields. */
/** The crop creates to send now: first sends only (one sent before is reconciled first). */
export const cropCreatesDue = (ctx: AccountCtx): OutboxRow[] => readyOps(ctx, 'crop', 'create').filter((op) => op.attempts === 0);

/** Creates a crop once its parcel has a server id; every outcome leaves the op in a definite state. */
export async function pushCropCreate(ctx: AccountCtx, op: OutboxRow): Promise<void> {
  const { row, parcel } = cropToSend(ctx.db, op.local_id);
  if (!row || parcel === undefined) return;
  throwIfCancelled(ctx); // before the mark: a stopped run leaves this queued, not uncertain
  markInFlight(ctx.db, [op.id]);
  const res = await call(ctx, 'POST', '/api/crops/', cropBody(row, parcel), 1);
  if (handleCommon(ctx, [{ ...op, attempts: op.attempts + 1 }], res, true)) return;
  const r = res as Exclude<typeof res, NetworkError>;
  if (r.status === 201) {
    try {
      commitCrop(ctx, op, expectShape(Crop, r.body, 'crop'));
    } catch (err) {
      if (!(err instanceof SchemaMismatch)) throw err;
      markUncertain(ctx, [op], err.message);
    }
    return;
  }
  // Refused: it created nothing (rejectOps puts a create's attempts back to 0, so an edit resends it as new).
  reject(ctx, [op], errorMessage(r));
}

export async function reconcileCropCreate(ctx: AccountCtx, op: OutboxRow): Promise<'done' | 'waiting'> {
  const { row, parcel, mapped } = cropCreateToReconcile(ctx.db, ctx.account.id, op.local_id);
  if (!row) { commitOps(ctx, [op.id]); return 'done'; }
  let candidates: Crop[] = [];
  if (typeof parcel === 'number') {
    candidates = expectShape(CropList, (await getJson(ctx, `/api/parcels/${parcel}/crops/`)).body, 'rotation');
  } else {
    for (let offset = 0; ; offset += 1000) {
      const page = (await getJson(ctx, `/api/crops/?limit=1000&offset=${offset}`)).body as { results?: unknown; next?: unknown };
      candidates.push(...expectShape(CropList, page.results, 'crop page').filter((c) => c.parcel === null));
      if (!page.next) break;
    }
  }
  const mine = cropStateOfRow(row);
  const same = candidates.filter((c) => !mapped.has(c.id) && jsonEqual({ ...cropStateOfWire(c), family_id: null }, { ...mine, family_id: null }))
    .sort((a, b) => a.id - b.id);
  if (same.length) {
    commitCrop(ctx, op, same[0]!);
    if (same.length > 1) recordConflict(ctx, 'crop', op.local_id, 'duplicate_on_service', [`the service holds this crop ${same.length} times`], null, null, JSON.stringify({ duplicates: same.slice(1).map((c) => c.id), entity: 'crop' }));
    return 'done';
  }
  if (settledFor(ctx, op)) {
    requeueAsNew(ctx.db, [op.id]);
    return 'done';
  }
  const at = recheckAt(ctx, op);
  checkAgainAt(ctx.db, [op.id], at);
  return 'waiting';
}

/** How a crop is updated (sync/updates.ts): its fields and family, with its parcel's server id. */
export const cropUpdates: UpdateSpec<CropRow, CropState, typeof Crop, number | null> = {
  entity: 'crop',
  wire: Crop,
  target(ctx, row) {
    const parcel = cropParcelServerId(ctx.db, row);
    return parcel === undefined ? null : { path: `/api/crops/${row.server_id}/`, extra: parcel };
  },
  stateOfRow: cropStateOfRow,
  stateOfWire: cropStateOfWire,
  base: (row) => (row.base ? (JSON.parse(row.base) as CropState) : null),
  merge: mergeCrop,
  body(row, merged, _theirs, parcel) {
    const body = cropBody({ ...row, ...cropColumns(merged) } as CropRow, parcel);
    if (merged.family_id === null && row.family_name) body.family = { name: row.family_name };
    return body;
  },
  columnsAfter: (c) => ({ ...cropColumns(cropStateOfWire(c), c.family?.name ?? null), base: JSON.stringify(cropStateOfWire(c)) }),
};

export const pushCropUpdate = (ctx: AccountCtx, op: OutboxRow): Promise<void> => pushUpdate(ctx, op, cropUpdates);

export async function pushCropDelete(ctx: AccountCtx, op: OutboxRow): Promise<void> {
  const row = getRow(ctx.db, 'crop', op.local_id);
  if (!row) { commitOps(ctx, [op.id]); return; }
  if (row.server_id === null) return;
  const res = await sendIdempotent(ctx, op, 'DELETE', `/api/crops/${row.server_id}/`);
  if (!res) return;
  finishDelete(ctx, op, res);
}
