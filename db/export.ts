// Export of the mirror's parcels as GeoJSON (re-importable by db/import) and as CSV with WKT geometry, in WGS84 or in
// a chosen coordinate system (export-crs.ts).
// Rules in docs/import-export.md.

import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { extname } from 'node:path';
import Database from 'better-sqlite3';
import type { Mirror } from './mirror.ts';
import type { MirrorReader } from './reader.ts';
import type { ParcelRow } from './types.ts';
import { CSV_FIELDS, FURROW_MARKER, GEOJSON_FIELDS, exportKey } from './import/furrow-format.ts';
import { userFileMode } from '../platform/node/private-files.ts';
import { crsMember, projectedGeometry, type Projection } from './export-crs.ts';
import { ParcelTable } from './table.ts';
import type { TableQuery } from '../core/api-table.ts';

export interface ExportOptions {
  /** Only this account's parcels. */
  accountId?: string;
  /** Only this farm's parcels (takes precedence over accountId). */
  farmLocalId?: string;
  /** Only these parcels (the app's selection), in this order; deleted ones left out. Exports in memory only. */
  parcelIds?: readonly string[];
  /**
   * Write the shapes in this coordinate system (export-crs.ts exportProjection) rather than WGS84: the GeoJSON then
   * names it in the legacy "crs" member (which Furrow's import reads back), the CSV's WKT is in it.
   */
  projection?: Projection | null;
  /**
   * Only the rows of the attribute table's query, in its order (core/api-table.ts): what the table shows. exportFile
   * only (any size); its account is the query's.
   */
  table?: TableQuery;
}

export interface ExportFileOptions extends ExportOptions {
  /** Aborting stops the export between two pages: the temporary file is removed, an earlier export is left as it was. */
  signal?: AbortSignal;
  /** Parcels written so far, of how many. */
  onProgress?: (done: number, total: number) => void;
  /**
   * The file's mode. By default the one the user's umask gives (userFileMode): a file at a path the user chose. The
   * host's own temporary exports for the page (backend/downloads.ts) are 0600, in FURROW_HOME.
   */
  mode?: number;
}

/** Parcels read and written a page at a time: the thread is free between pages (the host answers the app). */
const PAGE = 2000;

interface Selected { rows: ParcelRow[]; farmName: (farmLocalId: string) => string; projection: Projection | null }

function select(reader: MirrorReader, opts: ExportOptions): Selected {
  const rows = opts.parcelIds !== undefined
    ? opts.parcelIds.map((id) => reader.parcel(id)).filter((r): r is ParcelRow => r !== undefined && !r.deleted && (opts.accountId === undefined || r.account_id === opts.accountId))
    : opts.farmLocalId !== undefined ? reader.parcels(opts.farmLocalId) : reader.allParcels(opts.accountId);
  const names = new Map<string, string>();
  const farmName = (id: string) => {
    let n = names.get(id);
    if (n === undefined) names.set(id, (n = reader.farm(id)?.name ?? ''));
    return n;
  };
  return { rows, farmName, projection: opts.projection ?? null };
}

/** The selection as a GeoJSON or CSV file's text, with how many parcels it holds (the app saves it itself). */
export function exportText(reader: MirrorReader, opts: ExportOptions, format: 'geojson' | 'csv'): { text: string; parcels: number } {
  const selected = select(reader, opts);
  return { text: format === 'csv' ? csvOf(selected) : geoJsonOf(selected), parcels: selected.rows.length };
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

function geoJsonOf({ rows, farmName, projection }: Selected): string {
  return geoJsonHead(projection) + rows.map((r) => geoJsonFeature(r, farmName, projection)).join(',\n') + GEOJSON_TAIL;
}

const geoJsonHead = (p: Projection | null) => `{"type":"FeatureCollection","furrow":${JSON.stringify(FURROW_MARKER)},${p ? `${crsMember(p)},` : ''}"features":[\n`;
const GEOJSON_TAIL = '\n]}\n';

function geoJsonFeature(r: ParcelRow, farmName: (id: string) => string, projection: Projection | null): string {
  const props: string[] = [
    `"name":${JSON.stringify(r.name)}`, `"farm":${JSON.stringify(farmName(r.farm_local_id))}`, `"hectares":${r.hectares}`,
    `"server_id":${r.server_id ?? 'null'}`, `"local_id":${JSON.stringify(r.local_id)}`,
  ];
  for (const [k, v] of Object.entries(JSON.parse(r.metadata) as Record<string, unknown>)) {
    props.push(`${JSON.stringify(exportKey(k, GEOJSON_FIELDS))}:${JSON.stringify(v)}`);
  }
  // Stored geometry and point are JSON already: embedded as they are, not parsed and re-serialized (unless reprojected).
  const stored = r.source_type === 'Point' && r.point !== null ? `{"type":"Point","coordinates":${r.point}}` : r.geometry;
  const geometry = projection ? projectedGeometry(stored, projection, r.name) : stored;
  return `{"type":"Feature","id":${JSON.stringify(r.local_id)},"geometry":${geometry},"properties":{${props.join(',')}}}`;
}

/**
 * RFC 4180 CSV (CRLF line ends; fields with a comma, quote or line break quoted, quotes doubled).
 * Columns: local_id, server_id, farm, name, hectares, wkt, then every metadata key seen, in first-seen order.
 * `wkt` is the parcel's polygon — for a Point parcel, the square the service generates around it.
 */
export function exportCSV(reader: MirrorReader, opts: ExportOptions = {}): string {
  return csvOf(select(reader, opts));
}

function csvOf({ rows, farmName, projection }: Selected): string {
  const metadata = rows.map((r) => JSON.parse(r.metadata) as Record<string, unknown>);
  const keys = new Set<string>();
  for (const m of metadata) for (const k of Object.keys(m)) keys.add(k);
  const metaKeys = [...keys];
  return csvHeader(metaKeys) + rows.map((r, i) => csvRecord(r, metadata[i]!, metaKeys, farmName, projection)).join('');
}

function csvHeader(metaKeys: readonly string[]): string {
  return [...CSV_FIELDS, ...metaKeys.map((k) => spreadsheetSafe(exportKey(k, CSV_FIELDS)))].map(csvField).join(',') + '\r\n';
}

/**
 * A text a spreadsheet would run as a formula — one starting with =, +, -, @, a tab or a carriage return — with an
 * apostrophe before it, as OWASP advises against CSV injection: names and metadata come from the service, from
 * imported files and from other users, and a cell like `=HYPERLINK(…)` or `=cmd|…` must reach Excel or LibreOffice
 * as text. A plain number (`-12.5`, `+3`) is left as it is: it is no formula, and it must stay a number.
 */
export function spreadsheetSafe(text: string): string {
  return /^[=+\-@\t\r]/.test(text) && !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? `'${text}` : text;
}

function csvRecord(r: ParcelRow, m: Record<string, unknown>, metaKeys: readonly string[], farmName: (id: string) => string, projection: Projection | null): string {
  const fields = [
    r.local_id, r.server_id === null ? '' : String(r.server_id), spreadsheetSafe(farmName(r.farm_local_id)), spreadsheetSafe(r.name), String(r.hectares),
    polygonWkt(JSON.parse(projection ? projectedGeometry(r.geometry, projection, r.name) : r.geometry) as { coordinates: number[][][] }),
    ...metaKeys.map((k) => (Object.hasOwn(m, k) ? spreadsheetSafe(String(m[k])) : '')),
  ];
  return fields.map(csvField).join(',') + '\r\n';
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
 * The selection read page by page on a connection of its own, inside one read transaction: the export is the mirror
 * as it was when it began, whatever is edited, imported or synced while it is written.
 */
class Snapshot {
  private readonly db: Database.Database;
  private readonly where: string;
  private readonly params: unknown[];
  private readonly byFarm: boolean;
  private readonly farmNames = new Map<string, string>();
  /** The table's rows in its order (their rowids), read once in the snapshot: pages are slices of it. */
  private readonly tableRows: number[] | null;

  constructor(file: string, opts: ExportOptions) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    this.db.exec('BEGIN');
    this.tableRows = opts.table ? new ParcelTable(this.db).rowids(opts.table) : null;
    this.byFarm = opts.farmLocalId !== undefined;
    // The same selections and order as MirrorReader.parcels (a farm: by creation) and allParcels (by rowid).
    this.where = this.byFarm ? 'farm_local_id = ? AND deleted = 0' : opts.accountId !== undefined ? 'account_id = ? AND deleted = 0' : 'deleted = 0';
    this.params = this.byFarm ? [opts.farmLocalId] : opts.accountId !== undefined ? [opts.accountId] : [];
  }

  count(): number {
    if (this.tableRows) return this.tableRows.length;
    return this.db.prepare(`SELECT COUNT(*) FROM parcels WHERE ${this.where}`).pluck().get(...this.params) as number;
  }

  /** Pages in export order; `columns` narrows what is read (the CSV's first pass reads the metadata alone). */
  async *pages(columns = '*'): AsyncGenerator<ParcelRow[]> {
    if (this.tableRows) {
      yield* this.tablePages(this.tableRows, columns);
      return;
    }
    const stmt = this.byFarm
      ? this.db.prepare(`SELECT rowid AS rid, ${columns}, created AS c FROM parcels WHERE ${this.where} AND (created > ? OR (created = ? AND rowid > ?)) ORDER BY created, rowid LIMIT ${PAGE}`)
      : this.db.prepare(`SELECT rowid AS rid, ${columns} FROM parcels WHERE ${this.where} AND rowid > ? ORDER BY rowid LIMIT ${PAGE}`);
    let after: { rid: number; c?: string } = { rid: 0, c: '' };
    for (;;) {
      const rows = (this.byFarm ? stmt.all(...this.params, after.c, after.c, after.rid) : stmt.all(...this.params, after.rid)) as (ParcelRow & { rid: number; c?: string })[];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!;
      yield rows;
      if (rows.length < PAGE) return;
      // A turn of the event loop between pages, for whoever shares this thread.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The table's rows a page at a time, in its order. */
  private async *tablePages(rowids: readonly number[], columns: string): AsyncGenerator<ParcelRow[]> {
    const stmt = this.db.prepare(`SELECT rowid AS rid, ${columns} FROM parcels WHERE rowid IN (SELECT value FROM json_each(?))`);
    for (let at = 0; at < rowids.length; at += PAGE) {
      const ids = rowids.slice(at, at + PAGE);
      const byRid = new Map((stmt.all(JSON.stringify(ids)) as (ParcelRow & { rid: number })[]).map((r) => [r.rid, r]));
      yield ids.map((id) => byRid.get(id)!);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  farmName(id: string): string {
    let n = this.farmNames.get(id);
    if (n === undefined) this.farmNames.set(id, (n = (this.db.prepare('SELECT name FROM farms WHERE local_id = ?').pluck().get(id) as string | undefined) ?? ''));
    return n;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Writes the export chosen by the file's extension (.geojson/.json or .csv), a page at a time, to a temporary file
 * that is synced and renamed into place only when whole: a failure or a cancel never leaves an existing export
 * truncated, nor a partial file under the name asked for. The file is the user's, at a path of their choice: it gets
 * the mode their umask gives, like any program's output, not the owner-only umask the CLI and the mirror host run
 * with for FURROW_HOME (platform/node/private-files.ts userFileMode).
 */
export async function exportFile(mirror: Mirror, file: string, opts: ExportFileOptions = {}): Promise<{ format: 'geojson' | 'csv'; parcels: number }> {
  const ext = extname(file).toLowerCase();
  const format = ext === '.csv' ? 'csv' : ext === '.geojson' || ext === '.json' ? 'geojson' : null;
  if (format === null) throw new Error(`Cannot export to ${file}: use a .geojson, .json or .csv file name`);
  opts.signal?.throwIfAborted();
  const snap = new Snapshot(mirror.syncDb.name, opts);
  const tmp = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  const mode = opts.mode ?? userFileMode();
  const out = await open(tmp, 'w', mode ?? 0o666).catch((e: unknown) => { snap.close(); throw e; });
  try {
    // The process's owner-only umask narrowed the mode asked for.
    if (mode !== undefined) await out.chmod(mode);
    const total = snap.count();
    const farmName = (id: string) => snap.farmName(id);
    const projection = opts.projection ?? null;
    let done = 0;
    opts.onProgress?.(0, total);
    const page = async (text: string, n: number) => {
      await out.write(text);
      done += n;
      opts.onProgress?.(done, total);
      opts.signal?.throwIfAborted();
    };
    if (format === 'geojson') {
      await out.write(geoJsonHead(projection));
      for await (const rows of snap.pages()) await page((done > 0 ? ',\n' : '') + rows.map((r) => geoJsonFeature(r, farmName, projection)).join(',\n'), rows.length);
      await out.write(GEOJSON_TAIL);
    } else {
      // Every metadata key becomes a column, in first-seen order: a first pass over the metadata alone.
      const keys = new Set<string>();
      for await (const rows of snap.pages('metadata')) {
        for (const r of rows) for (const k of Object.keys(JSON.parse(r.metadata) as object)) keys.add(k);
        opts.signal?.throwIfAborted();
      }
      const metaKeys = [...keys];
      await out.write(csvHeader(metaKeys));
      for await (const rows of snap.pages()) await page(rows.map((r) => csvRecord(r, JSON.parse(r.metadata) as Record<string, unknown>, metaKeys, farmName, projection)).join(''), rows.length);
    }
    await out.sync();
    await out.close();
    await rename(tmp, file);
    return { format, parcels: done };
  } catch (e) {
    await out.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw e;
  } finally {
    snap.close();
  }
}
