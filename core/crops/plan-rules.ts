// A farm's rotation plan checked against its rule set (core/crops/rule-set.ts), past campaigns and planned ones
// alike: each violation names the parcel (or the farm), the campaign and the rule that says so. Pure: the renderer
// runs it as the plan is edited, the backend when it exports the plan.
import { campaignOrder, campaignYear } from './rotation.ts';
import { ART44_LARGE, ART44_LARGE_ABOVE_HA, ART44_SMALL, type RuleSet, type Thresholds } from './rule-set.ts';

export interface PlanCrop { id: string; name: string | null; family: string | null; campaign: string | null }
/** A parcel and its crops; `hectares`: its geodesic area (core/geo/area.ts, as the mirror keeps it). */
export interface PlanParcel { id: string; name: string; hectares: number; crops: PlanCrop[] }

export type RuleCode = 'return_period' | 'same_crop' | 'same_family' | 'diversification';

export interface Violation {
  rule: RuleCode;
  /** The parcel and crop it is about; null for a farm-level rule (diversification). */
  parcel: string | null;
  crop: string | null;
  campaign: string;
  message: string;
}

/** Shares are compared with this much slack: 7.5 ha of 10 is 75 %, not 75.000000001 %. */
const EPS = 1e-9;
const key = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();
const pct = (x: number) => `${(Math.round(x * 1000) / 10).toLocaleString('en-US')} %`;
const ha = (x: number) => `${(Math.round(x * 100) / 100).toLocaleString('en-US')} ha`;

interface Dated { crop: PlanCrop; year: number }

function dated(p: PlanParcel): Dated[] {
  return p.crops.flatMap((crop) => {
    const year = campaignYear(crop.campaign);
    return year === null ? [] : [{ crop, year }];
  }).sort((a, b) => a.year - b.year);
}

/** A family back on a parcel sooner than its return period (counted in campaign years). */
function returnPeriods(p: PlanParcel, rules: RuleSet): Violation[] {
  const periods = new Map(rules.returnPeriods.map((r) => [key(r.family), r]));
  const list = dated(p);
  const out: Violation[] = [];
  for (const [i, b] of list.entries()) {
    const period = periods.get(key(b.crop.family));
    if (!period || period.years <= 1) continue;
    // The latest earlier crop of the family: the one the period runs from.
    const a = list.slice(0, i).reverse().find((x) => x.year < b.year && key(x.crop.family) === key(b.crop.family));
    if (!a || b.year - a.year >= period.years) continue;
    const gap = b.year - a.year;
    out.push({
      rule: 'return_period', parcel: p.id, crop: b.crop.id, campaign: b.crop.campaign!,
      message: `${period.family} back on ${p.name} in ${b.crop.campaign}, ${gap} year${gap === 1 ? '' : 's'} after ${a.crop.name ?? 'a crop'} (${a.crop.campaign}): its return period is ${period.years} years`,
    });
  }
  return out;
}

/** The same crop (or family) more campaigns running than the rule allows: named on each campaign past the limit. */
function streaks(p: PlanParcel, max: number, by: 'crop' | 'family'): Violation[] {
  if (max <= 0) return [];
  const list = dated(p);
  const what = (c: PlanCrop) => key(by === 'crop' ? c.name : c.family);
  const years = new Map<string, Map<number, PlanCrop>>();
  for (const { crop, year } of list) {
    const k = what(crop);
    if (!k) continue;
    const m = years.get(k) ?? new Map<number, PlanCrop>();
    if (!m.has(year)) m.set(year, crop);
    years.set(k, m);
  }
  const out: Violation[] = [];
  for (const m of years.values()) {
    let run = 0;
    let first = 0;
    for (const year of [...m.keys()].sort((a, b) => a - b)) {
      run = m.has(year - 1) ? run + 1 : 1;
      if (run === 1) first = year;
      if (run <= max) continue;
      const crop = m.get(year)!;
      const name = by === 'crop' ? crop.name : crop.family;
      out.push({
        rule: by === 'crop' ? 'same_crop' : 'same_family', parcel: p.id, crop: crop.id, campaign: crop.campaign!,
        message: `${name} ${run} campaigns running on ${p.name} (${m.get(first)!.campaign} to ${crop.campaign}): at most ${max} ${by === 'crop' ? 'of the same crop' : 'of one family'}`,
      });
    }
  }
  return out;
}

export interface CampaignArea {
  campaign: string;
  /** Arable hectares (permanent crops left out) and each arable crop's, largest first. */
  arable: number;
  crops: { name: string; hectares: number }[];
}

/**
 * The arable area of each campaign by crop: a parcel's hectares shared equally among its crops of the campaign
 * (the spec's crop area has no stated unit, so it is not used), those on permanent land left out.
 */
export function arableByCampaign(parcels: readonly PlanParcel[], rules: RuleSet): CampaignArea[] {
  const permanent = new Set(rules.permanentCrops.map(key));
  const byCampaign = new Map<string, Map<string, { name: string; hectares: number }>>();
  for (const p of parcels) {
    const inCampaign = new Map<string, PlanCrop[]>();
    for (const c of p.crops) {
      if (c.campaign === null || permanent.has(key(c.name))) continue;
      inCampaign.set(c.campaign, [...(inCampaign.get(c.campaign) ?? []), c]);
    }
    for (const [campaign, crops] of inCampaign) {
      const m = byCampaign.get(campaign) ?? new Map<string, { name: string; hectares: number }>();
      for (const c of crops) {
        const name = c.name?.trim() || c.family?.trim() || 'Unnamed crop';
        const row = m.get(key(name)) ?? { name, hectares: 0 };
        row.hectares += p.hectares / crops.length;
        m.set(key(name), row);
      }
      byCampaign.set(campaign, m);
    }
  }
  const order = campaignOrder(byCampaign.keys());
  return [...byCampaign].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)).map(([campaign, m]) => {
    const crops = [...m.values()].sort((a, b) => b.hectares - a.hectares || a.name.localeCompare(b.name));
    return { campaign, arable: crops.reduce((s, c) => s + c.hectares, 0), crops };
  });
}

/** The thresholds that hold for an arable area, with the words naming them; null when exempt or not checked. */
export function thresholdsFor(arable: number, rules: RuleSet): { t: Thresholds; rule: string } | null {
  if (rules.diversification === 'off') return null;
  if (rules.diversification === 'custom') {
    return arable + EPS < rules.custom.exemptBelowHa ? null : { t: rules.custom, rule: 'your diversification thresholds' };
  }
  if (arable + EPS < ART44_SMALL.exemptBelowHa) return null;
  return arable > ART44_LARGE_ABOVE_HA + EPS
    ? { t: ART44_LARGE, rule: 'Regulation (EU) No 1307/2013, Art. 44(1), over 30 ha of arable land' }
    : { t: ART44_SMALL, rule: 'Regulation (EU) No 1307/2013, Art. 44(1), 10 to 30 ha of arable land' };
}

/** Crop diversification of one campaign's arable area: every threshold missed, named with its rule. */
export function diversification(area: CampaignArea, rules: RuleSet): Violation[] {
  const held = thresholdsFor(area.arable, rules);
  if (!held) return [];
  const { t, rule } = held;
  const v = (message: string): Violation => ({ rule: 'diversification', parcel: null, crop: null, campaign: area.campaign, message: `${message} (${rule})` });
  const out: Violation[] = [];
  const n = area.crops.length;
  if (n < t.minCrops) out.push(v(`${area.campaign}: ${n} crop${n === 1 ? '' : 's'} on ${ha(area.arable)} of arable land, at least ${t.minCrops} needed`));
  const [main, second] = area.crops;
  if (main && main.hectares / area.arable > t.mainMax + EPS) {
    out.push(v(`${area.campaign}: ${main.name} covers ${pct(main.hectares / area.arable)} of the arable land, at most ${pct(t.mainMax)}`));
  }
  if (t.twoMainMax !== null && main && second && (main.hectares + second.hectares) / area.arable > t.twoMainMax + EPS) {
    out.push(v(`${area.campaign}: ${main.name} and ${second.name} cover ${pct((main.hectares + second.hectares) / area.arable)} together, at most ${pct(t.twoMainMax)}`));
  }
  return out;
}

/** Every violation of the farm's plan, parcel by parcel (return periods, streaks), then campaign by campaign. */
export function checkPlan(parcels: readonly PlanParcel[], rules: RuleSet): Violation[] {
  const out: Violation[] = [];
  for (const p of parcels) {
    out.push(...returnPeriods(p, rules), ...streaks(p, rules.maxSameCrop, 'crop'), ...streaks(p, rules.maxSameFamily, 'family'));
  }
  for (const area of arableByCampaign(parcels, rules)) out.push(...diversification(area, rules));
  return out;
}
