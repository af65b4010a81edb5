import type { Db } from './db.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { ApiError } from '../../errors.ts';
import { ErrorCode, QueryProblem } from '../../../core/errors.ts';
import {
  MAX_METADATA_FILTERS, MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_FILTER_VALUES, MAX_METADATA_FILTER_VALUE_LENGTH, METADATA_FILTER_PARAM,
} from '../../../core/schemas/common.ts';
// Counted in code points, as core/parcels counts the stored keys and values the filters are compared with.
import { longerThan } from '../../../core/parcels/problems.ts';
import { FARM_VISIBLE, scopeParams, type Scope } from '../scope.ts';
import { PARCEL_COLUMNS, type ParcelRow } from '../parcel-json.ts';
import { visibleFarm } from './parcels.ts';
// The matching rule itself (values compared by their canonical text), shared with the desktop mirror's map.
import { metadataFilterSql } from '../../../core/parcels/metadata-filter.ts';

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

/** The parameter names the query schemas accept as filters (ParcelListQuery, the embedded map's). */
const FILTER = new RegExp(METADATA_FILTER_PARAM);

/**
 * Reads `metadata[<key>]=<value>` pairs out of a parsed query string ('+' in keys is already a space), within the
 * documented maxima: each key is one subquery, and ~950 of them overflowed SQLite's expression depth (a 500
 * reachable through the embedded map with nothing but an auth_id). Any other parameter was refused by the route's
 * query schema before this runs.
 */
export function metadataFilters(query: Record<string, unknown>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let values = 0;
  for (const [k, v] of Object.entries(query)) {
    const m = FILTER.exec(k);
    if (!m) continue;
    const key = m[1]!;
    const path = `querystring/${k.length > 60 ? `${k.slice(0, 60)}…` : k}`;
    if (longerThan(key, MAX_METADATA_FILTER_KEY_LENGTH)) {
      throw badQuery(`A metadata filter key may have at most ${MAX_METADATA_FILTER_KEY_LENGTH} characters`, path, QueryProblem.filterKeyTooLong);
    }
    const list = (Array.isArray(v) ? v : [v]).map(String);
    if (list.some((x) => longerThan(x, MAX_METADATA_FILTER_VALUE_LENGTH))) {
      throw badQuery(`A metadata filter value may have at most ${MAX_METADATA_FILTER_VALUE_LENGTH} characters`, path, QueryProblem.filterValueTooLong);
    }
    if (!out.has(key) && out.size >= MAX_METADATA_FILTERS) {
      throw badQuery(`At most ${MAX_METADATA_FILTERS} metadata keys can be filtered on at once`, 'querystring/metadata', QueryProblem.tooManyFilters);
    }
    values += list.length;
    if (values > MAX_METADATA_FILTER_VALUES) {
      throw badQuery(`At most ${MAX_METADATA_FILTER_VALUES} metadata filter values can be given at once`, 'querystring/metadata', QueryProblem.tooManyFilters);
    }
    out.set(key, [...(out.get(key) ?? []), ...list]);
  }
  return out;
}

const badQuery = (message: string, path: string, code: QueryProblem): ApiError =>
  new ApiError(ErrorCode.validationFailed, message, [{ path, code, message }]);

export function parseBbox(text: string): [number, number, number, number] {
  const n = text.split(',').map(Number);
  const [a, b, c, d] = n;
  if (n.length !== 4 || n.some((x) => !Number.isFinite(x)) || a! > c! || b! > d!) {
    throw badQuery('bbox must be minLon,minLat,maxLon,maxLat with min ≤ max', 'querystring/bbox', QueryProblem.bboxInvalid);
  }
  if (a! < -180 || c! > 180 || b! < -90 || d! > 90) {
    throw badQuery('bbox longitudes must lie within ±180 and latitudes within ±90 degrees', 'querystring/bbox', QueryProblem.bboxInvalid);
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
  const meta = metadataFilterSql('p.metadata', filter.metadata ?? new Map<string, string[]>());
  const metaSql = meta.sql ? ` AND ${meta.sql}` : '';
  positional.push(...meta.params);
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
  const rows = cachedStatement(db, `${pageQ.text}${metaSql} ORDER BY p.id LIMIT ?`).all(...pageQ.args, ...positional, filter.limit + 1) as ParcelRow[];
  const hasMore = rows.length > filter.limit;
  if (hasMore) rows.pop();
  return { rows, count, hasMore };
}
