// GET /api/parcels/'s filters and page, read from the query for any store (the SQLite store's query: sqlite/parcel-list.ts).
import { ApiError } from '../errors.ts';
import { ErrorCode, QueryProblem } from '../../core/errors.ts';
import {
  MAX_METADATA_FILTERS, MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_FILTER_VALUES, MAX_METADATA_FILTER_VALUE_LENGTH, METADATA_FILTER_PARAM,
} from '../../core/schemas/common.ts';
// Counted in code points, as core/parcels counts the stored keys and values the filters are compared with.
import { longerThan } from '../../core/parcels/problems.ts';
import type { ParcelRow } from './parcel-json.ts';

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


/** One page of a parcel listing: every match counted, the page's rows in id order read in chunks (a cursor's batches). */
export interface ParcelPage {
  /** The parcels matching the filter on every page. */
  count: number;
  /** Whether more parcels match after this page (its `next`). */
  hasMore: boolean;
  /** The page's rows (at most the filter's limit), in id order, a chunk at a time; iterated once. */
  rows: AsyncIterable<readonly ParcelRow[]>;
}

/** A page's rows as one array: a page read in one chunk (the SQLite store's) is not copied. */
export async function pageRows(page: Pick<ParcelPage, 'rows'>): Promise<readonly ParcelRow[]> {
  let all: readonly ParcelRow[] = [];
  let copied = false;
  for await (const chunk of page.rows) {
    if (all.length === 0) all = chunk;
    else if (copied) (all as ParcelRow[]).push(...chunk);
    else {
      all = [...all, ...chunk];
      copied = true;
    }
  }
  return all;
}

/** Rows already read, as a listing of one chunk. */
export async function* oneChunk<T>(rows: readonly T[]): AsyncIterable<readonly T[]> {
  if (rows.length) yield rows;
}
