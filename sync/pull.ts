import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { CropRow, FarmRow, OutboxRow, ParcelRow } from '../db/types.ts';
import { deleteRow, getRow, insertRow, updateRow } from '../db/rows.ts';
import {
  byServerId, farmCreateUnsettled, markPulled, parcelIdOf, replaceCropFamilies, replacePlants, syncedCrops, syncedFarms, syncedParcelCount,
  syncedParcelCountIn, syncedParcelsOf,
} from '../db/pull.ts';
import { openOps } from '../db/outbox.ts';
import { setOpState } from '../db/op-transitions.ts';
import { setParcelLimit } from '../db/settings.ts';
import { parcelBase } from '../db/parcel-state.ts';
import { Farm } from '../core/schemas/farms.ts';
import { type ParcelFeature } from '../core/schemas/parcels.ts';
import { Crop, CropFamily } from '../core/schemas/crops.ts';
import { PlantCollection } from '../core/schemas/plants.ts';
import { expectShape } from '../core/schemas/check.ts';
import { getJson, type AccountCtx, type PullProgress } from './context.ts';
import { cropColumns, cropStateOfRow, cropStateOfWire, parcelColumns, parcelStateOfFeature, parcelStateOfRow } from './state.ts';
import { jsonEqual, mergeCrop, mergeFarmName, mergeParcel } from './merge.ts';
import { heldForWork, listedAgain, recordConflict } from './conflicts.ts';
import { farmListing } from './listing.ts';

const FarmList = Type.Array(Farm);
const CropPage = Type.Object({ count: Type.Integer(), next: Type.Union([Type.String(), Type.Null()]), results: Type.Array(Crop) });
const now = () => new Date().toISOString();

/** Ops that mean "the local row holds an edit the service has not seen". */
const pendingEdit = (ops: ReturnType<typeof openOps>) => ops.find((o) => o.op === 'update' || o.state === 'conflict');

/** Where a pull that began stopped: "after 9 of 15 farms" (those farms are in the mirror, with their parcels); null before the farm list came. */
export function pullStoppedAt(p: PullProgress): string | null {
  const farms = `${p.farms} farm${p.farms === 1 ? '' : 's'}`;
  if (p.stage === 'farm list') return null;
  return p.stage === 'farms' ? `after ${p.farmsDone} of ${farms}` : `after all ${farms}, at the ${p.stage}`;
}

/** "stopped after 9 of 15 farms: <reason>"; just the reason when nothing was pulled. */
export function pullStoppedText(p: PullProgress, reason: string): string {
  const at = pullStoppedAt(p);
  return at ? `stopped ${at}: ${reason}` : reason;
}

/**
 * Brings the service's state into the mirror. Rows with nothing pending take the service's state; rows with
 * a pending edit are merged three-way against their base; overlapping edits and remote deletes of edited
 * rows become conflicts. Nothing local is silently overwritten.
 */
export async function pullAccount(ctx: AccountCtx): Promise<void> {
  const progress: PullProgress = { stage: 'farm list', farmsDone: 0, farms: 0 };
  ctx.pull = progress;
  const farms = expectShape(FarmList, (await getJson(ctx, '/api/farms/')).body, 'farm list');
  Object.assign(progress, { stage: 'farms', farms: farms.length });
  const seenFarms = new Set<number>();
  let done = 0;
  for (const f of farms) {
    if (seenFarms.has(f.id)) throw new Error(`The service listed farm ${f.id} twice: the farm list is not trustworthy, nothing was changed from it`);
    seenFarms.add(f.id);
    const local = pullFarm(ctx, f);
    if (local) {
      const listing = await farmListing(ctx, f.id);
      if (!listing) throw new Error(`Farm ${f.id} was listed but its parcels answer 404 (deleted meanwhile?): try again`);
      await pullParcels(ctx, local, listing.features, listing.complete);
      ctx.stats.pulled += listing.features.length;
    }
    progress.farmsDone = ++done;
    ctx.emit({ phase: 'pull', done, total: farms.length, bytes: ctx.stats.bytes, message: f.name });
  }
  ctx.db.transaction(() => {
    const synced = syncedFarms(ctx.db, ctx.account.id);
    const gone = synced.filter((g) => !seenFarms.has(g.server_id!)).filter((farm) => !heldForWork(ctx, 'farm', farm.local_id));
    const goneParcels = gone.reduce((n, farm) => n + syncedParcelCountIn(ctx.db, farm.local_id), 0);
    const allParcels = syncedParcelCount(ctx.db, ctx.account.id);
    if (gone.length && !ctx.opts.acceptRemoteDeletions && (massDeletion(gone.length, synced.length, FARM_FLOOR) || massDeletion(goneParcels, allParcels, PARCEL_FLOOR))) {
      ctx.held.push(`the service no longer lists ${gone.length} of the ${synced.length} farms synced here (${goneParcels} parcels): nothing was deleted here`);
    } else {
      for (const farm of gone) removedRemotely(ctx, 'farm', farm.local_id, farm.base, JSON.stringify({ name: farm.name }));
    }
  })();
  progress.stage = 'crops';
  await pullCrops(ctx);
  progress.stage = 'crop families';
  const families = expectShape(Type.Array(CropFamily), (await getJson(ctx, '/api/crop-families/')).body, 'crop families');
  progress.stage = 'plants';
  await pullPlants(ctx);
  progress.stage = 'account';
  const limit = await agreedLimit(ctx);
  ctx.db.transaction(() => {
    replaceCropFamilies(ctx.db, ctx.account.id, families);
    if (limit !== null) setParcelLimit(ctx.db, ctx.account.id, limit);
    markPulled(ctx.db, ctx.account.id, now());
  })();
}

/**
 * The account's agreed maximum parcel size as the service states it (GET /api/accounts/{id}/, max_parcel_hectares):
 * the app checks drawings and imports against the mirror's limit, so a limit changed on the service must reach it.
 * A service that does not state it (the field absent, the route unknown) leaves the local setting as it is.
 */
async function agreedLimit(ctx: AccountCtx): Promise<number | null> {
  const res = await getJson(ctx, `/api/accounts/${encodeURIComponent(ctx.account.id)}/`);
  const v = res.status === 200 && typeof res.body === 'object' && res.body !== null ? (res.body as { max_parcel_hectares?: unknown }).max_parcel_hectares : undefined;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

function pullFarm(ctx: AccountCtx, f: Farm): FarmRow | null {
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

/** Parcels pulled per transaction: a turn of the event loop between them keeps the app's host answering. */
const PULL_CHUNK = 1000;

async function pullParcels(ctx: AccountCtx, farm: FarmRow, features: readonly ParcelFeature[], complete: boolean): Promise<void> {
  const seen = new Set<number>();
  // In transactions of PULL_CHUNK parcels, not one for the farm: a farm of 20,000 parcels held the thread for a
  // second. Each parcel's pull stands alone (a pull stopped between chunks is simply redone by the next).
  for (let i = 0; i < features.length; i += PULL_CHUNK) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    ctx.db.transaction(() => {
      for (const f of features.slice(i, i + PULL_CHUNK)) pullParcel(ctx, farm, f, seen);
    })();
  }
  ctx.db.transaction(() => {
    // A listing that ended early says nothing about the parcels it did not reach: none of them is taken as deleted.
    if (!complete) return;
    const locals = syncedParcelsOf(ctx.db, farm.local_id);
    const gone = locals.filter((l) => !seen.has(l.server_id!)).filter((p) => !heldForWork(ctx, 'parcel', p.local_id));
    if (gone.length && !ctx.opts.acceptRemoteDeletions && massDeletion(gone.length, locals.length, PARCEL_FLOOR)) {
      ctx.held.push(`the service no longer lists ${gone.length} of the ${locals.length} parcels synced here in farm '${farm.name}': nothing was deleted here`);
      return;
    }
    for (const p of gone) removedRemotely(ctx, 'parcel', p.local_id, parcelBase(p), JSON.stringify(parcelStateOfRow(p)));
  })();
}

function pullParcel(ctx: AccountCtx, farm: FarmRow, f: ParcelFeature, seen: Set<number>): void {
  seen.add(f.id);
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
    const localId = ref && !getRow(ctx.db, 'parcel', ref) ? ref : randomUUID();
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

/**
 * A pull that would delete more than a fifth of what is synced here at once (above a small floor: losing 2 farms or
 * 10 parcels is ordinary) is held for the user: an empty or cut answer from a faulty service or proxy must not
 * wipe the mirror. `sync --accept-remote-deletions` applies it.
 */
const MASS_SHARE = 0.2;
const FARM_FLOOR = 2;
const PARCEL_FLOOR = 10;
const massDeletion = (n: number, of: number, floor: number) => n > floor && n > of * MASS_SHARE;

/** Most pages a crop or plant listing may take (10 million crops, 100 million plants): past it, a pager that never ends. */
const MAX_PAGES = 10_000;

/** Deleted on the service: gone locally too, unless there is a local edit — then the user decides. */
function removedRemotely(ctx: AccountCtx, entity: 'farm' | 'parcel' | 'crop', localId: string, base: string | null, mine: string): void {
  const ops = openOps(ctx.db, entity, localId);
  if (ops.some((o) => o.op === 'delete')) return;
  if (pendingEdit(ops)) {
    recordConflict(ctx, entity, localId, 'remote_delete', ['deleted on the service'], base, mine, null);
    return;
  }
  deleteRow(ctx.db, entity, localId);
  ctx.stats.received++;
}

async function pullCrops(ctx: AccountCtx): Promise<void> {
  const crops: Crop[] = [];
  const ids = new Set<number>();
  for (let offset = 0, page = 0; ; offset += 1000, page++) {
    if (page >= MAX_PAGES) throw new Error(`The crop listing goes on past ${MAX_PAGES} pages`);
    const p = expectShape(CropPage, (await getJson(ctx, `/api/crops/?limit=1000&offset=${offset}`)).body, 'crop page');
    // A crop seen twice means the pages repeat (an endless pager): stop before memory does.
    for (const c of p.results) {
      if (ids.has(c.id)) throw new Error(`The crop listing repeats crop ${c.id}: its pages loop, nothing was changed from it`);
      ids.add(c.id);
    }
    crops.push(...p.results);
    if (!p.next || p.results.length === 0) break;
  }
  ctx.db.transaction(() => {
    const seen = new Set<number>();
    for (const c of crops) {
      seen.add(c.id);
      const theirs = cropStateOfWire(c);
      const parcelId = c.parcel === null ? null : parcelIdOf(ctx.db, ctx.account.id, c.parcel);
      if (parcelId === undefined) continue; // its parcel is not in the mirror (yet)
      const local = byServerId(ctx.db, 'crop', ctx.account.id, c.id);
      if (!local) {
        insertRow(ctx.db, 'crop', {
          local_id: randomUUID(), account_id: ctx.account.id, parcel_local_id: parcelId, server_id: c.id, key: c.key,
          family_name: c.family?.name ?? null, ...cropColumns(theirs), base: JSON.stringify(theirs), deleted: 0, created: now(), modified: now(),
        } as CropRow);
        ctx.stats.received++;
        continue;
      }
      if (local.deleted) continue;
      const ops = openOps(ctx.db, 'crop', local.local_id);
      if (ops.some((o) => o.state === 'in_flight')) continue;
      if (!pendingEdit(ops)) {
        const same = jsonEqual(cropStateOfRow(local), theirs) && local.family_name === (c.family?.name ?? null)
          && local.parcel_local_id === parcelId && local.base === JSON.stringify(theirs);
        if (!same) {
          updateRow(ctx.db, 'crop', local.local_id, { ...cropColumns(theirs, c.family?.name ?? null), parcel_local_id: parcelId, base: JSON.stringify(theirs) });
          // A base written for the first time is bookkeeping, not news.
          if (!jsonEqual(cropStateOfRow(local), theirs) || local.family_name !== (c.family?.name ?? null) || local.parcel_local_id !== parcelId) ctx.stats.received++;
        }
        continue;
      }
      const mine = cropStateOfRow(local);
      const base = local.base ? (JSON.parse(local.base) as typeof mine) : theirs;
      mergePulled(ctx, 'crop', local.local_id, ops, { base, mine, theirs }, mergeCrop, (state) => cropColumns(state));
    }
    const locals = syncedCrops(ctx.db, ctx.account.id);
    for (const l of locals.filter((x) => !seen.has(x.server_id!))) removedRemotely(ctx, 'crop', l.local_id, l.base, JSON.stringify(cropStateOfRow(l)));
  })();
}

async function pullPlants(ctx: AccountCtx): Promise<void> {
  const features: Static<typeof PlantCollection>['features'] = [];
  for (let after = 0, n = 0; ; n++) {
    if (n >= MAX_PAGES) throw new Error(`The plant listing goes on past ${MAX_PAGES} pages`);
    const page = expectShape(PlantCollection, (await getJson(ctx, `/api/plants/?limit=10000&after=${after}`)).body, 'plants');
    // Pages go by id: a page that does not move past `after` would be asked for forever.
    if (page.features.some((f) => f.id <= after)) throw new Error(`The plant listing does not advance past plant ${after}: its pages loop, nothing was changed from it`);
    features.push(...page.features);
    if (page.features.length < 10000) break;
    after = page.features[page.features.length - 1]!.id;
  }
  // Only what changed is written (db/pull.ts replacePlants): a pull that changed nothing writes nothing.
  const plants = features.map((p) => ({
    server_id: p.id, key: p.properties.key, parcel_server_id: p.properties.parcel, crop_server_id: p.properties.crop, point: JSON.stringify(p.geometry.coordinates),
    shape: p.properties.shape ? JSON.stringify(p.properties.shape) : null, info: p.properties.info === undefined ? null : JSON.stringify(p.properties.info), area: p.properties.area,
  }));
  ctx.db.transaction(() => {
    ctx.stats.plantsChanged += replacePlants(ctx.db, ctx.account.id, plants);
  })();
}
