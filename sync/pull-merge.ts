// How one pulled object comes into the mirror, whichever way it came (a full listing, sync/pull.ts, or the change
// feed, sync/pull-changes.ts): rows with nothing pending take the service's state; rows with a pending edit are
// merged three-way against their base; overlapping edits and remote deletes of edited rows become conflicts. Both
// ways go through these functions, so the rules of docs/sync.md ("What a pull never deletes") hold for both.
import { randomUUID } from 'node:crypto';
import type { CropRow, FarmRow, OutboxRow, ParcelRow, PlantRow } from '../db/types.ts';
import { deleteRow, getRow, insertRow, updateRow } from '../db/rows.ts';
import { byServerId, farmCreateUnsettled, parcelIdOf, syncedParcelCountIn } from '../db/pull.ts';
import { openOps } from '../db/outbox.ts';
import { setOpState } from '../db/op-transitions.ts';
import { parcelBase } from '../db/parcel-state.ts';
import { timeOrderedIds } from '../db/bulk.ts';
import type { Farm } from '../core/schemas/farms.ts';
import type { ParcelFeature } from '../core/schemas/parcels.ts';
import type { Crop } from '../core/schemas/crops.ts';
import type { PlantFeature } from '../core/schemas/plants.ts';
import type { AccountCtx } from './context.ts';
import { cropColumns, cropStateOfRow, cropStateOfWire, parcelColumns, parcelStateOfFeature, parcelStateOfRow } from './state.ts';
import { jsonEqual, mergeCrop, mergeFarmName, mergeParcel } from './merge.ts';
import { listedAgain, recordConflict } from './conflicts.ts';

const now = () => new Date().toISOString();

/** Ops that mean "the local row holds an edit the service has not seen". */
const pendingEdit = (ops: ReturnType<typeof openOps>) => ops.find((o) => o.op === 'update' || o.state === 'conflict');

/**
 * A pull that would delete more than a fifth of what is synced here at once (above a small floor: losing 2 farms or
 * 10 parcels is ordinary) is held for the user: an empty or cut answer from a faulty service or proxy must not
 * wipe the mirror. `sync --accept-remote-deletions` applies it.
 */
const MASS_SHARE = 0.2;
export const FARM_FLOOR = 2;
export const PARCEL_FLOOR = 10;
export const massDeletion = (n: number, of: number, floor: number) => n > floor && n > of * MASS_SHARE;

/** The farm as the service holds it, into the mirror; the local row its parcels go under, or null when they are not pulled. */
export function pullFarm(ctx: AccountCtx, f: Farm): FarmRow | null {
  const local = byServerId(ctx.db, 'farm', ctx.account.id, f.id);
  if (!local) {
    // A local farm whose create answer was lost may be this one: reconciliation adopts it, pull must not copy it.
    if (farmCreateUnsettled(ctx.db, ctx.account.id, f.name)) return null;
    const row: FarmRow = { local_id: randomUUID(), account_id: ctx.account.id, server_id: f.id, name: f.name, base: JSON.stringify({ name: f.name }), deleted: 0, created: now(), modified: now() };
    insertRow(ctx.db, 'farm', row);
    ctx.stats.received++;
    return row;
  }
  if (local.deleted) return null;
  if (listedAgain(ctx.db, 'farm', local.local_id)) ctx.pushAgain = true;
  const ops = openOps(ctx.db, 'farm', local.local_id);
  const base = local.base ? (JSON.parse(local.base) as { name: string }).name : f.name;
  if (!pendingEdit(ops)) {
    // Unchanged, it is not written (nor announced to the app).
    const theirs = JSON.stringify({ name: f.name });
    if (local.name !== f.name) ctx.stats.received++;
    if (local.name !== f.name || local.base !== theirs) updateRow(ctx.db, 'farm', local.local_id, { name: f.name, base: theirs });
  } else {
    const m = mergeFarmName(base, local.name, f.name);
    if (m.conflicts.length) recordConflict(ctx, 'farm', local.local_id, 'edit', m.conflicts, JSON.stringify({ name: base }), JSON.stringify({ name: local.name }), JSON.stringify({ name: f.name }));
    else {
      if (m.merged !== local.name) ctx.stats.received++;
      updateRow(ctx.db, 'farm', local.local_id, { name: m.merged, base: JSON.stringify({ name: f.name }) });
    }
  }
  return getRow(ctx.db, 'farm', local.local_id)!;
}

/** The parcel as the service holds it, into the mirror under `farm`. */
export function pullParcel(ctx: AccountCtx, farm: FarmRow, f: ParcelFeature): void {
  const { state: theirs, ref } = parcelStateOfFeature(f);
  let local = byServerId(ctx.db, 'parcel', ctx.account.id, f.id);
  if (!local && ref) {
    const mine = getRow(ctx.db, 'parcel', ref);
    if (mine && mine.server_id === null && mine.account_id === ctx.account.id) {
      // Our create did commit (its answer was lost): adopt the ids, and the create is done.
      updateRow(ctx.db, 'parcel', ref, { server_id: f.id, key: f.properties.key, base: JSON.stringify(theirs) });
      setOpState(ctx.db, openOps(ctx.db, 'parcel', ref).filter((o) => o.op === 'create').map((o) => o.id), 'committed', { last_error: null });
      local = getRow(ctx.db, 'parcel', ref);
    }
  }
  if (!local) {
    // A time-ordered id (as an import's): a first pull inserts tens of thousands of rows, and random ids put each in
    // a random page of the primary key's index.
    const localId = ref && !getRow(ctx.db, 'parcel', ref) ? ref : timeOrderedIds(1)[0]!;
    insertRow(ctx.db, 'parcel', {
      local_id: localId, account_id: ctx.account.id, farm_local_id: farm.local_id, server_id: f.id, key: f.properties.key,
      ...parcelColumns(theirs), base: null, deleted: 0, created: now(), modified: now(),
    } as ParcelRow);
    ctx.stats.received++;
    return;
  }
  if (local.deleted) return;
  if (listedAgain(ctx.db, 'parcel', local.local_id)) ctx.pushAgain = true;
  const ops = openOps(ctx.db, 'parcel', local.local_id);
  if (ops.some((o) => o.state === 'in_flight')) return;
  const edit = pendingEdit(ops);
  if (!edit) {
    // Nothing pending here: the row becomes the service's state, its own base (parcelBase). Unchanged, it is not written.
    if (!jsonEqual(parcelStateOfRow(local), theirs) || local.farm_local_id !== farm.local_id) {
      updateRow(ctx.db, 'parcel', local.local_id, { ...parcelColumns(theirs), farm_local_id: farm.local_id, base: null, modified: now() });
      ctx.stats.received++;
    } else if (local.base !== null) updateRow(ctx.db, 'parcel', local.local_id, { base: null });
    return;
  }
  const mine = parcelStateOfRow(local);
  const known = parcelBase(local);
  const base = known ? (JSON.parse(known) as typeof mine) : theirs;
  mergePulled(ctx, 'parcel', local.local_id, ops, { base, mine, theirs }, mergeParcel, parcelColumns);
}

/**
 * The crop as the service holds it, into the mirror. False when its parcel is not in the mirror (yet): nothing was
 * written, a later pull brings it.
 */
export function pullCrop(ctx: AccountCtx, c: Crop): boolean {
  const theirs = cropStateOfWire(c);
  const parcelId = c.parcel === null ? null : parcelIdOf(ctx.db, ctx.account.id, c.parcel);
  if (parcelId === undefined) return false;
  const local = byServerId(ctx.db, 'crop', ctx.account.id, c.id);
  if (!local) {
    insertRow(ctx.db, 'crop', {
      local_id: randomUUID(), account_id: ctx.account.id, parcel_local_id: parcelId, server_id: c.id, key: c.key,
      family_name: c.family?.name ?? null, ...cropColumns(theirs), base: JSON.stringify(theirs), deleted: 0, created: now(), modified: now(),
    } as CropRow);
    ctx.stats.received++;
    return true;
  }
  if (local.deleted) return true;
  const ops = openOps(ctx.db, 'crop', local.local_id);
  if (ops.some((o) => o.state === 'in_flight')) return true;
  if (!pendingEdit(ops)) {
    const same = jsonEqual(cropStateOfRow(local), theirs) && local.family_name === (c.family?.name ?? null)
      && local.parcel_local_id === parcelId && local.base === JSON.stringify(theirs);
    if (!same) {
      updateRow(ctx.db, 'crop', local.local_id, { ...cropColumns(theirs, c.family?.name ?? null), parcel_local_id: parcelId, base: JSON.stringify(theirs) });
      // A base written for the first time is bookkeeping, not news.
      if (!jsonEqual(cropStateOfRow(local), theirs) || local.family_name !== (c.family?.name ?? null) || local.parcel_local_id !== parcelId) ctx.stats.received++;
    }
    return true;
  }
  const mine = cropStateOfRow(local);
  const base = local.base ? (JSON.parse(local.base) as typeof mine) : theirs;
  mergePulled(ctx, 'crop', local.local_id, ops, { base, mine, theirs }, mergeCrop, (state) => cropColumns(state));
  return true;
}

/**
 * A row with a local edit pending, pulled: merged three-way with the service's state. Overlapping edits become a
 * conflict; otherwise the row takes the merge, with the service's state as its base, and an edit the merge shows
 * to be on the service already has nothing left to send.
 */
function mergePulled<S, R extends ParcelRow | CropRow>(ctx: AccountCtx, entity: 'parcel' | 'crop', localId: string, ops: readonly OutboxRow[],
  s: { base: S; mine: S; theirs: S }, merge: (base: S, mine: S, theirs: S) => { merged: S; conflicts: string[] }, columns: (state: S) => Partial<R>): void {
  const { merged, conflicts } = merge(s.base, s.mine, s.theirs);
  if (conflicts.length) {
    recordConflict(ctx, entity, localId, 'edit', conflicts, JSON.stringify(s.base), JSON.stringify(s.mine), JSON.stringify(s.theirs));
    return;
  }
  updateRow(ctx.db, entity, localId, { ...columns(merged), base: JSON.stringify(s.theirs) });
  // Something of theirs came in when the merge differs from what was here.
  if (!jsonEqual(merged, s.mine)) ctx.stats.received++;
  if (jsonEqual(merged, s.theirs)) setOpState(ctx.db, ops.filter((o) => o.op === 'update').map((o) => o.id), 'committed', { last_error: null });
}

/** Deleted on the service: gone locally too, unless there is a local edit — then the user decides. */
export function removedRemotely(ctx: AccountCtx, entity: 'farm' | 'parcel' | 'crop', localId: string, base: string | null, mine: string): void {
  const ops = openOps(ctx.db, entity, localId);
  if (ops.some((o) => o.op === 'delete')) return;
  if (pendingEdit(ops)) {
    recordConflict(ctx, entity, localId, 'remote_delete', ['deleted on the service'], base, mine, null);
    return;
  }
  // A farm takes its parcels with it: they are removed here too, and said.
  const withIt = entity === 'farm' ? syncedParcelCountIn(ctx.db, localId) : 0;
  deleteRow(ctx.db, entity, localId);
  ctx.stats.removed += 1 + withIt;
}

/** A synced crop deleted on the service (removedRemotely with the crop's own state). */
export function cropRemovedRemotely(ctx: AccountCtx, l: CropRow): void {
  removedRemotely(ctx, 'crop', l.local_id, l.base, JSON.stringify(cropStateOfRow(l)));
}

/** A synced parcel deleted on the service (removedRemotely with the parcel's own state). */
export function parcelRemovedRemotely(ctx: AccountCtx, p: ParcelRow): void {
  removedRemotely(ctx, 'parcel', p.local_id, parcelBase(p), JSON.stringify(parcelStateOfRow(p)));
}

/** A plant as the mirror keeps it (plants are only ever pulled). */
export function plantRow(p: PlantFeature): Omit<PlantRow, 'account_id'> {
  return {
    server_id: p.id, key: p.properties.key, parcel_server_id: p.properties.parcel, crop_server_id: p.properties.crop, point: JSON.stringify(p.geometry.coordinates),
    shape: p.properties.shape ? JSON.stringify(p.properties.shape) : null, info: p.properties.info === undefined ? null : JSON.stringify(p.properties.info), area: p.properties.area,
  };
}
