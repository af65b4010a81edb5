// Export of the mirror's parcels as GeoJSON (re-importable by db/import) and as CSV with WKT geometry.
// Rules in docs/import-export.md.

import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Mirror } from './mirror.ts';
import type { MirrorReader } from './reader.ts';
import type { ParcelRow } from './types.ts';
import { CSV_FIELDS, FURROW_MARKER, GEOJSON_FIELDS, exportKey } from './import/furrow-format.ts';

export interface ExportOptions {
  /** Only this account's parcels. */
  accountId?: string;
  /** Only this farm's parcels (takes precedence over accountId). */
  farmLocalId?: string;
}

interface Selected { rows: ParcelRow[]; farmName: (farmLocalId: string) => string }

function select(reader: MirrorReader, opts: ExportOptions): Selected {
  const rows = opts.farmLocalId !== undefined ? reader.parcels(opts.farmLocalId) : reader.allParcels(opts.accountId);
  const names = new Map<string, string>();
  const farmName = (id: string) => {
    let n = names.get(id);
    if (n === undefined) names.set(id, (n = reader.farm(id)?.name ?? ''));
    return n;
  };
  return { rows, farmName };
}

/**
 * A FeatureCollection, one feature per line. Geometry is the parcel's own: the polygon, or for a Point
 * parcel the point (its area is the `hectares` property, which is what makes it re-import exactly).
 * Properties: name, farm, hectares, server_id, local_id, then the metadata flattened; the `furrow` member
 * tells the importer that those five are not metadata.
 */
export function exportGeoJSON(reader: MirrorReader, opts: ExportOptions = {}): string {
  return geoJsonOf(select(reader, opts));
}

function geoJsonOf({ rows, farmName }: Selected): string {
  const lines = rows.map((r) => {
    const props: string[] = [
      `"name":${JSON.stringify(r.name)}`, `"farm":${JSON.stringify(farmName(r.farm_local_id))}`, `"hectares":${r.hectares}`,
      `"server_id":${r.server_id ?? 'null'}`, `"local_id":${JSON.stringify(r.local_id)}`,
    ];
    for (const [k, v] of Object.entries(JSON.parse(r.metadata) as Record<string, unknown>)) {
      props.push(`${JSON.stringify(exportKey(k, GEOJSON_FIELDS))}:${JSON.stringify(v)}`);
    }
    // Stored geometry and point are JSON already: embedded as they are, not parsed and re-serialized.
    const geometry = r.source_type === 'Point' && r.point !== null ? `{"type":"Point","coordinates":${r.point}}` : r.geometry;
    return `{"type":"Feature","id":${JSON.stringify(r.local_id)},"geometry":${geometry},"properties":{${props.join(',')}}}`;
  });
  return `{"type":"FeatureCollection","furrow":${JSON.stringify(FURROW_MARKER)},"features":[\n${lines.join(',\n')}\n]}\n`;
}

/**
 * RFC 4180 CSV (CRLF line ends; fields with a comma, quote or line break quoted, quotes doubled).
 * Columns: local_id, server_id, farm, name, hectares, wkt, then every metadata key seen, in first-seen order.
 * `wkt` is the parcel's polygon — for a Point parcel, the square the service generates around it.
 */
export function exportCSV(reader: MirrorReader, opts: ExportOptions = {}): string {
  return csvOf(select(reader, opts));
}

function csvOf({ rows, farmName }: Selected): string {
  const metadata = rows.map((r) => JSON.parse(r.metadata) as Record<string, unknown>);
  const keys = new Set<string>();
  for (const m of metadata) for (const k of Object.keys(m)) keys.add(k);
  const metaKeys = [...keys];
  const header = [...CSV_FIELDS, ...metaKeys.map((k) => exportKey(k, CSV_FIELDS))];
  const lines = [header.map(csvField).join(',')];
  rows.forEach((r, i) => {
    const m = metadata[i]!;
    const fields = [
      r.local_id, r.server_id === null ? '' : String(r.server_id), farmName(r.farm_local_id), r.name, String(r.hectares),
      polygonWkt(JSON.parse(r.geometry) as { coordinates: number[][][] }),
      ...metaKeys.map((k) => (Object.hasOwn(m, k) ? String(m[k]) : '')),
    ];
    lines.push(fields.map(csvField).join(','));
  });
  return lines.join('\r\n') + '\r\n';
}

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * WKT of a GeoJSON polygon: POLYGON((x y, …), (hole …)), longitude first as in GeoJSON. "POLYGON Z" when
 * every position has a third value; otherwise z is left out (WKT cannot mix 2D and 3D positions).
 */
export function polygonWkt(geometry: { coordinates: number[][][] }): string {
  const rings = geometry.coordinates;
  const z = rings.every((ring) => ring.every((p) => p.length >= 3));
  const body = rings.map((ring) => `(${ring.map((p) => p.slice(0, z ? 3 : 2).map(wktNumber).join(' ')).join(', ')})`).join(', ');
  return `POLYGON${z ? ' Z' : ''}(${body})`;
}

/** Shortest round-tripping decimal, never in exponent form (1e-7), which not every WKT reader parses. */
export function wktNumber(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  const [mantissa = '', expPart = '0'] = s.toLowerCase().split('e');
  const exp = Number(expPart);
  const negative = mantissa.startsWith('-');
  const [int = '', frac = ''] = mantissa.replace('-', '').split('.');
  const digits = int + frac;
  const point = int.length + exp; // position of the decimal point within `digits`
  const out = point <= 0 ? `0.${'0'.repeat(-point)}${digits}`
    : point >= digits.length ? digits + '0'.repeat(point - digits.length)
      : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (negative ? '-' : '') + out;
}

/**
 * Writes the export chosen by the file's extension (.geojson/.json or .csv). The text goes to a temporary
 * file first and is renamed into place, so an existing export is never left truncated by a failure.
 */
export async function exportFile(mirror: Mirror, file: string, opts: ExportOptions = {}): Promise<{ format: 'geojson' | 'csv'; parcels: number }> {
  const ext = extname(file).toLowerCase();
  const format = ext === '.csv' ? 'csv' : ext === '.geojson' || ext === '.json' ? 'geojson' : null;
  if (format === null) throw new Error(`Cannot export to ${file}: use a .geojson, .json or .csv file name`);
  const selected = select(mirror.read, opts);
  const text = format === 'csv' ? csvOf(selected) : geoJsonOf(selected);
  const tmp = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return { format, parcels: selected.rows.length };
}
