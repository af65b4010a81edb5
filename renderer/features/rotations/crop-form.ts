// A crop as the form holds it (text in every field, as typed) and as the backend takes it (core/api.ts CropFields):
// read with the service's own crop rules (core/crops/validate.ts), so the form refuses what the service would.
import type { RotationCrop } from '../../../core/api.ts';
import { validateCropFields } from '../../../core/crops/validate.ts';
import { parseHectares } from '../../preview.ts';

export interface CropDraft {
  campaign: string; name: string; variety: string; family: string;
  sowing: string; closure: string; harvestedQty: string; area: string; active: boolean;
}

/** A family the account may pick, with the service's observation naming its crops (which inferFamily reads). */
export interface FamilyChoice { id: number; name: string; observation?: string }

/** What the backend's createCrop and updateCrop take of a crop's fields. */
export interface CropArgs {
  campaign: string | null; name: string | null; variety: string | null;
  family: { id: number } | { name: string } | null;
  sowing: string | null; closure: string | null; harvestedQty: number | null; area: number | null; active: boolean;
}

export const emptyCrop = (campaign = ''): CropDraft => ({ campaign, name: '', variety: '', family: '', sowing: '', closure: '', harvestedQty: '', area: '', active: true });

export const draftOf = (c: RotationCrop): CropDraft => ({
  campaign: c.campaign ?? '', name: c.name ?? '', variety: c.variety ?? '', family: c.family?.name ?? '',
  sowing: c.sowing ?? '', closure: c.closure ?? '', harvestedQty: c.harvestedQty === null ? '' : String(c.harvestedQty),
  area: c.area === null ? '' : String(c.area), active: c.active,
});

/** The form field each of the service's crop fields is typed in. */
const FIELD: Record<string, keyof CropDraft> = { name: 'name', campaign: 'campaign', variety: 'variety', sowing: 'sowing', closure: 'closure', harvested_qty: 'harvestedQty', area: 'area', is_active: 'active' };

const text = (s: string) => (s.trim() === '' ? null : s.trim());
/** A quantity as typed: a decimal comma is a decimal point; empty is none; not one plain number, NaN. */
function quantity(s: string): number | null {
  const t = s.trim();
  if (t === '') return null;
  // A sign is read, so that a negative quantity gets the service's own words (≥ 0), not "not a number".
  return t.startsWith('-') ? -parseHectares(t.slice(1)) : parseHectares(t);
}

/**
 * The crop the form holds, for the backend, or the problems of each field in the service's words. A family typed
 * as one of the account's (ignoring case) is that family; another name is a new family, created by the service at
 * the sync.
 */
export function readCrop(d: CropDraft, families: readonly FamilyChoice[]): { crop: CropArgs } | { problems: Partial<Record<keyof CropDraft, string>> } {
  const problems: Partial<Record<keyof CropDraft, string>> = {};
  const harvestedQty = quantity(d.harvestedQty);
  const area = quantity(d.area);
  if (Number.isNaN(harvestedQty)) problems.harvestedQty = 'Type the harvested quantity as a number, such as 4.5 or 4,5.';
  if (Number.isNaN(area)) problems.area = 'Type the area in hectares as a number, such as 2.5 or 2,5.';
  const fields = {
    name: text(d.name), campaign: text(d.campaign), variety: text(d.variety), sowing: text(d.sowing), closure: text(d.closure),
    harvested_qty: Number.isNaN(harvestedQty) ? null : harvestedQty, area: Number.isNaN(area) ? null : area, is_active: d.active,
  };
  for (const p of validateCropFields(fields)) {
    const field = FIELD[p.path];
    const words = p.message.replace(/^harvested_qty/, 'the harvested quantity').replace(/^is_active/, 'active');
    if (field && !problems[field]) problems[field] = `${words[0]!.toUpperCase()}${words.slice(1)}.`;
  }
  const family = text(d.family);
  if (family !== null && family.length > 120) problems.family = 'A family name has at most 120 characters.';
  if (Object.keys(problems).length) return { problems };
  const known = family === null ? undefined : families.find((f) => f.name.toLowerCase() === family.toLowerCase());
  return {
    crop: {
      campaign: fields.campaign, name: fields.name, variety: fields.variety, sowing: fields.sowing, closure: fields.closure,
      harvestedQty: fields.harvested_qty, area: fields.area, active: d.active,
      family: family === null ? null : known ? { id: known.id } : { name: family },
    },
  };
}

/** "2024/25" → "2025/26", "2024/2025" → "2025/2026", "2024" → "2025"; another label is left for the user to type. */
export function nextCampaign(campaign: string): string {
  const split = /^(\d{4})\/(\d{2}|\d{4})$/.exec(campaign);
  if (split) {
    const y = Number(split[1]) + 1;
    return `${y}/${split[2]!.length === 2 ? String((y + 1) % 100).padStart(2, '0') : y + 1}`;
  }
  return /^\d{4}$/.test(campaign) ? String(Number(campaign) + 1) : '';
}

/**
 * What the service accepts but a farm manager would want to know before saving, as sentences (never a refusal): an
 * area larger than the parcel, or another crop of the parcel active (saving then asks to close it: CropForm).
 */
export function cropWarnings(d: CropDraft, parcelHectares: number, others: readonly { name: string | null; campaign: string | null; active: boolean }[]): string[] {
  const out: string[] = [];
  const area = d.area.trim() === '' ? null : Number(d.area.trim().replace(',', '.'));
  if (area !== null && Number.isFinite(area) && area > parcelHectares + 1e-9) {
    out.push(`The area (${area} ha) is larger than the parcel (${parcelHectares.toFixed(2)} ha).`);
  }
  const active = d.active ? others.filter((o) => o.active) : [];
  if (active.length) {
    const names = active.map((o) => [o.name ?? 'a crop', o.campaign].filter(Boolean).join(' ')).join(', ');
    out.push(`${names} ${active.length === 1 ? 'is' : 'are'} active on this parcel: one crop is active at a time, so saving asks whether to close ${active.length === 1 ? 'it' : 'them'}.`);
  }
  return out;
}
