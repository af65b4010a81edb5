// Crop rotations for farm managers (core/api.ts: rotation, farmRotation, cropFamilies, createCrop, updateCrop,
// deleteCrop): a parcel's crops newest first and a farm's parcels × campaigns, each crop flagged when its botanical
// family follows itself on the parcel (core/crops/rotation.ts), and crop edits through the outbox like parcel edits.
import type { Mirror } from '../db/mirror.ts';
import { EditError, type CropInput } from '../db/writer.ts';
import type { CropRow } from '../db/types.ts';
import type { FamilyRow } from '../db/rotations.ts';
import { campaignOrder, familyRepeats, newestFirst, type RotationEntry } from '../core/crops/rotation.ts';
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import type { Api, RotationCrop } from '../core/api.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { accountOf, farmOf } from './views.ts';
import { currentCampaignYear } from '../core/crops/campaign-summary.ts';
import { today } from './plan.ts';
import type { HostContext } from './context.ts';

type Handlers = HandlersOf<Api>;
type CropArgs = Omit<Parameters<Handlers['updateCrop']>[0], 'id'>;


/** Map.groupBy, which Node 20 lacks. */
function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

const entry = (c: CropRow): RotationEntry => ({
  id: c.local_id, campaign: c.campaign, sowing: c.sowing, closure: c.closure, active: c.is_active === 1,
  family: c.family_id === null && c.family_name === null ? null : { id: c.family_id, name: c.family_name },
});

/**
 * The crops as the API shows them, in the order given, with their sync state and warnings. `history`: every crop of
 * their parcels, for the rule (a crop follows one that may not be shown, in a campaign filtered out).
 */
function cropViews(m: Mirror, accountId: string, crops: readonly CropRow[], history: readonly CropRow[] = crops): RotationCrop[] {
  const families = new Map(m.read.cropFamilies(accountId).map((f) => [f.id, f]));
  const byParcel = groupBy(history, (c) => c.parcel_local_id);
  const named = new Map(history.map((c) => [c.local_id, c]));
  const repeats = new Map([...byParcel.values()].flatMap((list) => [...familyRepeats(list.map(entry))]));
  const states = m.read.syncStates('crop', crops.map((c) => c.local_id));
  const familyName = (c: CropRow) => c.family_name ?? (c.family_id !== null ? families.get(c.family_id)?.name ?? `family ${c.family_id}` : null);
  return crops.map((c) => {
    const s = states.get(c.local_id)!;
    const name = familyName(c);
    return {
      id: c.local_id, parcel: c.parcel_local_id!, serverId: c.server_id, campaign: c.campaign, name: c.name, variety: c.variety,
      family: name === null ? null : { id: c.family_id, name }, sowing: c.sowing, closure: c.closure,
      harvestedQty: c.harvested_qty, area: c.area, active: c.is_active === 1, state: s.state, reason: s.reason,
      warnings: (repeats.get(c.local_id) ?? []).map((r) => {
        const before = named.get(r.after)!;
        const what = [before.name ?? 'a crop', before.campaign ?? before.sowing].filter((x) => x !== null).join(', ');
        return { code: 'family_repeats' as const, after: r.after, family: r.family, by: r.by, message: `${r.family} again on this parcel, right after ${what}` };
      }),
    };
  });
}

function liveParcel(m: Mirror, id: string) {
  const p = m.read.parcel(id);
  if (!p || p.deleted) throw new RpcError(ApiErrorCode.notFound, `No parcel ${id}`);
  return p;
}

function liveCrop(m: Mirror, id: string): CropRow {
  const c = m.read.crop(id);
  if (!c || c.deleted) throw new RpcError(ApiErrorCode.notFound, `No crop ${id}`);
  return c;
}

/** The writer's input for the fields given (only those: an absent field is left as it is). */
export function cropInput(m: Mirror, accountId: string, f: CropArgs): CropInput {
  const out: CropInput = {};
  if (f.name !== undefined) out.name = f.name;
  if (f.campaign !== undefined) out.campaign = f.campaign;
  if (f.variety !== undefined) out.variety = f.variety;
  if (f.sowing !== undefined) out.sowing = f.sowing;
  if (f.closure !== undefined) out.closure = f.closure;
  if (f.harvestedQty !== undefined) out.harvested_qty = f.harvestedQty;
  if (f.area !== undefined) out.area = f.area;
  if (f.active !== undefined) out.is_active = f.active;
  if (f.family === null) Object.assign(out, { family_id: null, family_name: null });
  else if (f.family !== undefined) {
    const known: FamilyRow | undefined = m.read.findFamily(accountId, f.family);
    // The service refuses an unknown family id, and a new name unless the organization's API key sends it (an
    // account's token only picks among the families): refused here rather than rejected at the sync.
    const unknown = 'id' in f.family ? `No crop family ${f.family.id} in this account` : m.read.account(accountId)?.mode === 'bearer'
      ? `No crop family named '${f.family.name.trim()}': this account's token can only pick one of the service's families (adding one needs the organization's API key)` : null;
    if (!known && unknown !== null) {
      const message = `${unknown}; a sync brings the service's latest families`;
      throw new RpcError(ApiErrorCode.invalidCrop, message, [{ path: 'family', code: 'unknown_family', message }]);
    }
    Object.assign(out, { family_id: known?.id ?? null, family_name: known?.name ?? ('name' in f.family ? f.family.name.trim() : null) });
  }
  return out;
}

/** The writer's refusals of a crop carry its problems (core/crops/validate.ts) under the crop's own code. */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof EditError) throw new RpcError(ApiErrorCode.invalidCrop, err.message, err.problems);
    throw err;
  }
}

const cropView = (m: Mirror, id: string): RotationCrop => {
  const c = liveCrop(m, id);
  return cropViews(m, c.account_id, [c], m.read.crops(c.parcel_local_id!))[0]!;
};

export function rotationHandlers(ctx: HostContext): Pick<Handlers, 'rotation' | 'farmRotation' | 'cropFamilies' | 'cropColourNames' | 'createCrop' | 'updateCrop' | 'deleteCrop'> {
  return {
    rotation: ({ parcel }) => {
      const m = ctx.mirror;
      const p = liveParcel(m, parcel);
      return cropViews(m, p.account_id, m.read.crops(p.local_id).sort(newestFirst));
    },

    farmRotation: ({ farm, campaign }) => {
      const m = ctx.mirror;
      const f = farmOf(m, farm);
      const history = m.read.farmCrops(f.local_id).sort(newestFirst);
      const shown = campaign === undefined ? history : history.filter((c) => c.campaign === campaign);
      const crops = groupBy(cropViews(m, f.account_id, shown, history), (c) => c.parcel);
      const campaigns = campaign === undefined ? campaignOrder(history.map((c) => c.campaign)) : [campaign];
      const parcels = m.read.parcels(f.local_id).sort((a, b) => a.name.localeCompare(b.name) || (a.local_id < b.local_id ? -1 : 1));
      const current = currentCampaignYear(history.map((c) => ({ campaign: c.campaign, sowing: c.sowing, active: c.is_active === 1 })), today());
      return {
        farm: f.local_id, current, campaigns,
        parcels: parcels.map((p) => ({
          parcel: p.local_id, name: p.name, hectares: p.hectares,
          cells: campaigns.map((c) => {
            const inCell = (crops.get(p.local_id) ?? []).filter((x) => x.campaign === c);
            return { campaign: c, crops: inCell, familyRepeats: inCell.some((x) => x.warnings.length > 0) };
          }),
        })),
      };
    },

    cropFamilies: ({ account }) => {
      const m = ctx.mirror;
      accountOf(m, account);
      return m.read.cropFamilies(account);
    },

    cropColourNames: ({ account }) => {
      const m = ctx.mirror;
      accountOf(m, account);
      return m.read.colourNames(account);
    },

    createCrop: ({ parcel, ...fields }) => ctx.jobs.write(() => {
      const m = ctx.mirror;
      const p = liveParcel(m, parcel);
      const row = checked(() => m.write.createCrop(p.account_id, p.local_id, cropInput(m, p.account_id, fields)));
      return cropView(m, row.local_id);
    }),

    updateCrop: ({ id, ...fields }) => ctx.jobs.write(() => {
      const m = ctx.mirror;
      const c = liveCrop(m, id);
      checked(() => m.write.updateCrop(c.local_id, cropInput(m, c.account_id, fields)));
      return cropView(m, id);
    }),

    deleteCrop: ({ id }) => ctx.jobs.write(() => {
      const m = ctx.mirror;
      checked(() => m.write.deleteCrop(liveCrop(m, id).local_id));
      return null;
    }),
  };
}
