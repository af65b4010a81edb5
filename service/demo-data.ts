// Deterministic demo geography: irregular fields around two real farming regions, an orchard's trees.
import { pointInRing } from '../core/geo/contains.ts';
import type { Position, PolygonCoords } from '../core/geo/types.ts';

const M_PER_DEG_LAT = 111_132;
const mPerDegLon = (lat: number) => 111_320 * Math.cos((lat * Math.PI) / 180);

/** A convex, slightly irregular field of roughly `hectares` around a centre, as a closed ring. */
export function fieldPolygon(lon: number, lat: number, hectares: number, rand: () => number, sides = 6): PolygonCoords {
  const radius = Math.sqrt((hectares * 10_000) / (0.5 * sides * Math.sin((2 * Math.PI) / sides)));
  const rot = rand() * Math.PI;
  const ring: Position[] = [];
  for (let i = 0; i < sides; i++) {
    const a = rot + (i * 2 * Math.PI) / sides + (rand() - 0.5) * 0.3;
    const r = radius * (0.85 + rand() * 0.3);
    ring.push([round(lon + (r * Math.cos(a)) / mPerDegLon(lat)), round(lat + (r * Math.sin(a)) / M_PER_DEG_LAT)]);
  }
  ring.push([...ring[0]!]);
  return [ring];
}

const round = (x: number) => Math.round(x * 1e7) / 1e7;

export interface DemoTree { point: Position; shape: PolygonCoords; info: Record<string, unknown> }

/** Trees on rows (6 m between rows, 5 m along them) inside the parcel, each with a crown polygon. */
export function orchardTrees(parcel: PolygonCoords, rand: () => number, species = 'almond'): DemoTree[] {
  const ring = parcel[0]!;
  const lons = ring.map((p) => p[0]!);
  const lats = ring.map((p) => p[1]!);
  const [minx, maxx, miny, maxy] = [Math.min(...lons), Math.max(...lons), Math.min(...lats), Math.max(...lats)];
  const lat0 = (miny + maxy) / 2;
  const dLat = 6 / M_PER_DEG_LAT;
  const dLon = 5 / mPerDegLon(lat0);
  const trees: DemoTree[] = [];
  let row = 0;
  for (let y = miny + dLat / 2; y < maxy; y += dLat, row++) {
    let n = 0;
    for (let x = minx + dLon / 2; x < maxx; x += dLon) {
      const pt = [round(x), round(y)];
      if (!pointInRing(pt, ring)) continue;
      n++;
      const crown = 1.1 + rand() * 0.9;
      const shape: Position[] = [];
      for (let k = 0; k < 12; k++) {
        const a = (k * 2 * Math.PI) / 12;
        shape.push([round(x + (crown * Math.cos(a)) / mPerDegLon(y)), round(y + (crown * Math.sin(a)) / M_PER_DEG_LAT)]);
      }
      shape.push([...shape[0]!]);
      const health = rand();
      trees.push({
        point: pt,
        shape: [shape],
        info: { species, row: row + 1, tree: n, crown_diameter_m: Math.round(crown * 200) / 100, health: health > 0.9 ? 'stressed' : health > 0.97 ? 'missing' : 'healthy' },
      });
    }
  }
  return trees;
}
