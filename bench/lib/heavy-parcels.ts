// Parcels at the vertex cap (MAX_POSITIONS_PER_PARCEL positions each, closing one included) for the heavy-batch
// benchmark: a comb, the shape a sweep that prunes only by x-range handles in quadratic time (its long edges all
// span the same x-range), and an ordinary field boundary surveyed densely. Both are simple and valid by construction.
import { seededRandom } from '../../core/random.ts';
import { MAX_POSITIONS_PER_PARCEL } from '../../core/parcels/validate.ts';
import type { ParcelInput } from './parcels.ts';

const M_PER_DEG = 111_320;

/**
 * A comb: a spine on the west side and teeth reaching east across the full width, as a serpentine fence line or
 * a row-by-row harvest boundary would. `positions` counts the closing position; spare positions become extra
 * vertices along the spine (collinear, as real data has them).
 */
export function combRing(lon: number, lat: number, positions = MAX_POSITIONS_PER_PARCEL, widthDeg = 0.01, heightDeg = 0.01): number[][] {
  const teeth = Math.floor((positions - 3) / 4);
  const spare = positions - 3 - 4 * teeth;
  const step = heightDeg / teeth;
  const spine = widthDeg / 50;
  const ring: number[][] = [[lon, lat]];
  for (let i = 0; i < teeth; i++) {
    const y = lat + i * step;
    ring.push([lon + spine, y], [lon + widthDeg, y], [lon + widthDeg, y + step / 2], [lon + spine, y + step / 2]);
  }
  ring.push([lon, lat + heightDeg]);
  for (let k = spare; k >= 1; k--) ring.push([lon, lat + (heightDeg * k) / (spare + 1)]);
  ring.push([lon, lat]);
  return ring;
}

/**
 * A field boundary of `positions` positions: a rounded, slightly lobed outline of about `radiusM` metres with
 * centimetre jitter, every vertex at a strictly increasing angle around the centre (so never self-crossing).
 */
export function fieldRing(seed: number, lon: number, lat: number, positions = MAX_POSITIONS_PER_PARCEL, radiusM = 380): number[][] {
  const next = seededRandom(seed);
  const n = positions - 1;
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const lobes = 2 + Math.floor(next() * 4);
  const phase = next() * 2 * Math.PI;
  const step = (2 * Math.PI) / n;
  const ring: number[][] = [];
  for (let i = 0; i < n; i++) {
    const a = i * step + next() * step * 0.5;
    const r = radiusM * (1 + 0.12 * Math.sin(lobes * a + phase)) + (next() - 0.5) * 0.05;
    ring.push([lon + (r * Math.cos(a)) / (M_PER_DEG * cosLat), lat + (r * Math.sin(a)) / M_PER_DEG]);
  }
  ring.push([ring[0]![0]!, ring[0]![1]!]);
  return ring;
}

export type HeavyShape = 'comb' | 'field';

/** 50 parcels (or `count`) of the given shape at the vertex cap, laid out side by side; batch `seed` varies them. */
export function heavyParcels(shape: HeavyShape, seed: number, count = 50): ParcelInput[] {
  const out: ParcelInput[] = [];
  for (let i = 0; i < count; i++) {
    const lon = -5 + (i % 10) * 0.015;
    const lat = 38 + Math.floor(i / 10) * 0.015 + (seed % 100) * 0.1;
    const ring = shape === 'comb' ? combRing(lon, lat) : fieldRing(seed * 1000 + i, lon + 0.005, lat + 0.005);
    out.push({
      name: `${shape === 'comb' ? 'Comb' : 'Field'} ${seed}-${i + 1}`,
      metadata: { 'Supplier ID': `SUP-${String(seed * 100 + i).padStart(5, '0')}`, region: 'Andalucía', contract_year: '2024', crop_type: 'vineyard', certification: 'organic' },
      geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } },
    });
  }
  return out;
}
