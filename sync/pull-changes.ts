// An incremental pull: the changes the service's feed gave since the last pull (sync/change-feed.ts), applied through
// the same functions as a full listing (sync/pull-merge.ts), so the merge and the rules of what a pull never deletes
// are the same both ways (docs/sync.md). Upserts go first, farms before parcels before crops (a farm's own change
// comes after its parcels': its totals move with them), then the tombstones under the same mass-deletion guard
// as a full pull, then plants.
import type { FarmRow } from '../db/types.ts';
import { getRow } from '../db/rows.ts';
import { byServerId, deletePlants, upsertPlants, syncedFarms, syncedParcelCount, syncedParcelCountIn, syncedParcelsOf, type HeldDeletion } from '../db/pull.ts';
import type { Farm } from '../core/schemas/farms.ts';
import type { ParcelFeature } from '../core/schemas/parcels.ts';
import type { Crop } from '../core/schemas/crops.ts';
import type { PlantFeature } from '../core/schemas/plants.ts';
import type { AccountCtx } from './context.ts';
import type { Change } from './change-feed.ts';
import { heldForWork } from './conflicts.ts';
import {
  FARM_FLOOR, PARCEL_FLOOR, cropRemovedRemotely, massDeletion, parcelRemovedRemotely, plantRow, pullCrop, pullFarm, pullParcel, removedRemotely,
} from './pull-merge.ts';

/** Parcels applied per transaction: a turn of the event loop between them keeps the app's host answering. */
const CHUNK = 1000;

/**
 * What applying the changes left undone. `unplaced`: objects it could not place (a parcel whose farm, a crop whose
 * parcel, is not in the mirror): the next pull must list everything, or they would be skipped for good.
 * Held deletions are in ctx.held and ctx.heldIds, which the mirror keeps (db/pull.ts replaceHeldDeletions): the next
 * pull weighs them again with what it finds new (heldTombstones), so the cursor moves past them.
 */
export interface Applied { unplaced: number }

export async function applyChanges(ctx: AccountCtx, changes: readonly Change[]): Promise<Applied> {
  const by = { farm: [] as Farm[], parcel: [] as ParcelFeature[], crop: [] as Crop[], plant: [] as PlantFeature[] };
  const gone = { farm: new Set<number>(), parcel: new Set<number>(), crop: new Set<number>(), plant: new Set<number>() };
  // Each object once, as the latest page has it: a page read later may repeat an object changed meanwhile.
  const latest = new Map<string, Change>();
  for (const c of changes) {
    latest.delete(`${c.entity}:${c.id}`);
    latest.set(`${c.entity}:${c.id}`, c);
  }
  for (const c of latest.values()) {
    if (c.deleted) gone[c.entity].add(c.id);
    else (by[c.entity] as unknown[]).push(c.data);
  }
  let unplaced = 0;
  ctx.db.transaction(() => {
    for (const f of by.farm) pullFarm(ctx, f);
  })();
  for (let i = 0; i < by.parcel.length; i += CHUNK) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    ctx.db.transaction(() => {
      for (const p of by.parcel.slice(i, i + CHUNK)) {
        const farm = byServerId(ctx.db, 'farm', ctx.account.id, p.properties.farm);
        // A farm deleted here (its delete not yet pushed): a full listing skips its parcels too.
        if (farm?.deleted) continue;
        if (!farm) unplaced++;
        else pullParcel(ctx, farm, p);
      }
    })();
    ctx.stats.pulled += Math.min(CHUNK, by.parcel.length - i);
  }
  ctx.db.transaction(() => {
    removeParcels(ctx, gone.parcel, gone.farm);
    removeFarms(ctx, gone.farm);
    for (const c of by.crop) if (!pullCrop(ctx, c)) unplaced++;
    for (const id of gone.crop) {
      const l = byServerId(ctx.db, 'crop', ctx.account.id, id);
      if (l && !l.deleted) cropRemovedRemotely(ctx, l);
    }
    ctx.stats.plantsChanged += upsertPlants(ctx.db, ctx.account.id, by.plant.map(plantRow)) + deletePlants(ctx.db, ctx.account.id, [...gone.plant]);
  })();
  return { unplaced };
}

/**
 * Parcel tombstones, farm by farm, under the full pull's guard (more than a fifth of a farm's synced parcels at once
 * is held for the user). A parcel whose farm is deleted too goes with its farm (removeFarms), as in a full pull.
 */
function removeParcels(ctx: AccountCtx, ids: ReadonlySet<number>, farmsGone: ReadonlySet<number>): void {
  const byFarm = new Map<string, string[]>();
  for (const id of ids) {
    const p = byServerId(ctx.db, 'parcel', ctx.account.id, id);
    if (!p || p.deleted) continue;
    const farm = getRow(ctx.db, 'farm', p.farm_local_id);
    if (farm?.server_id != null && farmsGone.has(farm.server_id)) continue;
    byFarm.set(p.farm_local_id, [...(byFarm.get(p.farm_local_id) ?? []), p.local_id]);
  }
  for (const [farmLocalId, localIds] of byFarm) {
    const farm = getRow(ctx.db, 'farm', farmLocalId) as FarmRow;
    const synced = syncedParcelsOf(ctx.db, farmLocalId).length;
    const goneHere = localIds.filter((id) => !heldForWork(ctx, 'parcel', id));
    if (goneHere.length && !ctx.opts.acceptRemoteDeletions && massDeletion(goneHere.length, synced, PARCEL_FLOOR)) {
      ctx.held.push(`the service deleted ${goneHere.length} of the ${synced} parcels synced here in farm '${farm.name}': nothing was deleted here`);
      for (const id of goneHere) ctx.heldIds.push({ entity: 'parcel', server_id: getRow(ctx.db, 'parcel', id)!.server_id! });
      continue;
    }
    for (const id of goneHere) parcelRemovedRemotely(ctx, getRow(ctx.db, 'parcel', id)!);
  }
}

/** Farm tombstones, under the full pull's guard (a fifth of the synced farms, or of the synced parcels, at once is held). */
function removeFarms(ctx: AccountCtx, ids: ReadonlySet<number>): void {
  if (!ids.size) return;
  const synced = syncedFarms(ctx.db, ctx.account.id);
  const gone = synced.filter((f) => ids.has(f.server_id!)).filter((farm) => !heldForWork(ctx, 'farm', farm.local_id));
  const goneParcels = gone.reduce((n, farm) => n + syncedParcelCountIn(ctx.db, farm.local_id), 0);
  const allParcels = syncedParcelCount(ctx.db, ctx.account.id);
  if (gone.length && !ctx.opts.acceptRemoteDeletions && (massDeletion(gone.length, synced.length, FARM_FLOOR) || massDeletion(goneParcels, allParcels, PARCEL_FLOOR))) {
    ctx.held.push(`the service deleted ${gone.length} of the ${synced.length} farms synced here (${goneParcels} parcels): nothing was deleted here`);
    for (const farm of gone) ctx.heldIds.push({ entity: 'farm', server_id: farm.server_id! });
    return;
  }
  for (const farm of gone) removedRemotely(ctx, 'farm', farm.local_id, farm.base, JSON.stringify({ name: farm.name }));
}

/**
 * The deletions the last pull held back, as the tombstones the feed gave then: put before the feed's changes, so that
 * a later change of the same object (it is back on the service) wins, and weighed again under the same guard.
 */
export function heldTombstones(held: readonly HeldDeletion[]): Change[] {
  return held.map((h) => ({ entity: h.entity, id: h.server_id, deleted: true as const }));
}
