// The [minLon, minLat, maxLon, maxLat] box of GeoJSON geometry, for "zoom to": pure, so it is tested without a map.
import type { LonLatBox } from '../browse-store.ts';

type Positions = number[] | Positions[];

function extend(box: LonLatBox, p: Positions): void {
  if (typeof p[0] === 'number') {
    const [lon, lat] = p as number[];
    box[0] = Math.min(box[0], lon!); box[1] = Math.min(box[1], lat!);
    box[2] = Math.max(box[2], lon!); box[3] = Math.max(box[3], lat!);
  } else for (const q of p as Positions[]) extend(box, q);
}

/** The box of every position of the geometries (Polygon, Point, …), or null when they hold none. */
export function boxOf(geometries: readonly { type: string; coordinates: unknown }[]): LonLatBox | null {
  const box: LonLatBox = [Infinity, Infinity, -Infinity, -Infinity];
  for (const g of geometries) extend(box, g.coordinates as Positions);
  return Number.isFinite(box[0]) ? box : null;
}
