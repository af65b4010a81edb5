// One active crop per parcel at a time, and the parcel's crop_type metadata kept in step with it: pure rules the crop
// form and the parcel's rotation use.

export interface CropLike { id: string; name: string | null; campaign: string | null; sowing: string | null; closure: string | null; active: boolean }

/** The metadata key the service's demo and many growers' files name the parcel's current crop with. */
export const CROP_TYPE = 'crop_type';

/** A crop as a sentence names it: "Durum wheat 2025/2026". */
export const cropLabel = (c: Pick<CropLike, 'name' | 'campaign'>): string => [c.name ?? 'a crop', c.campaign].filter(Boolean).join(' ');

/**
 * The other active crops a new active one closes, each with the end it gets: its own closure if it has one, else the
 * new crop's sowing (or `today`, YYYY-MM-DD, without one) — never before its own sowing, which the service refuses.
 */
export function closing(others: readonly CropLike[], sowing: string | null, today: string): { id: string; closure: string; label: string }[] {
  const end = sowing ?? today;
  return others.filter((o) => o.active).map((o) => ({
    id: o.id, label: cropLabel(o),
    closure: o.closure ?? (o.sowing !== null && o.sowing > end ? o.sowing : end),
  }));
}

/** Today's date where the user is, YYYY-MM-DD. */
export function localDate(now = new Date()): string {
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/**
 * The parcel's crop_type and its active crop (the newest active, `crops` newest first) when they name different crops
 * (case and spaces ignored); null when they agree, or when either is missing.
 */
export function cropTypeMismatch(metadata: Record<string, unknown>, crops: readonly CropLike[]): { cropType: string; crop: CropLike & { name: string } } | null {
  const value = metadata[CROP_TYPE];
  if (typeof value !== 'string' || !value.trim()) return null;
  const active = crops.find((c) => c.active);
  if (!active?.name?.trim()) return null;
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');
  return norm(value) === norm(active.name) ? null : { cropType: value.trim(), crop: { ...active, name: active.name } };
}
