// Which campaigns are the plan, and a farm's area by crop and by family campaign by campaign, past and planned.
//
// The spec's crop has no "planned" field, so the plan is told by time: the farm's **current campaign** is the newest
// one with a crop on the ground or sown (active, or with a sowing date); a crop of a later campaign is **planned**
// (it syncs as any crop: a crop whose campaign lies ahead). With no crop sown yet, the current campaign is the year
// of `today` (planned: the years after it).
import { campaignOrder, campaignYear } from './rotation.ts';
import type { PlanParcel } from './plan-rules.ts';

export interface DatedCrop { campaign: string | null; sowing: string | null; active: boolean }

/** The current campaign's year: the newest year of a crop active or sown, else today's year (`today` YYYY-MM-DD). */
export function currentCampaignYear(crops: readonly DatedCrop[], today: string): number {
  let year: number | null = null;
  for (const c of crops) {
    if (!c.active && c.sowing === null) continue;
    const y = campaignYear(c.campaign);
    if (y !== null && (year === null || y > year)) year = y;
  }
  return year ?? Number(today.slice(0, 4));
}

/** A campaign after the current one is planned; one without a year never is. */
export const isPlannedCampaign = (campaign: string | null, current: number): boolean => {
  const y = campaignYear(campaign);
  return y !== null && y > current;
};

export interface SummaryRow { campaign: string; planned: boolean; by: 'crop' | 'family'; name: string; family: string | null; hectares: number; share: number }

/**
 * Area by crop and by family, each campaign (oldest first) with its share of the campaign's cropped area: a parcel's
 * hectares shared equally among its crops of the campaign, as the diversification rule counts them.
 */
export function campaignSummary(parcels: readonly PlanParcel[], current: number): SummaryRow[] {
  const campaigns = campaignOrder(parcels.flatMap((p) => p.crops.map((c) => c.campaign))).filter((c): c is string => c !== null);
  const out: SummaryRow[] = [];
  for (const campaign of campaigns) {
    const crops = new Map<string, { name: string; family: string | null; hectares: number }>();
    const families = new Map<string, { name: string; hectares: number }>();
    let total = 0;
    for (const p of parcels) {
      const here = p.crops.filter((c) => c.campaign === campaign);
      for (const c of here) {
        const share = p.hectares / here.length;
        total += share;
        const name = c.name?.trim() || 'Unnamed crop';
        const row = crops.get(name.toLowerCase()) ?? { name, family: c.family, hectares: 0 };
        row.hectares += share;
        crops.set(name.toLowerCase(), row);
        const fam = c.family?.trim() || 'No family';
        const f = families.get(fam.toLowerCase()) ?? { name: fam, hectares: 0 };
        f.hectares += share;
        families.set(fam.toLowerCase(), f);
      }
    }
    const planned = isPlannedCampaign(campaign, current);
    const sorted = <T extends { name: string; hectares: number }>(m: Map<string, T>) => [...m.values()].sort((a, b) => b.hectares - a.hectares || a.name.localeCompare(b.name));
    for (const r of sorted(crops)) out.push({ campaign, planned, by: 'crop', name: r.name, family: r.family, hectares: r.hectares, share: total ? r.hectares / total : 0 });
    for (const r of sorted(families)) out.push({ campaign, planned, by: 'family', name: r.name, family: r.name, hectares: r.hectares, share: total ? r.hectares / total : 0 });
  }
  return out;
}

/** A CSV cell: quoted when it holds a comma, quote or line break; a leading = + - @ made text (no formula in a sheet). */
function cell(v: string | number | boolean | null): string {
  let s = v === null ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s) && typeof v === 'string') s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The summary as CSV (RFC 4180, CRLF): one row per campaign and crop or family, hectares to 4 decimals. */
export function summaryCsv(rows: readonly SummaryRow[]): string {
  const lines = [['campaign', 'planned', 'by', 'name', 'family', 'hectares', 'share'].join(',')];
  for (const r of rows) {
    lines.push([r.campaign, r.planned, r.by, r.name, r.by === 'crop' ? r.family : null, r.hectares.toFixed(4), r.share.toFixed(4)].map(cell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
