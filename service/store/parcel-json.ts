// Parcels are stored with their geometry and metadata as JSON text, and listings are assembled as strings:
// a 10,000-parcel farm would otherwise be parsed and re-serialized on every GET.
import { Readable } from 'node:stream';

export interface ParcelRow {
  id: number;
  key: string;
  farm_id: number;
  name: string;
  source_type: 'Polygon' | 'Point';
  point: string | null;
  geometry: string;
  hectares: number;
  metadata: string;
  minx: number;
  miny: number;
  maxx: number;
  maxy: number;
  created: string;
  modified: string;
}

export const PARCEL_COLUMNS = 'p.id, p.key, p.farm_id, p.name, p.source_type, p.point, p.geometry, p.hectares, p.metadata, p.minx, p.miny, p.maxx, p.maxy, p.created, p.modified';

export function parcelFeatureJson(r: ParcelRow): string {
  const cx = (r.minx + r.maxx) / 2;
  const cy = (r.miny + r.maxy) / 2;
  return `{"type":"Feature","id":${r.id},"bbox":[${r.minx},${r.miny},${r.maxx},${r.maxy}],"geometry":${r.geometry},"properties":{"key":"${r.key}","name":${JSON.stringify(r.name)},"farm":${r.farm_id},"hectares":${r.hectares},"metadata":${r.metadata},"source_type":"${r.source_type}","point":${r.point ?? 'null'},"center":[${cx},${cy}],"created":"${r.created}","modified":"${r.modified}"}}`;
}

export function featureArrayJson(rows: readonly ParcelRow[]): string {
  return `[${rows.map(parcelFeatureJson).join(',')}]`;
}

/** Past this much geometry a response is streamed (see featureArrayBody). */
const STREAM_GEOMETRY_CHARS = 1024 * 1024;

/**
 * `prefix` + the features + `suffix`: a string, or for large geometries (50 parcels at the vertex cap make 20 MB)
 * a stream built feature by feature. Building and writing 20 MB at once held the
 * request thread, and with it every other organization's requests, for a few hundred milliseconds.
 */
export function featureArrayBody(rows: readonly ParcelRow[], prefix = '[', suffix = ']'): string | Readable {
  let size = 0;
  for (const r of rows) size += r.geometry.length;
  if (size <= STREAM_GEOMETRY_CHARS) return `${prefix}${rows.map(parcelFeatureJson).join(',')}${suffix}`;
  return Readable.from((async function* features() {
    yield prefix;
    for (let i = 0; i < rows.length; i++) {
      // One feature per turn of the event loop: a socket on the same host takes megabytes at once, and would
      // otherwise have the whole body built in one go.
      await new Promise((resolve) => setImmediate(resolve));
      yield Buffer.from(i === 0 ? parcelFeatureJson(rows[i]!) : `,${parcelFeatureJson(rows[i]!)}`);
    }
    yield suffix;
  })(), { objectMode: false });
}

export function featureCollectionJson(rows: readonly ParcelRow[], count: number, next: string | null): string {
  const head = '{"type":"FeatureCollection","features":[';
  const tail = `],"count":${count},"next":${next === null ? 'null' : JSON.stringify(next)}}`;
  if (rows.length === 0) return head + tail;
  // Head and tail go into the one join: wrapping the joined text instead would copy a 10,000-parcel listing once more.
  const parts = rows.map(parcelFeatureJson);
  parts[0] = head + parts[0];
  parts[parts.length - 1] += tail;
  return parts.join(',');
}
