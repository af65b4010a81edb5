// What a map coloured by crop shows: the key each parcel is coloured by, and the legend of those in view.
import type { ColourBy, LegendEntry } from './rotation-store.ts';
import { familyColour } from '../../../core/crops/family-colours.ts';

export interface ActiveCrop { name: string | null; family: string | null }

/** The name a parcel is coloured by: its active crop's family or name; null without an active crop (or a name). */
export function colourKey(crop: ActiveCrop | null | undefined, by: ColourBy): string | null {
  if (!crop || by === 'state') return null;
  const key = by === 'family' ? crop.family : crop.name;
  return key?.trim() ? key.trim() : null;
}

/** At most this many entries in the legend; the rest are counted as others. */
export const LEGEND_MAX = 10;

/** The legend of the parcels shown: each key once (case ignored, as its colour), most parcels first, in `colourOf`'s colour. */
export function cropLegend(crops: readonly (ActiveCrop | null | undefined)[], by: ColourBy, colourOf: (key: string) => string = familyColour): { legend: LegendEntry[]; bare: number; unkeyed: number; others: number } {
  const seen = new Map<string, LegendEntry>();
  let bare = 0;
  // An active crop with no family (or, by name, a blank one): grey on the map like no crop, but not "no active crop".
  let unkeyed = 0;
  for (const c of crops) {
    const key = colourKey(c, by);
    if (key === null) {
      if (c) unkeyed++;
      else bare++;
      continue;
    }
    const k = key.toLowerCase();
    const e = seen.get(k);
    if (e) e.parcels++;
    else seen.set(k, { name: key, colour: colourOf(key), parcels: 1 });
  }
  const all = [...seen.values()].sort((a, b) => b.parcels - a.parcels || a.name.localeCompare(b.name));
  const legend = all.slice(0, LEGEND_MAX);
  return { legend, bare, unkeyed, others: all.slice(LEGEND_MAX).reduce((n, e) => n + e.parcels, 0) };
}
