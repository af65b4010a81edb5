// The rotation table's plan, as plain data: the farm's grid (farmRotation) read as core's plan (parcels with their
// crops and geodesic hectares), the campaigns to plan (the two after the current one, and any planned already), the
// violations of the farm's rule set placed on their cells and columns, and what applying a pattern or moving a crop
// writes. Pure: FarmRotationTable and its parts draw it and send the edits.
import type { FarmRotation, RotationCrop } from '../../../core/api.ts';
import { checkPlan, type PlanParcel, type Violation } from '../../../core/crops/plan-rules.ts';
import { isPlannedCampaign } from '../../../core/crops/campaign-summary.ts';
import { campaignOrder } from '../../../core/crops/rotation.ts';
import { inferFamily, type ListedFamily } from '../../../core/crops/infer-family.ts';
import type { RuleSet } from '../../../core/crops/rule-set.ts';
import { nextCampaign } from './crop-form.ts';

/** How many campaigns after the current one the table offers to plan. */
export const PLAN_AHEAD = 2;

export function planParcels(grid: FarmRotation): PlanParcel[] {
  return grid.parcels.map((p) => ({
    id: p.parcel, name: p.name, hectares: p.hectares,
    crops: p.cells.flatMap((c) => c.crops.map((x) => ({ id: x.id, name: x.name, family: x.family?.name ?? null, campaign: x.campaign }))),
  }));
}

/**
 * The campaigns the table shows: the grid's (oldest first) and, after the current one, the next PLAN_AHEAD labelled
 * like the current one ('2025/2026' → '2026/2027', '2027/2028'); the crops without a campaign last.
 */
export function planColumns(grid: FarmRotation): (string | null)[] {
  const labelled = grid.campaigns.filter((c): c is string => c !== null);
  const current = [...labelled].reverse().find((c) => !isPlannedCampaign(c, grid.current)) ?? String(grid.current);
  const ahead: string[] = [];
  for (let c = current, i = 0; i < PLAN_AHEAD; i++) {
    c = nextCampaign(c);
    if (!c) break;
    ahead.push(c);
  }
  return campaignOrder([...grid.campaigns, ...ahead]);
}

export const isPlanned = (campaign: string | null, grid: FarmRotation) => isPlannedCampaign(campaign, grid.current);

/** The crops of a parcel in a campaign (none when the grid has no cell for a campaign still to plan). */
export function cellCrops(grid: FarmRotation, parcel: string, campaign: string | null): RotationCrop[] {
  return grid.parcels.find((p) => p.parcel === parcel)?.cells.find((c) => c.campaign === campaign)?.crops ?? [];
}

export interface PlacedViolations {
  all: Violation[];
  /** By `${parcel}|${campaign}`: what a cell breaks. */
  cells: Map<string, Violation[]>;
  /** By campaign: the farm-level ones (diversification). */
  campaigns: Map<string, Violation[]>;
}

export const cellKey = (parcel: string, campaign: string | null) => `${parcel}|${campaign ?? ''}`;

export function placeViolations(grid: FarmRotation, rules: RuleSet): PlacedViolations {
  const all = checkPlan(planParcels(grid), rules);
  const cells = new Map<string, Violation[]>();
  const campaigns = new Map<string, Violation[]>();
  for (const v of all) {
    const [m, k] = v.parcel === null ? [campaigns, v.campaign] : [cells, cellKey(v.parcel, v.campaign)];
    m.set(k, [...(m.get(k) ?? []), v]);
  }
  return { all, cells, campaigns };
}

/** The rule's name as the table says it. */
export const RULE_NAMES: Record<Violation['rule'], string> = {
  return_period: 'Return period', same_crop: 'Monoculture (same crop)', same_family: 'Monoculture (same family)', diversification: 'Crop diversification',
};

/**
 * The family a planned crop gets from its name: the family the farm already grows it in (Chickpea → Fabaceae as on
 * the other parcels), else core's inference from the account's families; null when neither knows it.
 */
export function familyFor(name: string, grid: FarmRotation, families: readonly ListedFamily[]): string | null {
  const key = name.trim().toLowerCase();
  if (!key) return null;
  for (const p of grid.parcels) for (const c of p.cells) for (const x of c.crops) if (x.name?.trim().toLowerCase() === key && x.family) return x.family.name;
  return inferFamily(name, families);
}

export type PlanEdit =
  | { kind: 'create'; parcel: string; campaign: string; name: string; family: string | null }
  | { kind: 'update'; id: string; name: string; family: string | null }
  | { kind: 'delete'; id: string };

/**
 * What applying a pattern writes: on each parcel given, for each campaign of the pattern with a crop named, that
 * crop as the cell's one planned crop — the cell's first crop renamed when it differs, the others removed, one
 * created in an empty cell. Campaigns left blank in the pattern are left as they are; only planned cells are touched.
 */
export function patternEdits(grid: FarmRotation, parcels: readonly string[], pattern: ReadonlyMap<string, string>, family: (name: string) => string | null): PlanEdit[] {
  const out: PlanEdit[] = [];
  for (const parcel of parcels) {
    for (const [campaign, raw] of pattern) {
      const name = raw.trim();
      if (!name || !isPlanned(campaign, grid)) continue;
      const [first, ...rest] = cellCrops(grid, parcel, campaign);
      const fam = family(name);
      if (!first) out.push({ kind: 'create', parcel, campaign, name, family: fam });
      else if (first.name !== name || (first.family?.name ?? null) !== fam) out.push({ kind: 'update', id: first.id, name, family: fam });
      for (const r of rest) out.push({ kind: 'delete', id: r.id });
    }
  }
  return out;
}

/** A parcel's planned crops as a pattern (campaign → crop name), to copy onto others. */
export function patternOf(grid: FarmRotation, parcel: string, campaigns: readonly string[]): Map<string, string> {
  return new Map(campaigns.map((c) => [c, cellCrops(grid, parcel, c)[0]?.name ?? '']));
}
