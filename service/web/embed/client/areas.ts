// Where an account's parcels are. An account with farms in two regions fitted as a whole is a continent with a
// few dots; the map opens on the area with the most parcels instead and offers the others by name.
import type Feature from 'ol/Feature.js';
import { createEmpty, extend, getCenter, type Extent } from 'ol/extent.js';
import { toLonLat } from 'ol/proj.js';

export interface Area {
  features: Feature[];
  /** In the map's projection. */
  extent: Extent;
  hectares: number;
  /** Its farms' names, the farm with the most parcels first. */
  farms: string[];
}

/**
 * Parcels closer than LINK_METRES (up to about three times that, diagonally across grid cells) belong to one
 * area: a farm's fields, or neighbouring farms, stay together; two regions do not.
 */
const LINK_METRES = 10_000;

/**
 * Areas by grid cells rather than by pairs of parcels: parcels in neighbouring cells are linked, so 50,000 parcels
 * cost 50,000 cell lookups, not 50,000² distances. Sorted by parcel count, then hectares: the first is the main one.
 */
export function areasOf(features: readonly Feature[], farmNames: Record<string, string>): Area[] {
  if (features.length === 0) return [];
  const centres = features.map((f) => getCenter(f.getGeometry()!.getExtent()));
  // Web Mercator stretches distances by 1/cos(latitude): size the cells for the middle of the account.
  const lats = centres.map((c) => toLonLat(c)[1]!).sort((a, b) => a - b);
  const cell = LINK_METRES / Math.cos((lats[lats.length >> 1]! * Math.PI) / 180);

  const cells = new Map<string, number[]>();
  centres.forEach(([x, y], i) => {
    const key = `${Math.floor(x! / cell)},${Math.floor(y! / cell)}`;
    const members = cells.get(key);
    if (members) members.push(i);
    else cells.set(key, [i]);
  });

  // Union-find over the occupied cells, each joined with its occupied neighbours.
  const keys = [...cells.keys()];
  const index = new Map(keys.map((k, i) => [k, i]));
  const parent = keys.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  keys.forEach((k, i) => {
    const [cx, cy] = k.split(',').map(Number) as [number, number];
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        const j = index.get(`${cx + dx},${cy + dy}`);
        if (j !== undefined) parent[root(j)] = root(i);
      }
    }
  });

  const groups = new Map<number, Feature[]>();
  keys.forEach((k, i) => {
    const r = root(i);
    const members = cells.get(k)!.map((n) => features[n]!);
    const g = groups.get(r);
    if (g) g.push(...members);
    else groups.set(r, members);
  });

  return [...groups.values()].map((fs) => {
    const extent = createEmpty();
    const perFarm = new Map<string, number>();
    let hectares = 0;
    for (const f of fs) {
      extend(extent, f.getGeometry()!.getExtent());
      hectares += Number(f.get('hectares')) || 0;
      const farm = farmNames[String(f.get('farm'))];
      if (farm) perFarm.set(farm, (perFarm.get(farm) ?? 0) + 1);
    }
    const farms = [...perFarm].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name);
    return { features: fs, extent, hectares, farms };
  }).sort((a, b) => b.features.length - a.features.length || b.hectares - a.hectares);
}

/** "Finca El Olivar", "Finca El Olivar and Almendral La Vega", "Finca El Olivar and 3 other farms". */
export function areaLabel(a: Area): string {
  if (a.farms.length === 0) return 'Parcels';
  if (a.farms.length === 1) return a.farms[0]!;
  if (a.farms.length === 2) return `${a.farms[0]} and ${a.farms[1]}`;
  return `${a.farms[0]} and ${a.farms.length - 1} other farms`;
}
