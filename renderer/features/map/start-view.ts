// Which parcels the start's view fits: a pure choice over a sample of the account's parcels (the viewport's first
// answers over the whole world), so a big account opens on one farm at field scale instead of every parcel as a dot.
import type { ParcelFeature } from '../../../core/api.ts';

/**
 * The sample's parcels of `farm` (the largest farm, or the one the list asked for). When the sample holds none of
 * them (an account of 100,000 parcels: a sample of a few thousand need not reach that farm) and no farm was asked
 * for, those of the farm the sample holds most of; with no farm at all, the whole sample.
 */
export function startParcels(sample: readonly ParcelFeature[], farm: string | null, asked: boolean): ParcelFeature[] {
  if (!farm) return [...sample];
  const wanted = sample.filter((f) => f.properties.farm === farm);
  if (wanted.length || asked) return wanted;
  const count = new Map<string, number>();
  let best: string | null = null;
  for (const f of sample) {
    const n = (count.get(f.properties.farm) ?? 0) + 1;
    count.set(f.properties.farm, n);
    if (best === null || n > count.get(best)!) best = f.properties.farm;
  }
  return best === null ? [] : sample.filter((f) => f.properties.farm === best);
}
