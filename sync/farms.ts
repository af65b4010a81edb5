import { Type } from '@sinclair/typebox';
import type { FarmRow, OutboxRow } from '../db/types.ts';
import { getRow } from '../db/rows.ts';
import { bookFarmCreated, checkAgainAt, markInFlight, requeueAsNew, unmarkRefused, type Created, type FarmCreated } from '../db/op-transitions.ts';
import { farmCreateToReconcile, farmCreateToSend } from '../db/outbox.ts';
import { parcelLimit } from '../db/settings.ts';
import { MAX_PARCELS_PER_REQUEST } from '../core/parcels/validate.ts';
import { Farm, FarmCreateResponse } from '../core/schemas/farms.ts';
import { ParcelCollection } from '../core/schemas/parcels.ts';
import { expectShape, SchemaMismatch } from '../core/schemas/check.ts';
import { JsonText, errorMessage, type NetworkError } from './http.ts';
import { call, commitOps, finishDelete, getJson, handleCommon, markUncertain, readyOps, recheckAt, reject, retryLater, sendIdempotent, settledFor, uncertainNow, type AccountCtx, throwIfCancelled } from './context.ts';
import { parcelInput, parcelStateOfFeature, parcelStateOfRow } from './state.ts';
import { nearLimit, validItems, type Item } from './parcels.ts';
import { recordConflict } from './conflicts.ts';
import { mergeFarmName } from './merge.ts';
import { pushUpdate, type UpdateSpec } from './updates.ts';

const FarmList = Type.Array(Farm);

/** The farm creates to send now: first sends only (one sent before is reconciled first). */
export const farmCreatesDue = (ctx: AccountCtx): OutboxRow[] => readyOps(ctx, 'farm', 'create').filter((op) => op.attempts === 0);

/**
 * Creates a farm with up to 50 of its queued parcels (POST /api/farms/); every outcome leaves each op in a definite
 * state. A farm goes together with its first parcels: farm creation is not idempotent either, and the parcels'
 * client references are what identify the farm on the service if the answer is lost.
 */
export async function pushFarmCreate(ctx: AccountCtx, op: OutboxRow, limit: number = parcelLimit(ctx.db, ctx.account.id)): Promise<void> {
  // Twice what one request carries: a parcel refused here (invalid, or near the limit) leaves room for the next.
  const { farm, parcels: unsent } = farmCreateToSend(ctx.db, op.local_id, 2 * MAX_PARCELS_PER_REQUEST);
  if (!farm) return;
  const items: Item[] = [];
  for (const p of unsent) {
    if (items.length >= MAX_PARCELS_PER_REQUEST) break;
    const [valid] = validItems(ctx, [p], limit);
    if (valid && !nearLimit(p.row, limit)) items.push(valid); // near the limit: sent alone later
  }
  const ops = [op, ...items.map((i) => i.op)];
  throwIfCancelled(ctx); // before the mark: a stopped run leaves this queued, not uncertain
  markInFlight(ctx.db, ops.map((o) => o.id));
  const parcels = items.map((i) => i.json ?? JSON.stringify(parcelInput(i.row.local_id, parcelStateOfRow(i.row))));
  const res = await call(ctx, 'POST', '/api/farms/', new JsonText(`{"farm":{"name":${JSON.stringify(farm.name)}},"parcels":[${parcels.join(',')}]}`), ops.length);
  if (handleCommon(ctx, ops.map((o) => ({ ...o, attempts: o.attempts + 1 })), res, true)) return;
  const r = res as Exclude<typeof res, NetworkError>;
  if (r.status === 201) {
    try {
      const created = expectShape(FarmCreateResponse, r.body, 'farm create response');
      const refs = created.parcels.map((f) => parcelStateOfFeature(f).ref);
      if (created.parcels.length === items.length && refs.every((ref, i) => ref === items[i]!.row.local_id)) {
        bookFarm(ctx, { opId: op.id, localId: farm.local_id, serverId: created.id, name: created.name }, items.map((it, i) => ({ op: it.op, feature: created.parcels[i]! })));
        return;
      }
      markUncertain(ctx, ops, 'the 201 does not match the farm sent');
    } catch (err) {
      if (!(err instanceof SchemaMismatch)) throw err;
      markUncertain(ctx, ops, err.message);
    }
    return;
  }
  // Anything else created nothing: name the bad parcels, let the farm go again with the rest.
  const errors = (r.body as { errors?: { index?: number; message?: string }[] } | null)?.errors ?? [];
  const bad = new Map<number, string>();
  for (const e of errors) if (typeof e.index === 'number' && items[e.index]) bad.set(e.index, [bad.get(e.index), e.message].filter(Boolean).join('; '));
  unmarkRefused(ctx.db, ops.map((o) => o.id));
  if (bad.size) {
    for (const [i, msg] of bad) reject(ctx, [items[i]!.op], msg);
  } else if (r.status === 400 || r.status === 404 || r.status === 200) {
    reject(ctx, [op], errorMessage(r));
  } else {
    retryLater(ctx, [op], errorMessage(r), r.retryAfterMs, true);
  }
}

/** The farm's id and its op, with the parcels created with it (db/op-transitions.ts bookFarmCreated), counted for the report. */
function bookFarm(ctx: AccountCtx, farm: FarmCreated, parcels: readonly Created[]): void {
  const uncertain = uncertainNow(ctx);
  ctx.stats.committed += bookFarmCreated(ctx.db, farm, parcels, uncertain).committed;
}

/** Finds a farm whose creation answer was lost: by its parcels' client references, else by name. */
export async function reconcileFarmCreate(ctx: AccountCtx, op: OutboxRow): Promise<'done' | 'waiting'> {
  const { farm, batchParcels, mapped } = farmCreateToReconcile(ctx.db, ctx.account.id, op);
  if (!farm) { commitOps(ctx, [op.id]); return 'done'; }
  const list = expectShape(FarmList, (await getJson(ctx, '/api/farms/')).body, 'farm list');
  const candidates = list.filter((f) => f.name === farm.name && !mapped.has(f.id));
  let match: number | null = null;
  let duplicates: number[] = [];
  if (batchParcels.length) {
    const refs = new Set(batchParcels.map((o) => o.local_id));
    for (const c of candidates) {
      const listing = expectShape(ParcelCollection, (await getJson(ctx, `/api/farms/${c.id}/parcels/`)).body, 'farm parcels');
      const hits = listing.features.filter((f) => refs.has(parcelStateOfFeature(f).ref ?? ''));
      if (!hits.length) continue;
      if (match === null) {
        match = c.id;
        bookFarm(ctx, { opId: op.id, localId: farm.local_id, serverId: c.id, name: c.name }, hits.map((f) => ({ op: batchParcels.find((o) => o.local_id === parcelStateOfFeature(f).ref)!, feature: f })));
      } else duplicates.push(c.id);
    }
  } else if (candidates.length) {
    const sorted = [...candidates].sort((a, b) => a.id - b.id);
    match = sorted[0]!.id;
    duplicates = sorted.slice(1).map((c) => c.id);
    bookFarm(ctx, { opId: op.id, localId: farm.local_id, serverId: match, name: farm.name }, []);
  }
  if (match !== null) {
    if (duplicates.length) recordConflict(ctx, 'farm', farm.local_id, 'duplicate_on_service', [`farm '${farm.name}' exists ${duplicates.length + 1} times`], null, null, JSON.stringify({ duplicates, entity: 'farm' }));
    // Parcels of the batch that did not show up are settled like any uncertain create.
    return 'done';
  }
  const all = [op, ...batchParcels.filter((o) => o.state === 'uncertain')];
  if (settledFor(ctx, op)) {
    requeueAsNew(ctx.db, all.map((o) => o.id));
    return 'done';
  }
  const at = recheckAt(ctx, op);
  checkAgainAt(ctx.db, all.map((o) => o.id), at);
  return 'waiting';
}

/** How a farm is updated (sync/updates.ts): its name. */
export const farmUpdates: UpdateSpec<FarmRow, { name: string }, typeof Farm> = {
  entity: 'farm',
  wire: Farm,
  target: (_ctx, row) => ({ path: `/api/farms/${row.server_id}/`, extra: null }),
  stateOfRow: (row) => ({ name: row.name }),
  stateOfWire: (f) => ({ name: f.name }),
  base: (row) => (row.base ? { name: (JSON.parse(row.base) as { name: string }).name } : null),
  merge: (base, mine, theirs) => {
    const m = mergeFarmName(base.name, mine.name, theirs.name);
    return { merged: { name: m.merged }, conflicts: m.conflicts };
  },
  body: (_row, merged) => ({ name: merged.name }),
  columnsAfter: (f) => ({ name: f.name, base: JSON.stringify({ name: f.name }) }),
};

export const pushFarmUpdate = (ctx: AccountCtx, op: OutboxRow): Promise<void> => pushUpdate(ctx, op, farmUpdates);

export async function pushFarmDelete(ctx: AccountCtx, op: OutboxRow): Promise<void> {
  const farm = getRow(ctx.db, 'farm', op.local_id);
  if (!farm) { commitOps(ctx, [op.id]); return; }
  if (farm.server_id === null) return;
  const res = await sendIdempotent(ctx, op, 'DELETE', `/api/farms/${farm.server_id}/`);
  if (!res) return;
  // The service deleted the farm's parcels and crops with it: their own pending ops are moot.
  finishDelete(ctx, op, res);
}
