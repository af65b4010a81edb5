import type { Db } from './db.ts';
import { prep } from './prep.ts';
import { ApiError } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';
import { FARM_VISIBLE, scopeParams, type Scope } from './scope.ts';
import { PARCEL_COLUMNS, type ParcelRow } from './parcel-json.ts';
import { visibleFarm } from './parcels.ts';

export interface ParcelFilter {
  farm?: number;
  search?: string;
  bbox?: [number, number, number, number];
  /** metadata key → accepted values (several values for one key: any of them; several keys: all of them). */
  metadata?: Map<string, string[]>;
  limit: number;
  after?: number;
}

export const DEFAULT_PAGE = 1000;
export const MAX_PAGE = 10_000;

// Metadata values may be strings, numbers or booleans, but a query string only carries text:
// compare the value's canonical text so metadata[contract_year]=2024 finds 2024 and "2024" alike.
const META_MATCH = `EXISTS (SELECT 1 FROM json_each(p.metadata) j WHERE j.key = ? AND
  (CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(j.value AS TEXT) END) IN (SELECT value FROM json_each(?)))`;

/** Reads `metadata[<key>]=<value>` pairs out of a parsed query string ('+' in keys is already a space). */
export function metadataFilters(query: Record<string, unknown>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of Object.entries(query)) {
    const m = /^metadata\[(.+)\]$/s.exec(k);
    if (!m) continue;
    const values = (Array.isArray(v) ? v : [v]).map(String);
    out.set(m[1]!, [...(out.get(m[1]!) ?? []), ...values]);
  }
  return out;
}

export function parseBbox(text: string): [number, number, number, number] {
  const n = text.split(',').map(Number);
  const [a, b, c, d] = n;
  if (n.length !== 4 || n.some((x) => !Number.isFinite(x)) || a! > c! || b! > d!) {
    throw new ApiError(400, ErrorCode.validationFailed, 'bbox must be minLon,minLat,maxLon,maxLat with min ≤ max');
  }
  return [a!, b!, c!, d!];
}

export function listParcels(db: Db, scope: Scope, filter: ParcelFilter): { rows: ParcelRow[]; count: number; hasMore: boolean } {
  const where: string[] = [`f.organization_id = @org`, FARM_VISIBLE];
  const named: Record<string, unknown> = { ...scopeParams(scope) };
  const positional: unknown[] = [];
  if (filter.farm !== undefined) {
    visibleFarm(db, scope, filter.farm);
    where.push('p.farm_id = @farm');
    named.farm = filter.farm;
  }
  if (filter.search) {
    where.push("p.name LIKE @search ESCAPE '\\'");
    named.search = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  if (filter.bbox) {
    where.push('p.id IN (SELECT id FROM parcels_rtree WHERE maxx >= @bx0 AND minx <= @bx1 AND maxy >= @by0 AND miny <= @by1)');
    Object.assign(named, { bx0: filter.bbox[0], by0: filter.bbox[1], bx1: filter.bbox[2], by1: filter.bbox[3] });
  }
  let metaSql = '';
  for (const [key, values] of filter.metadata ?? []) {
    metaSql += ` AND ${META_MATCH}`;
    positional.push(key, JSON.stringify(values));
  }
  // better-sqlite3 cannot mix named and positional parameters: inline the named ones as positional.
  const base = `FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE ${where.join(' AND ')}`;
  const toPositional = (sql: string, extra: Record<string, unknown>) => {
    const all = { ...named, ...extra };
    const args: unknown[] = [];
    const text = sql.replace(/@(\w+)/g, (_, name: string) => {
      args.push(all[name]);
      return '?';
    });
    return { text, args };
  };
  const countQ = toPositional(`SELECT COUNT(*) AS n ${base}`, {});
  const count = (db.prepare(countQ.text + metaSql).get(...countQ.args, ...positional) as { n: number }).n;
  const pageQ = toPositional(`SELECT ${PARCEL_COLUMNS} ${base} AND p.id > @after`, { after: filter.after ?? 0 });
  const rows = prep(db, `${pageQ.text}${metaSql} ORDER BY p.id LIMIT ?`).all(...pageQ.args, ...positional, filter.limit + 1) as ParcelRow[];
  const hasMore = rows.length > filter.limit;
  if (hasMore) rows.pop();
  return { rows, count, hasMore };
}


// The same Feature text as parcelFeatureJson, assembled by SQLite in one string: no row objects, no
// per-row concatenation in JS. SQLite's REAL-to-text conversion round-trips (up to 17 significant digits),
// so every number parses back to the very double the JS serializer writes in shortest form.
const FEATURE_SQL = `'{"type":"Feature","id":' || p.id || ',"bbox":[' || CAST(p.minx AS TEXT) || ',' || CAST(p.miny AS TEXT) || ','
  || CAST(p.maxx AS TEXT) || ',' || CAST(p.maxy AS TEXT) || '],"geometry":' || p.geometry || ',"properties":{"key":"' || p.key
  || '","name":' || json_quote(p.name) || ',"farm":' || p.farm_id || ',"hectares":' || CAST(p.hectares AS TEXT) || ',"metadata":' || p.metadata
  || ',"source_type":"' || p.source_type || '","point":' || coalesce(p.point, 'null') || ',"center":[' || CAST((p.minx + p.maxx) / 2 AS TEXT)
  || ',' || CAST((p.miny + p.maxy) / 2 AS TEXT) || '],"created":"' || p.created || '","modified":"' || p.modified || '"}}'`;

/**
 * GET /api/farms/{id}/parcels/ as a FeatureCollection text: every parcel of the farm, by id — the listing
 * clients use to reconcile an uncertain bulk create.
 */
export function farmParcelsJson(db: Db, scope: Scope, farmId: number): string {
  visibleFarm(db, scope, farmId);
  const r = prep(db, `SELECT count(*) AS n, coalesce(group_concat(f, ','), '') AS features
    FROM (SELECT ${FEATURE_SQL} AS f FROM parcels p WHERE p.farm_id = ? ORDER BY p.id)`).get(farmId) as { n: number; features: string };
  return `{"type":"FeatureCollection","features":[${r.features}],"count":${r.n},"next":null}`;
}
