// Realistic, reproducible bulk-create batches: 50 parcels each, mostly irregular polygons of 10–50 vertices
// (star-shaped around a centre, so simple and valid by construction, 1–45 ha), a few Point parcels with
// hectares, and five metadata keys of the shapes the spec shows.
import { seededRandom as rng } from '../../core/random.ts';

export const BATCH_SIZE = 50;

const REGIONS = ['Andalucía', 'Castilla y León', 'Castilla-La Mancha', 'Extremadura', 'Aragón', 'Cataluña', 'Valencia', 'Murcia'];
const CROPS = ['wheat', 'barley', 'olive', 'vineyard', 'sunflower', 'maize', 'almond', 'fallow'];
const CERTS = ['organic', 'GlobalG.A.P.', 'none', 'integrated', 'Demeter'];
const M_PER_DEG = 111_320;

const fix7 = (x: number) => Math.round(x * 1e7) / 1e7;

export interface ParcelInput {
  name: string;
  metadata: Record<string, string>;
  geom: { type: 'Feature'; properties: Record<string, unknown>; geometry: { type: 'Polygon'; coordinates: number[][][] } | { type: 'Point'; coordinates: number[] } };
}

function polygon(next: () => number, lon: number, lat: number): number[][][] {
  const n = 10 + Math.floor(next() * 41); // 10–50 distinct vertices
  const radius = 80 + next() * 300; // metres; area ≈ 0.7·π·r² → about 1–45 ha
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const step = (2 * Math.PI) / n;
  const ring: number[][] = [];
  for (let i = 0; i < n; i++) {
    // Strictly increasing angles and positive radii: a star-shaped ring never crosses itself.
    const angle = i * step + next() * step * 0.8;
    const r = radius * (0.6 + 0.4 * next());
    ring.push([fix7(lon + (r * Math.cos(angle)) / (M_PER_DEG * cosLat)), fix7(lat + (r * Math.sin(angle)) / M_PER_DEG)]);
  }
  ring.push([ring[0]![0]!, ring[0]![1]!]);
  return [ring];
}

/** A square of 1–45 ha, axis-aligned: 4 corners, 5 positions with the closing one (the simplest parcel a user draws). */
function square(next: () => number, lon: number, lat: number): number[][][] {
  const half = (100 + next() * 235) / 2; // metres: a side of 100–335 m
  const cosLat = Math.cos((lat * Math.PI) / 180);
  const dx = half / (M_PER_DEG * cosLat);
  const dy = half / M_PER_DEG;
  const c = [[lon - dx, lat - dy], [lon + dx, lat - dy], [lon + dx, lat + dy], [lon - dx, lat + dy]].map(([x, y]) => [fix7(x!), fix7(y!)]);
  return [[...c, c[0]!]];
}

/** Which polygons a batch has: the irregular 10–50-vertex ones, or 5-vertex squares. */
export type ParcelShape = 'irregular' | 'squares';

/** One batch's parcels, around a farm centre; about 8 % are Point parcels. */
export function makeParcels(seed: number, count = BATCH_SIZE, shape: ParcelShape = 'irregular'): ParcelInput[] {
  const next = rng(seed);
  const farmLon = -6 + next() * 5;
  const farmLat = 37 + next() * 5;
  const out: ParcelInput[] = [];
  for (let i = 0; i < count; i++) {
    const lon = farmLon + (next() - 0.5) * 0.4;
    const lat = farmLat + (next() - 0.5) * 0.4;
    const metadata = {
      'Supplier ID': `SUP-${String(Math.floor(next() * 100_000)).padStart(5, '0')}`,
      region: REGIONS[Math.floor(next() * REGIONS.length)]!,
      contract_year: String(2019 + Math.floor(next() * 7)),
      crop_type: CROPS[Math.floor(next() * CROPS.length)]!,
      certification: CERTS[Math.floor(next() * CERTS.length)]!,
    };
    const name = `Parcel ${seed}-${i + 1}`;
    if (next() < 0.08) {
      const hectares = Math.round((0.5 + next() * 20) * 100) / 100;
      out.push({ name, metadata, geom: { type: 'Feature', properties: { metadata: { hectares } }, geometry: { type: 'Point', coordinates: [fix7(lon), fix7(lat)] } } });
    } else {
      out.push({ name, metadata, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: (shape === 'squares' ? square : polygon)(next, lon, lat) } } });
    }
  }
  return out;
}

/** The request body of POST /api/parcels/, built by string concatenation so one parcels array serves many farms. */
export const bulkBody = (farmId: number, parcelsJson: string): string => `{"farm":{"id":${farmId}},"parcels":${parcelsJson}}`;

export interface BatchSet {
  /** Pre-encoded request bodies, ready to send. */
  bodies: Buffer[];
  parcels: number;
  polygons: number;
  points: number;
  vertices: number;
  mean_body_bytes: number;
}

/** `batches` bodies, spread round-robin over `farmIds`; batch i uses seed base + i. */
export function makeBatches(batches: number, farmIds: readonly number[], base = 1): BatchSet {
  const bodies: Buffer[] = [];
  let polygons = 0;
  let points = 0;
  let vertices = 0;
  let bytes = 0;
  for (let i = 0; i < batches; i++) {
    const parcels = makeParcels(base + i);
    for (const p of parcels) {
      if (p.geom.geometry.type === 'Polygon') {
        polygons++;
        vertices += p.geom.geometry.coordinates[0]!.length - 1;
      } else {
        points++;
      }
    }
    const body = Buffer.from(bulkBody(farmIds[i % farmIds.length]!, JSON.stringify(parcels)));
    bytes += body.length;
    bodies.push(body);
  }
  return { bodies, parcels: batches * BATCH_SIZE, polygons, points, vertices, mean_body_bytes: Math.round(bytes / Math.max(1, batches)) };
}
