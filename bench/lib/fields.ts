// Realistic, reproducible field data for the mirror benchmarks (import, queries): farms of adjoining fields laid
// out on a jittered grid, each field an irregular star-shaped polygon (simple and valid by construction), with a
// Spanish-style field name and five metadata values of the shapes the service spec shows.

import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { seededRandom as prng } from '../../core/random.ts';

export { prng };

export const REGIONS = ['Andalucía', 'Castilla y León', 'Castilla-La Mancha', 'Extremadura', 'Aragón', 'Cataluña', 'Valencia', 'Murcia'];
export const CROPS = ['wheat', 'barley', 'olive', 'vineyard', 'sunflower', 'maize', 'almond', 'fallow'];
export const CERTS = ['organic', 'GlobalG.A.P.', 'none', 'integrated', 'Demeter'];
/** Kinds of field, as Spanish field names start. */
export const KINDS = ['Haza', 'Cercado', 'Suerte', 'Pago', 'Olivar', 'Viña', 'Huerta', 'Parcela', 'Finca', 'Tierra', 'Cañada', 'Majuelo', 'Quiñón', 'Hoya', 'Rozas'];
/** What the field is named after. */
export const PLACES = [
  'del Pozo', 'de la Vega', 'del Molino', 'de las Encinas', 'del Arroyo', 'de los Olivos', 'del Cortijo', 'de la Fuente',
  'del Camino Real', 'de la Ermita', 'del Cerro', 'de San Antonio', 'de la Torre', 'del Llano', 'de los Almendros',
  'de la Cruz', 'del Prado', 'de Valdelobos', 'de la Dehesa', 'del Barranco', 'de Santa Ana', 'del Rincón', 'de la Loma',
  'de los Pinos', 'del Tejar', 'de la Noria', 'del Castillo', 'de Mingorance', 'de la Alameda', 'del Palomar',
  'de las Viñas', 'del Sotillo', 'de la Rambla', 'de Peñaflor', 'del Chaparral', 'de la Solana', 'de Cantarranas',
  'del Alcornocal', 'de la Umbría', 'del Villar',
];

const M_PER_DEG = 111_320;
const fix7 = (x: number) => Math.round(x * 1e7) / 1e7;

export interface Field {
  name: string;
  metadata: { 'Supplier ID': string; region: string; contract_year: string; crop_type: string; certification: string };
  /** One closed ring, [lon, lat] with 7 decimals. */
  ring: number[][];
  bbox: [number, number, number, number];
}

/**
 * An irregular polygon of `minV`–`maxV` distinct vertices around (lon, lat): strictly increasing angles and
 * positive radii, so the ring never crosses itself.
 */
export function starRing(next: () => number, lon: number, lat: number, radiusM: number, minV: number, maxV: number): number[][] {
  const n = minV + Math.floor(next() * (maxV - minV + 1));
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const step = (2 * Math.PI) / n;
  const ring: number[][] = [];
  for (let i = 0; i < n; i++) {
    const angle = i * step + next() * step * 0.8;
    const r = radiusM * (0.6 + 0.4 * next());
    ring.push([fix7(lon + (r * Math.cos(angle)) / (M_PER_DEG * cosLat)), fix7(lat + (r * Math.sin(angle)) / M_PER_DEG)]);
  }
  ring.push([ring[0]![0]!, ring[0]![1]!]);
  return ring;
}

export function ringBbox(ring: readonly number[][]): [number, number, number, number] {
  let minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
  for (const [x, y] of ring) {
    if (x! < minx) minx = x!;
    if (x! > maxx) maxx = x!;
    if (y! < miny) miny = y!;
    if (y! > maxy) maxy = y!;
  }
  return [minx, miny, maxx, maxy];
}

export interface FarmLayout {
  /** Fields per farm. */
  fieldsPerFarm: number;
  /** Grid spacing between field centres, metres. */
  spacingM: number;
  /** Field radius range, metres (area ≈ 0.7·π·r²). */
  radiusM: [number, number];
  vertices: [number, number];
  /** Where farm centres fall: [west, south, east, north]. */
  region: [number, number, number, number];
}

/** Southern and central Spain; fields of about 1–9 ha, 250 m apart, farms of 500 fields (about 5.5 km across). */
export const DEFAULT_LAYOUT: FarmLayout = { fieldsPerFarm: 500, spacingM: 250, radiusM: [60, 200], vertices: [10, 40], region: [-7, 36.8, -1.5, 39.5] };

/** Farm `f`'s centre (deterministic in the farm's index). */
export function farmCentre(f: number, layout: FarmLayout = DEFAULT_LAYOUT): [number, number] {
  const next = prng(0x5eed + f * 7919);
  const [w, s, e, n] = layout.region;
  return [w + next() * (e - w), s + next() * (n - s)];
}

/** The fields of farm `f`: a jittered square grid around its centre; field names repeat across farms, as real ones do. */
export function farmFields(f: number, layout: FarmLayout = DEFAULT_LAYOUT): Field[] {
  const next = prng(1 + f * 104_729);
  const [lon0, lat0] = farmCentre(f, layout);
  const side = Math.ceil(Math.sqrt(layout.fieldsPerFarm));
  const cosLat = Math.cos((lat0 * Math.PI) / 180);
  const region = REGIONS[Math.floor(next() * REGIONS.length)]!;
  const supplier = `SUP-${String(Math.floor(next() * 100_000)).padStart(5, '0')}`;
  const out: Field[] = [];
  for (let i = 0; i < layout.fieldsPerFarm; i++) {
    const gx = (i % side) - side / 2 + (next() - 0.5) * 0.3;
    const gy = Math.floor(i / side) - side / 2 + (next() - 0.5) * 0.3;
    const lon = lon0 + (gx * layout.spacingM) / (M_PER_DEG * cosLat);
    const lat = lat0 + (gy * layout.spacingM) / M_PER_DEG;
    const radius = layout.radiusM[0] + next() * (layout.radiusM[1] - layout.radiusM[0]);
    const ring = starRing(next, lon, lat, radius, layout.vertices[0], layout.vertices[1]);
    const name = `${KINDS[Math.floor(next() * KINDS.length)]} ${PLACES[Math.floor(next() * PLACES.length)]} ${1 + Math.floor(next() * 40)}`;
    out.push({
      name,
      metadata: {
        // Most fields of a farm come from its main supplier; some from others.
        'Supplier ID': next() < 0.7 ? supplier : `SUP-${String(Math.floor(next() * 100_000)).padStart(5, '0')}`,
        region,
        contract_year: String(2019 + Math.floor(next() * 7)),
        crop_type: CROPS[Math.floor(next() * CROPS.length)]!,
        certification: CERTS[Math.floor(next() * CERTS.length)]!,
      },
      ring,
      bbox: ringBbox(ring),
    });
  }
  return out;
}

/**
 * A GeoJSON file of `features` fields (whole farms, from farm `firstFarm` on): polygons of 10–40 vertices, a name
 * and 5 metadata properties each. Its size in bytes.
 */
export function writeFieldsGeoJson(file: string, features: number, firstFarm = 0): number {
  const fd = openSync(file, 'w');
  writeSync(fd, '{"type":"FeatureCollection","features":[\n');
  for (let f = 0; f < features / DEFAULT_LAYOUT.fieldsPerFarm; f++) {
    const lines = farmFields(firstFarm + f).map((x) => JSON.stringify({ type: 'Feature', properties: { name: x.name, ...x.metadata }, geometry: { type: 'Polygon', coordinates: [x.ring] } }));
    writeSync(fd, (f > 0 ? ',\n' : '') + lines.join(',\n'));
  }
  writeSync(fd, '\n]}\n');
  closeSync(fd);
  return statSync(file).size;
}
