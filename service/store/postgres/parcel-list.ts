// GET /api/parcels/ in PostgreSQL: the filters of ../parcel-list.ts as one statement (one snapshot for the count and
// the page), with SQLite's answers (../sqlite/parcel-list.ts):
// - search: SQLite's LIKE, which folds ASCII letters only (ILIKE would fold every letter the locale knows).
// - bbox: the GiST index on geom finds the candidates (&& a slightly larger envelope), then the test SQLite's
//   R*Tree makes decides: it keeps each box as 32-bit floats rounded outwards (rtreeValueDown/Up in SQLite's
//   rtree.c), so a parcel within a float's width of the edge is in SQLite's answer and must be in this one.
// - metadata: metadata-filter.ts.
import type { Pool } from 'pg';
import type { Scope } from '../scope.ts';
import { oneChunk, type ParcelFilter, type ParcelPage } from '../parcel-list.ts';
import type { ParcelRow } from '../parcel-json.ts';
import { FARM_VISIBLE, PARCEL_COLUMNS, scopeValues, visibleFarm } from './farm-scope.ts';
import { pgMetadataFilterSql } from './metadata-filter.ts';

const RND_TOWARDS = '0.99999988079071044921875::float8'; // 1 - 2^-23, SQLite's RNDTOWARDS
const RND_AWAY = '1.00000011920928955078125::float8'; // 1 + 2^-23, SQLite's RNDAWAY
/**
 * A coordinate as SQLite's R*Tree keeps it, rounded down (a box's min) or up (its max). PostgreSQL refuses to round
 * a double below float's range to a float, and such a coordinate is its own answer to within 1e-30 anyway.
 */
const rtree = (c: string, dir: 'down' | 'up') => `(CASE WHEN abs(${c}) < 1e-30 THEN ${c}
  WHEN ${c}::float4 ${dir === 'down' ? '>' : '<'} ${c}
    THEN (${c} * (CASE WHEN ${c} < 0 THEN ${dir === 'down' ? RND_AWAY : RND_TOWARDS} ELSE ${dir === 'down' ? RND_TOWARDS : RND_AWAY} END))::float4
  ELSE ${c}::float4 END)::float8`;
/** Wider than the R*Tree's rounding of any coordinate within ±180 (2 float ulps at 180 are under 3e-5 degrees). */
const PREFILTER_MARGIN = 1e-4;

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const ASCII_LOWER = (col: string) => `translate(${col}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

export async function pgListParcels(pool: Pool, scope: Scope, filter: ParcelFilter): Promise<ParcelPage> {
  const params: unknown[] = [...scopeValues(scope)];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = [FARM_VISIBLE, 'p.organization_id = $1'];
  if (filter.farm !== undefined) {
    await visibleFarm(pool, scope, filter.farm);
    where.push(`p.farm_id = ${p(filter.farm)}`);
  }
  if (filter.search) {
    where.push(`${ASCII_LOWER('p.name')} LIKE ${p(`%${asciiLower(filter.search).replace(/[\\%_]/g, (c) => `\\${c}`)}%`)} ESCAPE '\\'`);
  }
  if (filter.bbox) {
    const [x0, y0, x1, y1] = filter.bbox;
    const m = PREFILTER_MARGIN;
    where.push(`p.geom && ST_MakeEnvelope(${p(x0 - m)}, ${p(y0 - m)}, ${p(x1 + m)}, ${p(y1 + m)}, 4326)`);
    where.push(`${rtree('p.maxx', 'up')} >= ${p(x0)} AND ${rtree('p.minx', 'down')} <= ${p(x1)}`);
    where.push(`${rtree('p.maxy', 'up')} >= ${p(y0)} AND ${rtree('p.miny', 'down')} <= ${p(y1)}`);
  }
  const meta = pgMetadataFilterSql('p.metadata', filter.metadata ?? new Map<string, string[]>(), params.length + 1);
  params.push(...meta.params);
  if (meta.sql) where.push(meta.sql);
  const from = `FROM parcels p JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id WHERE ${where.join(' AND ')}`;
  // The count and the page in one statement, so both come from one snapshot; the count's row is there even when
  // the page is empty.
  const r = await pool.query<ParcelRow & { n: number }>(`SELECT c.n, page.* FROM (SELECT COUNT(*) AS n ${from}) c
    LEFT JOIN LATERAL (SELECT ${PARCEL_COLUMNS} ${from} AND p.id > ${p(filter.after ?? 0)} ORDER BY p.id LIMIT ${p(filter.limit + 1)}) page ON true
    ORDER BY page.id`, params);
  const count = r.rows[0]?.n ?? 0;
  const rows: ParcelRow[] = r.rows[0]?.id === null ? [] : r.rows.map(({ n: _n, ...row }) => row);
  const hasMore = rows.length > filter.limit;
  if (hasMore) rows.pop();
  return { count, hasMore, rows: oneChunk(rows) };
}
