import { Type, type Static } from '@sinclair/typebox';
import {
  heldDeletions, markPulled, replaceCropFamilies, replaceHeldDeletions, replacePlants, syncedCrops, syncedFarms, syncedParcelCount, syncedParcelCountIn, syncedParcelIdsOf, heldServerIds, insertPulledParcels, type PulledParcel,
} from '../db/pull.ts';
import { setParcelLimit } from '../db/settings.ts';
import { Farm } from '../core/schemas/farms.ts';
import { type ParcelFeature } from '../core/schemas/parcels.ts';
import { Crop, CropFamily } from '../core/schemas/crops.ts';
import { PlantCollection } from '../core/schemas/plants.ts';
import { expectShape } from '../core/schemas/check.ts';
import { getJson, type AccountCtx, type PullProgress } from './context.ts';
import type { FarmRow } from '../db/types.ts';
import { getRow } from '../db/rows.ts';
import { heldForWork } from './conflicts.ts';
import { REF_KEY, listedParcelColumns } from './state.ts';
import { farmListing, type FarmListing } from './listing.ts';
import { planPull } from './change-feed.ts';
import { applyChanges, heldTombstones } from './pull-changes.ts';
import {
  FARM_FLOOR, PARCEL_FLOOR, cropRemovedRemotely, massDeletion, parcelRemovedRemotely, plantRow, pullCrop, pullFarm, pullParcel, removedRemotely,
} from './pull-merge.ts';

const FarmList = Type.Array(Farm);
// Made once: expectShape compiles a check per schema object, so one made in each pull was compiled again each time.
const CropFamilies = Type.Array(CropFamily);
const CropPage = Type.Object({ count: Type.Integer(), next: Type.Union([Type.String(), Type.Null()]), results: Type.Array(Crop) });
const now = () => new Date().toISOString();

/** Where a pull that began stopped: "after 9 of 15 farms" (those farms are in the mirror, with their parcels); null before the farm list came. */
export function pullStoppedAt(p: PullProgress): string | null {
  const farms = `${p.farms} farm${p.farms === 1 ? '' : 's'}`;
  if (p.stage === 'farm list') return null;
  if (p.stage === 'changes') return 'while applying the changes since the last pull';
  return p.stage === 'farms' ? `after ${p.farmsDone} of ${farms}` : `after all ${farms}, at the ${p.stage}`;
}

/** "stopped after 9 of 15 farms: <reason>"; just the reason when nothing was pulled. */
export function pullStoppedText(p: PullProgress, reason: string): string {
  const at = pullStoppedAt(p);
  return at ? `stopped ${at}: ${reason}` : reason;
}

/**
 * Brings the service's state into the mirror (each object through sync/pull-merge.ts): only what changed since the
 * last pull when the service has a change feed and the saved cursor is still good, else every listing, with a cursor
 * taken before them for the next pull. Nothing local is silently overwritten.
 */
export async function pullAccount(ctx: AccountCtx): Promise<void> {
  const progress: PullProgress = { stage: 'farm list', farmsDone: 0, farms: 0 };
  ctx.pull = progress;
  // Deletions held back are applied only as the service lists things now: a deletion kept from an earlier pull (say a
  // faulty answer's) is confirmed by the listings before anything goes.
  const held = heldDeletions(ctx.db, ctx.account.id);
  const plan = await planPull(ctx, ctx.opts.acceptRemoteDeletions && held.length ? 'applying the deletions held: listing everything to confirm them' : null);
  if (plan.note) ctx.emit({ phase: 'pull', done: 0, total: 0, bytes: ctx.stats.bytes, message: plan.note });
  ctx.pullKind = plan.mode;
  ctx.pullNote = plan.note;
  let cursor = plan.cursor;
  if (plan.mode === 'changes') {
    Object.assign(progress, { stage: 'changes' });
    // The deletions held last time are weighed again with the new changes (the mirror keeps them: the cursor moved on).
    const applied = await applyChanges(ctx, [...heldTombstones(held), ...plan.changes]);
    // Objects it could not place are found only by a full listing.
    if (applied.unplaced) cursor = null;
  } else {
    await pullListings(ctx, progress);
    // What a listing no longer shows is weaker evidence than a tombstone (an empty or cut listing is the classic faulty
    // answer): deletions held from listings are looked for again by the next pull's listings, which then see the truth.
    if (ctx.held.length) cursor = null;
  }
  progress.stage = 'crop families';
  const families = expectShape(CropFamilies, (await getJson(ctx, '/api/crop-families/')).body, 'crop families');
  progress.stage = 'account';
  const limit = await agreedLimit(ctx);
  ctx.db.transaction(() => {
    replaceCropFamilies(ctx.db, ctx.account.id, families);
    if (limit !== null) setParcelLimit(ctx.db, ctx.account.id, limit);
    replaceHeldDeletions(ctx.db, ctx.account.id, ctx.heldIds);
    markPulled(ctx.db, ctx.account.id, now(), cursor);
  })();
}

/** Every listing: the farm list, each farm's parcels, the crops and the plants; what no longer shows is gone on the service. */
async function pullListings(ctx: AccountCtx, progress: PullProgress): Promise<void> {
  const farms = expectShape(FarmList, (await getJson(ctx, '/api/farms/')).body, 'farm list');
  Object.assign(progress, { stage: 'farms', farms: farms.length });
  // Progress in parcels, out of what the farm list says the farms hold: the farms vary in size, parcels do not.
  const total = farms.reduce((n, f) => n + f.parcel_count, 0);
  let merged = 0;
  const seenFarms = new Set<number>();
  // The next farm's listing is asked for while this one is merged into the mirror: the service answers while the
  // mirror writes (two requests in flight at most), where one after the other each waited for the other.
  const listings = new Map<number, Promise<FarmListing | null>>();
  const listingOf = (id: number): Promise<FarmListing | null> => {
    let p = listings.get(id);
    if (!p) {
      p = farmListing(ctx, id);
      p.catch(() => {}); // awaited (and its failure thrown) when its farm's turn comes; left alone if the pull stops first
      listings.set(id, p);
    }
    return p;
  };
  let done = 0;
  for (let i = 0; i < farms.length; i++) {
    const f = farms[i]!;
    if (seenFarms.has(f.id)) throw new Error(`The service listed farm ${f.id} twice: the farm list is not trustworthy, nothing was changed from it`);
    seenFarms.add(f.id);
    const local = ctx.db.transaction(() => pullFarm(ctx, f))();
    if (local) {
      const pending = listingOf(f.id);
      const next = farms[i + 1];
      if (next && !seenFarms.has(next.id)) listingOf(next.id);
      const listing = await pending;
      listings.delete(f.id);
      if (!listing) throw new Error(`Farm ${f.id} was listed but its parcels answer 404 (deleted meanwhile?): try again`);
      await pullParcels(ctx, local, listing.features, listing.complete, (n) => {
        merged += n;
        ctx.emit({ phase: 'pull', done: Math.min(merged, total), total, bytes: ctx.stats.bytes, message: `farm ${done + 1} of ${farms.length}: ${f.name}` });
      });
      ctx.stats.pulled += listing.features.length;
    }
    progress.farmsDone = ++done;
  }
  ctx.db.transaction(() => {
    const synced = syncedFarms(ctx.db, ctx.account.id);
    const gone = synced.filter((g) => !seenFarms.has(g.server_id!)).filter((farm) => !heldForWork(ctx, 'farm', farm.local_id));
    const goneParcels = gone.reduce((n, farm) => n + syncedParcelCountIn(ctx.db, farm.local_id), 0);
    const allParcels = syncedParcelCount(ctx.db, ctx.account.id);
    if (gone.length && !ctx.opts.acceptRemoteDeletions && (massDeletion(gone.length, synced.length, FARM_FLOOR) || massDeletion(goneParcels, allParcels, PARCEL_FLOOR))) {
      ctx.held.push(`the service no longer lists ${gone.length} of the ${synced.length} farms synced here (${goneParcels} parcels): nothing was deleted here`);
      for (const farm of gone) ctx.heldIds.push({ entity: 'farm', server_id: farm.server_id! });
    } else {
      for (const farm of gone) removedRemotely(ctx, 'farm', farm.local_id, farm.base, JSON.stringify({ name: farm.name }));
    }
  })();
  progress.stage = 'crops';
  await pullCrops(ctx);
  progress.stage = 'plants';
  await pullPlants(ctx);
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

/**
 * Parcels pulled per transaction: a turn of the event loop between them keeps the app's host answering. 2,500 (a
 * chunk of new parcels holds the thread ~60 ms): each commit writes again the R*Tree's pages its parcels touch, which
 * for parcels spread over the map is most of them; with 1,000 a first pull of 50,000 parcels wrote 16,654 WAL frames
 * for a mirror of 4,881 pages, with 2,500 11,716, and its commits took ~0.1 s less CPU.
 */
const PULL_CHUNK = 2500;

async function pullParcels(ctx: AccountCtx, farm: FarmRow, features: readonly ParcelFeature[], complete: boolean, onChunk: (parcels: number) => void): Promise<void> {
  const seen = new Set<number>();
  // In transactions of PULL_CHUNK parcels, not one for the farm: a farm of 20,000 parcels held the thread for a
  // second. Each parcel's pull stands alone (a pull stopped between chunks is simply redone by the next). What the
  // listing no longer holds is settled in the last chunk's transaction: one commit (one fsync) fewer per farm.
  for (let i = 0; i === 0 || i < features.length; i += PULL_CHUNK) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    const last = i + PULL_CHUNK >= features.length;
    ctx.db.transaction(() => {
      const chunk = features.slice(i, i + PULL_CHUNK);
      // Parcels the mirror has never held (a first pull: all of them) have nothing to merge with: inserted together
      // (db/pull.ts insertPulledParcels), the same rows pullParcel would write one at a time. One with our client
      // reference may be our own create whose answer was lost: it goes through pullParcel, which adopts it.
      const held = heldServerIds(ctx.db, ctx.account.id, chunk.map((f) => f.id));
      const fresh: PulledParcel[] = [];
      for (const f of chunk) {
        seen.add(f.id);
        if (held.has(f.id) || REF_KEY in f.properties.metadata) pullParcel(ctx, farm, f);
        else fresh.push({ columns: listedParcelColumns(f), server_id: f.id, key: f.properties.key });
      }
      ctx.stats.received += insertPulledParcels(ctx.db, ctx.account.id, farm.local_id, fresh, now());
      // A listing that ended early says nothing about the parcels it did not reach: none of them is taken as deleted.
      if (last && complete) goneFromListing(ctx, farm, seen);
    })();
    onChunk(Math.min(PULL_CHUNK, features.length - i));
  }
}

/** The farm's synced parcels its complete listing no longer holds: deleted on the service (under the guard). */
function goneFromListing(ctx: AccountCtx, farm: FarmRow, seen: ReadonlySet<number>): void {
  const locals = syncedParcelIdsOf(ctx.db, farm.local_id);
  const gone = locals.filter((l) => !seen.has(l.server_id)).filter((p) => !heldForWork(ctx, 'parcel', p.local_id));
  if (gone.length && !ctx.opts.acceptRemoteDeletions && massDeletion(gone.length, locals.length, PARCEL_FLOOR)) {
    ctx.held.push(`the service no longer lists ${gone.length} of the ${locals.length} parcels synced here in farm '${farm.name}': nothing was deleted here`);
    for (const p of gone) ctx.heldIds.push({ entity: 'parcel', server_id: p.server_id });
    return;
  }
  for (const p of gone) parcelRemovedRemotely(ctx, getRow(ctx.db, 'parcel', p.local_id)!);
}

/** Most pages a crop or plant listing may take (10 million crops, 100 million plants): past it, a pager that never ends. */
const MAX_PAGES = 10_000;

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
      pullCrop(ctx, c); // false: its parcel is not in the mirror (yet)
    }
    const locals = syncedCrops(ctx.db, ctx.account.id);
    for (const l of locals.filter((x) => !seen.has(x.server_id!))) cropRemovedRemotely(ctx, l);
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
  const plants = features.map(plantRow);
  ctx.db.transaction(() => {
    ctx.stats.plantsChanged += replacePlants(ctx.db, ctx.account.id, plants);
  })();
}
