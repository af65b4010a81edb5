// Parcels are stored with their geometry and metadata as JSON text, and listings are assembled as strings:
// a 10,000-parcel farm would otherwise be parsed and re-serialized on every GET.
import { Readable } from 'node:stream';
import type { ParcelColumns } from '../../core/parcels/columns.ts';

/** A parcel of the service: its columns (as the mirror stores them too), its ids and timestamps. */
export interface ParcelRow extends ParcelColumns {
  id: number;
  key: string;
  farm_id: number;
  created: string;
  modified: string;
}


export function parcelFeatureJson(r: ParcelRow): string {
  return `${featureHead(r)}${r.geometry}${featureTail(r)}`;
}

/** A Feature's JSON up to its geometry, and after it (streamed around the geometry, see featureArrayBody). */
const featureHead = (r: ParcelRow) => `{"type":"Feature","id":${r.id},"bbox":[${r.minx},${r.miny},${r.maxx},${r.maxy}],"geometry":`;
function featureTail(r: ParcelRow): string {
  const cx = (r.minx + r.maxx) / 2;
  const cy = (r.miny + r.maxy) / 2;
  return `,"properties":{"key":"${r.key}","name":${JSON.stringify(r.name)},"farm":${r.farm_id},"hectares":${r.hectares},"metadata":${r.metadata},"source_type":"${r.source_type}","point":${r.point ?? 'null'},"center":[${cx},${cy}],"created":"${r.created}","modified":"${r.modified}"}}`;
}

export function featureArrayJson(rows: readonly ParcelRow[]): string {
  return `[${rows.map(parcelFeatureJson).join(',')}]`;
}

/** Past this much geometry a response is streamed (see featureArrayBody). */
const STREAM_GEOMETRY_CHARS = 1024 * 1024;
const STREAM_PIECE_CHARS = 64 * 1024;

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
      const r = rows[i]!;
      // The stored geometry goes out in slices of itself, never copied into a Feature string first; a piece per
      // turn of the event loop: a socket on the same host takes megabytes at once, and would otherwise have the
      // whole body encoded in one go.
      for (const piece of [`${i === 0 ? '' : ','}${featureHead(r)}`, r.geometry, featureTail(r)]) {
        for (let k = 0; k < piece.length;) {
          let end = k + STREAM_PIECE_CHARS;
          // Never between the two halves of a surrogate pair (an emoji in a name): each alone encodes as U+FFFD.
          const c = piece.charCodeAt(end - 1);
          if (c >= 0xd800 && c <= 0xdbff) end++;
          await new Promise((resolve) => setImmediate(resolve));
          yield Buffer.from(piece.slice(k, end));
          k = end;
        }
      }
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
